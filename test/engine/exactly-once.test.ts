/**
 * Exactly once, on the real engine against the real emulator (its own process, its own
 * database), with a fault-injecting proxy between the providers and the emulator
 * (`test/support/fault-proxy.ts`): whatever is lost or killed on the way, `pulumi up` ends with
 * every declared object in the organization exactly once (no duplicate, no orphan), the state
 * knows each one, and a clean `up` reports no changes.
 *
 * - 100 mixed resources through a proxy that fails 30% of requests (429, 503, reset before
 *   forwarding, reset after the service acted): `up` until it exits 0, at most 3 runs.
 * - The same with only invitations (no unique name: the activity history is what recognises them).
 * - `kill -9` of `pulumi` (its process group and its plugins') after 3 plural creates (mid-batch), `pulumi cancel`, `up`.
 * - `kill -9` of the emulator mid-`up`, restarted on the same data directory, `up`.
 *
 * Figures (runs needed, faults injected) are printed for the report.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { census, declarations, KINDS, tally, type Declaration, type Kind } from "../support/declarations";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process";
import { accessThrough, killUpWhen, RECONCILE_FIXTURE, typescriptStack } from "../support/declared-stacks";
import { pulumiBinDir, type TestStack } from "../support/engine";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { changes, keyformResources } from "../resources/harness/engine-harness";

/** The plural create activities a batch goes out as. */
const PLURAL_CREATE = /\/submit\/create_(policies|users|invitations|api_keys)$/;
const TIMEOUT = 600_000;

let work: string;
let dataDir: string;
let emu: EmulatorProcess;
let proxy: FaultProxy;

/** A client straight to the emulator (no faults), for the census. */
function direct(): KeyformClient {
  const b = emu.bootstrap;
  return new KeyformClient({
    baseUrl: emu.url,
    organizationId: b.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }),
  });
}

beforeAll(async () => {
  pulumiBinDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-exactly-once-"));
  dataDir = path.join(work, "emulator");
  emu = await startEmulatorProcess(dataDir);
  proxy = await startFaultProxy({ upstream: emu.url, rate: 0, seed: 1 });
});

afterAll(async () => {
  await proxy?.close();
  await emu?.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/**
 * A user of its own for a stack's API keys: the service holds at most 10 long-lived and 10
 * expiring keys per user, and keyform's preview refuses a plan over that.
 */
async function keyUser(prefix: string): Promise<string> {
  const { userIds } = await direct().createUsers({
    users: [{ userName: `${prefix}-keys`, userEmail: `${prefix}-keys@example.com`, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  return userIds[0]!;
}

/** Declarations whose API keys belong to a user of their own, the rest sent by the root user. */
async function declarationsOf(prefix: string, count: number, kinds: readonly Kind[]): Promise<Declaration[]> {
  const keysUser = await keyUser(prefix);
  return declarations(prefix, count, kinds, emu.bootstrap.userId).map((d) =>
    d.kind === "ApiKey" ? { ...d, args: { ...d.args, userId: keysUser } } : d,
  );
}

/**
 * Destroys the stack's objects (no faults) before the stack is removed, for the invitations-only
 * case: the organization holds at most 100 invitations, and the cases together declare 112. The
 * other cases (72 invitations, user tags and policies together, under the limits of 100) leave
 * their objects in the file's emulator: a destroy of theirs would be an engine run that proves
 * nothing here (destroys are proven by `destroy-through-faults.test.ts` and the lifecycle tests).
 */
async function destroyQuietly(stack: Stack): Promise<void> {
  proxy.setRate(0);
  await stack.destroy().catch((error: unknown) => console.log(`[exactly-once] destroy after the case failed: ${errorLines(error)}`));
}

async function stackOf(prefix: string, declared: Declaration[]): Promise<TestStack> {
  // The providers talk to the proxy, which stays put while the emulator restarts behind it.
  return (await typescriptStack(work, accessThrough(proxy.url, emu.bootstrap), declared)).handle;
}

/** `up` until it exits 0, at most `maxRuns` times; the runs it took and the errors on the way. */
async function upUntilOk(stack: Stack, maxRuns: number): Promise<{ runs: number; errors: string[] }> {
  const errors: string[] = [];
  for (let run = 1; run <= maxRuns; run++) {
    try {
      await stack.up();
      return { runs: run, errors };
    } catch (error) {
      errors.push(errorLines(error));
    }
  }
  return { runs: maxRuns + 1, errors };
}

/** The resource error lines of a failed run (the engine's output is long). */
function errorLines(error: unknown): string {
  const text = String(error);
  const lines = text.split("\n").filter((l) => /error:|create:|update:|delete:/.test(l));
  return (lines.length > 0 ? lines : [text.slice(0, 2000)]).slice(0, 12).join("\n");
}

/** Every declared object exactly once in the organization, and the state holds exactly those. */
async function expectExactlyOnce(stack: Stack, declared: Declaration[]): Promise<void> {
  const found = tally(declared, await census(direct()));
  expect(found.duplicates, "duplicates").toEqual([]);
  expect(found.missing, "missing").toEqual([]);
  const state = await keyformResources(stack);
  expect(state).toHaveLength(declared.length);
  // No orphan: each object of a declared key is the one its resource records.
  expect(new Set(state.map((r) => r.id))).toEqual(found.ids);
}

/** A clean `up` (no faults) changes nothing. */
async function expectCleanUp(stack: Stack): Promise<void> {
  proxy.setRate(0);
  const clean = await stack.up();
  expect(changes(clean.summary.resourceChanges)).toEqual({});
}

function faultsSoFar(): string {
  const { requests, faults } = proxy.counts;
  return `${requests} requests, faults ${JSON.stringify(faults)}`;
}

describe.each([
  { name: "100 mixed resources", prefix: "mixa", count: 100, kinds: KINDS, seed: 1101, destroy: false },
  { name: "100 mixed resources, another seed", prefix: "mixb", count: 100, kinds: KINDS, seed: 2202, destroy: false },
  { name: "40 invitations only", prefix: "inv", count: 40, kinds: ["Invitation"] as Kind[], seed: 3303, destroy: true },
])("$name through a proxy failing 30% of requests (seed $seed)", ({ prefix, count, kinds, seed, destroy }) => {
  it("up converges within 3 runs: each object exactly once, all in state, then a clean up changes nothing", { timeout: TIMEOUT }, async () => {
    const declared = await declarationsOf(prefix, count, kinds);
    const { stack, cleanup } = await stackOf(prefix, declared);
    try {
      proxy.reseed(seed);
      proxy.setRate(0.3);
      proxy.resetCounts();
      const outcome = await upUntilOk(stack, 3);
      proxy.setRate(0);
      console.log(`[exactly-once] ${prefix} seed ${seed}: ${outcome.runs} run(s); ${faultsSoFar()}`);
      for (const e of outcome.errors) console.log(`[exactly-once] ${prefix} failed run:\n${e}`);
      expect(outcome.runs, outcome.errors.join("\n---\n")).toBeLessThanOrEqual(3);
      await expectExactlyOnce(stack, declared);
      await expectCleanUp(stack);
    } finally {
      proxy.setRate(0);
      if (destroy) await destroyQuietly(stack);
      await cleanup();
    }
  });
});

describe("killed runs", () => {
  it("kill -9 of pulumi mid-batch (after 3 plural creates), pulumi cancel, up: converges with nothing done by hand", { timeout: TIMEOUT }, async () => {
    const declared = await declarationsOf("kill", 100, KINDS);
    const { stack, cleanup } = await stackOf("kill", declared);
    try {
      proxy.setRate(0);
      proxy.resetCounts();
      // Its own process group, like a CI job; the engine starts each plugin (the dynamic provider
      // host among them) in a group of its own, and the kill takes those groups too, as a
      // cancelled CI job's kill of its whole process tree would. The stack stays locked by the
      // killed run until the `pulumi cancel` that follows.
      const creates = () => Object.entries(proxy.counts.byPath).filter(([p]) => p.includes("/submit/create_")).reduce((n, [, c]) => n + c, 0);
      // Creates go out batched (plural activities, journaled for the stack): kill mid-way through them.
      const pluralCreates = () => Object.entries(proxy.counts.byPath).filter(([p]) => PLURAL_CREATE.test(p)).reduce((n, [, c]) => n + c, 0);
      await killUpWhen(stack, RECONCILE_FIXTURE, () => pluralCreates() >= 3);
      const before = tally(declared, await census(direct()));
      console.log(`[exactly-once] killed pulumi after ${creates()} create submits (${pluralCreates()} plural); ${before.ids.size} objects existed; ${JSON.stringify(proxy.counts.byPath)}`);
      expect(pluralCreates()).toBeGreaterThanOrEqual(3);
      expect(before.ids.size).toBeGreaterThan(0);
      expect(before.ids.size).toBeLessThan(declared.length);

      const after = await upUntilOk(stack, 1);
      expect(after.runs, after.errors.join("\n")).toBe(1);
      await expectExactlyOnce(stack, declared);
      await expectCleanUp(stack);
    } finally {
      await cleanup();
    }
  });

  it("kill -9 of the emulator mid-up, restarted on the same data: up converges", { timeout: TIMEOUT }, async () => {
    const declared = await declarationsOf("emu", 60, KINDS);
    const { stack, cleanup } = await stackOf("emu", declared);
    try {
      proxy.setRate(0);
      proxy.resetCounts();
      const creates = () => Object.entries(proxy.counts.byPath).filter(([p]) => p.includes("/submit/create_")).reduce((n, [, c]) => n + c, 0);
      const first = stack.up().then(
        () => "ok",
        (error: unknown) => errorLines(error),
      );
      const deadline = Date.now() + 300_000;
      while (creates() < 25 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      await emu.kill();
      await new Promise((r) => setTimeout(r, 500));
      emu = await startEmulatorProcess(dataDir);
      proxy.setUpstream(emu.url);
      const firstOutcome = await first;
      console.log(`[exactly-once] emulator killed after ${creates()} create submits; the interrupted up: ${firstOutcome === "ok" ? "succeeded" : `failed:\n${firstOutcome}`}`);

      const after = await upUntilOk(stack, 2);
      expect(after.runs, after.errors.join("\n")).toBeLessThanOrEqual(2);
      await expectExactlyOnce(stack, declared);
      await expectCleanUp(stack);
    } finally {
      await cleanup();
    }
  });
});
