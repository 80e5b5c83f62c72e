/**
 * The first-byte timeout over real sockets: a server that accepts connections and never
 * answers fails a call once, with the default budget of 15 s applied (read from the error, not
 * timed), naming the cause; retries do not multiply it. Activity polling keeps its own budget:
 * an activity that takes many times the first-byte time to complete still completes, since
 * every poll is answered at once.
 */
import * as net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
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
  it("fails the call once within the default 15 s, naming the cause; no retry", { timeout: 60_000 }, async () => {
    const events: ClientLogEvent[] = [];
    const before = accepted;
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
    const error = await client.whoami({}).then(
      () => undefined,
      (e: unknown) => e,
    );
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
