/**
 * @module client/retry
 * When to retry and how long to wait. Kept conservative: only failures where the request
 * certainly or very likely did no harm, or where resending is idempotent (an activity submit
 * resends the byte-identical body, and the service keys activities by its fingerprint).
 */

/** Retry settings of a client. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 disables retries). */
  maxRetries?: number;
  /** First backoff delay in ms (default 250); doubles on every retry. */
  baseDelayMs?: number;
  /** Upper bound of a backoff delay in ms (default 5000). */
  maxDelayMs?: number;
  /** Upper bound for a server-requested `Retry-After` wait in ms (default 60_000). */
  maxRetryAfterMs?: number;
}

/** {@link RetryOptions} with every default filled in. */
export type ResolvedRetryOptions = Required<RetryOptions>;

export const DEFAULT_RETRY: ResolvedRetryOptions = {
  maxRetries: 3,
  baseDelayMs: 250,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 60_000,
};

/**
 * Fills in defaults and checks the values.
 * @throws {RangeError} when a value is negative or not a finite number.
 */
export function resolveRetryOptions(options: RetryOptions | undefined): ResolvedRetryOptions {
  const resolved = { ...DEFAULT_RETRY, ...stripUndefined(options ?? {}) };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new RangeError(`retry.${key} must be a non-negative number, got ${String(value)}`);
    }
  }
  return resolved;
}

/**
 * Whether an HTTP status is worth retrying: 429 (rate limit) and the gateway errors 502, 503
 * and 504. Never other 4xx (the request is wrong and stays wrong; a 409 on create means it
 * already exists), and never 500/501 (the service ran the request and failed, or never will).
 */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/**
 * Capped exponential backoff with jitter: `min(maxDelayMs, baseDelayMs * 2^retry)`, minus up
 * to 25% at random so that clients that failed together do not retry together.
 *
 * @param retry 0 for the first retry.
 * @param random source of randomness in [0, 1), injectable for tests.
 */
export function backoffDelay(retry: number, options: ResolvedRetryOptions, random: () => number = Math.random): number {
  const exponential = options.baseDelayMs * 2 ** retry;
  const capped = Math.min(options.maxDelayMs, exponential);
  return Math.round(capped * (1 - 0.25 * random()));
}

/**
 * Parses a `Retry-After` header: delay-seconds (`"2"`, `"0.5"`) or an HTTP date.
 * Returns the wait in ms (never negative, capped at `maxMs`), or `undefined` when the header
 * is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, maxMs: number, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    ms = Number(trimmed) * 1000;
  } else {
    // An HTTP date names its month; this also keeps `Date.parse` from reading "-1" as a year.
    if (!/[a-z]/i.test(trimmed)) return undefined;
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    ms = date - now;
  }
  return Math.min(maxMs, Math.max(0, Math.round(ms)));
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
