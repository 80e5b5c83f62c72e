/**
 * A clean state after a killed run, on the real engine against the emulator in its own process:
 * `kill -9` of `pulumi up` (its process group and its plugins') once the fifth create submit of
 * 16 objects has reached the service and its answer is held (every later request refused:
 * `freezeAt` of `test/support/fault-proxy.ts`), `pulumi cancel`, then the GitOps runner's `up`.
 * That one `up` leaves 0 pending operations in the state, its report names the operations it cleared and the objects it adopted, every
 * declared object exists exactly once (read back with the official client) and the state
 * holds each; a plain preview afterwards changes nothing. On the TypeScript path (dynamic
 * providers); the YAML path's (the provider plugin) is in `gitops-journal-restore.test.ts`,
 * where one killed run serves both the recovery and the journal's restore on a fresh runner.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Stack } from "@pulumi/pulumi/automation";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingOperations } from "../../sdk/gitops/recovery";
import { accessThrough, stateResources, killUpWhen, stackEnv, typescriptStack, type Declared } from "../support/declared-stacks";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process";
import { pulumiBinDir, repoRoot } from "../support/engine";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { namedObjectCounts, officialClient } from "../support/organization-snapshot";

const keyformOf = async (stack: Stack) => (await stateResources(stack)).keyform;
const TIMEOUT = 600_000;
/**
 * Half user tags (a singular create each), half policies: at least 9 create submits, so the
 * kill at the fifth lands with some objects made and not all (asserted), which is all the count
 * has to give.
 */
const COUNT = 16;
/** The create submit whose answer is held; nothing after it reaches the service. */
const FREEZE_AT = 5;
const CREATE = /\/submit\/create_/;

let work: string;
let emu: EmulatorProcess;
let proxy: FaultProxy;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-recovery-"));
  emu = await startEmulatorProcess(path.join(work, "emulator"));
  // No faults: the proxy counts the creates and freezes the run at one, to kill it there.
  proxy = await startFaultProxy({ upstream: emu.url, rate: 0, seed: 1 });
  official = officialClient({ ...emu.bootstrap, baseUrl: emu.url });
});

afterAll(async () => {
  await proxy?.close();
  await emu?.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The stack's user tags and policies in the organization, by name, read with the official client. */
const census = (prefix: string) => namedObjectCounts(official, emu.bootstrap.organizationId, prefix);


// The YAML door's recovery (the provider plugin) is proven in `gitops-journal-restore.test.ts`,
// on a killed run of its own: the runner's up there clears and names the pending operations,
// adopts the killed run's objects from the restored journal, and leaves each object once.
describe("recovery after kill -9 of pulumi: TypeScript (dynamic providers)", () => {
  const prefix = "rects";
  const make = typescriptStack;
  it("the runner's up leaves 0 pending operations, names what it cleared and adopted, each object exactly once", { timeout: TIMEOUT }, async () => {
    const declared: Declared[] = Array.from({ length: COUNT }, (_, i) =>
      i % 2 === 0
        ? { kind: "UserTag", name: `r${i}`, args: { userTagName: `${prefix}-${i}` } }
        : { kind: "Policy", name: `r${i}`, args: { policyName: `${prefix}-${i}`, effect: "EFFECT_DENY", condition: `activity.type == '${prefix}-${i}'` } },
    );
    const { handle, workDir } = await make(work, accessThrough(proxy.url, emu.bootstrap), declared);
    const { stack, cleanup } = handle;
    try {
      proxy.resetCounts();
      const creates = () => Object.entries(proxy.counts.byPath).filter(([p]) => CREATE.test(p)).reduce((n, [, c]) => n + c, 0);
      proxy.freezeAt(CREATE, FREEZE_AT);
      let killed: { runningAtKill: boolean };
      try {
        killed = await killUpWhen(stack, workDir, () => proxy.counts.held > 0);
      } finally {
        proxy.freezeAt(undefined);
      }
      const pendingBefore = await pendingOperations(stack);
      const existing = await census(prefix);
      const recorded = (await keyformOf(stack)).length;
      console.log(`[recovery] ${prefix}: killed after ${creates()} create submits (${proxy.counts.frozen} requests refused after the held one); ${existing.size} objects exist, ${recorded} in state; ${pendingBefore} pending operations in state`);
      // Not vacuous: the kill interrupted the run, with an object made that the state does not
      // know (the held answer's), others not made, and operations left pending.
      expect(killed.runningAtKill, "the up was still running when it was killed").toBe(true);
      expect(existing.size).toBeGreaterThan(recorded);
      expect(existing.size).toBeLessThan(COUNT);
      expect(pendingBefore).toBeGreaterThan(0);

      const out = path.join(work, `reports-${prefix}`);
      const env = stackEnv(stack);
      // Not spawnSync: the proxy runs in this process and must keep answering.
      const runner = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const started = spawn(
          process.execPath,
          [path.join(repoRoot, "dist", "examples", "gitops", "runner.js"), "up", "--stack", stack.name, "--work-dir", workDir, "--out", out, "--no-refresh"],
          { cwd: workDir, env },
        );
        let stdout = "";
        let stderr = "";
        started.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
        started.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
        started.once("close", (status) => resolve({ status, stdout, stderr }));
      });
      expect(runner.status, `${runner.stdout}\n${runner.stderr.slice(-3000)}`).toBe(0);
      const report = JSON.parse(fs.readFileSync(path.join(out, "up.json"), "utf8")) as { recovery?: { cleared: Array<{ urn: string }>; adopted: string[] } };
      console.log(`[recovery] report:\n${fs.readFileSync(path.join(out, "up.md"), "utf8")}`);

      expect(await pendingOperations(stack)).toBe(0);
      expect(report.recovery?.cleared).toHaveLength(pendingBefore);
      expect(fs.readFileSync(path.join(out, "up.md"), "utf8")).toMatch(/Recovered from an interrupted run/);
      // Each object adopted is one the report names, the killed run's objects the state did not
      // know (the held answer's among them) at least.
      const adopted = report.recovery?.adopted ?? [];
      for (const message of adopted) expect(message).toMatch(/^keyform: adopted (UserTag|Policy) /);
      expect(adopted.length).toBeGreaterThanOrEqual(existing.size - recorded);

      const found = await census(prefix);
      expect([...found.values()].filter((n) => n > 1), "duplicates").toEqual([]);
      expect(found.size).toBe(COUNT);
      expect(await keyformOf(stack)).toHaveLength(COUNT);
      await stack.preview({ expectNoChanges: true });
    } finally {
      await cleanup();
    }
  });
});
