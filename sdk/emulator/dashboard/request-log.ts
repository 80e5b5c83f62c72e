/**
 * @module emulator/dashboard/request-log
 * The recent requests to the service's API (`/public/v1/…` and the auth proxy's `/v1/…`), for
 * the dashboard: when, which operation, who (the user of the verified stamp, by name as it was
 * then), the HTTP status and the outcome (the activity's status, or the error's message). Kept
 * in memory, the newest {@link KEPT_REQUESTS}; the dashboard's own reads are not logged.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Caller } from "../handlers/types";
import { organizationOfBody } from "../rate-limit";
import type { Store } from "../store";

/** Requests kept (the oldest go first). */
export const KEPT_REQUESTS = 500;

/** One logged request. */
export interface RequestLogEntry {
  readonly atMs: number;
  readonly method: string;
  /** `/public/v1/submit/create_wallet`, `/v1/otp_init` … */
  readonly path: string;
  /** The request body's `organizationId` ("" when there is none). */
  readonly organizationId: string;
  /** The user whose stamp was verified; absent when none was (refused before, or the auth proxy). */
  readonly user?: { readonly id: string; readonly name: string; readonly apiKeyName?: string };
  readonly status: number;
  /** `COMPLETED`, `CONSENSUS_NEEDED` … for an activity, `ok` for another success, else the error's message. */
  readonly outcome: string;
  readonly durationMs: number;
}

const seen = new WeakMap<FastifyRequest, { caller?: Caller }>();

/** Where the pipeline puts the caller it authenticated for `req` (see `Dispatcher.main`). */
export function seenCallerOf(req: FastifyRequest): { caller?: Caller } {
  let slot = seen.get(req);
  if (!slot) {
    slot = {};
    seen.set(req, slot);
  }
  return slot;
}

function isApiPath(path: string): boolean {
  return path.startsWith("/public/v1/") || path.startsWith("/v1/");
}

/** What a response body says happened. */
function outcomeOf(status: number, payload: unknown): string {
  if (typeof payload !== "string") return status < 400 ? "ok" : `HTTP ${status}`;
  try {
    const body = JSON.parse(payload) as { activity?: { status?: unknown }; message?: unknown };
    if (status >= 400) return typeof body.message === "string" ? body.message : `HTTP ${status}`;
    return typeof body.activity?.status === "string" ? body.activity.status.replace(/^ACTIVITY_STATUS_/, "") : "ok";
  } catch {
    return status < 400 ? "ok" : `HTTP ${status}`;
  }
}

/** A bounded log of the API's requests, filled by the server's hooks. */
export class RequestLog {
  private readonly entries: RequestLogEntry[] = [];

  constructor(readonly capacity = KEPT_REQUESTS) {}

  /** Hooks the log into `app`; `store` names the callers. */
  attach(app: FastifyInstance, store: () => Store): void {
    const outcomes = new WeakMap<FastifyRequest, string>();
    app.addHook("onSend", async (req, reply, payload) => {
      if (isApiPath(req.url)) outcomes.set(req, outcomeOf(reply.statusCode, payload));
      return payload;
    });
    app.addHook("onResponse", async (req, reply) => {
      const path = req.url.split("?")[0] ?? "";
      if (!isApiPath(path)) return;
      const caller = seen.get(req)?.caller;
      const nowMs = Date.now();
      this.add({
        atMs: nowMs - Math.round(reply.elapsedTime),
        method: req.method,
        path,
        organizationId: Buffer.isBuffer(req.body) ? organizationOfBody(req.body) : "",
        ...(caller ? { user: userOf(store(), caller) } : {}),
        status: reply.statusCode,
        outcome: outcomes.get(req) ?? `HTTP ${reply.statusCode}`,
        durationMs: Math.round(reply.elapsedTime),
      });
    });
  }

  add(entry: RequestLogEntry): void {
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** Newest first; with `organizationId`, that organization's requests and those naming none. */
  list(organizationId?: string): RequestLogEntry[] {
    const shown = organizationId === undefined ? this.entries : this.entries.filter((e) => e.organizationId === organizationId || e.organizationId === "");
    return [...shown].reverse();
  }
}

function userOf(store: Store, caller: Caller): RequestLogEntry["user"] {
  const name = store.users.get(caller.organizationId, caller.userId)?.name ?? caller.userId;
  const apiKeyName = caller.apiKeyId ? store.apiKeys.get(caller.organizationId, caller.apiKeyId)?.name : undefined;
  return { id: caller.userId, name, ...(apiKeyName !== undefined ? { apiKeyName } : {}) };
}
