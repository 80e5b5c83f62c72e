/**
 * A clean state after a killed run, on the real engine against the emulator in its own process:
 * `kill -9` of `pulumi up` (its process group and its plugins') after about 25 creates,
 * `pulumi cancel`, then the GitOps runner's `up`. That one `up` leaves 0 pending operations in
 * the state, its report names the operations it cleared and the objects it adopted, every
 * declared object exists exactly once (read back with the official client) and the state
 * holds each; a plain preview afterwards changes nothing.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { LocalWorkspace } from "@pulumi/pulumi/automation";
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pendingOperations } from "../../examples/gitops/recovery";
import { outputOf } from "../support/child-process";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process";
import { createWorkDirStack, pulumiBinDir, repoRoot } from "../support/engine";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { keyformResources } from "../resources/harness/engine-harness";

const FIXTURE = path.join(__dirname, "fixtures", "reconcile-project");
const TIMEOUT = 600_000;
const COUNT = 60;

let work: string;
let emu: EmulatorProcess;
let proxy: FaultProxy;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-recovery-"));
  emu = await startEmulatorProcess(path.join(work, "emulator"));
  // No faults: the proxy only counts the creates, to kill the run in the middle.
  proxy = await startFaultProxy({ upstream: emu.url, rate: 0, seed: 1 });
  const b = emu.bootstrap;
  official = new TurnkeyClient({ baseUrl: emu.url }, new TurnkeyApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }));
});

afterAll(async () => {
  await proxy?.close();
  await emu?.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

async function childGroupsOf(pid: number): Promise<number[]> {
  const rows = (await outputOf("ps", ["-eo", "pid=,ppid=,pgid="])).trim().split("\n").map((line) => line.trim().split(/\s+/).map(Number));
  return [...new Set(rows.filter(([, ppid, pgid]) => ppid === pid && pgid !== pid).map(([, , pgid]) => pgid!))];
}

/** The stack's user tags and policies in the organization, by name, read with the official client. */
async function census(prefix: string): Promise<Map<string, number>> {
  const organizationId = emu.bootstrap.organizationId;
  const { userTags } = await official.listUserTags({ organizationId });
  const { policies } = await official.getPolicies({ organizationId });
  const counts = new Map<string, number>();
  for (const name of [...userTags.map((t) => t.tagName), ...policies.map((p) => p.policyName)]) {
    if (name.startsWith(prefix)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

describe("recovery after kill -9 of pulumi", () => {
  it("the runner's up leaves 0 pending operations, names what it cleared and adopted, each object exactly once", { timeout: TIMEOUT }, async () => {
    const prefix = "rec";
    const declared = Array.from({ length: COUNT }, (_, i) =>
      i % 2 === 0
        ? { kind: "UserTag", name: `r${i}`, args: { userTagName: `${prefix}-${i}` } }
        : { kind: "Policy", name: `r${i}`, args: { policyName: `${prefix}-${i}`, effect: "EFFECT_DENY", condition: `activity.type == '${prefix}-${i}'` } },
    );
    const file = path.join(work, "declared.json");
    fs.writeFileSync(file, JSON.stringify(declared));
    const b = emu.bootstrap;
    const keyformEnv = {
      KEYFORM_BASE_URL: proxy.url,
      KEYFORM_ORGANIZATION_ID: b.organizationId,
      KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
    };
    const { stack, cleanup } = await createWorkDirStack({ workDir: FIXTURE, envVars: keyformEnv, config: { "reconcile-project:declarations": file } });
    try {
      const env = { ...process.env, ...(stack.workspace as LocalWorkspace).envVars } as Record<string, string>;
      const pulumi = path.join(pulumiBinDir(), "pulumi");
      const child = spawn(pulumi, ["up", "--yes", "--skip-preview", "--non-interactive", "--stack", stack.name], { cwd: FIXTURE, env, detached: true, stdio: "ignore" });
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      const creates = () => Object.entries(proxy.counts.byPath).filter(([p]) => p.includes("/submit/create_")).reduce((n, [, c]) => n + c, 0);
      const deadline = Date.now() + 300_000;
      while (creates() < 25 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
      const groups = await childGroupsOf(child.pid!);
      process.kill(-child.pid!, "SIGKILL");
      for (const group of groups) {
        try {
          process.kill(-group, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await exited;
      const cancel = spawnSync(pulumi, ["cancel", "--yes", "--stack", stack.name], { cwd: FIXTURE, env, encoding: "utf8" });
      expect(cancel.status, cancel.stderr).toBe(0);
      const pendingBefore = await pendingOperations(stack);
      console.log(`[recovery] killed after ${creates()} create submits; ${pendingBefore} pending operations in state`);

      const out = path.join(work, "reports");
      // Not spawnSync: the proxy runs in this process and must keep answering.
      const runner = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const started = spawn(
          process.execPath,
          [path.join(repoRoot, "dist", "examples", "gitops", "runner.js"), "up", "--stack", stack.name, "--work-dir", FIXTURE, "--out", out, "--no-refresh"],
          { cwd: FIXTURE, env },
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
      if (pendingBefore > 0) {
        expect(report.recovery?.cleared).toHaveLength(pendingBefore);
        expect(fs.readFileSync(path.join(out, "up.md"), "utf8")).toMatch(/Recovered from an interrupted run/);
      }
      // Each object adopted is one the report names; at most as many as operations cleared.
      for (const message of report.recovery?.adopted ?? []) expect(message).toMatch(/^keyform: adopted (UserTag|Policy) /);

      const found = await census(prefix);
      expect([...found.values()].filter((n) => n > 1), "duplicates").toEqual([]);
      expect(found.size).toBe(COUNT);
      expect(await keyformResources(stack)).toHaveLength(COUNT);
      await stack.preview({ expectNoChanges: true });
    } finally {
      await cleanup();
    }
  });
});
