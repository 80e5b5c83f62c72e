/**
 * The service's rate limits over real HTTP: the emulator started with a plan answers every
 * request with `ratelimit-limit` / `ratelimit-remaining`, counts per client address (plus 10/s
 * per sub-organization, and a separate 10/s for the broadcast endpoints), and over a limit
 * answers 429 with the service's message and Retry-After. The client learns the rate from those
 * headers with no setting: provider sessions sharing the process's pace are never refused.
 *
 * Every test has emulators of its own: their buckets start full and no other test takes from
 * them (the limit counts per emulator, then per client address), so no test waits for a bucket
 * to refill, and the tests of this process run side by side; the two that start processes run
 * after them, one at a time. A client's pace is per service (base URL), so the clients of one
 * test learn nothing from another's.
 */
import { afterAll, describe, it } from "vitest";
import { ApiKeyStamper, KeyformClient, ServicePace, type ClientLogEvent } from "../../sdk/client";
import type { ServiceRateLimit } from "../../sdk/emulator/rate-limit";
import { sessionFor } from "../../sdk/resources/runtime/client";
import { ProviderContext } from "../../sdk/resources/runtime/context";
import { resolveSettings } from "../../sdk/resources/runtime/settings";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { repoRoot } from "../support/engine";
import { startEmulatorProcess } from "../support/emulator-process";

const started: TestEmulator[] = [];

afterAll(async () => {
  await Promise.all(started.map((e) => e.stop()));
});

/** A new emulator on `plan` (none: no limit), with its limit's counters (`refused`, `admitted`). */
async function emulatorOn(plan?: "free" | "pro" | "enterprise"): Promise<{ on: TestEmulator; limit: () => ServiceRateLimit }> {
  let limit: ServiceRateLimit | undefined;
  const on = await startTestEmulator(plan === undefined ? {} : { plan, onRateLimit: (l) => (limit = l) });
  started.push(on);
  return { on, limit: () => limit! };
}

function client(on: TestEmulator, options: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}): KeyformClient {
  const { bootstrap } = on.emulator;
  return new KeyformClient({
    baseUrl: on.emulator.url,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
    ...options,
  });
}

function post(on: TestEmulator, endpoint: string, organizationId: string, family = "query"): Promise<Response> {
  return fetch(`${on.emulator.url}/public/v1/${family}/${endpoint}`, {
    method: "POST",
    body: JSON.stringify({ organizationId }),
    headers: { "Content-Type": "application/json" },
  });
}

describe.concurrent("the emulator's plans", () => {
  it("free: 1 request/s per client address; every answer carries the budget headers; over it, the service's 429", async ({ expect }) => {
    const { on: free, limit } = await emulatorOn("free");
    const root = free.emulator.bootstrap.organizationId;
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(free, "whoami", root)));
    const seconds = (Date.now() - started) / 1000;
    const refused = answers.filter((a) => a.status === 429);
    expect(answers.length - refused.length).toBeLessThanOrEqual(1 + Math.ceil(seconds));
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.headers.get("ratelimit-limit")).toBe("1");
      expect(answer.headers.get("ratelimit-remaining")).toMatch(/^\d+$/);
    }
    expect(refused[0]!.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused[0]!.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(await refused[0]!.json()).toEqual({ code: 8, message: "Too many requests. Please wait and try again in a few seconds", details: [] });
    expect(limit().refused).toBe(refused.length);
    expect(limit().admitted).toBe(answers.length - refused.length);
    // Unauthenticated requests that got through were refused for their stamp, not run.
    expect(answers.filter((a) => a.status !== 429).every((a) => a.status === 401)).toBe(true);
  });

  it("the address is counted, not the organization: another organization from the same address shares the bucket", async ({ expect }) => {
    const { on: free, limit } = await emulatorOn("free");
    // Sent together, so that the bucket (one request) cannot refill between them: whichever
    // arrives second is refused, though the two name different organizations.
    const answers = await Promise.all([post(free, "whoami", free.emulator.bootstrap.organizationId), post(free, "whoami", "another-organization")]);
    expect(answers.map((a) => a.status).sort()).toEqual([401, 429]);
    expect([limit().admitted, limit().refused]).toEqual([1, 1]);
  });

  it("the broadcast endpoints have their own 10/s, apart from the plan's", async ({ expect }) => {
    const { on: free } = await emulatorOn("free");
    const root = free.emulator.bootstrap.organizationId;
    // While the plan's bucket refuses, the broadcasts sent with the same burst go through.
    const [plan, broadcast] = await Promise.all([
      Promise.all(Array.from({ length: 3 }, () => post(free, "whoami", root))),
      Promise.all(Array.from({ length: 3 }, () => post(free, "eth_send_transaction", root, "submit"))),
    ]);
    expect(plan.filter((a) => a.status === 429).length).toBeGreaterThan(0);
    for (const answer of broadcast) {
      expect(answer.status).not.toBe(429);
      expect(answer.headers.get("ratelimit-limit")).toBe("10");
    }
  });

  it("enterprise: 60/s for the root organization, 10/s for each sub-organization", async ({ expect }) => {
    const { on: enterprise, limit } = await emulatorOn("enterprise");
    const root = enterprise.emulator.bootstrap.organizationId;
    const rootAnswers = await Promise.all(Array.from({ length: 20 }, () => post(enterprise, "whoami", root)));
    expect(rootAnswers.every((a) => a.status !== 429)).toBe(true);
    expect(rootAnswers[0]!.headers.get("ratelimit-limit")).toBe("60");
    // The address has at least 40 of its 60 left: every refusal below is the sub-organization's.
    const subAnswers = await Promise.all(Array.from({ length: 20 }, () => post(enterprise, "whoami", "a-sub-organization")));
    const refused = subAnswers.filter((a) => a.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(subAnswers[0]!.headers.get("ratelimit-limit")).toBe("10");
    expect(limit().refused).toBe(refused);
  });

  it("without a plan nothing is limited and no budget headers are sent", async ({ expect }) => {
    const { on: unlimited } = await emulatorOn();
    const root = unlimited.emulator.bootstrap.organizationId;
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(unlimited, "whoami", root)));
    expect(answers.every((a) => a.status === 401)).toBe(true);
    expect(answers[0]!.headers.get("ratelimit-limit")).toBeNull();
  });
});

describe.concurrent("the client's pace, learned from the headers", () => {
  it("without pacing, a burst meets 429s and every request still succeeds after waiting Retry-After", async ({ expect }) => {
    const { on: free, limit } = await emulatorOn("free");
    const events: ClientLogEvent[] = [];
    const c = client(free, { logger: (e) => events.push(e), retry: { maxRetries: 5 } });
    const answers = await Promise.all(Array.from({ length: 3 }, () => c.whoami({})));
    expect(answers).toHaveLength(3);
    expect(limit().refused).toBeGreaterThan(0);
    const retries = events.filter((e) => e.type === "retry" && e.reason === "HTTP 429");
    expect(retries.length).toBe(limit().refused);
    expect(retries.every((e) => e.type === "retry" && e.delayMs >= 1_000)).toBe(true);
  });

  for (const [name, rate, count] of [
    ["free", 1, 5],
    ["pro", 3, 12],
  ] as const) {
    it(`${name}: provider sessions with default settings learn ${rate}/s from the first answer and are never refused, together`, async ({ expect }) => {
      const { on, limit } = await emulatorOn(name);
      const { bootstrap } = on.emulator;
      const settings = resolveSettings(undefined, {
        KEYFORM_BASE_URL: on.emulator.url,
        KEYFORM_API_PUBLIC_KEY: bootstrap.apiPublicKey,
        KEYFORM_API_PRIVATE_KEY: bootstrap.apiPrivateKey,
      });
      expect(settings.maxRequestsPerSecond).toBe(0);
      // Two different clients (another timeout makes another client) share the process's pace.
      const context = new ProviderContext(undefined, undefined);
      const one = sessionFor(context, settings, bootstrap.organizationId, "test").client;
      const two = sessionFor(context, { ...settings, timeoutMs: settings.timeoutMs + 1 }, bootstrap.organizationId, "test").client;
      expect(one).not.toBe(two);
      const started = Date.now();
      await Promise.all(Array.from({ length: count }, (_, i) => (i % 2 === 0 ? one : two).whoami({})));
      expect(limit().refused).toBe(0);
      expect(limit().admitted).toBe(count);
      expect(Date.now() - started).toBeGreaterThanOrEqual(((count - 1) * 1000) / rate - 5);
    });
  }

  it("a service that sends no headers is not paced", async ({ expect }) => {
    const { on: unlimited } = await emulatorOn();
    const open = new ServicePace();
    const c = client(unlimited, { rateLimiter: open });
    await Promise.all(Array.from({ length: 5 }, () => c.whoami({})));
    expect(open.rate).toBe(Infinity);
  });

  it("the cap setting paces below the advertised rate", async ({ expect }) => {
    const { on: enterprise, limit } = await emulatorOn("enterprise");
    const capped = new ServicePace(4);
    const e = client(enterprise, { rateLimiter: capped });
    const started = Date.now();
    await Promise.all(Array.from({ length: 9 }, () => e.whoami({})));
    expect(capped.rate).toBe(4);
    expect(Date.now() - started).toBeGreaterThanOrEqual((8 * 1000) / 4 - 5);
    expect(limit().refused).toBe(0);
  });
});

// On their own after the tests above: these start processes, whose start-up would load the
// machine while the others keep to a pace (and a process that keeps to its booked start is what
// the first one proves).
describe("processes of one machine", () => {
  it("free: processes of one machine (a program's data functions, its provider) keep apart from their first request, and are never refused", { timeout: 120_000 }, async ({ expect }) => {
    const { on: free, limit } = await emulatorOn("free");
    const { bootstrap } = free.emulator;
    const env = {
      ...process.env,
      KEYFORM_BASE_URL: free.emulator.url,
      KEYFORM_API_PUBLIC_KEY: bootstrap.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: bootstrap.apiPrivateKey,
      KEYFORM_ORGANIZATION_ID: bootstrap.organizationId,
    };
    // Each process starts with nothing learned and sends its first requests at once, as a
    // program's `whoami` and its provider's settings check do.
    const script = `
      const { ProviderContext } = require(${JSON.stringify(path.join(repoRoot, "dist/sdk/resources/runtime/context.js"))});
      const { sessionFor } = require(${JSON.stringify(path.join(repoRoot, "dist/sdk/resources/runtime/client.js"))});
      const context = new ProviderContext(undefined, undefined);
      const { client } = sessionFor(context, context.settings(), process.env.KEYFORM_ORGANIZATION_ID, "test");
      Promise.all([client.whoami({}), client.whoami({})]).then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
    `;
    const run = promisify(execFile);
    await Promise.all([1, 2, 3].map(() => run(process.execPath, ["-e", script], { env })));
    expect(limit().refused).toBe(0);
    expect(limit().admitted).toBe(6);
  });
});

describe("keyform serve --plan / --requests-per-second / --rate-limit", () => {
  it("keyform serve enforces the plan or rate given on the command line (--plan, --requests-per-second, --rate-limit), and refuses a plan or rate that does not exist", async ({ expect }) => {
    const cli = path.join(repoRoot, "dist", "sdk", "cli", "main.js");
    const cases = [
      [["--plan", "free"], "1"],
      [["--plan", "pro"], "3"],
      [["--requests-per-second", "2"], "2"],
      [["--rate-limit", "1"], "1"],
    ] as const;
    await Promise.all(
      cases.map(async ([flags, limitHeader]) => {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-serve-rate-"));
        const served = await startEmulatorProcess(dataDir, [...flags, "--log-level", "silent"]);
        try {
          const body = JSON.stringify({ organizationId: served.bootstrap.organizationId });
          const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${served.url}/public/v1/query/whoami`, { method: "POST", body })));
          expect(answers.filter((a) => a.status === 429).length, flags.join(" ")).toBeGreaterThan(0);
          expect(answers[0]!.headers.get("ratelimit-limit"), flags.join(" ")).toBe(limitHeader);
        } finally {
          await served.kill();
          fs.rmSync(dataDir, { recursive: true, force: true });
        }
      }),
    );
    const tmp = os.tmpdir();
    const serve = (flags: string[]) => promisify(execFile)(process.execPath, [cli, "serve", "--data", tmp, ...flags]).catch((error: { stderr: string }) => error) as Promise<{ stderr: string }>;
    const [bad, badRate] = await Promise.all([serve(["--plan", "gold"]), serve(["--requests-per-second", "fast"])]);
    expect(bad.stderr).toMatch(/--plan.*gold.*free, payg, pro, enterprise/);
    expect(badRate.stderr).toMatch(/--requests-per-second.*expected a positive number of requests per second/);
  });
});
