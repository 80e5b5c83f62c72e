/**
 * @module emulator/rate-limit
 * The service's per-organization rate limit, off unless asked for (`keyform serve
 * --rate-limit <n>`, `startEmulator({ maxRequestsPerSecond })`): each organization has a
 * bucket of `n` requests that refills at `n` per second; a request finding it empty is
 * answered 429 RESOURCE_EXHAUSTED with a `Retry-After` (whole seconds) and is not run.
 * A client pacing itself at `n` per second is therefore never refused.
 */
import { EmulatorError, GrpcCode } from "./errors";

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (ms). */
  at: number;
}

/** Per-organization token buckets of one emulator. */
export class OrganizationRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  /** Requests refused so far. */
  refused = 0;

  /** @throws {RangeError} when `perSecond` is not a positive finite number. */
  constructor(
    readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(perSecond) || perSecond <= 0) {
      throw new RangeError(`maxRequestsPerSecond must be a positive number, got ${String(perSecond)}`);
    }
  }

  /**
   * Takes one request of `organization` from its bucket.
   * @throws {RateLimitedError} when the bucket is empty.
   */
  take(organization: string): void {
    const now = this.now();
    const bucket = this.buckets.get(organization) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(organization, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    this.refused += 1;
    const waitSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond));
    throw new RateLimitedError(organization, this.perSecond, waitSeconds);
  }
}

/** A 429 with the seconds to wait, for the `Retry-After` header. */
export class RateLimitedError extends EmulatorError {
  constructor(
    organization: string,
    perSecond: number,
    readonly retryAfterSeconds: number,
  ) {
    super(GrpcCode.RESOURCE_EXHAUSTED, `rate limit exceeded: organization ${organization} may send ${perSecond} requests per second; retry after ${retryAfterSeconds} s`);
  }
}

/**
 * The organization a request counts against: the `organizationId` of its JSON body, else
 * `""` (requests that name none share one bucket).
 */
export function organizationOfBody(body: Uint8Array): string {
  try {
    const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8")) as { organizationId?: unknown };
    return typeof parsed?.organizationId === "string" ? parsed.organizationId : "";
  } catch {
    return "";
  }
}
