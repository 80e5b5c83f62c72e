/**
 * The create journal across ephemeral runners, as the GitHub Action and the GitLab template keep
 * it, and the recovery after a killed run on the YAML door (the TypeScript door's is
 * `recovery-after-kill.test.ts`): a `pulumi up` on runner A is killed (`kill -9` of its process
 * group and its plugins') once its fifth create has reached the service and the answer is held
 * (every later request refused), so the service has made an object the run never heard of and
 * operations are left pending in the state; A's journal folder is saved (the cache save that
 * runs `if: always()`). Runners B and C are fresh working copies holding only the checked-in
 * project files and the same state backend. On C, without the journal, `keyform gitops up`
 * clears the pending operations and names them in its report, then fails naming the killed
 * run's objects as not this stack's (what the restore prevents), and makes none twice. On B,
 * with the restored journal (the CLI as the action runs it, with KEYFORM_JOURNAL_DIR as the
 * action sets it), it leaves no pending operation, adopts the killed run's objects as this
 * stack's own and names each, and every declared object exists exactly once (no orphan, no
 * duplicate), read back with the official client; a preview after it changes nothing. One
 * killed run serves both: C's failed `up` leaves the killed run's objects unknown to the state,
 * which B must adopt from the journal. The program is Pulumi YAML through the provider plugin,
 * so the journal is the plugin's, in the project folder.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { pendingOperations } from "../../sdk/gitops/recovery";
import { accessThrough, killUpWhen, stackEnv, stateResources, yamlStack, type Declared } from "../support/declared-stacks";
import { pulumiBinDir, repoRoot } from "../support/engine";
import { namedObjectCounts } from "../support/organization-snapshot";
import { useProxiedEmulator } from "../support/proxied-emulator";

/** Half user tags (a singular create each), half policies: at least 9 create submits. */
const COUNT = 16;
/** The create submit whose answer is held; nothing after it reaches the service. */
const FREEZE_AT = 5;

const fixture = useProxiedEmulator("journal-restore", 7);
/** The stack's user tags and policies in the organization, by name, read with the official client. */
const census = (prefix: string) => namedObjectCounts(fixture.official, fixture.emu.bootstrap.organizationId, prefix);

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist/sdk/cli/main.js"), ...args], { cwd, env });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("close", (status) => resolve({ status, output }));
  });
}

/** Kills an apply of a new stack of `prefix`'s objects on runner A; returns the stack, A's environment and its journal folder. */
async function killedApply(prefix: string) {
  const declared: Declared[] = Array.from({ length: COUNT }, (_, i) =>
    i % 2 === 0
      ? { kind: "UserTag", name: `r${i}`, args: { userTagName: `${prefix}-${i}` } }
      : { kind: "Policy", name: `r${i}`, args: { policyName: `${prefix}-${i}`, effect: "EFFECT_DENY", condition: `activity.type == '${prefix}-${i}'` } },
  );
  const { handle, workDir } = await yamlStack(fixture.work, accessThrough(fixture.proxy.url, fixture.emu.bootstrap), declared);
  const envA = stackEnv(handle.stack);
  fixture.proxy.resetCounts();
  const created = /\/submit\/create_/;
  const creates = () => Object.entries(fixture.proxy.counts.byPath).filter(([p]) => created.test(p)).reduce((n, [, c]) => n + c, 0);
  // The kill comes once the service has made an object whose answer the run never got, so the
  // state cannot record it (a kill timed by counts alone sometimes landed when the state had
  // caught up), and before the rest were sent.
  fixture.proxy.freezeAt(created, FREEZE_AT);
  let killed: { runningAtKill: boolean };
  try {
    killed = await killUpWhen(handle.stack, workDir, () => fixture.proxy.counts.held > 0);
  } finally {
    fixture.proxy.freezeAt(undefined);
  }
  const made = await census(prefix);
  const recorded = (await stateResources(handle.stack)).keyform.length;
  const pending = await pendingOperations(handle.stack);
  console.log(`[journal-restore] ${prefix}: killed after ${creates()} create submits (${fixture.proxy.counts.held} answer held, ${fixture.proxy.counts.frozen} requests refused); ${made.size} objects exist, ${recorded} in state; ${pending} pending operations in state`);
  // Not vacuous: the kill interrupted the run and left objects the state does not record.
  expect(killed.runningAtKill, "the up was still running when it was killed").toBe(true);
  expect(made.size).toBeGreaterThan(recorded);
  expect(made.size).toBeLessThan(COUNT);
  expect(pending).toBeGreaterThan(0);
  return { handle, workDir, envA, made, recorded, pending };
}

/** Runner B: a fresh checkout (the project files git holds), with the restored journal when `saved` is given. */
function freshRunner(name: string, workDir: string, stackName: string, saved?: string): { dir: string; journal: string } {
  const dir = path.join(fixture.work, name);
  fs.mkdirSync(dir);
  for (const file of ["Pulumi.yaml", `Pulumi.${stackName}.yaml`]) fs.copyFileSync(path.join(workDir, file), path.join(dir, file));
  const journal = path.join(dir, ".keyform", "journal");
  if (saved) fs.cpSync(saved, journal, { recursive: true });
  return { dir, journal };
}

describe("the create journal restored on a fresh runner", () => {
  it("a killed apply: without the journal its objects are not this stack's; with only the restored journal and the state backend, a fresh working copy recovers", { timeout: 900_000 }, async () => {
    const { handle, workDir, envA, made, recorded, pending } = await killedApply("jr");
    const { stack, cleanup } = handle;
    try {
      // The cache save (`if: always()`): runner A's journal folder, and nothing else of A.
      const saved = path.join(fixture.work, "cache", "journal");
      fs.cpSync(envA.KEYFORM_JOURNAL_DIR!, saved, { recursive: true });

      // Runner C, without the journal: what the restore prevents.
      const c = freshRunner("runner-c", workDir, stack.name);
      const outC = path.join(c.dir, "keyform-reports");
      const refused = await run(["gitops", "up", "--stack", stack.name, "--out", outC, "--pulumi", pulumiBinDir()], c.dir, { ...envA, KEYFORM_JOURNAL_DIR: c.journal });
      expect(refused.status, refused.output.slice(-4000)).toBe(1);
      const refusedReport = JSON.parse(fs.readFileSync(path.join(outC, "up.json"), "utf8")) as { errors: string[]; recovery?: { cleared: unknown[] } };
      expect(refusedReport.errors.join("\n")).toMatch(/this stack did not create it/);
      // The recovery before the plan cleared the killed run's pending operations and named them.
      expect(refusedReport.recovery?.cleared).toHaveLength(pending);
      expect(fs.readFileSync(path.join(outC, "up.md"), "utf8")).toMatch(/Recovered from an interrupted run/);
      expect(await pendingOperations(stack)).toBe(0);
      // Still no duplicate: the objects are refused, not made twice.
      expect([...(await census("jr")).values()].filter((n) => n > 1)).toEqual([]);
      // The state still does not know the killed run's objects: B must adopt them from the journal.
      expect((await stateResources(stack)).keyform.length).toBeLessThan(COUNT);

      // Runner B, with the restored journal.
      const { dir, journal } = freshRunner("runner-b", workDir, stack.name, saved);
      const envB = { ...envA, KEYFORM_JOURNAL_DIR: journal };
      const out = path.join(dir, "keyform-reports");
      const up = await run(["gitops", "up", "--stack", stack.name, "--out", out, "--pulumi", pulumiBinDir()], dir, envB);
      expect(up.status, up.output.slice(-4000)).toBe(0);
      const report = JSON.parse(fs.readFileSync(path.join(out, "up.json"), "utf8")) as { errors: string[]; warnings: string[] };
      expect(report.errors).toEqual([]);
      // It names each object it adopted: the killed run's the state did not know, at least.
      const adopted = report.warnings.filter((w) => /^keyform: adopted (UserTag|Policy) /.test(w));
      console.log(`[journal-restore] runner B adopted:\n${adopted.join("\n")}`);
      expect(adopted.length).toBeGreaterThanOrEqual(made.size - recorded);
      expect(await pendingOperations(stack)).toBe(0);
      const found = await census("jr");
      expect([...found.values()].filter((n) => n > 1), "duplicates").toEqual([]);
      expect(found.size).toBe(COUNT);
      // No orphan: every object of the organization is in the state.
      expect((await stateResources(stack)).keyform).toHaveLength(COUNT);
      const again = await run(["gitops", "preview", "--stack", stack.name, "--out", out, "--pulumi", pulumiBinDir()], dir, envB);
      expect(again.status, again.output.slice(-3000)).toBe(0);
      expect(JSON.parse(fs.readFileSync(path.join(out, "preview.json"), "utf8")).changes).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
