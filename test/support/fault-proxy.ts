/**
 * @module test/support/fault-proxy
 * A loopback HTTP proxy in front of the emulator that loses requests and responses on purpose,
 * the way a flaky network or an overloaded gateway does. For each request, with probability
 * `rate` (drawn from a seeded PRNG, so a seed replays the same sequence of decisions), it picks
 * one fault with equal odds:
 *
 * - `429`: answers HTTP 429 (code 8) itself, without forwarding: the service did nothing.
 * - `503`: answers HTTP 503 itself, without forwarding.
 * - `resetBefore`: resets the connection before forwarding: the service did nothing, the
 *   client cannot tell.
 * - `resetAfter`: forwards, waits for the service's answer, then resets the connection instead
 *   of relaying it: the service acted, the client cannot tell. This is the lost response.
 *
 * Otherwise it forwards and relays the answer unchanged. It counts what it did, overall and per
 * operation path, which the benchmark uses to count requests per create/read/delete.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { seededRandom } from "./seeded-random";

/** What the proxy can do to one request. */
export type Fault = "429" | "503" | "resetBefore" | "resetAfter";
export const FAULTS: readonly Fault[] = ["429", "503", "resetBefore", "resetAfter"];

/** Counters of a {@link FaultProxy}. */
export interface FaultCounts {
  /** Requests received. */
  requests: number;
  /** Requests relayed to the upstream with the answer passed back. */
  relayed: number;
  /** Faults injected, by kind. */
  faults: Record<Fault, number>;
  /** Requests received, by path (e.g. `/public/v1/submit/create_user_tag`). */
  byPath: Record<string, number>;
  /** Faults injected, by path: which operations the faults hit (reads as well as writes). */
  faultsByPath: Record<string, number>;
  /** Faults injected, by path and kind (e.g. the lost answers of plural creates). */
  faultKindsByPath: Record<string, Partial<Record<Fault, number>>>;
  /** Answers held (never relayed) at a {@link FaultProxy.freezeAt} point: the service acted, the client waits. */
  held: number;
  /** Requests reset before forwarding because a {@link FaultProxy.freezeAt} point had passed. */
  frozen: number;
  /** Bytes of response bodies relayed to the client. */
  responseBytes: number;
  /** Answers relayed from the upstream, by HTTP status (e.g. the 429s of a rate-limited emulator). */
  byStatus: Record<number, number>;
  /** Every request relayed, in order: when it arrived and was answered (ms since the counters were reset), its path and status. */
  timeline: Array<{ startMs: number; endMs: number; path: string; status: number; requestBytes: number }>;
}

export interface FaultProxyOptions {
  /** Where requests go, e.g. the emulator's URL. Can be changed later (an emulator restart). */
  upstream: string;
  /** Probability in [0, 1] that a request gets a fault. */
  rate: number;
  /** Seed of the PRNG that decides faults. */
  seed: number;
  /** Faults to choose from (default: all four). */
  faults?: readonly Fault[];
  /** Only requests whose path matches get faults (default: every request). */
  onlyPaths?: RegExp;
  /**
   * Faults every path matching `paths` gets first, in order, whatever the draw (its first
   * request gets `faults[0]`, …; counted from the last {@link FaultProxy.resetCounts}): a path a
   * test names is hit for sure, however few requests it carries. The draw decides the rest. Not
   * while the rate is 0.
   */
  scripted?: { paths: RegExp; faults: readonly Fault[] };
}

export interface FaultProxy {
  /** The proxy's URL (`http://127.0.0.1:<port>`). */
  readonly url: string;
  readonly counts: FaultCounts;
  setRate(rate: number): void;
  /** Restarts the fault sequence from `seed`. */
  reseed(seed: number): void;
  setUpstream(url: string): void;
  /**
   * Stops a run at a point the test names, whatever the timing: the `nth` request matching
   * `paths` (counted from now) reaches the service but its answer is held, and every later
   * request is reset before forwarding (the service never sees it; counted in `frozen`). A run
   * killed after that (once `held` > 0) has, for sure, an object made that it never heard of
   * and work left undone. `undefined` lifts the freeze.
   */
  freezeAt(paths: RegExp | undefined, nth?: number): void;
  /** Clears the counters (not the PRNG). */
  resetCounts(): void;
  close(): Promise<void>;
}

function emptyCounts(): FaultCounts {
  return { requests: 0, relayed: 0, held: 0, frozen: 0, faults: { "429": 0, "503": 0, resetBefore: 0, resetAfter: 0 }, byPath: {}, faultsByPath: {}, faultKindsByPath: {}, responseBytes: 0, byStatus: {}, timeline: [] };
}

/** Starts a proxy on a free loopback port. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  let random = seededRandom(options.seed);
  const faults = options.faults ?? FAULTS;
  let rate = options.rate;
  let upstream = new URL(options.upstream);
  let counts = emptyCounts();
  let countsSince = Date.now();
  let freeze: { paths: RegExp; nth: number; seen: number; passed: boolean } | undefined;
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      const startMs = Date.now() - countsSince;
      counts.requests++;
      counts.byPath[path] = (counts.byPath[path] ?? 0) + 1;
      if (freeze?.passed) {
        counts.frozen++;
        req.socket.resetAndDestroy();
        return;
      }
      const freezing = freeze !== undefined && freeze.paths.test(path) && ++freeze.seen >= freeze.nth;
      if (freezing) freeze!.passed = true;
      const eligible = options.onlyPaths === undefined || options.onlyPaths.test(path);
      const drawn = eligible && random() < rate ? faults[Math.floor(random() * faults.length)] : undefined;
      const script = eligible && rate > 0 && options.scripted?.paths.test(path) ? options.scripted.faults[counts.byPath[path]! - 1] : undefined;
      const fault = freezing ? undefined : (script ?? drawn);
      if (fault !== undefined) {
        counts.faults[fault]++;
        counts.faultsByPath[path] = (counts.faultsByPath[path] ?? 0) + 1;
        const kinds = (counts.faultKindsByPath[path] ??= {});
        kinds[fault] = (kinds[fault] ?? 0) + 1;
      }
      if (fault === "429" || fault === "503") {
        const code = fault === "429" ? 8 : 14;
        res.writeHead(Number(fault), { "content-type": "application/json", "retry-after": "0" });
        res.end(JSON.stringify({ code, message: fault === "429" ? "rate limited (injected)" : "unavailable (injected)", details: [] }));
        return;
      }
      if (fault === "resetBefore") {
        req.socket.resetAndDestroy();
        return;
      }
      const body = Buffer.concat(chunks);
      const headers = { ...req.headers, host: upstream.host, "content-length": String(body.length) };
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, path, method: req.method, headers, agent },
        (upstreamRes) => {
          const answer: Buffer[] = [];
          upstreamRes.on("data", (c: Buffer) => answer.push(c));
          upstreamRes.on("end", () => {
            if (fault === "resetAfter") {
              // The service acted; its answer is lost on the way back.
              req.socket.resetAndDestroy();
              return;
            }
            if (freezing) {
              counts.held++;
              return;
            }
            const bytes = Buffer.concat(answer);
            const status = upstreamRes.statusCode ?? 502;
            counts.relayed++;
            counts.responseBytes += bytes.length;
            counts.byStatus[status] = (counts.byStatus[status] ?? 0) + 1;
            counts.timeline.push({ startMs, endMs: Date.now() - countsSince, path, status, requestBytes: body.length });
            const out = { ...upstreamRes.headers };
            delete out["transfer-encoding"];
            out["content-length"] = String(bytes.length);
            res.writeHead(status, out);
            res.end(bytes);
          });
        },
      );
      // The upstream is down (an emulator being restarted): the client sees a reset, as it
      // would behind a real load balancer that lost its backend mid-request.
      forward.on("error", () => req.socket.resetAndDestroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get counts() {
      return counts;
    },
    setRate(value) {
      rate = value;
    },
    reseed(seed) {
      random = seededRandom(seed);
    },
    setUpstream(url) {
      upstream = new URL(url);
    },
    freezeAt(paths, nth = 1) {
      freeze = paths === undefined ? undefined : { paths, nth, seen: 0, passed: false };
    },
    resetCounts() {
      counts = emptyCounts();
      countsSince = Date.now();
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
