/**
 * The example organization as plain data that two programs' organizations are compared by
 * (examples/org and examples/org-yaml declare the same one: test/engine/examples-readme.test.ts).
 */
import type { KeyformClient } from "../../sdk/client/client";
import { comparable, VOLATILE } from "../support/organization-snapshot";

/**
 * The organization behind `client` as plain data in which every id or generated key is replaced
 * by the name of what it stands for (`user:alice`, `tag:admins`, `key:ci-deployer/ci-deployer-<stack>`)
 * and the stack name by `<stack>`; lists are sorted, so order carries no meaning.
 */
export async function comparableOrganization(client: KeyformClient, stackName: string): Promise<unknown> {
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
