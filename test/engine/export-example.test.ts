/**
 * `keyform export` covers every resource class: the example organization (examples/org: users,
 * root quorum, tags, policies, API keys, IP allowlist, webhook, wallet, invitations, contract
 * interfaces, Earn wrapper state) is brought up by its own program, exported as TypeScript and as
 * Pulumi YAML, and each export, applied in a new stack, adopts every object the example declared
 * (the same ids) without submitting a single activity; the next preview reports no changes.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkDirStack, repoRoot, type WorkDirStackOptions } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, keyformResources } from "../resources/harness/engine-harness";
import { linkedTypeScriptProject } from "../support/typescript-project";
import { exampleSettings, exampleStackConfig, settingsConfig } from "./plugin-support";
import { deployEarnWrapper } from "../../examples/org/seed";

const run = promisify(execFile);

let emu: TestEmulator;
/** `<class> <id>` of every object the example program manages. */
let declared: string[];

/** Every activity id of the organization: an adoption that changed anything would add one. */
async function activityIds(): Promise<string[]> {
  const { activities } = await emu.client.listActivities({ paginationOptions: { limit: "100" } });
  return activities.map((a) => a.id);
}

/** `<class> <id>` of the keyform resources of a stack (dynamic resources or the plugin's). */
async function objectsOf(stack: import("@pulumi/pulumi/automation").Stack): Promise<string[]> {
  const exported = await stack.exportStack();
  const resources = (exported.deployment as { resources?: Array<{ type: string; id?: string }> }).resources ?? [];
  return resources
    .map((r) => ({ kind: /^(?:pulumi-nodejs:dynamic\/keyform|keyform:index):(\w+)$/.exec(r.type)?.[1], id: r.id }))
    .filter((r) => r.kind !== undefined)
    .map((r) => `${r.kind} ${r.id}`)
    .sort();
}

async function exportTo(file: string, format: string): Promise<string> {
  const cli = path.join(repoRoot, "dist", "sdk", "cli", "main.js");
  await run(process.execPath, [cli, "export", "--format", format, "--out", file], { env: { ...process.env, ...emulatorEnv(emu.emulator) } });
  return fs.readFileSync(file, "utf8");
}

/**
 * Brings up the exported `program` in a new stack: it records every declared object, with the
 * same ids, without an activity, and the next preview reports no changes.
 */
async function expectAdoptedUnchanged(program: string, options: WorkDirStackOptions): Promise<void> {
  const before = await activityIds();
  const { stack, cleanup } = await createWorkDirStack(options);
  try {
    const up = await stack.up();
    expect(changes(up.summary.resourceChanges, { stack: true }), program).toEqual({ create: declared.length });
    expect(await objectsOf(stack)).toEqual(declared);
    expect(await activityIds()).toEqual(before);
    expect(changes((await stack.preview()).changeSummary)).toEqual({});
  } finally {
    await cleanup();
  }
}

beforeAll(async () => {
  emu = await startTestEmulator();
  await deployEarnWrapper(emu.client, exampleSettings());
  const { stack, cleanup } = await createWorkDirStack({ workDir: repoRoot, envVars: emulatorEnv(emu.emulator), config: exampleStackConfig() });
  try {
    await stack.up();
    declared = await objectsOf(stack);
    expect((await keyformResources(stack)).length).toBe(declared.length);
  } finally {
    // Only the state goes: the objects stay in the emulator for the exports to find.
    await cleanup();
  }
}, 900_000);

afterAll(async () => {
  await emu?.stop();
});

describe("keyform export of the example organization", () => {
  it("declares every class the example uses", () => {
    const kinds = new Set(declared.map((d) => d.split(" ")[0]));
    expect([...kinds].sort()).toEqual(
      ["ApiKey", "EarnWrapperState", "Invitation", "IpAllowlist", "Policy", "RootQuorum", "SmartContractInterface", "User", "UserTag", "Wallet", "WebhookEndpoint"].sort(),
    );
    expect(declared.length).toBeGreaterThanOrEqual(22);
  });

  it("as TypeScript: a new stack adopts every object unchanged and the next preview is empty", { timeout: 900_000 }, async () => {
    const project = linkedTypeScriptProject(repoRoot, "exported-example");
    try {
      const program = await exportTo(path.join(project, "index.ts"), "typescript");
      // Objects refer to each other as the example does: by the outputs of the exported resources.
      expect(program).toMatch(/senderUserId: alice\.userId,/);
      expect(program).toMatch(/userIds: \[(\w+\.userId, )*alice\.userId/);
      expect(program).toMatch(/publicKey: \w+\.publicKey,/);
      // The program type-checks as a user's project would.
      await run(path.join(repoRoot, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", project]);
      await expectAdoptedUnchanged(program, { workDir: project, envVars: emulatorEnv(emu.emulator) });
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it("as Pulumi YAML (through the provider plugin): a new stack adopts every object unchanged and the next preview is empty", { timeout: 900_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-export-example-yaml-"));
    try {
      const program = await exportTo(path.join(dir, "Pulumi.yaml"), "yaml");
      expect(program).toContain('senderUserId: "${alice.userId}"');
      await expectAdoptedUnchanged(program, { workDir: dir, config: settingsConfig(emu) });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
