/**
 * @module client/rate-limiter
 * A client-side pace for requests, so that a large `pulumi up` stays under the service's
 * per-organization rate limit instead of running into 429s and backing off.
 *
 * Requests are spaced evenly, `1000 / perSecond` ms apart, in the order they ask: no burst.
 * A server that counts with a bucket of one second's requests (the service's limit, and the
 * emulator's `--rate-limit`) therefore never refuses a client that keeps to the same rate,
 * even when network jitter bunches a few requests together. A 429 that names a `Retry-After`
 * holds every request of the limiter until then, not only the one that was refused.
 */
import { sleep } from "./retry";

/** Paces the requests of every client that shares it. Safe for concurrent callers. */
export class RateLimiter {
  /** Requests allowed per second. */
  readonly perSecond: number;
  private readonly intervalMs: number;
  /** Earliest time (epoch ms) the next request may start. */
  private nextStart = 0;

  /** @throws {RangeError} when `perSecond` is not a positive finite number. */
  constructor(perSecond: number) {
    if (!Number.isFinite(perSecond) || perSecond <= 0) {
      throw new RangeError(`maxRequestsPerSecond must be a positive number, got ${String(perSecond)}`);
    }
    this.perSecond = perSecond;
    this.intervalMs = 1000 / perSecond;
  }

  /** Resolves when the caller may send one request; its slot is reserved at once (FIFO). */
  async acquire(): Promise<void> {
    const now = Date.now();
    const start = Math.max(now, this.nextStart);
    this.nextStart = start + this.intervalMs;
    // Timers may fire up to a millisecond early; never start before the slot.
    if (start > now) await sleep(Math.ceil(start - now));
  }

  /** Holds every request until `untilMs` (epoch ms), e.g. the end of a server's `Retry-After`. */
  holdUntil(untilMs: number): void {
    if (untilMs > this.nextStart) this.nextStart = untilMs;
  }
}

/** One limiter per key for the whole process (see {@link sharedRateLimiter}). */
const shared = new Map<string, RateLimiter>();

/**
 * The process-wide limiter of `key` (e.g. base URL and organization: the service counts per
 * organization) at `perSecond`. Every client built with the same key and rate shares it, so
 * the provider's parallel resources together keep to the rate.
 */
export function sharedRateLimiter(key: string, perSecond: number): RateLimiter {
  const id = `${key}|${perSecond}`;
  let limiter = shared.get(id);
  if (limiter === undefined) {
    limiter = new RateLimiter(perSecond);
    shared.set(id, limiter);
  }
  return limiter;
}
