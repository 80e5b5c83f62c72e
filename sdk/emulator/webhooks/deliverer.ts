/**
 * @module emulator/webhooks/deliverer
 * Delivers `ACTIVITY_UPDATES` events to webhook endpoints, after the activity's transaction
 * committed (never inside it: a slow receiver cannot hold the database).
 *
 * Who receives an event: every active endpoint of the activity's organization with an active
 * `ACTIVITY_UPDATES` subscription whose filter (if any) matches. Filter keys understood:
 * `type` and `status` (a string or an array of strings, matched against the activity's
 * `type` and `status`); other keys are ignored.
 *
 * Each delivery is a `POST` of the JSON event (see {@link WebhookEvent}) with headers
 * `X-Keyform-Event-Id`, `X-Keyform-Event-Type`, `X-Keyform-Delivery-Attempt`,
 * `X-Keyform-Timestamp` and `X-Keyform-Signature` (`crypto/webhook-signature.ts`). A non-2xx
 * answer, a network error or a timeout is retried with exponential backoff (base × 2^(n-1),
 * capped, with ±20 % jitter) up to `maxAttempts` attempts in all; then the event is dropped and
 * logged. Every attempt is recorded in `webhook_deliveries` (status, answer or error, the next
 * attempt's time), which the local dashboard shows. Retries are scheduled in memory: those
 * still pending when the emulator stops are lost; an endpoint deleted meanwhile gets no more.
 */
import { randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { Activity } from "keyform/wire/activity";
import { signWebhookPayload } from "keyform/crypto/webhook-signature";
import type { SignerKey } from "../handlers/types";
import { activityView } from "../handlers/views";
import { Store, type ActivityRow, type Db } from "../store";
import { webhookStoreOf } from "../store/webhooks";

/** How much of an endpoint's answer an attempt's record keeps. */
const KEPT_RESPONSE_CHARS = 500;

/** What one attempt came to. */
interface AttemptOutcome {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly response: string | null;
  readonly error: string | null;
  readonly startedMs: number;
  readonly durationMs: number;
}

/** The event type the emulator emits. */
export const ACTIVITY_UPDATES = "ACTIVITY_UPDATES";

/** Body of a delivery. */
export interface WebhookEvent {
  /** Unique per event; the same in every retry of it. */
  eventId: string;
  eventType: typeof ACTIVITY_UPDATES;
  organizationId: string;
  endpointId: string;
  /** When the event was created, RFC 3339. */
  createdAt: string;
  data: { activity: Activity };
}

/** Retry and timeout settings of deliveries. */
export interface WebhookDeliveryOptions {
  /** Attempts in all (first try included); default 6. */
  maxAttempts?: number;
  /** Delay before the first retry; default 1000 ms. */
  baseDelayMs?: number;
  /** Cap of a retry delay; default 60 000 ms. */
  maxDelayMs?: number;
  /** Per attempt; default 10 000 ms. */
  timeoutMs?: number;
}

function matchesFilter(filtersJson: string | null, activity: ActivityRow): boolean {
  if (filtersJson === null) return true;
  let filter: unknown;
  try {
    filter = JSON.parse(filtersJson);
  } catch {
    return true;
  }
  if (typeof filter !== "object" || filter === null) return true;
  const test = (wanted: unknown, actual: string): boolean => {
    if (wanted === undefined) return true;
    if (typeof wanted === "string") return wanted === actual;
    return Array.isArray(wanted) ? wanted.length === 0 || wanted.includes(actual) : true;
  };
  const f = filter as { type?: unknown; status?: unknown };
  return test(f.type, activity.type) && test(f.status, activity.status);
}

/** Sends events to endpoints and retries failures; one per running emulator. */
export class WebhookDeliverer {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<AbortController>();
  private readonly pending = new Set<Promise<void>>();
  private closed = false;
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly timeoutMs: number;
  /** Reads votes and voters for the activity views of the payloads. */
  private readonly store: Store;

  constructor(
    private readonly db: Db,
    private readonly signer: SignerKey,
    private readonly log: FastifyBaseLogger,
    options: WebhookDeliveryOptions = {},
  ) {
    this.store = new Store(db);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? 6);
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Queues the `ACTIVITY_UPDATES` events of a committed activity. Never throws. */
  activityCommitted(row: ActivityRow): void {
    if (this.closed) return;
    const store = webhookStoreOf(this.db);
    for (const endpoint of store.list(row.org_id)) {
      if (endpoint.is_active !== 1) continue;
      const subscribed = store
        .subscriptions(endpoint.id)
        .some((s) => s.event_type === ACTIVITY_UPDATES && s.is_active === 1 && matchesFilter(s.filters_json, row));
      if (!subscribed) continue;
      const event: WebhookEvent = {
        eventId: randomUUID(),
        eventType: ACTIVITY_UPDATES,
        organizationId: row.org_id,
        endpointId: endpoint.id,
        createdAt: new Date().toISOString(),
        data: { activity: activityView(row, this.store) },
      };
      this.attempt(endpoint.url, event, JSON.stringify(event), 1);
    }
  }

  private attempt(url: string, event: WebhookEvent, body: string, attempt: number): void {
    if (this.closed) return;
    const run = this.send(url, event, body, attempt).then((outcome) => {
      if (this.closed) return;
      const retry = !outcome.ok && attempt < this.maxAttempts;
      const exp = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** (attempt - 1));
      const delay = Math.round(exp * (0.8 + Math.random() * 0.4));
      if (!this.record(event, attempt, outcome, retry ? Date.now() + delay : null) || outcome.ok) return;
      if (!retry) {
        this.log.warn({ endpointId: event.endpointId, eventId: event.eventId, attempts: attempt }, "webhook delivery abandoned");
        return;
      }
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        this.attempt(url, event, body, attempt + 1);
      }, delay);
      this.timers.add(timer);
    });
    this.pending.add(run);
    void run.finally(() => this.pending.delete(run));
  }

  /**
   * Stores the attempt in its own transaction.
   * @returns false when the endpoint no longer exists (deleted, or the data reset): no retry then
   */
  private record(event: WebhookEvent, attempt: number, outcome: AttemptOutcome, nextAttemptMs: number | null): boolean {
    const store = webhookStoreOf(this.db);
    if (!store.get(event.organizationId, event.endpointId)) return false;
    store.recordDelivery({
      id: randomUUID(),
      endpoint_id: event.endpointId,
      event_id: event.eventId,
      activity_id: event.data.activity.id,
      activity_status: event.data.activity.status,
      attempt,
      ok: outcome.ok ? 1 : 0,
      status_code: outcome.statusCode,
      response: outcome.response,
      error: outcome.error,
      started_ms: outcome.startedMs,
      duration_ms: outcome.durationMs,
      next_attempt_ms: nextAttemptMs,
    });
    return true;
  }

  /** One POST; never throws. */
  private async send(url: string, event: WebhookEvent, body: string, attempt: number): Promise<AttemptOutcome> {
    const abort = new AbortController();
    this.inFlight.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    const startedMs = Date.now();
    const done = (ok: boolean, statusCode: number | null, response: string | null, error: string | null): AttemptOutcome => ({
      ok,
      statusCode,
      response,
      error,
      startedMs,
      durationMs: Date.now() - startedMs,
    });
    try {
      const timestamp = String(startedMs);
      const response = await fetch(url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "keyform-emulator",
          "x-keyform-event-id": event.eventId,
          "x-keyform-event-type": event.eventType,
          "x-keyform-delivery-attempt": String(attempt),
          "x-keyform-timestamp": timestamp,
          "x-keyform-signature": signWebhookPayload(body, timestamp, this.signer.privateKey),
        },
        body,
        signal: abort.signal,
      });
      // Read the body (the connection can then be reused); its start is kept for the record.
      const text = (await response.text().catch(() => "")).slice(0, KEPT_RESPONSE_CHARS);
      if (response.status >= 200 && response.status < 300) return done(true, response.status, text || null, null);
      this.log.info({ endpointId: event.endpointId, eventId: event.eventId, attempt, status: response.status }, "webhook delivery refused");
      return done(false, response.status, text || null, `the endpoint answered HTTP ${response.status}`);
    } catch (error) {
      const reason = abort.signal.aborted && abort.signal.reason instanceof Error ? abort.signal.reason.message : errorText(error);
      this.log.info({ endpointId: event.endpointId, eventId: event.eventId, attempt, reason }, "webhook delivery failed");
      return done(false, null, null, reason);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  /** Cancels scheduled retries and aborts requests in flight, and goes on delivering new events (the data was reset). */
  cancelPending(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const abort of this.inFlight) abort.abort(new Error("cancelled: the emulator's data was reset"));
  }

  /** Stops: cancels scheduled retries and aborts requests in flight. */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelPending();
    await Promise.allSettled([...this.pending]);
  }
}

/** A fetch failure's message with its cause (undici reports "fetch failed" and puts the reason in `cause`). */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
