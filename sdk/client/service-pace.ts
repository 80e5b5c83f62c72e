/**
 * @module client/service-pace
 * A pace learned from the service's own answers, so that a client meets no 429 on any plan
 * without a setting. Every answer of the service carries `ratelimit-limit` (the plan's requests
 * per second, counted per client address; 10 for a sub-organization) and `ratelimit-remaining`.
 *
 * - Until the first answer names a limit, one request is in flight at a time: the first answer
 *   (in a provider, the settings check) teaches the rate before any burst is sent.
 * - Then requests are spaced evenly at the learned rate with a small margin
 *   ({@link PACE_MARGIN}): the service's bucket holds one second's requests, so at 1 request/s
 *   two requests bunched by network jitter would otherwise meet a 429.
 * - An organization whose answers advertise a lower rate than the address's (a sub-organization
 *   on Enterprise) gets its own spacing on top.
 * - A service that sends no headers is not limited: requests then go at once (or at `cap`).
 * - `cap` (the provider's `keyform:maxRequestsPerSecond`) is an upper bound below all of this.
 *
 * One pace per service and process ({@link sharedServicePace}): the service counts per client
 * address, so every client of the process shares it, whatever organization or key it uses; and
 * the processes of one machine book their starts in one file (`address-slots.ts`), so a
 * program's data functions and its provider keep apart too.
 */
import { addressSlotsFor, type AddressSlots } from "./address-slots";
import { sleep } from "./retry";

/** Spacing is this much wider than the advertised rate implies. */
export const PACE_MARGIN = 1.1;

/** What the transport needs of a pacer; {@link RateLimiter} (a fixed rate) is one too. */
export interface Pacer {
  /** Resolves when a request of `organizationId` may be sent; its slot is reserved at once. */
  acquire(organizationId?: string): Promise<void>;
  /** Told the budget headers of every answer (absent ones as `undefined`). */
  observe?(organizationId: string | undefined, limit: string | undefined, remaining: string | undefined): void;
  /** Told that a request ended without any answer (nothing was learned from it). */
  settled?(): void;
  /** Holds every request until `untilMs` (epoch ms), e.g. the end of a 429's `Retry-After`. */
  holdUntil(untilMs: number): void;
}

/** Spaces starts `intervalMs` apart, first come first served. */
class Slots {
  nextStart = 0;

  constructor(public intervalMs: number) {}

  /** Reserves the next slot at or after `earliest`; returns its start. */
  reserve(earliest: number): number {
    const start = Math.max(earliest, this.nextStart);
    this.nextStart = start + this.intervalMs;
    return start;
  }
}

/** The pace of one service, learned from its answers. Safe for concurrent callers. */
export class ServicePace implements Pacer {
  /** The address-level rate the service advertised; `undefined` before the first answer, `Infinity` when it sends none. */
  private learned: number | undefined;
  private readonly address = new Slots(0);
  private readonly organizations = new Map<string, { rate: number; slots: Slots }>();
  /** The request sent before the rate is known, and those waiting for its answer. */
  private probing = false;
  private waiting: Array<() => void> = [];
  /** Requests sent and not yet answered, and those waiting for one of them to end. */
  private inFlight = 0;
  private gate: Array<() => void> = [];
  /** No request starts before this (epoch ms): the bucket was empty, or a 429 said to wait. */
  private heldUntil = 0;

  /**
   * @param cap requests per second never exceeded (0 or `Infinity`: no cap).
   * @throws {RangeError} when `cap` is negative or not a number.
   */
  constructor(
    readonly cap = 0,
    /** The machine's other processes' starts for this service (`address-slots.ts`); none in a unit test. */
    private readonly slots?: AddressSlots,
  ) {
    if (Number.isNaN(cap) || cap < 0) throw new RangeError(`the rate cap must be a non-negative number, got ${String(cap)}`);
    this.applyRate();
  }

  /** The rate in force now (requests per second; `Infinity` when unlimited), `undefined` before the first answer. */
  get rate(): number | undefined {
    if (this.learned === undefined) return undefined;
    return Math.min(this.learned, this.cap > 0 ? this.cap : Infinity);
  }

  async acquire(organizationId?: string): Promise<void> {
    while (this.learned === undefined) {
      if (!this.probing) {
        // This request teaches the rate: the others wait for its answer.
        this.probing = true;
        this.inFlight += 1;
        await this.waitFor(this.address.reserve(Date.now()));
        // Another process of this machine may be probing too: a second apart, as on the slowest plan.
        return this.waitForBooking(PROBE_INTERVAL_MS);
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    const now = Date.now();
    let start = this.address.reserve(now);
    const own = organizationId === undefined ? undefined : this.organizations.get(organizationId);
    if (own !== undefined) start = Math.max(start, own.slots.reserve(start));
    await this.waitFor(start);
    if (this.learned !== Infinity) await this.waitForBooking(this.address.intervalMs);
    // A slot is a start time taken before earlier answers came back. A slow answer (a busy
    // service, a loaded machine) would bunch the requests that reach the service, and at 1
    // request/s its bucket holds one: so at most `rate` requests are unanswered at a time, and
    // after an answer that emptied the bucket the next waits a whole interval from then.
    for (;;) {
      const wait = this.heldUntil - Date.now();
      if (wait > 0) await sleep(Math.ceil(wait));
      else if (this.inFlight >= this.maxInFlight()) await new Promise<void>((resolve) => this.gate.push(resolve));
      else break;
    }
    this.inFlight += 1;
  }

  /**
   * Resolves when a request of the address could start now, without reserving the slot: a
   * caller gathering work (a batch of creates) waits here, then sends what has gathered.
   */
  async whenFree(): Promise<void> {
    while (this.learned === undefined && this.probing) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.waitFor(this.address.nextStart);
  }

  observe(organizationId: string | undefined, limit: string | undefined, remaining: string | undefined): void {
    this.ended();
    const rate = limit === undefined ? NaN : Number(limit);
    const advertised = Number.isFinite(rate) && rate > 0 ? rate : Infinity;
    if (advertised !== Infinity && organizationId !== undefined) {
      const known = this.organizations.get(organizationId);
      if (known === undefined) this.organizations.set(organizationId, { rate: advertised, slots: new Slots(intervalOf(advertised)) });
      else if (known.rate !== advertised) {
        known.rate = advertised;
        known.slots.intervalMs = intervalOf(advertised);
      }
    }
    // The address's rate is at least every rate advertised for one of its organizations.
    const before = this.learned;
    this.learned = advertised === Infinity ? (this.learned ?? Infinity) : Math.max(this.learned === undefined || this.learned === Infinity ? 0 : this.learned, advertised);
    if (before !== this.learned) this.applyRate();
    // An empty bucket refills one request per interval from now, not from the last slot.
    if (remaining === "0" && this.learned !== Infinity) this.holdUntil(Date.now() + intervalOf(this.learned));
    this.releaseWaiting();
  }

  /** After a request that got no answer at all: the others go on (the next one probes instead). */
  settled(): void {
    this.ended();
    if (this.learned === undefined) this.releaseWaiting();
  }

  holdUntil(untilMs: number): void {
    if (untilMs > this.address.nextStart) this.address.nextStart = untilMs;
    if (untilMs > this.heldUntil) this.heldUntil = untilMs;
  }

  /** One request fewer in flight: the longest waiting one may go. */
  private ended(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
    const next = this.gate.shift();
    if (next !== undefined) next();
  }

  /** How many requests may be unanswered at once: the bucket's size, at least one. */
  private maxInFlight(): number {
    const rate = this.rate;
    return rate === undefined || rate === Infinity ? Infinity : Math.max(1, Math.floor(rate));
  }

  private applyRate(): void {
    this.address.intervalMs = this.learned === undefined ? 0 : intervalOf(Math.min(this.learned, this.cap > 0 ? this.cap : Infinity));
    if (this.learned === undefined && this.cap > 0) this.address.intervalMs = intervalOf(this.cap);
  }

  private releaseWaiting(): void {
    const waiting = this.waiting;
    this.waiting = [];
    this.probing = false;
    for (const resolve of waiting) resolve();
  }

  /**
   * Waits for a start the machine's other processes have not booked, `intervalMs` after theirs.
   * A process starved of CPU can wake long after its start, close to the start the next process
   * booked after it: sent then, the two would meet in one second of a 1 request/s bucket. So a
   * wake later than the margin of the interval books again, the missed start left unused.
   */
  private async waitForBooking(intervalMs: number): Promise<void> {
    if (this.slots === undefined) return;
    const lateness = intervalMs - intervalMs / PACE_MARGIN;
    for (let booking = 0; booking < MAX_BOOKINGS; booking += 1) {
      const start = await this.slots.book(Date.now(), intervalMs);
      await this.waitFor(start);
      if (Date.now() - start <= lateness) return;
    }
  }

  private async waitFor(start: number): Promise<void> {
    const now = Date.now();
    // Timers may fire up to a millisecond early; never start before the slot.
    if (start > now) await sleep(Math.ceil(start - now));
  }
}


/** Milliseconds between starts at `rate` requests per second, with the margin; 0 when unlimited. */
function intervalOf(rate: number): number {
  return rate === Infinity || rate <= 0 ? 0 : (1000 / rate) * PACE_MARGIN;
}

/** How often a request books again after waking late for its start, before it goes anyway. */
const MAX_BOOKINGS = 3;

/** Before its rate is known, a process's first request keeps this far from other processes' (the slowest plan's 1/s). */
const PROBE_INTERVAL_MS = intervalOf(1);

const shared = new Map<string, ServicePace>();

/**
 * The process-wide pace of the service at `baseUrl` under `cap`: every client built for that
 * service shares it, so the provider's parallel resources (all in one process) keep together to
 * the rate the service advertises.
 */
export function sharedServicePace(baseUrl: string, cap = 0): ServicePace {
  const service = baseUrl.replace(/\/+$/, "");
  const key = `${service}|${cap}`;
  let pace = shared.get(key);
  if (pace === undefined) {
    pace = new ServicePace(cap, addressSlotsFor(service));
    shared.set(key, pace);
  }
  return pace;
}
