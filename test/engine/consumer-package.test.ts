/**
 * keyform as a user installs it: `npm pack` the package, install the tarball and
 * @pulumi/pulumi into a fresh project outside the repository, and run a program using all six
 * resources and a data function with up / preview / destroy against the emulator. This proves
 * the serialized providers find keyform's runtime in the user's node_modules.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/client/keys";
import { createWorkDirStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, keyformResources, since, storedState } from "../resources/harness/engine-harness";

const repoRoot = path.resolve(__dirname, "../..");
let emu: TestEmulator;
let client: KeyformClient;
let project: string;
const figures: Record<string, number> = {};

const PROGRAM = `
const pulumi = require("@pulumi/pulumi");
const keyform = require("keyform");
const env = process.env;
const tag = new keyform.UserTag("tag", { userTagName: "consumers", userIds: [env.TEST_USER_ID] });
const policy = new keyform.Policy("policy", {
  policyName: "consumers approve",
  effect: "EFFECT_ALLOW",
  consensus: pulumi.interpolate\`approvers.any(user, user.tags.contains('\${tag.userTagId}'))\`,
});
const key = new keyform.ApiKey("key", { userId: env.TEST_BOT_ID, apiKeyName: "consumer-ci", curveType: "API_KEY_CURVE_SECP256K1" });
const invite = new keyform.Invitation("invite", {
  receiverUserName: "Erin", receiverUserEmail: "erin@example.com", receiverUserTags: [tag.userTagId],
  accessType: "ACCESS_TYPE_ALL", senderUserId: env.TEST_USER_ID,
});
const sci = new keyform.SmartContractInterface("sci", {
  smartContractAddress: "0x${"e5".repeat(20)}",
  smartContractInterface: '[{"type":"function","name":"ping","inputs":[]}]',
  type: "ETHEREUM", label: "Ping",
});
const earn = new keyform.EarnWrapperState("earn", { wrapperAddress: env.TEST_WRAPPER, depositsDisabled: true });
const botKeys = keyform.getApiKeysOutput({ userId: key.userId });
module.exports = {
  tagId: tag.userTagId, policyId: policy.policyId, apiKeyId: key.apiKeyId, privateKey: key.privateKey,
  invitationId: invite.invitationId, sciId: sci.smartContractInterfaceId, depositsDisabled: earn.depositsDisabled,
  botKeyNames: botKeys.apply((r) => r.apiKeys.map((k) => k.apiKeyName).sort()),
};
`;

beforeAll(async () => {
  const t0 = performance.now();
  emu = await startTestEmulator();
  client = emu.client;
  project = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-consumer-"));
  // Pack what `npm publish` would ship (dist/ must be built: `npx tsc -p .`).
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", project], { cwd: repoRoot, encoding: "utf8" })) as Array<{ filename: string }>;
  const tarball = path.join(project, packed[0]!.filename);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "keyform-consumer", private: true, main: "index.js" }, null, 2));
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: keyform-consumer\nruntime: nodejs\nmain: index.js\n");
  fs.writeFileSync(path.join(project, "index.js"), PROGRAM);
  // Install scripts are skipped: the program never loads the emulator, so better-sqlite3's
  // native build is not needed, and skipping it keeps the test within minutes on two cores.
  execFileSync(
    "npm",
    ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", tarball, "@pulumi/pulumi@3.248.0"],
    { cwd: project, stdio: ["ignore", "ignore", "pipe"] },
  );
  figures.packAndInstall = since(t0);
}, 900_000);

afterAll(async () => {
  await emu?.stop();
  if (project) fs.rmSync(project, { recursive: true, force: true });
  console.log(`consumer-package figures (ms): ${JSON.stringify(figures)}`);
});

describe("keyform installed from a tarball", () => {
  it("runs all six resources: up, preview, destroy", { timeout: 600_000 }, async () => {
    const t0 = performance.now();
    expect(fs.realpathSync(path.join(project, "node_modules/keyform")).startsWith(repoRoot)).toBe(false);
    const bot = generateApiKeyPair();
    const { userIds } = await client.createUsers({
      users: [{ userName: "consumer-bot", apiKeys: [{ apiKeyName: "anchor", publicKey: bot.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    const { wrapperAddress } = await client.earnDeployWrapper({ vaultAddress: "0x" + "f6".repeat(20), chainCaip2: "eip155:8453", clientFeeBps: "10", clientFeeWallet: "0x" + "f7".repeat(20) });
    const { stack, cleanup } = await createWorkDirStack({
      workDir: project,
      envVars: { ...emulatorEnv(emu.emulator), TEST_USER_ID: emu.emulator.bootstrap.userId, TEST_BOT_ID: userIds[0]!, TEST_WRAPPER: wrapperAddress },
    });
    try {
      const up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 6 });
      const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
      expect(up.outputs.privateKey!.secret).toBe(true);
      expect(out.botKeyNames).toEqual(["anchor", "consumer-ci"]);
      expect((await client.listUserTags()).userTags.map((t) => t.tagId)).toEqual([out.tagId]);
      expect((await client.getPolicy({ policyId: out.policyId as string })).policy.consensus).toContain(out.tagId as string);
      expect((await client.getOrganization()).organizationData.invitations?.map((i) => i.invitationId)).toEqual([out.invitationId]);
      expect((await client.listSmartContractInterfaces()).smartContractInterfaces.map((s) => s.smartContractInterfaceId)).toEqual([out.sciId]);
      expect((await client.listEarnEnabledVaults()).enabledVaults?.[0]?.depositsDisabled).toBe(true);

      // The state points at the package by name only, never at this repository.
      const state = storedState(stack);
      expect(state).not.toContain(repoRoot);
      expect(state).not.toContain(out.privateKey as string);
      expect(state).not.toContain(emu.emulator.bootstrap.apiPrivateKey);

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 6 });
      expect(await keyformResources(stack)).toEqual([]);
      expect((await client.listUserTags()).userTags).toEqual([]);
      expect((await client.listPolicies()).policies).toEqual([]);
      expect((await client.getApiKeys({ userId: userIds[0]! })).apiKeys.map((k) => k.apiKeyName)).toEqual(["anchor"]);
      expect((await client.getOrganization()).organizationData.invitations ?? []).toEqual([]);
      expect((await client.listSmartContractInterfaces()).smartContractInterfaces).toEqual([]);
      expect((await client.listEarnEnabledVaults()).enabledVaults?.[0]?.depositsDisabled).toBe(false);
    } finally {
      await cleanup();
      figures.upPreviewDestroy = since(t0);
    }
  });
});
