/**
 * @module resources/runtime/errors
 * Turns client errors into messages a user of `pulumi up` can act on: what to approve, which
 * policy denied, which setting to fix. The original error is kept as `cause`; messages never
 * contain keys or request bodies (the client's messages do not either).
 */
import {
  ActivityFailedError,
  ActivityRejectedError,
  AuthenticationError,
  ConnectionError,
  ConsensusNeededError,
  NotFoundError,
  PermissionDeniedError,
  SubmitNotAppliedError,
  SubmitOutcomeUnknownError,
  TimeoutError,
  FirstByteTimeoutError,
  InvalidApiKeyError,
} from "../../client/errors";
import { SETTING_ENV, settingLabel } from "./settings";

/** The error thrown by a provider method: a plain Error with a message for humans. */
export class ProviderError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProviderError";
  }
}

/**
 * A provider error that keeps what went wrong (`problem`) apart from what to do about it
 * (`fix`); its message joins them, as the engine shows it. The classes that extend it carry the
 * facts their message names as data (`object-errors.ts`).
 */
export class FixableError extends ProviderError {
  constructor(
    /** What went wrong, ending with its sentence's full stop. */
    readonly problem: string,
    /** What to do about it; empty when the problem says it all. */
    readonly fix: string,
    options?: { cause?: unknown },
  ) {
    super(fix === "" ? problem : `${problem} ${fix}`, options);
    this.name = "FixableError";
  }
}

/**
 * A failure that leaves an object behind: it exists in the organization although the operation
 * failed (e.g. a create whose read-back failed). `id` and `properties` are recorded in state, so
 * the object is neither leaked nor created twice; every front door turns it into Pulumi's
 * "resource initialization failed" (the dynamic-provider server reads these three fields, the
 * provider plugin checks the class).
 */
export class ObjectLeftBehindError extends ProviderError {
  /** The reasons Pulumi shows; the message alone unless given. */
  readonly reasons: readonly string[];

  constructor(
    message: string,
    /** The id of the object that exists. */
    readonly id: string,
    /** What the state records for it (never a generated secret). */
    readonly properties: Readonly<Record<string, unknown>>,
    options?: { cause?: unknown; reasons?: readonly string[] },
  ) {
    super(message, options);
    this.name = "ObjectLeftBehindError";
    this.reasons = options?.reasons ?? [message];
  }
}

/** True when `error` says the object does not exist (HTTP 404, gRPC 5). */
export function isNotFound(error: unknown): boolean {
  return error instanceof NotFoundError || (hasCode(error) && error.status === 404);
}

function hasCode(error: unknown): error is { status: number; code?: number } {
  return typeof error === "object" && error !== null && typeof (error as { status?: unknown }).status === "number";
}

/**
 * Whether a 403 is an IP allowlist's refusal rather than a policy's: the policy engine's refusal
 * carries its evaluations (a `PolicyEnginePermissionError` detail), an allowlist's names the
 * address (`sdk/emulator/README.md`, "IP allowlists").
 */
export function refusedByIpAllowlist(error: PermissionDeniedError): boolean {
  const fromPolicies = error.details.some((d) => typeof d === "object" && d !== null && String((d as { "@type"?: unknown })["@type"]).includes("PolicyEnginePermissionError"));
  return !fromPolicies && /\bIP address\b.*\bnot allowed\b/i.test(error.serverMessage);
}

/**
 * What to do about an activity that waits for consensus. `earlier` marks one found from a
 * previous run (nothing was submitted this time).
 */
export function consensusNeededMessage(what: string, activityId: string | undefined, fingerprint: string | undefined, earlier = false): string {
  return (
    `${what}: the activity needs consensus approval: activity id ${activityId}, fingerprint ${fingerprint}. ` +
    `Approve it (approve_activity with that fingerprint), then run pulumi up again.` +
    (earlier ? ` It was submitted by an earlier run with the same parameters; no new activity was submitted.` : "")
  );
}

/**
 * Wraps `error` in a {@link ProviderError} whose message starts with `what` (e.g.
 * `UserTag "ops": create`) and says what to do next.
 */
export function explain(error: unknown, what: string): Error {
  if (error instanceof ProviderError) return error;
  if (error instanceof ConsensusNeededError) {
    return new ProviderError(consensusNeededMessage(what, error.activityId, error.fingerprint), { cause: error });
  }
  if (error instanceof PermissionDeniedError && refusedByIpAllowlist(error)) {
    return new ProviderError(
      `${what}: refused by an IP allowlist (HTTP 403, code ${error.code ?? 7}): ${error.serverMessage || error.message}. ` +
        `The API key keyform signs with is shut out from this address, for reads and writes alike. ` +
        `With a key the list lets in, change the list (set_ip_allowlist) or remove it (remove_ip_allowlist), or run from an address it allows.`,
      { cause: error },
    );
  }
  if (error instanceof PermissionDeniedError) {
    return new ProviderError(
      `${what}: denied by policy (HTTP 403, code ${error.code ?? 7}): ${error.serverMessage || error.message}. ` +
        `Add a policy that allows this action for the API key's user, or use another key.`,
      { cause: error },
    );
  }
  if (error instanceof AuthenticationError) {
    return new ProviderError(
      `${what}: the service did not accept the API key (HTTP 401): ${error.serverMessage || error.message}. ` +
        `Check keyform:apiPublicKey / keyform:apiPrivateKey (${SETTING_ENV.apiPublicKey} / ${SETTING_ENV.apiPrivateKey}) ` +
        `and ${settingLabel("organizationId")}.`,
      { cause: error },
    );
  }
  if (error instanceof ActivityRejectedError) {
    return new ProviderError(
      `${what}: the activity was rejected by a vote (activity id ${error.activityId}, fingerprint ${error.fingerprint}).`,
      { cause: error },
    );
  }
  if (error instanceof ActivityFailedError) {
    return new ProviderError(`${what}: ${error.message}`, { cause: error });
  }
  if (error instanceof SubmitOutcomeUnknownError) {
    return new ProviderError(
      `${what}: ${error.message}. The object may exist; nothing was recorded in state. The next \`pulumi up\` ` +
        `finds it (by its unique name, or by its create activity) and records it instead of creating it again.`,
      { cause: error },
    );
  }
  if (error instanceof SubmitNotAppliedError) {
    return new ProviderError(`${what}: ${error.message}. Nothing was created; the next \`pulumi up\` creates it.`, { cause: error });
  }
  if (error instanceof ConnectionError) {
    return new ProviderError(
      `${what}: ${error.message}. Check ${settingLabel("baseUrl")}.`,
      { cause: error },
    );
  }
  if (error instanceof FirstByteTimeoutError) {
    return new ProviderError(
      `${what}: ${error.message} (${settingLabel("firstByteTimeoutMs")} is ${error.timeoutMs} ms). Check that ${settingLabel("baseUrl")} ` +
        `is the service, or allow more time with ${settingLabel("firstByteTimeoutMs")}.`,
      { cause: error },
    );
  }
  if (error instanceof TimeoutError) {
    return new ProviderError(
      `${what}: ${error.message}: the server at ${settingLabel("baseUrl")} accepted the connection but did not answer. ` +
        `Check that it is the service, or allow more time with ${settingLabel("timeoutMs")}.`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof InvalidApiKeyError) {
    // The stamper refused the key settings (malformed, or not one pair); it never prints the key.
    return new ProviderError(
      `${what}: the API key settings are wrong: ${message}. Check ${settingLabel("apiPrivateKey")} ` +
        `and ${settingLabel("apiPublicKey")}.`,
      { cause: error },
    );
  }
  return new ProviderError(`${what}: ${message}`, { cause: error });
}
