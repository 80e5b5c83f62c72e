/**
 * @module client/query-recovery
 * What a query does when the transport's own retries end without an answer (connection resets,
 * timeouts, 429/502/503/504 on every attempt): ask again, the way a submit resends its body
 * (`submit-recovery.ts`), a few more times within the call's budget.
 *
 * Why: a query is a read and always safe to repeat, yet it used to get fewer chances than the
 * write it precedes. A delete that reads first (a User's delete reads the organization to see
 * the root quorum) then failed on a read while every write of the same run got through, and a
 * `destroy` through a flaky network needed a second run. Reads now get the same extra chances
 * as writes.
 */
import { isRetryableStatus, sleep } from "./retry";
import { ApiError, ConnectionError, FirstByteTimeoutError, TimeoutError } from "./errors";

/** Extra calls (each with the transport's retries) after the transport's own retries gave up. */
export const QUERY_RECOVERY_CALLS = 2;
/** Pause before each extra call, in ms (doubled each time). */
export const QUERY_RECOVERY_PAUSE_MS = 500;

/**
 * True when a call ended without an answer: a network failure, a timeout, or retries on 429/5xx
 * used up. Not a server that never sent a first byte: `firstByteTimeoutMs` is there to fail such a
 * run once, and asking again would multiply it (the transport does not retry it either).
 */
export function endedWithoutAnswer(error: unknown): boolean {
  if (error instanceof FirstByteTimeoutError) return false;
  if (error instanceof ConnectionError || error instanceof TimeoutError) return true;
  return error instanceof ApiError && isRetryableStatus(error.status);
}

/**
 * Runs `call` (one transport call with its retries, within the budget it is given), and when it
 * ends without an answer calls it again up to {@link QUERY_RECOVERY_CALLS} times, each after a
 * growing pause that still fits before `deadline` (epoch ms; `Infinity` for no budget).
 * @throws the last failure when no call got an answer, or the first definite error answer.
 */
export async function queryWithRecovery<T>(
  call: (budgetMs: number | undefined) => Promise<T>,
  deadline: number,
  options: { calls?: number; pauseMs?: number } = {},
): Promise<T> {
  const calls = options.calls ?? QUERY_RECOVERY_CALLS;
  const pauseMs = options.pauseMs ?? QUERY_RECOVERY_PAUSE_MS;
  const left = () => (deadline === Infinity ? undefined : deadline - Date.now());
  try {
    return await call(left());
  } catch (first) {
    let last: unknown = first;
    if (!endedWithoutAnswer(last)) throw last;
    for (let i = 0; i < calls; i++) {
      const pause = pauseMs * 2 ** i;
      if ((left() ?? Infinity) <= pause) break;
      await sleep(pause);
      try {
        return await call(left());
      } catch (error) {
        if (!endedWithoutAnswer(error)) throw error;
        last = error;
      }
    }
    throw last;
  }
}
