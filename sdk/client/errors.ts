/**
 * @module client/errors
 * Every error the client throws. All extend {@link KeyformError} and name the operation they
 * came from. HTTP errors are built by one factory, {@link ApiError.from}, which picks the
 * subclass by status (docs/service-facts.md#5-errors). Activity outcomes that are not a result (FAILED,
 * REJECTED, CONSENSUS_NEEDED, …) have their own classes carrying the activity id and the
 * fingerprint, so a caller can approve, inspect or resubmit.
 *
 * Messages never contain request bodies, stamp headers or keys: only the operation, the
 * status, the server's own message and field paths.
 */
import type { z } from "zod";
import { ErrorBody, describeZodError } from "../wire/shared";

/** Identifies what a failure belongs to. */
export interface ErrorContext {
  /** camelCase operation name, e.g. `createUserTag`. */
  readonly operation: string;
  /** Activity id, when the server already assigned one. */
  readonly activityId?: string | undefined;
  /** `sha256:<hex>` of the exact submitted body (activities only). */
  readonly fingerprint?: string | undefined;
}

/** Base class of every error raised by the client. */
export class KeyformError extends Error {
  /** camelCase name of the operation that failed. */
  readonly operation: string;

  constructor(message: string, operation: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.operation = operation;
  }
}

export { InvalidApiKeyError } from "../protocol/errors";

/** The gRPC code the service uses for each HTTP status (docs/service-facts.md#5-errors), for local errors. */
const INVALID_ARGUMENT = 3;

/**
 * A non-2xx answer from the service. `code` and `details` come from the `{code, message,
 * details}` error body; `serverMessage` is the service's own message (it names the field).
 * Use {@link ApiError.from} to build one: it returns the subclass matching the status.
 */
export class ApiError extends KeyformError {
  /** HTTP status. */
  readonly status: number;
  /** gRPC status code from the body, or `undefined` when the body was not an error body. */
  readonly code: number | undefined;
  /** The service's message, unchanged (empty when the body was not an error body). */
  readonly serverMessage: string;
  /** `details` of the error body (`[]` when absent). */
  readonly details: unknown[];
  /** Activity id, when known. */
  readonly activityId: string | undefined;
  /** Fingerprint of the submitted body, for activity submits. */
  readonly fingerprint: string | undefined;
  /** Request id from the response headers, when the server sent one. */
  readonly requestId: string | undefined;

  constructor(
    status: number,
    body: { code?: number | undefined; message?: string | undefined; details?: unknown[] | undefined },
    context: ErrorContext & { requestId?: string | undefined; statusText?: string | undefined },
  ) {
    const serverMessage = body.message ?? "";
    const codePart = body.code === undefined ? "" : `, code ${body.code}`;
    const what = serverMessage || context.statusText || "no error message";
    const fingerprintPart = context.fingerprint ? ` [fingerprint ${context.fingerprint}]` : "";
    super(`${context.operation} failed (HTTP ${status}${codePart}): ${what}${fingerprintPart}`, context.operation);
    this.status = status;
    this.code = body.code;
    this.serverMessage = serverMessage;
    this.details = body.details ?? [];
    this.activityId = context.activityId;
    this.fingerprint = context.fingerprint;
    this.requestId = context.requestId;
  }

  /**
   * Builds the error for an HTTP status and a response body, choosing the subclass by status:
   * 400 {@link BadRequestError}, 401 {@link AuthenticationError}, 403
   * {@link PermissionDeniedError}, 404 {@link NotFoundError}, 409 {@link ConflictError}, 413
   * {@link PayloadTooLargeError}, 429 {@link RateLimitError}, 501 {@link NotImplementedError},
   * other 5xx {@link InternalServerError}, anything else a plain {@link ApiError}.
   *
   * @param body the response text or its parsed JSON; a body that is not a `{code, message}`
   *   error body is not copied into the error (it could be a large HTML page).
   */
  static from(
    status: number,
    body: unknown,
    context: ErrorContext & { requestId?: string | undefined; statusText?: string | undefined },
  ): ApiError {
    let parsedBody: unknown = body;
    if (typeof body === "string") {
      try {
        parsedBody = JSON.parse(body);
      } catch {
        parsedBody = undefined;
      }
    }
    const parsed = ErrorBody.safeParse(parsedBody);
    const errorBody = parsed.success ? parsed.data : {};
    const Class = errorClassForStatus(status);
    return new Class(status, errorBody, context);
  }
}

/** HTTP 400: the service rejected an argument (gRPC 3 INVALID_ARGUMENT or 9). */
export class BadRequestError extends ApiError {}
/** HTTP 401: the stamp's public key is unknown or the stamp is invalid (gRPC 16). */
export class AuthenticationError extends ApiError {}
/** HTTP 403: a policy denied the action (gRPC 7); `details` carries the policy evaluations. */
export class PermissionDeniedError extends ApiError {}
/** HTTP 404: the object does not exist (gRPC 5). */
export class NotFoundError extends ApiError {}
/** HTTP 409: the object already exists or conflicts (gRPC 6). Never retried. */
export class ConflictError extends ApiError {}
/** HTTP 413: the request body is too large. */
export class PayloadTooLargeError extends ApiError {}
/** HTTP 429: rate limit or quota (gRPC 8); retried after `Retry-After`. */
export class RateLimitError extends ApiError {}
/** HTTP 501: the operation is not implemented (gRPC 12). */
export class NotImplementedError extends ApiError {}
/** HTTP 5xx other than 501 (gRPC 13 and gateway errors). */
export class InternalServerError extends ApiError {}

type ApiErrorClass = new (...args: ConstructorParameters<typeof ApiError>) => ApiError;

function errorClassForStatus(status: number): ApiErrorClass {
  switch (status) {
    case 400:
      return BadRequestError;
    case 401:
      return AuthenticationError;
    case 403:
      return PermissionDeniedError;
    case 404:
      return NotFoundError;
    case 409:
      return ConflictError;
    case 413:
      return PayloadTooLargeError;
    case 429:
      return RateLimitError;
    case 501:
      return NotImplementedError;
    default:
      return status >= 500 && status <= 599 ? InternalServerError : ApiError;
  }
}

/**
 * Arguments rejected by the client before anything was sent. It is a {@link BadRequestError}
 * (status 400, code 3) so that callers handle a local and a remote rejection the same way;
 * `local` tells them apart and `fields` lists the offending field paths.
 */
export class RequestValidationError extends BadRequestError {
  /** Always `true`: nothing reached the server. */
  readonly local = true;
  /** Dotted paths of the offending fields, e.g. `parameters.userTagName`. */
  readonly fields: string[];

  constructor(error: z.ZodError, root: string, context: ErrorContext) {
    super(400, { code: INVALID_ARGUMENT, message: `invalid argument: ${describeZodError(error, root)}`, details: [] }, context);
    this.message = `${context.operation}: invalid argument: ${describeZodError(error, root)}`;
    this.fields = zodPaths(error, root);
  }
}

/** The service could not be reached, or the connection broke (refused, reset, DNS). */
export class ConnectionError extends KeyformError {
  /** Low-level error code, e.g. `ECONNRESET`, when known. */
  readonly errorCode: string | undefined;
  readonly fingerprint: string | undefined;

  constructor(context: ErrorContext, errorCode: string | undefined, cause: unknown) {
    const fingerprintPart = context.fingerprint ? ` [fingerprint ${context.fingerprint}]` : "";
    super(`${context.operation}: connection failed (${errorCode ?? "network error"})${fingerprintPart}`, context.operation, {
      cause,
    });
    this.errorCode = errorCode;
    this.fingerprint = context.fingerprint;
  }
}

/** An attempt took longer than `timeoutMs` (per attempt). */
export class TimeoutError extends KeyformError {
  readonly timeoutMs: number;
  readonly fingerprint: string | undefined;

  constructor(context: ErrorContext, timeoutMs: number) {
    const fingerprintPart = context.fingerprint ? ` [fingerprint ${context.fingerprint}]` : "";
    super(`${context.operation}: no response within ${timeoutMs} ms${fingerprintPart}`, context.operation);
    this.timeoutMs = timeoutMs;
    this.fingerprint = context.fingerprint;
  }
}

/**
 * Nothing of the answer arrived within the first-byte time: the connection was not made, or
 * the server accepted it and stayed silent. Not retried: a server that says nothing for that
 * long is not the service, or not working, and every retry would cost the same again.
 */
export class FirstByteTimeoutError extends TimeoutError {
  /** Whether the connection was made (undefined when the sender cannot tell). */
  readonly connected: boolean | undefined;

  constructor(context: ErrorContext, firstByteTimeoutMs: number, connected: boolean | undefined) {
    super(context, firstByteTimeoutMs);
    this.connected = connected;
    const cause =
      connected === true
        ? "the server accepted the connection but sent nothing"
        : connected === false
          ? "the connection was not made"
          : "nothing arrived (connection and first byte)";
    this.message = `${context.operation}: ${cause} within ${firstByteTimeoutMs} ms${context.fingerprint ? ` [fingerprint ${context.fingerprint}]` : ""}`;
  }
}

/**
 * A 2xx response that does not match the operation's schema, or is not JSON. The message
 * names the operation and every failing field path, never the body itself.
 */
export class ResponseValidationError extends KeyformError {
  /** Dotted paths of the fields that failed, e.g. `userTags.0.tagId`. */
  readonly fields: string[];
  readonly activityId: string | undefined;
  readonly fingerprint: string | undefined;

  constructor(context: ErrorContext, problem: z.ZodError | string, root?: string) {
    const description = typeof problem === "string" ? problem : describeZodError(problem, root);
    super(`${context.operation}: unexpected response: ${description}`, context.operation);
    this.fields = typeof problem === "string" ? [] : zodPaths(problem, root);
    this.activityId = context.activityId;
    this.fingerprint = context.fingerprint;
  }
}

/** Base class of errors about an activity that did not complete. */
export class ActivityError extends KeyformError {
  readonly activityId: string;
  readonly fingerprint: string;
  /** The activity's last known status, e.g. `ACTIVITY_STATUS_FAILED`. */
  readonly activityStatus: string;
  /** The activity's `type`, e.g. `ACTIVITY_TYPE_CREATE_USER_TAG`. */
  readonly activityType: string;

  constructor(
    message: string,
    context: ErrorContext & { activityId: string; fingerprint: string; activityStatus: string; activityType: string },
  ) {
    super(`${message} [activity ${context.activityId}, fingerprint ${context.fingerprint}]`, context.operation);
    this.activityId = context.activityId;
    this.fingerprint = context.fingerprint;
    this.activityStatus = context.activityStatus;
    this.activityType = context.activityType;
  }
}

/** Context of an {@link ActivityError}. */
export type ActivityErrorContext = ConstructorParameters<typeof ActivityError>[1];

/** The activity ended in `ACTIVITY_STATUS_FAILED`; `failureMessage` is the service's reason. */
export class ActivityFailedError extends ActivityError {
  readonly failureMessage: string;
  readonly failureCode: number | undefined;

  constructor(context: ActivityErrorContext, failure: { code?: number | undefined; message?: string | undefined } | undefined) {
    const failureMessage = failure?.message ?? "no failure message";
    super(`${context.operation}: activity failed: ${failureMessage}`, context);
    this.failureMessage = failureMessage;
    this.failureCode = failure?.code;
  }
}

/** The activity was rejected by a vote (`ACTIVITY_STATUS_REJECTED`). */
export class ActivityRejectedError extends ActivityError {
  constructor(context: ActivityErrorContext) {
    super(`${context.operation}: activity was rejected`, context);
  }
}

/**
 * The activity waits for approvals (`ACTIVITY_STATUS_CONSENSUS_NEEDED`). Approvers call
 * `approve_activity` with `fingerprint`. Raised at once, or after `consensus.waitMs`.
 */
export class ConsensusNeededError extends ActivityError {
  constructor(context: ActivityErrorContext, waitedMs?: number) {
    const waited = waitedMs === undefined ? "" : ` (waited ${waitedMs} ms)`;
    super(`${context.operation}: consensus needed: approve activity ${context.activityId} with fingerprint ${context.fingerprint}${waited}`, context);
  }
}

/** The activity needs more authenticators (`ACTIVITY_STATUS_AUTHENTICATORS_NEEDED`). */
export class AuthenticatorsNeededError extends ActivityError {
  constructor(context: ActivityErrorContext) {
    super(`${context.operation}: activity needs additional authenticators`, context);
  }
}

/** The activity was still CREATED or PENDING when the poll budget ran out. */
export class ActivityPollTimeoutError extends ActivityError {
  readonly timeoutMs: number;

  constructor(context: ActivityErrorContext, timeoutMs: number) {
    super(`${context.operation}: activity still ${context.activityStatus} after ${timeoutMs} ms of polling`, context);
    this.timeoutMs = timeoutMs;
  }
}

function zodPaths(error: z.ZodError, root?: string): string[] {
  return error.issues.map((issue) =>
    [root, ...issue.path.map(String)].filter((p) => p !== undefined && p !== "").join(".") || "(body)",
  );
}

/**
 * An activity submit ended without a definite answer (connection reset, timeout, retries on
 * 429/5xx exhausted), the byte-identical resends got none either, and the service could not
 * be asked whether it holds an activity with this request's fingerprint. The service may have
 * applied it: the object may exist.
 */
export class SubmitOutcomeUnknownError extends KeyformError {
  /** `sha256:<hex>` of the submitted body: the service's key for the activity, if it exists. */
  readonly fingerprint: string;
  /** The activity type, e.g. `ACTIVITY_TYPE_CREATE_USER_TAG`. */
  readonly activityType: string;

  constructor(context: { operation: string; fingerprint: string; activityType: string }, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `${context.operation}: the outcome is unknown: no answer arrived (${reason}) and the service could not be asked ` +
        `for the activity with fingerprint ${context.fingerprint}; it may have been applied`,
      context.operation,
      { cause },
    );
    this.fingerprint = context.fingerprint;
    this.activityType = context.activityType;
  }
}

/**
 * An activity submit ended without an answer, and the service then confirmed it holds no
 * activity with this request's fingerprint: nothing was applied, submitting again is safe.
 */
export class SubmitNotAppliedError extends KeyformError {
  readonly fingerprint: string;

  constructor(context: { operation: string; fingerprint: string }, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `${context.operation}: not applied: no answer arrived (${reason}) and the service holds no activity with ` +
        `fingerprint ${context.fingerprint}`,
      context.operation,
      { cause },
    );
    this.fingerprint = context.fingerprint;
  }
}
