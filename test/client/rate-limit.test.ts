/**
 * The rate limit over real HTTP: the emulator started with a per-organization limit answers
 * 429 with Retry-After; a client without pacing meets it and waits as told; clients pacing
 * themselves at the same rate (the provider's `keyform:maxRequestsPerSecond`, shared by every
 * client of the process) are never refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, KeyformClient, RateLimiter, type ClientLogEvent } from "../../sdk/client";
import type { OrganizationRateLimit } from "../../sdk/emulator/rate-limit";
import { sessionFor } from "../../sdk/resources/runtime/client";
import { resolveSettings } from "../../sdk/resources/runtime/settings";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { repoRoot } from "../support/engine";
import { startEmulatorProcess } from "../support/emulator-process";

/** The service's rate: the pacing tests run at it. */
const RATE = 10;
/** The refusal tests run against a limit of 1 request per second, so that even a loaded machine sends a burst faster than that. */
const STRICT_RATE = 1;
let test: TestEmulator;
let limit: OrganizationRateLimit;
let strict: TestEmulator;
let strictLimit: OrganizationRateLimit;

beforeAll(async () => {
  test = await startTestEmulator({ maxRequestsPerSecond: RATE, onRateLimit: (l) => (limit = l) });
  strict = await startTestEmulator({ maxRequestsPerSecond: STRICT_RATE, onRateLimit: (l) => (strictLimit = l) });
});

afterAll(async () => {
  await test?.stop();
  await strict?.stop();
});

function client(options: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}, on: TestEmulator = test): KeyformClient {
  const { bootstrap } = on.emulator;
  return new KeyformClient({
    baseUrl: on.emulator.url,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
    ...options,
  });
}

/** Waits until the emulators' buckets are full again. */
const refill = () => new Promise((resolve) => setTimeout(resolve, 1_100 / STRICT_RATE));

describe("the emulator's rate limit", () => {
  it("answers 429 RESOURCE_EXHAUSTED with Retry-After once an organization is over its rate, and counts it", async () => {
    await refill();
    const before = strictLimit.refused;
    const body = JSON.stringify({ organizationId: strict.emulator.bootstrap.organizationId });
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => fetch(`${strict.emulator.url}/public/v1/query/whoami`, { method: "POST", body, headers: { "Content-Type": "application/json" } })),
    );
    const seconds = (Date.now() - started) / 1000;
    const refused = answers.filter((a) => a.status === 429);
    const admitted = answers.length - refused.length;
    // A full bucket (1) plus what refilled while the burst lasted.
    expect(admitted).toBeLessThanOrEqual(1 + Math.ceil(seconds * STRICT_RATE));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await refused[0]!.json()).toMatchObject({ code: 8, message: expect.stringContaining("rate limit") });
    expect(strictLimit.refused - before).toBe(refused.length);
    // Unauthenticated requests that got through were refused for their stamp, not run.
    expect(answers.filter((a) => a.status !== 429).every((a) => a.status === 401)).toBe(true);
  });

  it("another organization has its own bucket", async () => {
    await refill();
    const c = client({ retry: { maxRetries: 0 } }, strict);
    await c.whoami({});
    await expect(c.whoami({})).rejects.toMatchObject({ status: 429 });
    const other = JSON.stringify({ organizationId: "another-organization" });
    const answer = await fetch(`${strict.emulator.url}/public/v1/query/whoami`, { method: "POST", body: other });
    expect(answer.status).not.toBe(429);
  });
});

describe("keyform serve --rate-limit", () => {
  it("enforces the limit given on the command line, and refuses a value that is not a positive number", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-serve-rate-"));
    const served = await startEmulatorProcess(dataDir, ["--rate-limit", "1", "--log-level", "silent"]);
    try {
      const body = JSON.stringify({ organizationId: served.bootstrap.organizationId });
      const answers = await Promise.all(Array.from({ length: 6 }, () => fetch(`${served.url}/public/v1/query/whoami`, { method: "POST", body })));
      const refused = answers.filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(refused[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    } finally {
      await served.kill();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    const cli = path.join(repoRoot, "dist", "sdk", "cli", "main.js");
    const bad = await promisify(execFile)(process.execPath, [cli, "serve", "--data", dataDir, "--rate-limit", "fast"]).catch((error: { stderr: string }) => error);
    expect((bad as { stderr: string }).stderr).toMatch(/--rate-limit.*expected a positive number of requests per second/);
  });
});

describe("the client's pace", () => {
  it("without pacing, a burst meets 429s and every request still succeeds after waiting Retry-After", async () => {
    await refill();
    const before = strictLimit.refused;
    const events: ClientLogEvent[] = [];
    const c = client({ logger: (e) => events.push(e), retry: { maxRetries: 5 } }, strict);
    const answers = await Promise.all(Array.from({ length: 3 }, () => c.whoami({})));
    expect(answers).toHaveLength(3);
    expect(strictLimit.refused - before).toBeGreaterThan(0);
    const retries = events.filter((e) => e.type === "retry" && e.reason === "HTTP 429");
    expect(retries.length).toBe(strictLimit.refused - before);
    // The wait is the server's Retry-After (whole seconds), not the 250 ms backoff.
    expect(retries.every((e) => e.type === "retry" && e.delayMs >= 1_000)).toBe(true);
  });

  it("two clients sharing one limiter at the server's rate are never refused, and take the time the rate implies", async () => {
    await refill();
    const before = limit.refused;
    const limiter = new RateLimiter(RATE);
    const a = client({ rateLimiter: limiter });
    const b = client({ rateLimiter: limiter });
    const started = Date.now();
    await Promise.all(Array.from({ length: 2 * RATE }, (_, i) => (i % 2 === 0 ? a : b).whoami({})));
    const elapsed = Date.now() - started;
    expect(limit.refused - before).toBe(0);
    // 20 requests 100 ms apart: the last starts 1.9 s after the first.
    expect(elapsed).toBeGreaterThanOrEqual(((2 * RATE - 1) * 1000) / RATE - 5);
  });

  it("provider sessions keep to keyform:maxRequestsPerSecond (default 10) together, whatever their other settings", async () => {
    await refill();
    const before = limit.refused;
    const { bootstrap } = test.emulator;
    const env = {
      KEYFORM_BASE_URL: test.emulator.url,
      KEYFORM_API_PUBLIC_KEY: bootstrap.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: bootstrap.apiPrivateKey,
    };
    const settings = resolveSettings(undefined, env);
    expect(settings.maxRequestsPerSecond).toBe(RATE);
    // Two different clients (another timeout makes another client) of the same organization.
    const one = sessionFor(settings, bootstrap.organizationId, "test").client;
    const two = sessionFor({ ...settings, timeoutMs: settings.timeoutMs + 1 }, bootstrap.organizationId, "test").client;
    expect(one).not.toBe(two);
    const started = Date.now();
    await Promise.all(Array.from({ length: 2 * RATE }, (_, i) => (i % 2 === 0 ? one : two).whoami({})));
    expect(limit.refused - before).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(((2 * RATE - 1) * 1000) / RATE - 5);

    // 0 turns pacing off: a burst is refused in part (by the strict emulator).
    await refill();
    const s = strict.emulator.bootstrap;
    const unpacedSettings = resolveSettings(undefined, {
      KEYFORM_BASE_URL: strict.emulator.url,
      KEYFORM_API_PUBLIC_KEY: s.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: s.apiPrivateKey,
      KEYFORM_MAX_REQUESTS_PER_SECOND: "0",
    });
    const unpaced = sessionFor(unpacedSettings, s.organizationId, "test").client;
    const refusedBefore = strictLimit.refused;
    await Promise.all(Array.from({ length: 3 }, () => unpaced.whoami({})));
    expect(strictLimit.refused - refusedBefore).toBeGreaterThan(0);
  });
});
