/**
 * `keyform gitops compare --stack staging --stack prod` through the built CLI, on a Pulumi project
 * whose two stacks point at two organizations (two emulators): the same tags, users and policies
 * (with different ids) compare equal; a policy only prod has, and a user's changed email, are
 * named with their fields, and the access diff says who may do in prod what they may not in
 * staging, users by name; exit 3. Declared in the stack config, the same differences pass (exit 0).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumiBinDir, repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let staging: TestEmulator;
let prod: TestEmulator;
let work: string;
let env: NodeJS.ProcessEnv;

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "dist/sdk/cli/main.js"), ...args], { cwd: work, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function pulumi(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(pulumiBinDir(), "pulumi"), args, { cwd: work, env, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    child.once("close", (code) => (code === 0 ? resolve() : reject(new Error(`pulumi ${args.join(" ")}: ${stderr}`))));
  });
}

/** The same organization content on `emu`: alice and bob, an `ops` tag holding alice, a policy its members approve. */
async function seed(emu: TestEmulator, bobEmail: string): Promise<{ alice: string; bob: string }> {
  const { userIds } = await emu.client.createUsers({
    users: [
      { userName: "alice", userEmail: "alice@example.com", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] },
      { userName: "bob", userEmail: bobEmail, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] },
    ],
  });
  const [alice, bob] = userIds as [string, string];
  const { userTagId } = await emu.client.createUserTag({ userTagName: "ops", userIds: [alice] });
  await emu.client.createPolicy({
    policyName: "ops approve wallets",
    effect: "EFFECT_ALLOW",
    condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'",
    consensus: `approvers.any(user, user.tags.contains('${userTagId}'))`,
    notes: "",
  });
  return { alice, bob };
}

beforeAll(async () => {
  [staging, prod] = [await startTestEmulator(), await startTestEmulator()];
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-compare-"));
  fs.mkdirSync(path.join(work, "state"));
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_"))),
    PATH: `${pulumiBinDir()}:${process.env.PATH}`,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "compare",
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  fs.writeFileSync(path.join(work, "Pulumi.yaml"), "name: org\nruntime: yaml\nresources: {}\n");
  for (const [name, emu] of [["staging", staging], ["prod", prod]] as const) {
    const b = emu.emulator.bootstrap;
    await pulumi(["stack", "init", name]);
    // One CLI run per stack for its settings (each `pulumi` start costs seconds on a loaded machine).
    await pulumi([
      "config", "set-all", "--stack", name,
      "--plaintext", `keyform:baseUrl=${emu.emulator.url}`,
      "--plaintext", `keyform:organizationId=${b.organizationId}`,
      "--plaintext", `keyform:apiPublicKey=${b.apiPublicKey}`,
      "--secret", `keyform:apiPrivateKey=${b.apiPrivateKey}`,
    ]);
  }
  await seed(staging, "bob@example.com");
  const { bob } = await seed(prod, "bob@corp.example.com");
  // Only prod: bob may export wallets alone.
  await prod.client.createPolicy({ policyName: "bob exports", effect: "EFFECT_ALLOW", condition: "activity.resource == 'WALLET' && activity.action == 'EXPORT'", consensus: `approvers.any(user, user.id == '${bob}')`, notes: "" });
}, 300_000);

afterAll(async () => {
  await staging?.stop();
  await prod?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe("keyform gitops compare", () => {
  it("names the objects that differ with their fields, and who may do in prod what they may not in staging; exit 3", { timeout: 600_000 }, async () => {
    const result = await cli(["gitops", "compare", "--stack", "staging", "--stack", "prod", "--out", "reports"]);
    const markdown = fs.readFileSync(path.join(work, "reports/compare.md"), "utf8");
    console.log(`[compare]\n${markdown}`);
    expect(result.code, result.stderr).toBe(3);
    const report = JSON.parse(fs.readFileSync(path.join(work, "reports/compare.json"), "utf8"));
    // The tag and the policy naming it (by different ids) are the same; bob's email and prod's extra policy are not.
    expect(report.objects.map((o: { kind: string; name: string }) => `${o.kind} ${o.name}`).sort()).toEqual(["Policy bob exports", "User bob"]);
    expect(markdown).toContain("| User `bob` | `userEmail` | `bob@example.com` | `bob@corp.example.com` |");
    expect(markdown).toContain("| Policy `bob exports` | | _(missing)_ | present |");
    const gains = markdown.split("\n").filter((l) => l.startsWith("| **gains** | bob"));
    expect(gains.length, markdown).toBeGreaterThan(0);
    expect(gains.join("\n")).toContain("EXPORT_WALLET");
    expect(markdown).not.toMatch(/^\| \*\*loses\*\*/m);
  });

  it("passes (exit 0) when the stack config declares those differences", { timeout: 600_000 }, async () => {
    await pulumi(["config", "set", "--stack", "prod", "keyform-gitops:expectedDifferences", JSON.stringify(["Policy bob exports", "User bob.userEmail"])]);
    const result = await cli(["gitops", "compare", "--stack", "staging", "--stack", "prod", "--out", "reports"]);
    const markdown = fs.readFileSync(path.join(work, "reports/compare.md"), "utf8");
    expect(result.code, markdown + result.stderr).toBe(0);
    expect(markdown).toContain("The objects match (by name).");
    expect(markdown).toContain("no access changes");
  });

  it("a malformed declaration is an error naming the config key", { timeout: 600_000 }, async () => {
    await pulumi(["config", "set", "--stack", "prod", "keyform-gitops:expectedDifferences", "Policy bob exports"]);
    const result = await cli(["gitops", "compare", "--stack", "staging", "--stack", "prod"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("keyform-gitops:expectedDifferences of stack prod: must be a JSON list");
  });
});
