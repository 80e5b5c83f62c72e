/**
 * @module client/transport
 * The one request pipeline every call goes through:
 * serialize the body once → stamp it → POST with a per-attempt timeout → map failures to
 * typed errors → retry the retryable ones with the same bytes → parse the response with the
 * operation's zod schema.
 *
 * The body is serialized and stamped once, before the first attempt, so every retry sends
 * byte-identical content with the same stamp. For an activity submit that is what makes a
 * retry safe: the service identifies activities by the fingerprint of the exact body.
 *
 * Requests go through a keep-alive `node:http`/`node:https` connection pool (`http-pool.ts`)
 * unless a `fetch` is given: no per-request fetch machinery, and connections are reused.
 */
import type { z } from "zod";
import { activityFingerprint } from "../protocol/fingerprint";
import {
  ApiError,
  ConnectionError,
  FirstByteTimeoutError,
  KeyformError,
  ResponseValidationError,
  TimeoutError,
  type ErrorContext,
} from "./errors";
import { fetchPost, NoFirstByte, poolPost, TIMED_OUT, type HttpAnswer } from "./http-pool";
import type { Pacer } from "./service-pace";
import { backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetryOptions, sleep, type ResolvedRetryOptions, type RetryOptions } from "./retry";
import type { Stamper } from "../protocol/stamper";

/** Sent as `X-Client-Version` on every request. */
/** Re-exported: the client's callers have always found it here. */
export { activityFingerprint };

export const CLIENT_VERSION = "keyform@0.1.0";

/** Default per-attempt timeout. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Default time an attempt may take to connect and receive the first byte of its answer. The
 * service answers within a second or two; a server that is silent for this long is not going to
 * answer, and waiting for the whole budget only delays the error.
 */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 15_000;

/**
 * Structured events for a `logger` option. They carry names, statuses and timings only:
 * never bodies, headers, stamps or keys.
 */
export type ClientLogEvent =
  | { type: "request.start"; operation: string; path: string; attempt: number }
  | {
      type: "request.end";
      operation: string;
      path: string;
      attempt: number;
      /** HTTP status, absent when no response arrived. */
      status?: number;
      durationMs: number;
      outcome: "ok" | "error";
      /** Error class name on failure, e.g. `RateLimitError`. */
      error?: string;
    }
  | { type: "retry"; operation: string; attempt: number; delayMs: number; reason: string }
  | { type: "activity.poll"; operation: string; activityId: string; status: string; elapsedMs: number };

/** Receives {@link ClientLogEvent}s. A logger that throws is ignored. */
export type ClientLogger = (event: ClientLogEvent) => void;

/** Settings of a {@link Transport}. */
export interface TransportOptions {
  /** Service URL, e.g. `http://127.0.0.1:8080`; a trailing slash is removed. */
  baseUrl: string;
  /** Signs each body; omitted for the unauthenticated auth proxy. */
  stamper?: Stamper | undefined;
  /**
   * `fetch` implementation to send with instead of the built-in keep-alive connection pool
   * (tests inject faults this way).
   */
  fetch?: typeof fetch | undefined;
  /**
   * Paces every attempt (retries included), learns from the budget headers of every answer
   * (`ServicePace`), and is held by a server's `Retry-After` on 429; share one between clients
   * to pace them together. Default: no pacing.
   */
  rateLimiter?: Pacer | undefined;
  /**
   * Told the path of every request when it is sent and again when its answer (or failure)
   * arrives; e.g. to make cached reads stale on every write.
   */
  onRequest?: ((path: string) => void) | undefined;
  /** Per-attempt timeout in ms (default 30_000). */
  timeoutMs?: number | undefined;
  /**
   * Time in ms an attempt may take to connect and receive the first byte of the answer (default
   * {@link DEFAULT_FIRST_BYTE_TIMEOUT_MS}); when it runs out the call fails with a
   * {@link FirstByteTimeoutError}, without retrying. Only applies when shorter than `timeoutMs`.
   */
  firstByteTimeoutMs?: number | undefined;
  /**
   * Budget of a whole call in ms: every attempt and every backoff wait together (default: none,
   * only the per-attempt timeout). A silent server then fails the call once within it, instead
   * of once per attempt.
   */
  budgetMs?: number | undefined;
  retry?: RetryOptions | undefined;
  logger?: ClientLogger | undefined;
  /** Extra headers sent with every request (e.g. `X-Auth-Proxy-Config-Id`). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Randomness for backoff jitter (tests). */
  random?: (() => number) | undefined;
}

/** One call through the pipeline. */
export interface TransportRequest<S extends z.ZodType> {
  /** camelCase operation name, for errors and log events. */
  operation: string;
  /** Path below the base URL, e.g. `/public/v1/query/list_user_tags`. */
  path: string;
  /** The body object; serialized once with `JSON.stringify`. */
  body: unknown;
  /** Schema of a successful response. */
  schema: S;
  /**
   * Compute the activity fingerprint of the body (`sha256:<hex>`) and attach it to every
   * error of this call.
   */
  fingerprint?: boolean;
  /** Activity id to name in errors (e.g. while polling `get_activity`). */
  activityId?: string | undefined;
  /** Fingerprint of an earlier submit to name in errors (e.g. while polling). */
  activityFingerprint?: string | undefined;
  /**
   * Whether resending is harmless even if the server already acted on an attempt (default
   * true: queries read, activity submits are deduplicated by fingerprint). When false, only
   * failures where the server certainly did not act are retried: 429, 503 and a refused
   * connection.
   */
  idempotent?: boolean;
  /** This call's budget in ms, instead of the transport's `budgetMs` (e.g. what is left of an earlier call's). */
  budgetMs?: number | undefined;
}

/** What a successful call returns. */
export interface TransportResponse<T> {
  data: T;
  /** HTTP status of the successful attempt. */
  status: number;
  /** `sha256:<hex>` of the body, when requested. */
  fingerprint: string | undefined;
}


/**
 * Connection failures that happen before a byte of the request leaves: refused, unknown host,
 * or refused by `fetch` itself (a blocked port carries no code).
 */
const NOT_SENT_CODES = new Set<string | undefined>(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", undefined]);

/** Errors of calls none of whose attempts can have reached the service (see {@link neverReachedService}). */
const unsent = new WeakSet<object>();

/**
 * True when `error` ended a call none of whose attempts can have reached the service: every
 * attempt failed before sending (refused at connect, unknown host) or was answered 429. Such a submit certainly did
 * nothing; any other failure without an answer may have been applied.
 */
export function neverReachedService(error: unknown): boolean {
  return typeof error === "object" && error !== null && unsent.has(error);
}

/**
 * Sends requests. Holds no per-request state, so one instance serves concurrent calls.
 */
export class Transport {
  /** The base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly firstByteTimeoutMs: number;
  readonly budgetMs: number | undefined;
  readonly retry: ResolvedRetryOptions;
  /** The address the service last said it sees this client from (`x-rate-limit-request-remote-addr`), when it says. */
  remoteAddress: string | undefined;
  private readonly stamper: Stamper | undefined;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly rateLimiter: Pacer | undefined;
  private readonly onRequest: ((path: string) => void) | undefined;
  private readonly logger: ClientLogger | undefined;
  private readonly extraHeaders: Readonly<Record<string, string>>;
  private readonly random: () => number;

  /**
   * @throws {TypeError} when `baseUrl` is empty or not an http(s) URL, or `fetch` is not a function.
   * @throws {RangeError} when `timeoutMs` or a retry setting is out of range.
   */
  constructor(options: TransportOptions) {
    if (typeof options.baseUrl !== "string" || options.baseUrl.trim() === "") {
      throw new TypeError("baseUrl must be a non-empty URL");
    }
    const baseUrl = options.baseUrl.trim().replace(/\/+$/, "");
    if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
      throw new TypeError(`baseUrl must start with http:// or https://, got "${baseUrl}"`);
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new RangeError(`timeoutMs must be a positive number, got ${String(timeoutMs)}`);
    }
    const firstByteTimeoutMs = options.firstByteTimeoutMs ?? DEFAULT_FIRST_BYTE_TIMEOUT_MS;
    if (!Number.isFinite(firstByteTimeoutMs) || firstByteTimeoutMs <= 0) {
      throw new RangeError(`firstByteTimeoutMs must be a positive number, got ${String(firstByteTimeoutMs)}`);
    }
    const budgetMs = options.budgetMs;
    if (budgetMs !== undefined && (!Number.isFinite(budgetMs) || budgetMs <= 0)) {
      throw new RangeError(`budgetMs must be a positive number, got ${String(budgetMs)}`);
    }
    const fetchImpl = options.fetch;
    if (fetchImpl !== undefined && typeof fetchImpl !== "function") {
      throw new TypeError("options.fetch must be a function");
    }
    this.baseUrl = baseUrl;
    this.timeoutMs = timeoutMs;
    this.firstByteTimeoutMs = firstByteTimeoutMs;
    this.budgetMs = budgetMs;
    this.retry = resolveRetryOptions(options.retry);
    this.stamper = options.stamper;
    this.fetchImpl = fetchImpl;
    this.rateLimiter = options.rateLimiter;
    this.onRequest = options.onRequest;
    this.logger = options.logger;
    this.extraHeaders = { ...(options.headers ?? {}) };
    this.random = options.random ?? Math.random;
  }

  /**
   * Runs one call through the pipeline.
   *
   * @throws {ApiError} (a status subclass) for a non-2xx answer, after retries for 429/502/503/504.
   * @throws {ConnectionError} when the connection failed on every attempt.
   * @throws {TimeoutError} when the last attempt timed out.
   * @throws {ResponseValidationError} when a 2xx body is not JSON or does not match `schema`.
   */
  async send<S extends z.ZodType>(request: TransportRequest<S>): Promise<TransportResponse<z.output<S>>> {
    const bodyText = JSON.stringify(request.body);
    const fingerprint = request.fingerprint ? activityFingerprint(bodyText) : request.activityFingerprint;
    const context: ErrorContext = { operation: request.operation, fingerprint, activityId: request.activityId };
    const url = this.baseUrl + request.path;
    const idempotent = request.idempotent ?? true;
    const organizationId = organizationOf(request.body);

    const headers: Record<string, string> = {
      ...this.extraHeaders,
      "Content-Type": "application/json",
      Accept: "application/json",
      "X-Client-Version": CLIENT_VERSION,
    };
    if (this.stamper) {
      // Stamped once: retries resend the same bytes with the same stamp.
      const stamp = await this.stamper.stamp(bodyText);
      headers[stamp.name] = stamp.value;
    }

    const budgetMs = request.budgetMs ?? this.budgetMs;
    const deadline = budgetMs === undefined ? Infinity : Date.now() + budgetMs;
    // A retry is worth waiting for only when it can still start within the budget.
    const fitsBudget = (delayMs: number) => Date.now() + delayMs < deadline;
    // Whether an attempt may have reached the service (and, for a submit, been applied).
    let reached = false;
    const fail = (error: unknown): never => {
      if (!reached && typeof error === "object" && error !== null) unsent.add(error);
      throw error;
    };
    for (let attempt = 1; ; attempt++) {
      const retriesLeft = this.retry.maxRetries - (attempt - 1);
      const started = Date.now();
      this.log({ type: "request.start", operation: request.operation, path: request.path, attempt });

      let response: HttpAnswer;
      try {
        if (this.rateLimiter) await this.rateLimiter.acquire(organizationId);
        response = await this.attempt(url, request.path, headers, bodyText, context, Math.max(1, Math.min(this.timeoutMs, deadline - Date.now())));
        this.rateLimiter?.observe?.(organizationId, response.header("ratelimit-limit"), response.header("ratelimit-remaining"));
      } catch (error) {
        this.rateLimiter?.settled?.();
        this.log({
          type: "request.end",
          operation: request.operation,
          path: request.path,
          attempt,
          durationMs: Date.now() - started,
          outcome: "error",
          error: errorName(error),
        });
        if (!(error instanceof ConnectionError && NOT_SENT_CODES.has(error.errorCode))) reached = true;
        const delay = backoffDelay(attempt - 1, this.retry, this.random);
        if (retriesLeft > 0 && isRetryableFailure(error, idempotent) && fitsBudget(delay)) {
          const reason = error instanceof TimeoutError ? "timeout" : `connection: ${error.errorCode ?? "network error"}`;
          await this.pause(request.operation, attempt, delay, reason);
          continue;
        }
        return fail(error);
      }

      const { text } = response;
      // The address the service sees this client from, which it echoes on every answer.
      this.remoteAddress = response.header("x-rate-limit-request-remote-addr") ?? this.remoteAddress;
      if (response.status !== 429) reached = true;
      const durationMs = Date.now() - started;
      if (response.status >= 200 && response.status < 300) {
        this.log({
          type: "request.end",
          operation: request.operation,
          path: request.path,
          attempt,
          status: response.status,
          durationMs,
          outcome: "ok",
        });
        return { data: parseResponse(text, request.schema, context), status: response.status, fingerprint };
      }

      const error = ApiError.from(response.status, text, {
        ...context,
        requestId: response.header("x-request-id"),
        statusText: response.statusText,
      });
      this.log({
        type: "request.end",
        operation: request.operation,
        path: request.path,
        attempt,
        status: response.status,
        durationMs,
        outcome: "error",
        error: error.name,
      });
      if (retriesLeft > 0 && (idempotent ? isRetryableStatus(response.status) : response.status === 429 || response.status === 503)) {
        const retryAfter =
          response.status === 429 || response.status === 503
            ? parseRetryAfter(response.header("retry-after"), this.retry.maxRetryAfterMs)
            : undefined;
        const delay = retryAfter ?? backoffDelay(attempt - 1, this.retry, this.random);
        // The server asked every request of this organization to wait, not only this one.
        if (retryAfter !== undefined && response.status === 429) this.rateLimiter?.holdUntil(Date.now() + retryAfter);
        if (fitsBudget(delay)) {
          await this.pause(request.operation, attempt, delay, `HTTP ${response.status}`);
          continue;
        }
      }
      return fail(error);
    }
  }

  /** One POST with its own timeout; the body is read inside the timeout too. */
  private async attempt(url: string, path: string, headers: Record<string, string>, body: string, context: ErrorContext, timeoutMs: number): Promise<HttpAnswer> {
    this.onRequest?.(path);
    try {
      const firstByteMs = this.firstByteTimeoutMs;
      return await (this.fetchImpl ? fetchPost(this.fetchImpl, url, headers, body, timeoutMs, firstByteMs) : poolPost(url, headers, body, timeoutMs, firstByteMs));
    } catch (error) {
      if (error === TIMED_OUT) throw new TimeoutError(context, timeoutMs);
      if (error instanceof NoFirstByte) throw new FirstByteTimeoutError(context, error.afterMs, error.connected);
      if (error instanceof KeyformError) throw error;
      throw new ConnectionError(context, networkErrorCode(error), error);
    } finally {
      this.onRequest?.(path);
    }
  }

  private async pause(operation: string, attempt: number, delayMs: number, reason: string): Promise<void> {
    this.log({ type: "retry", operation, attempt, delayMs, reason });
    await sleep(delayMs);
  }

  /** Emits a log event; a failing logger never breaks a request. */
  log(event: ClientLogEvent): void {
    if (!this.logger) return;
    try {
      this.logger(event);
    } catch {
      // Logging is best effort.
    }
  }
}

/** The organization a request acts in, as the service counts it: its body's `organizationId`. */
function organizationOf(body: unknown): string | undefined {
  const id = (body as { organizationId?: unknown } | null)?.organizationId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function parseResponse<S extends z.ZodType>(text: string, schema: S, context: ErrorContext): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ResponseValidationError(context, `body is not JSON (${text.length} bytes)`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ResponseValidationError({ ...context, activityId: context.activityId ?? activityIdOf(json) }, parsed.error);
  return parsed.data;
}

/** The id of the activity an answer is about, when it names one: the error should say which. */
function activityIdOf(json: unknown): string | undefined {
  const id = (json as { activity?: { id?: unknown } } | null)?.activity?.id;
  return typeof id === "string" ? id : undefined;
}

/** Network failures worth another attempt; see {@link TransportRequest.idempotent}. */
function isRetryableFailure(error: unknown, idempotent: boolean): error is ConnectionError | TimeoutError {
  if (error instanceof FirstByteTimeoutError) return false;
  if (error instanceof TimeoutError) return idempotent;
  if (error instanceof ConnectionError) return idempotent || error.errorCode === "ECONNREFUSED";
  return false;
}

/** Finds a low-level code such as `ECONNRESET` in an error or its causes. */
function networkErrorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
