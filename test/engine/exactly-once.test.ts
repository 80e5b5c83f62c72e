/**
 * Exactly once, on the real engine against the real emulator (its own process, its own
 * database), with a fault-injecting proxy between the providers and the emulator
 * (`test/support/fault-proxy.ts`): whatever is lost or killed on the way, `pulumi up` ends with
 * every declared object in the organization exactly once (no duplicate, no orphan), the state
 * knows each one, and a clean `up` reports no changes.
 *
 * - Through a proxy that fails 30% of requests (429, 503, reset before forwarding, reset after
 *   the service acted), with the emulator killed (`kill -9`) mid-`up` after 8 creates and
 *   restarted on the same data directory (asserted: the run had not ended, and the restarted
 *   emulator holds some of the objects, not all): `up` until it exits 0, at most 3 runs in all.
 *   30 resources, 5 of each kind and 5 more invitations (no unique name: the activity history
 *   is what recognises them). The first request of every create path loses its answer after the
 *   service acted (scripted), the draw decides the rest, and the test asserts faults on the
 *   create path of each kind, lost answers among them: the paths are reached by construction,
 *   not by the count of resources.
 * - `kill -9` of `pulumi` (its process group and its plugins') mid-batch: the first plural
 *   create of policies or invitations reaches the service and its answer is held, every later
 *   request is refused (`freezeAt`), so the kill lands, for sure, on a journaled batch the
 *   service ran and the run never heard of, with objects left to make (asserted, and that the
 *   run had not ended); `pulumi cancel`, `up`.
 *
 * Figures (runs needed, faults injected per path) are printed for the report.
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
import { startFaultProxy, type Fault, type FaultProxy } from "../support/fault-proxy";
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

async function stackOf(declared: Declaration[], through: FaultProxy): Promise<TestStack> {
  // The providers talk to a proxy, which stays put while the emulator restarts behind it.
  return (await typescriptStack(work, accessThrough(through.url, emu.bootstrap), declared)).handle;
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

/** Polls `done` until it holds (a condition, not a sleep). */
async function until(done: () => boolean, maxWaitMs = 300_000): Promise<void> {
  const deadline = Date.now() + maxWaitMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
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
async function expectCleanUp(stack: Stack, through: FaultProxy): Promise<void> {
  through.setRate(0);
  const clean = await stack.up();
  expect(changes(clean.summary.resourceChanges)).toEqual({});
}

/** The create paths of each kind, singular or plural (`create_policy`, `create_policies`). */
const CREATE_PATHS: Record<Kind, RegExp> = {
  UserTag: /\/submit\/create_user_tags?$/,
  Policy: /\/submit\/create_polic(y|ies)$/,
  ApiKey: /\/submit\/create_api_keys?$/,
  SmartContractInterface: /\/submit\/create_smart_contract_interfaces?$/,
  Invitation: /\/submit\/create_invitations?$/,
};
const ANY_CREATE = /\/submit\/create_/;

/** Faults of one kind (or all) injected on the paths matching `paths`. */
function faultsOn(proxy: FaultProxy, paths: RegExp, kind?: Fault): number {
  return Object.entries(proxy.counts.faultKindsByPath)
    .filter(([p]) => paths.test(p))
    .reduce((n, [, kinds]) => n + (kind === undefined ? Object.values(kinds).reduce((a, b) => a + b, 0) : (kinds[kind] ?? 0)), 0);
}

describe("through a proxy failing 30% of requests, the emulator killed mid-up", () => {
  it("30 resources, a third of them invitations: up converges within 3 runs, faults on each kind's create path; each object exactly once, all in state, then a clean up changes nothing", { timeout: TIMEOUT }, async () => {
    const seed = 1101;
    const faulty = await startFaultProxy({ upstream: emu.url, rate: 0, seed, scripted: { paths: ANY_CREATE, faults: ["resetAfter"] } });
    const declared = await declarationsOf("mix", 30, [...KINDS, "Invitation"]);
    const { stack, cleanup } = await stackOf(declared, faulty);
    try {
      faulty.setRate(0.3);
      const creates = () => Object.entries(faulty.counts.byPath).filter(([p]) => ANY_CREATE.test(p)).reduce((n, [, c]) => n + c, 0);
      let settled = false;
      const first = stack
        .up()
        .then(
          () => "ok",
          (error: unknown) => errorLines(error),
        )
        .finally(() => (settled = true));
      await until(() => creates() >= 8 || settled);
      const runningAtKill = !settled;
      // kill -9 of the emulator, restarted on the same data directory.
      await emu.kill();
      emu = await startEmulatorProcess(dataDir);
      // What the killed emulator had committed, read from the restarted one before the proxies
      // lead the providers to it (until then their requests are reset and retried).
      const atKill = tally(declared, await census(direct()));
      for (const p of [faulty, proxy]) p.setUpstream(emu.url);
      const firstOutcome = await first;
      console.log(`[exactly-once] emulator killed after ${creates()} create submits, ${atKill.ids.size} of ${declared.length} objects made; the interrupted up: ${firstOutcome === "ok" ? "succeeded" : `failed:\n${firstOutcome}`}`);
      // Not vacuous: the kill landed mid-up, with some objects made and not all.
      expect(runningAtKill, "the up was still running when the emulator was killed").toBe(true);
      expect(atKill.ids.size).toBeGreaterThan(0);
      expect(atKill.ids.size).toBeLessThan(declared.length);

      const more = firstOutcome === "ok" ? { runs: 0, errors: [] } : await upUntilOk(stack, 2);
      const runs = 1 + more.runs;
      faulty.setRate(0);
      const { requests, faults, faultKindsByPath } = faulty.counts;
      console.log(`[exactly-once] seed ${seed}: ${runs} run(s); ${requests} requests, faults ${JSON.stringify(faults)}; by path ${JSON.stringify(faultKindsByPath)}`);
      for (const e of more.errors) console.log(`[exactly-once] failed run:\n${e}`);
      expect(runs, more.errors.join("\n---\n")).toBeLessThanOrEqual(3);
      // The faults reached the create path of every kind, a lost answer among them.
      for (const kind of KINDS) {
        expect(faultsOn(faulty, CREATE_PATHS[kind]), `faults on ${kind} creates`).toBeGreaterThan(0);
        expect(faultsOn(faulty, CREATE_PATHS[kind], "resetAfter"), `lost answers of ${kind} creates`).toBeGreaterThan(0);
      }
      await expectExactlyOnce(stack, declared);
      await expectCleanUp(stack, faulty);
    } finally {
      faulty.setRate(0);
      await cleanup();
      await faulty.close();
    }
  });
});

describe("killed runs", () => {
  it("kill -9 of pulumi mid-batch (a plural create of policies or invitations, its answer held), pulumi cancel, up: converges with nothing done by hand", { timeout: TIMEOUT }, async () => {
    const declared = await declarationsOf("kill", 30, KINDS);
    const { stack, cleanup } = await stackOf(declared, proxy);
    try {
      proxy.setRate(0);
      proxy.resetCounts();
      // Its own process group, like a CI job; the engine starts each plugin (the dynamic provider
      // host among them) in a group of its own, and the kill takes those groups too, as a
      // cancelled CI job's kill of its whole process tree would. The stack stays locked by the
      // killed run until the `pulumi cancel` that follows.
      const creates = () => Object.entries(proxy.counts.byPath).filter(([p]) => p.includes("/submit/create_")).reduce((n, [, c]) => n + c, 0);
      // Creates go out batched (plural activities, journaled for the stack): the first batch of
      // policies or invitations (named objects, and objects with no unique name: neither may be
      // made twice) reaches the service, its answer is held, nothing after it gets through; the
      // kill comes then. (A held batch of API keys proved less: a generated key is replaced.)
      const pluralCreates = () => Object.entries(proxy.counts.byPath).filter(([p]) => PLURAL_CREATE.test(p)).reduce((n, [, c]) => n + c, 0);
      proxy.freezeAt(/\/submit\/create_(policies|invitations)$/, 1);
      let killed: { runningAtKill: boolean };
      try {
        killed = await killUpWhen(stack, RECONCILE_FIXTURE, () => proxy.counts.held > 0);
      } finally {
        proxy.freezeAt(undefined);
      }
      const before = tally(declared, await census(direct()));
      const recorded = (await keyformResources(stack)).length;
      console.log(`[exactly-once] killed pulumi after ${creates()} create submits (${pluralCreates()} plural, ${proxy.counts.frozen} requests refused after the held one); ${before.ids.size} objects existed, ${recorded} in state; ${JSON.stringify(proxy.counts.byPath)}`);
      expect(killed.runningAtKill, "the up was still running when it was killed").toBe(true);
      expect(proxy.counts.held).toBe(1);
      // The held batch's objects exist and the state does not know them; others were never sent.
      expect(before.ids.size).toBeGreaterThan(recorded);
      expect(before.ids.size).toBeLessThan(declared.length);

      const after = await upUntilOk(stack, 1);
      expect(after.runs, after.errors.join("\n")).toBe(1);
      await expectExactlyOnce(stack, declared);
      await expectCleanUp(stack, proxy);
    } finally {
      await cleanup();
    }
  });
});
