/**
 * The first-byte timeout over real sockets: a server that accepts connections and never
 * answers fails a call once, with the default budget of 15 s applied, naming the cause; retries
 * do not multiply it. The default is proven on the client's clock: the connection is real, the
 * timers are Vitest's fake ones, advanced to just before 15 s (the call is still waiting) and
 * then to 15 s (it has failed), so the test waits for no 15 s of wall time. Activity polling keeps its own budget:
 * an activity that takes many times the first-byte time to complete still completes, since
 * every poll is answered at once.
 */
import * as net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  DEFAULT_FIRST_BYTE_TIMEOUT_MS,
  FirstByteTimeoutError,
  KeyformClient,
  TimeoutError,
  type ClientLogEvent,
} from "../../sdk/client";
import { activity, json, newStamper, ORGANIZATION_ID, startServer, type TestServer } from "./helpers";

const { stamper } = newStamper();
let silent: net.Server;
let silentUrl: string;
/** Connections the silent server accepted. */
let accepted = 0;
const sockets = new Set<net.Socket>();
let server: TestServer | undefined;

beforeAll(async () => {
  silent = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a server that accepts connections and never answers", () => {
  it("fails the call once at the default 15 s, not before, naming the cause; no retry", async () => {
    const events: ClientLogEvent[] = [];
    const before = accepted;
    // Only the timers the client arms are faked; sockets and setImmediate stay real.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const client = new KeyformClient({
        baseUrl: silentUrl,
        organizationId: ORGANIZATION_ID,
        stamper,
        // The provider's settings: a minute for the whole request, five retries.
        budgetMs: 60_000,
        timeoutMs: 30_000,
        retry: { maxRetries: 5 },
        logger: (event) => events.push(event),
      });
      let settled: { error: unknown } | undefined;
      void client.whoami({}).then(
        () => (settled = { error: undefined }),
        (error: unknown) => (settled = { error }),
      );
      // The real connection: the server accepts it (and the client sees it connected).
      while (accepted - before < 1) await new Promise((resolve) => setImmediate(resolve));
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(DEFAULT_FIRST_BYTE_TIMEOUT_MS - 1);
      expect(settled, "settled before the first-byte time").toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      for (let i = 0; i < 100 && settled === undefined; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled, "still waiting at the first-byte time").toBeDefined();
      const error = settled!.error;
      expect(error).toBeInstanceOf(FirstByteTimeoutError);
      expect(error).toBeInstanceOf(TimeoutError);
      const timeout = error as FirstByteTimeoutError;
      expect(DEFAULT_FIRST_BYTE_TIMEOUT_MS).toBe(15_000);
      expect(timeout.timeoutMs).toBe(DEFAULT_FIRST_BYTE_TIMEOUT_MS);
      expect(timeout.connected).toBe(true);
      expect(timeout.message).toBe("whoami: the server accepted the connection but sent nothing within 15000 ms");
      expect(events.filter((e) => e.type === "request.start")).toHaveLength(1);
      expect(events.filter((e) => e.type === "retry")).toEqual([]);
      expect(accepted - before).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("applies a configured first-byte time, and only when it is shorter than the attempt's timeout", async () => {
    const short = new KeyformClient({ baseUrl: silentUrl, organizationId: ORGANIZATION_ID, stamper, firstByteTimeoutMs: 150, retry: { maxRetries: 0 } });
    const error = (await short.whoami({}).catch((e: unknown) => e)) as FirstByteTimeoutError;
    expect(error).toBeInstanceOf(FirstByteTimeoutError);
    expect(error.timeoutMs).toBe(150);

    // The attempt's own timeout is shorter: that one applies, as a plain TimeoutError.
    const attempt = new KeyformClient({ baseUrl: silentUrl, organizationId: ORGANIZATION_ID, stamper, timeoutMs: 100, firstByteTimeoutMs: 5_000, retry: { maxRetries: 0 } });
    const plain = (await attempt.whoami({}).catch((e: unknown) => e)) as TimeoutError;
    expect(plain).toBeInstanceOf(TimeoutError);
    expect(plain).not.toBeInstanceOf(FirstByteTimeoutError);
    expect(plain.timeoutMs).toBe(100);
  });

  it("refuses a first-byte time that is not a positive number", () => {
    expect(() => new KeyformClient({ baseUrl: silentUrl, organizationId: ORGANIZATION_ID, stamper, firstByteTimeoutMs: 0 })).toThrow(/firstByteTimeoutMs must be a positive number/);
  });
});

describe("activity polling keeps its own budget", () => {
  it("an activity that completes after many first-byte times still completes", { timeout: 60_000 }, async () => {
    const FIRST_BYTE_MS = 100;
    const polls: Array<{ elapsedMs: number }> = [];
    let submitted: Record<string, unknown> | undefined;
    server = await startServer((req, res) => {
      if (req.path.startsWith("/public/v1/submit/")) {
        submitted = activity({ id: "act-1", status: "ACTIVITY_STATUS_PENDING" });
        return json(res, 200, { activity: submitted });
      }
      // Completes once the client has polled for more than five first-byte times.
      const elapsed = polls.at(-1)?.elapsedMs ?? 0;
      submitted!["status"] = elapsed > 5 * FIRST_BYTE_MS ? "ACTIVITY_STATUS_COMPLETED" : "ACTIVITY_STATUS_PENDING";
      json(res, 200, { activity: submitted });
    });
    const client = new KeyformClient({
      baseUrl: server.url,
      organizationId: ORGANIZATION_ID,
      stamper,
      firstByteTimeoutMs: FIRST_BYTE_MS,
      poll: { intervalMs: 20, timeoutMs: 30_000 },
      logger: (event) => {
        if (event.type === "activity.poll") polls.push({ elapsedMs: event.elapsedMs });
      },
    });
    const result = await client.createUserTag({ userTagName: "ops", userIds: [] });
    expect(result.userTagId).toBe("tag-1");
    expect(polls.at(-1)!.elapsedMs).toBeGreaterThan(5 * FIRST_BYTE_MS);
  });
});
