/**
 * The create journal across ephemeral runners, as the GitHub Action and the GitLab template keep
 * it: a `pulumi up` on runner A is killed (`kill -9` of its process group and its plugins')
 * after about 8 creates, once the service has made an object whose answer the run never got; A's journal folder is saved (the cache save that runs `if: always()`).
 * Runner B is a fresh working copy holding only the checked-in project files, the restored
 * journal and the same state backend; `keyform gitops up` there (the CLI as the action runs it,
 * with KEYFORM_JOURNAL_DIR as the action sets it) leaves no pending operation, adopts the killed
 * run's objects as this stack's own, creates the rest, and every declared object exists exactly
 * once (no orphan, no duplicate), read back with the official client; a preview after it changes
 * nothing. Without the journal, the same recovery fails naming the objects as not this stack's.
 * The program is Pulumi YAML through the provider plugin, so the journal is the
 * plugin's, in the project folder.
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

const COUNT = 24;

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
  const creates = () => Object.entries(fixture.proxy.counts.byPath).filter(([p]) => p.includes("/submit/create_")).reduce((n, [, c]) => n + c, 0);
  // After 8 creates, the answers to creates are held: the kill comes once the service has made
  // an object whose answer the run never got, so the state cannot record it (a kill timed by
  // counts alone sometimes landed when the state had caught up, and the check below failed).
  const created = /\/submit\/create_/;
  try {
    await killUpWhen(handle.stack, workDir, () => {
      if (creates() >= 8) fixture.proxy.holdAnswers(created);
      return fixture.proxy.counts.held > 0;
    });
  } finally {
    fixture.proxy.holdAnswers(undefined);
  }
  const made = await census(prefix);
  const recorded = (await stateResources(handle.stack)).keyform.length;
  console.log(`[journal-restore] ${prefix}: killed after ${creates()} create submits (${fixture.proxy.counts.held} answers held); ${made.size} objects exist, ${recorded} in state`);
  // Not vacuous: the kill left objects the state does not record.
  expect(made.size).toBeGreaterThan(recorded);
  expect(made.size).toBeLessThan(COUNT);
  return { handle, workDir, envA, made };
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
  it("a killed apply recovers on a fresh working copy with only the restored journal and the state backend", { timeout: 900_000 }, async () => {
    const { handle, workDir, envA } = await killedApply("jr");
    const { stack, cleanup } = handle;
    try {
      // The cache save (`if: always()`): runner A's journal folder, and nothing else of A.
      const saved = path.join(fixture.work, "cache", "journal");
      fs.cpSync(envA.KEYFORM_JOURNAL_DIR!, saved, { recursive: true });
      const { dir, journal } = freshRunner("runner-b", workDir, stack.name, saved);
      const envB = { ...envA, KEYFORM_JOURNAL_DIR: journal };

      const out = path.join(dir, "keyform-reports");
      const up = await run(["gitops", "up", "--stack", stack.name, "--out", out, "--pulumi", pulumiBinDir()], dir, envB);
      expect(up.status, up.output.slice(-4000)).toBe(0);
      const report = JSON.parse(fs.readFileSync(path.join(out, "up.json"), "utf8")) as { errors: string[]; recovery?: { cleared: unknown[] } };
      expect(report.errors).toEqual([]);
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

  it("without the journal, the killed run's objects are not this stack's (what the restore prevents)", { timeout: 900_000 }, async () => {
    const { handle, workDir, envA } = await killedApply("nj");
    const { stack, cleanup } = handle;
    try {
      const { dir, journal } = freshRunner("runner-c", workDir, stack.name);
      const out = path.join(dir, "keyform-reports");
      const up = await run(["gitops", "up", "--stack", stack.name, "--out", out, "--pulumi", pulumiBinDir()], dir, { ...envA, KEYFORM_JOURNAL_DIR: journal });
      expect(up.status).toBe(1);
      const report = JSON.parse(fs.readFileSync(path.join(out, "up.json"), "utf8")) as { errors: string[] };
      expect(report.errors.join("\n")).toMatch(/this stack did not create it/);
      // Still no duplicate: the objects are refused, not made twice.
      expect([...(await census("nj")).values()].filter((n) => n > 1)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
