/**
 * The two example programs declare the same organization: examples/org (TypeScript, dynamic
 * resources) and examples/org-yaml (Pulumi YAML, the provider plugin), each brought up by the real
 * engine against its own fresh emulator with only the Earn wrapper deployed beforehand, leave
 * organizations that are the same once ids, generated keys and addresses are replaced by the
 * names they stand for.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { deployEarnWrapper } from "../../examples/org/seed";
import { createWorkDirStack, repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { comparable } from "../support/organization-snapshot";
import { emulatorEnv } from "../resources/harness/engine-harness";
import { exampleSettings, exampleStackConfig, settingsConfig, yamlConfig } from "./plugin-support";

/** Values that differ between two runs of the same program: ids, timestamps, derived addresses. */
const VOLATILE = new Set([
  "createdAt",
  "updatedAt",
  "policyId",
  "apiKeyId",
  "invitationId",
  "endpointId",
  "walletId",
  "walletAccountId",
  "address",
  "smartContractInterfaceId",
  "organizationId",
  "userId",
  "tagId",
  "expirationSeconds",
]);

/**
 * The organization behind `client` as plain data in which every id or generated key is replaced
 * by the name of what it stands for (`user:alice`, `tag:admins`, `key:ci-deployer/ci-deployer-<stack>`)
 * and the stack name by `<stack>`; lists are sorted, so order carries no meaning.
 */
async function organization(client: KeyformClient, stackName: string): Promise<unknown> {
  const [{ users }, { userTags }, { policies }, { organizationData }, { webhookEndpoints }, { wallets }, { smartContractInterfaces }, earn] = await Promise.all([
    client.listUsers({}),
    client.listUserTags({}),
    client.listPolicies({}),
    client.getOrganization({}),
    client.listWebhookEndpoints(),
    client.listWallets({}),
    client.listSmartContractInterfaces({}),
    client.listEarnEnabledVaults({}),
  ]);
  const symbols = new Map<string, string>();
  for (const u of users) {
    symbols.set(u.userId, `user:${u.userName}`);
    for (const k of u.apiKeys) symbols.set(k.credential.publicKey, `key:${u.userName}/${k.apiKeyName}`);
  }
  for (const t of userTags) symbols.set(t.tagId, `tag:${t.tagName}`);
  // The treasury policies name the treasury wallet by id.
  for (const w of wallets) symbols.set(w.walletId, `wallet:${w.walletName.split(stackName).join("<stack>")}`);
  const allowlists = await Promise.all(
    users.flatMap((u) => u.apiKeys).map(async (k) => (await client.getIpAllowlist({ publicKey: k.credential.publicKey }).catch(() => undefined))?.allowlist),
  );
  // An account's public key and address come from the wallet's random mnemonic.
  const accounts = await Promise.all(
    wallets.map(async (w) => ({
      walletName: w.walletName,
      accounts: (await client.listWalletAccounts({ walletId: w.walletId })).accounts.map(({ publicKey: _publicKey, ...account }) => account),
    })),
  );
  const raw = {
    users,
    userTags,
    policies,
    invitations: organizationData.invitations,
    rootQuorum: organizationData.rootQuorum,
    webhookEndpoints,
    allowlists: allowlists.filter((a) => a !== undefined),
    wallets: accounts,
    smartContractInterfaces,
    earn: (earn.enabledVaults ?? []).map((v) => ({ depositsDisabled: v.depositsDisabled })),
  };
  return comparable(raw, symbols, VOLATILE, (s) => s.split(stackName).join("<stack>"));
}

let typescriptEmulator: TestEmulator;
let yamlEmulator: TestEmulator;

beforeAll(async () => {
  [typescriptEmulator, yamlEmulator] = await Promise.all([startTestEmulator(), startTestEmulator()]);
  for (const emu of [typescriptEmulator, yamlEmulator]) await deployEarnWrapper(emu.client, exampleSettings());
});

afterAll(async () => {
  await Promise.all([typescriptEmulator?.stop(), yamlEmulator?.stop()]);
});

describe("examples/org and examples/org-yaml", () => {
  it("declare the same organization", { timeout: 900_000 }, async () => {
    const ts = await createWorkDirStack({ workDir: repoRoot, envVars: emulatorEnv(typescriptEmulator.emulator), config: exampleStackConfig() });
    const yaml = await createWorkDirStack({
      workDir: path.join(repoRoot, "examples", "org-yaml"),
      // The dev stack's choice for the wallet, as Pulumi.dev.yaml makes it for the TypeScript example.
      config: { ...settingsConfig(yamlEmulator), ...yamlConfig({ treasuryWalletDisposable: "true" }) },
    });
    try {
      await ts.stack.up();
      await yaml.stack.up();
      const fromTypescript = await organization(typescriptEmulator.client, ts.stack.name);
      const fromYaml = await organization(yamlEmulator.client, yaml.stack.name);
      expect(fromYaml).toEqual(fromTypescript);
      // Not vacuous: the organization holds what both programs declare.
      const snapshot = JSON.stringify(fromTypescript);
      for (const thing of ["user:alice", "tag:engineering", "Nobody exports keys", "203.0.113.0/24", "activity-updates-<stack>", "treasury-<stack>-sol", "Payroll program", "erin@example.com"]) {
        expect(snapshot).toContain(thing);
      }
    } finally {
      await ts.cleanup();
      await yaml.cleanup();
    }
  });
});
