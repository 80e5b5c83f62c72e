/**
 * @module emulator/rate-limit
 * The service's rate limits (docs/service-facts.md#limits-and-the-policy-engine), off unless asked for (`keyform serve
 * --plan <plan>` or `--requests-per-second <n>`, `startEmulator({ plan })` or
 * `startEmulator({ maxRequestsPerSecond })`):
 *
 * - the plan's rate per client address (Free 1, Pay-as-you-go 1, Pro 3, Enterprise 60 requests/s);
 * - in addition 10 requests/s per sub-organization (any organization but the root one), whatever the plan;
 * - the broadcast endpoints (`eth_send_transaction`, `sol_send_transaction`) and
 *   `get_wallet_address_balances` share a separate global 10 requests/s instead.
 *
 * Each limit is a token bucket holding one second's requests, refilled continuously. Every
 * answer carries `ratelimit-limit` (the rate of the tightest bucket the request counts against)
 * and `ratelimit-remaining` (whole requests left in it now); a request finding a bucket empty is
 * answered 429 with the service's message and a `Retry-After`, and is not run. A client that
 * keeps to the advertised rate is therefore never refused.
 */
import { EmulatorError, GrpcCode } from "./errors";

/** The service's plans and their per-client-address rates (requests per second). */
export const PLAN_RATES = { free: 1, payg: 1, pro: 3, enterprise: 60 } as const;
export type Plan = keyof typeof PLAN_RATES;

/** Every sub-organization's own rate, whatever the plan. */
export const SUB_ORGANIZATION_RATE = 10;
/** The shared global rate of the broadcast endpoints. */
export const BROADCAST_RATE = 10;
/** Endpoints counted against {@link BROADCAST_RATE} instead of the plan's rate. */
export const BROADCAST_ENDPOINTS: ReadonlySet<string> = new Set(["eth_send_transaction", "sol_send_transaction", "get_wallet_address_balances"]);

/** The service's message on a 429 (api-reference errors page). */
export const RATE_LIMITED_MESSAGE = "Too many requests. Please wait and try again in a few seconds";

/** What the answer to an admitted (or refused) request tells the client about its budget. */
export interface RateLimitState {
  /** Requests per second of the tightest bucket the request counts against. */
  limit: number;
  /** Whole requests left in that bucket now. */
  remaining: number;
}

/** One request as the limit sees it. */
export interface LimitedRequest {
  /** The TCP peer address. */
  clientAddress: string;
  /** The `organizationId` of the body, `""` when it names none. */
  organizationId: string;
  /** The last path segment, e.g. `create_policies`. */
  endpoint: string;
}

class Bucket {
  private tokens: number;
  private at: number;

  constructor(
    readonly perSecond: number,
    now: number,
  ) {
    this.tokens = perSecond;
    this.at = now;
  }

  /** Tokens left at `now` (fractional). */
  level(now: number): number {
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) / 1000) * this.perSecond);
    this.at = now;
    return this.tokens;
  }

  take(): void {
    this.tokens -= 1;
  }

  /** Seconds until one whole token is back. */
  secondsToNext(now: number): number {
    return Math.max(0, (1 - this.level(now)) / this.perSecond);
  }
}

/** Resolves `--plan` / `--requests-per-second` into the per-address rate. */
export function planRate(plan: string): number {
  const rate = (PLAN_RATES as Record<string, number>)[plan];
  if (rate === undefined) throw new RangeError(`plan must be one of ${Object.keys(PLAN_RATES).join(", ")}, got ${JSON.stringify(plan)}`);
  return rate;
}

/** The rate limits of one emulator. */
export class ServiceRateLimit {
  private readonly byAddress = new Map<string, Bucket>();
  private readonly bySubOrganization = new Map<string, Bucket>();
  private broadcast: Bucket | undefined;
  /** Requests refused so far. */
  refused = 0;
  /** Requests admitted so far. */
  admitted = 0;

  /**
   * @param perSecond the plan's rate per client address.
   * @param rootOrganizationId the organization that is not a sub-organization.
   * @throws {RangeError} when `perSecond` is not a positive finite number.
   */
  constructor(
    readonly perSecond: number,
    private readonly rootOrganizationId: string,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(perSecond) || perSecond <= 0) {
      throw new RangeError(`requests per second must be a positive number, got ${String(perSecond)}`);
    }
  }

  /**
   * Takes one request from every bucket it counts against.
   * @returns the state to advertise in the answer's headers.
   * @throws {RateLimitedError} when a bucket is empty (nothing is taken then).
   */
  take(request: LimitedRequest): RateLimitState {
    const now = this.now();
    const buckets = this.bucketsOf(request, now);
    const empty = buckets.filter((b) => b.level(now) < 1);
    const tightest = buckets.reduce((a, b) => (b.perSecond < a.perSecond ? b : a));
    if (empty.length > 0) {
      this.refused += 1;
      const waitSeconds = Math.max(1, Math.ceil(Math.max(...empty.map((b) => b.secondsToNext(now)))));
      throw new RateLimitedError({ limit: tightest.perSecond, remaining: 0 }, waitSeconds);
    }
    for (const bucket of buckets) bucket.take();
    this.admitted += 1;
    return { limit: tightest.perSecond, remaining: Math.floor(Math.min(...buckets.map((b) => b.level(now)))) };
  }

  private bucketsOf(request: LimitedRequest, now: number): Bucket[] {
    if (BROADCAST_ENDPOINTS.has(request.endpoint)) {
      this.broadcast ??= new Bucket(BROADCAST_RATE, now);
      return [this.broadcast];
    }
    const buckets = [bucketOf(this.byAddress, request.clientAddress, this.perSecond, now)];
    if (request.organizationId !== "" && request.organizationId !== this.rootOrganizationId) {
      buckets.push(bucketOf(this.bySubOrganization, request.organizationId, SUB_ORGANIZATION_RATE, now));
    }
    return buckets;
  }
}

function bucketOf(map: Map<string, Bucket>, key: string, perSecond: number, now: number): Bucket {
  let bucket = map.get(key);
  if (bucket === undefined) {
    bucket = new Bucket(perSecond, now);
    map.set(key, bucket);
  }
  return bucket;
}

/** A 429 with the seconds to wait (`Retry-After`) and the budget headers. */
export class RateLimitedError extends EmulatorError {
  constructor(
    readonly state: RateLimitState,
    readonly retryAfterSeconds: number,
  ) {
    super(GrpcCode.RESOURCE_EXHAUSTED, RATE_LIMITED_MESSAGE);
  }
}

/**
 * The organization a request counts against: the `organizationId` of its JSON body, else
 * `""`.
 */
export function organizationOfBody(body: Uint8Array): string {
  try {
    const parsed = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8")) as { organizationId?: unknown };
    return typeof parsed?.organizationId === "string" ? parsed.organizationId : "";
  } catch {
    return "";
  }
}
