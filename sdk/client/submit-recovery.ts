/**
 * @module client/submit-recovery
 * What a submit does when it ends without a definite answer: a connection reset or a timeout
 * (the service may have acted and the answer was lost), or retries on 429/502/503/504 used up
 * (an earlier attempt may have been one of the lost answers). Failing there would leave the
 * caller unable to tell whether the object exists, which is how a provider ends up creating it
 * twice or stuck on "already exists".
 *
 * So, within a bounded budget: resend the byte-identical body a few more times (same
 * `timestampMs`, same fingerprint: the service answers a resend with the activity it already
 * has, and runs it once at most), then ask the service for an activity with this fingerprint
 * (`list_activities` of the type, newest page). Only then fail, saying which of the two it is:
 * {@link SubmitNotAppliedError} (the service confirmed it holds no such activity: nothing was
 * done) or {@link SubmitOutcomeUnknownError} (it could not be asked: it may have been done).
 */
import type { Activity } from "../wire/activity";
import { ApiError, ConnectionError, SubmitNotAppliedError, SubmitOutcomeUnknownError, TimeoutError } from "./errors";
import { isRetryableStatus, sleep } from "./retry";
import { neverReachedService } from "./transport";

/** Extra resends after the transport's own retries gave up. */
export const RECOVERY_RESENDS = 2;
/** Pause before each extra resend, in ms (doubled each time). */
export const RECOVERY_PAUSE_MS = 500;
/** How many of the newest activities of the type the fingerprint lookup reads (one page). */
export const RECOVERY_LOOKUP_LIMIT = 100;

/** True when a call ended without an answer (a network failure, a timeout, or retries on 429/5xx used up). */
function isNoAnswer(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  return error instanceof ApiError && isRetryableStatus(error.status);
}

/**
 * True when a submit failed without a definite answer and may have been applied: no answer,
 * and at least one attempt may have reached the service (a refused connection or a 429 on
 * every attempt means it did nothing).
 */
export function isUnknownOutcome(error: unknown): boolean {
  return isNoAnswer(error) && !neverReachedService(error);
}

/** The two ways of asking the service again, bound to one submitted body. */
export interface SubmitProbe {
  /** camelCase operation name, for messages. */
  operation: string;
  /** `sha256:<hex>` of the submitted body. */
  fingerprint: string;
  /** The activity type, e.g. `ACTIVITY_TYPE_CREATE_USER_TAG`. */
  activityType: string;
  /** Sends the byte-identical body again (through the transport, with its retries, within `budgetMs`). */
  resend(budgetMs: number | undefined): Promise<Activity>;
  /** The newest activities of the type (`list_activities`, one page), within `budgetMs`. */
  listRecent(limit: number, budgetMs: number | undefined): Promise<Activity[]>;
  /** When the whole submit must have ended (epoch ms; `Infinity` for no budget). */
  deadline: number;
}

/**
 * Recovers the activity of a submit that failed with `failure` (see {@link isUnknownOutcome}).
 * @returns the activity the service holds for the body's fingerprint.
 * @throws {SubmitNotAppliedError} when the service confirmed it holds no such activity.
 * @throws {SubmitOutcomeUnknownError} when it could not be reached to say.
 */
export async function recoverSubmit(probe: SubmitProbe, failure: unknown, options: { resends?: number; pauseMs?: number } = {}): Promise<Activity> {
  const resends = options.resends ?? RECOVERY_RESENDS;
  const pauseMs = options.pauseMs ?? RECOVERY_PAUSE_MS;
  let last: unknown = failure;
  // What is left of the submit's budget: a silent server fails the submit once, within it.
  const left = () => (probe.deadline === Infinity ? undefined : probe.deadline - Date.now());
  for (let i = 0; i < resends; i++) {
    const pause = pauseMs * 2 ** i;
    if ((left() ?? Infinity) <= pause) break;
    await sleep(pause);
    try {
      return await probe.resend(left());
    } catch (error) {
      if (!isNoAnswer(error)) throw error;
      last = error;
    }
  }
  let recent: Activity[];
  try {
    const budget = left();
    if (budget !== undefined && budget <= 0) throw last;
    recent = await probe.listRecent(RECOVERY_LOOKUP_LIMIT, budget);
  } catch {
    throw new SubmitOutcomeUnknownError(probe, last);
  }
  const found = recent.find((a) => a.fingerprint === probe.fingerprint);
  if (found !== undefined) return found;
  // The newest page of the type is the place a request made seconds ago must be; a service
  // that lists nothing of it did not record it.
  throw new SubmitNotAppliedError(probe, last);
}
