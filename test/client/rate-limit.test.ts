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
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const RATE = 10;
let test: TestEmulator;
let limit: OrganizationRateLimit;

beforeAll(async () => {
  test = await startTestEmulator({ maxRequestsPerSecond: RATE, onRateLimit: (l) => (limit = l) });
});

afterAll(async () => {
  await test?.stop();
});

function client(options: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}): KeyformClient {
  const { bootstrap } = test.emulator;
  return new KeyformClient({
    baseUrl: test.emulator.url,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
    ...options,
  });
}

/** Waits until the emulator's bucket of the organization is full again. */
const refill = () => new Promise((resolve) => setTimeout(resolve, 1_100));

describe("the emulator's rate limit", () => {
  it("answers 429 RESOURCE_EXHAUSTED with Retry-After once an organization is over its rate, and counts it", async () => {
    await refill();
    const before = limit.refused;
    const body = JSON.stringify({ organizationId: test.emulator.bootstrap.organizationId });
    const answers = await Promise.all(
      Array.from({ length: RATE * 2 }, () => fetch(`${test.emulator.url}/public/v1/query/whoami`, { method: "POST", body, headers: { "Content-Type": "application/json" } })),
    );
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(RATE - 1);
    expect(refused[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await refused[0]!.json()).toMatchObject({ code: 8, message: expect.stringContaining("rate limit") });
    expect(limit.refused - before).toBe(refused.length);
    // Unauthenticated requests that got through were refused for their stamp, not run.
    expect(answers.filter((a) => a.status !== 429).every((a) => a.status === 401)).toBe(true);
  });

  it("another organization has its own bucket", async () => {
    await refill();
    const c = client();
    await Promise.all(Array.from({ length: RATE }, () => c.whoami({})));
    const other = JSON.stringify({ organizationId: "another-organization" });
    const answer = await fetch(`${test.emulator.url}/public/v1/query/whoami`, { method: "POST", body: other });
    expect(answer.status).not.toBe(429);
  });
});

describe("the client's pace", () => {
  it("without pacing, a burst meets 429s and every request still succeeds after waiting Retry-After", async () => {
    await refill();
    const before = limit.refused;
    const events: ClientLogEvent[] = [];
    const c = client({ logger: (e) => events.push(e), retry: { maxRetries: 5 } });
    const answers = await Promise.all(Array.from({ length: RATE + 5 }, () => c.whoami({})));
    expect(answers).toHaveLength(RATE + 5);
    expect(limit.refused - before).toBeGreaterThan(0);
    const retries = events.filter((e) => e.type === "retry" && e.reason === "HTTP 429");
    expect(retries.length).toBe(limit.refused - before);
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

    // 0 turns pacing off: the same burst is refused in part.
    await refill();
    const unpaced = sessionFor(resolveSettings(undefined, { ...env, KEYFORM_MAX_REQUESTS_PER_SECOND: "0" }), bootstrap.organizationId, "test").client;
    const refusedBefore = limit.refused;
    await Promise.all(Array.from({ length: 2 * RATE }, () => unpaced.whoami({})));
    expect(limit.refused - refusedBefore).toBeGreaterThan(0);
  });
});
