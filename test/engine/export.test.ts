/**
 * `keyform export` end to end: an organization built by hand (a user, a tag with members, a policy
 * with a condition and a consensus, API keys on two curves, an invitation, a contract interface, a
 * private key and its tag, a session profile) is
 * exported as a TypeScript program and as a Pulumi YAML program. In a `pulumi new
 * typescript`-shaped project (index.ts, no build step), and in a YAML project through the
 * provider plugin, the first `pulumi up` adopts every object without changing the organization
 * or submitting any activity, and the next preview reports no changes.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createWorkDirStack, repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv } from "../resources/harness/engine-harness";
import { linkedTypeScriptProject } from "../support/typescript-project";
import { settingsConfig } from "./plugin-support";

const run = promisify(execFile);

let emu: TestEmulator;
let project: string;

/** Everything the export covers, as the service reports it. */
async function snapshot() {
  const c = emu.client;
  const [tags, policies, users, organization, interfaces, activities] = await Promise.all([
    c.listUserTags({}),
    c.listPolicies({}),
    c.listUsers({}),
    c.getOrganization({}),
    c.listSmartContractInterfaces({}),
    c.listActivities({ paginationOptions: { limit: "100" } }),
  ]);
  return {
    tags: tags.userTags,
    policies: policies.policies,
    users: users.users.map((u) => ({ userId: u.userId, userTags: u.userTags, apiKeys: u.apiKeys })),
    invitations: organization.organizationData.invitations,
    interfaces: interfaces.smartContractInterfaces,
    activities: activities.activities.map((a) => a.id),
  };
}

/** An organization made by hand: what the programs must adopt unchanged. */
async function buildByHand(): Promise<void> {
  const c = emu.client;
  const rootUserId = emu.emulator.bootstrap.userId;
  const dana = generateApiKeyPair("API_KEY_CURVE_P256");
  const { userIds } = await c.createUsers({
    users: [{ userName: "dana", apiKeys: [{ apiKeyName: "laptop", publicKey: dana.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  const danaId = userIds[0]!;
  const bot = generateApiKeyPair("API_KEY_CURVE_SECP256K1");
  await c.createApiKeys({ userId: danaId, apiKeys: [{ apiKeyName: "ci", publicKey: bot.publicKey, curveType: "API_KEY_CURVE_SECP256K1", expirationSeconds: "86400" }] });
  const { userTagId } = await c.createUserTag({ userTagName: "ops team", userIds: [rootUserId, danaId] });
  await c.createPolicy({
    policyName: "Ops approve signing",
    effect: "EFFECT_ALLOW",
    condition: "activity.action == 'SIGN'",
    consensus: `approvers.any(user, user.tags.contains('${userTagId}'))`,
    notes: "made by hand",
  });
  await c.createInvitations({
    invitations: [{ receiverUserName: "Erin", receiverUserEmail: "erin@example.com", receiverUserTags: [userTagId], accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId }],
  });
  // The classes the example organization has no object of: a private key, its tag, a session profile.
  const { privateKeys } = await c.createPrivateKeys({
    privateKeys: [{ privateKeyName: "signer", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
  });
  await c.createPrivateKeyTag({ privateKeyTagName: "hot keys", privateKeyIds: [privateKeys[0]!.privateKeyId] });
  await c.createSessionProfile({ sessionProfileName: "read only", scope: "activity.action == 'READ'", expirationSeconds: "3600" });
  await c.createSmartContractInterface({
    smartContractAddress: "0x" + "a1".repeat(20),
    smartContractInterface: JSON.stringify([{ type: "function", name: "transfer", inputs: [{ name: "to", type: "address" }] }]),
    type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
    label: "Token",
  });
}

/** Runs `keyform export` with the emulator's settings. */
async function exportTo(file: string, format: string): Promise<string> {
  const cli = path.join(repoRoot, "dist", "sdk", "cli", "main.js");
  await run(process.execPath, [cli, "export", "--format", format, "--out", file], { env: { ...process.env, ...emulatorEnv(emu.emulator) } });
  return fs.readFileSync(file, "utf8");
}

let before: Awaited<ReturnType<typeof snapshot>>;

beforeAll(async () => {
  emu = await startTestEmulator();
  project = linkedTypeScriptProject(repoRoot, "exported-org");
  await buildByHand();
  before = await snapshot();
}, 120_000);

afterAll(async () => {
  await emu?.stop();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

describe("keyform export", () => {
  it("writes a program whose first up adopts everything unchanged and whose preview is empty", { timeout: 600_000 }, async () => {
    const program = await exportTo(path.join(project, "index.ts"), "typescript");
    // the tag, the policy, dana's two keys, the invitation, the interface, dana, the root quorum,
    // the private key, its tag, the session profile (not the root user and the key the export ran with)
    expect(program.match(/^  importId: /gm), program).toHaveLength(11);
    expect(program).toMatch(/privateKeyIds: \[signer\.privateKeyId\]/);
    expect(program).not.toContain(emu.emulator.bootstrap.apiPublicKey);
    expect(program).toContain('new keyform.Policy("ops-approve-signing"');

    // The program type-checks as a user's project would (no skipLibCheck).
    await run(path.join(repoRoot, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", project]);

    const { stack, cleanup } = await createWorkDirStack({ workDir: project, envVars: emulatorEnv(emu.emulator) });
    try {
      const up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 11 });
      expect(await snapshot()).toEqual(before);
      expect(changes((await stack.preview()).changeSummary)).toEqual({});
    } finally {
      await cleanup();
    }
  });

  it("writes a Pulumi YAML program (through the provider plugin) that adopts everything unchanged", { timeout: 600_000 }, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-export-yaml-"));
    try {
      const program = await exportTo(path.join(dir, "Pulumi.yaml"), "yaml");
      expect(program.match(/^      importId: /gm), program).toHaveLength(11);
      const { stack, cleanup } = await createWorkDirStack({ workDir: dir, config: settingsConfig(emu) });
      try {
        const up = await stack.up();
        expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 11 });
        expect(await snapshot()).toEqual(before);
        expect(changes((await stack.preview()).changeSummary)).toEqual({});
      } finally {
        await cleanup();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
