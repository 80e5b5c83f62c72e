/**
 * A plural activity is all or nothing, over real HTTP: one that the emulator refuses on its
 * second item leaves no trace of its first (no user, key, policy, invitation, wallet or account,
 * and no activity), because each activity runs inside one SQLite transaction (dispatch.ts). The
 * handlers write item by item, so an activity run outside its transaction fails these tests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { defaultAccount } from "../../sdk/emulator/wallets";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let rootUserId: string;
const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

beforeAll(async () => {
  t = await startTestEmulator();
  rootUserId = t.emulator.bootstrap.userId;
});
afterAll(async () => {
  await t?.stop();
});

/** Everything an activity could have written, as the service reports it. */
async function organizationState(): Promise<unknown> {
  const { organizationData } = await t.client.getOrganization();
  const { apiKeys } = await t.client.getApiKeys({});
  const { accounts } = await t.client.listWalletAccounts({ paginationOptions: { limit: "100" } });
  const { activities } = await t.client.listActivities({ paginationOptions: { limit: "100" } });
  return { organizationData, apiKeys, accounts, activityIds: activities.map((a) => a.id) };
}

/** `submit` is refused naming `field`, and the organization is exactly as it was before. */
async function leavesNothing(submit: () => Promise<unknown>, field: RegExp): Promise<void> {
  const before = await organizationState();
  await expect(submit()).rejects.toThrow(field);
  expect(await organizationState()).toEqual(before);
}

const user = (userName: string, userTags: string[] = []) => ({ userName, apiKeys: [], authenticators: [], oauthProviders: [], userTags });
const p256Key = (apiKeyName: string, publicKey = generateApiKeyPair().publicKey) => ({ apiKeyName, publicKey, curveType: "API_KEY_CURVE_P256" as const });
const ETH = (index: number) => defaultAccount("ADDRESS_FORMAT_ETHEREUM", index);

describe("a plural activity refused on its second item leaves nothing", () => {
  it("create_users: no first user", async () => {
    await leavesNothing(() => t.client.createUsers({ users: [user("first-of-two"), user("second-of-two", [UNKNOWN_ID])] }), /users\[1\]\.userTags\[0\]/);
    await leavesNothing(() => t.client.createUsers({ users: [user("twice"), user("twice")] }), /users\[1\]\.userName/);
    // The same first user alone is accepted: the refusal was the second item's.
    const { userIds } = await t.client.createUsers({ users: [user("first-of-two")] });
    expect(userIds).toHaveLength(1);
  });

  it("create_api_keys: no first key", async () => {
    const taken = generateApiKeyPair().publicKey;
    await t.client.createApiKeys({ userId: rootUserId, apiKeys: [p256Key("taken", taken)] });
    await leavesNothing(() => t.client.createApiKeys({ userId: rootUserId, apiKeys: [p256Key("fresh"), p256Key("reuses", taken)] }), /apiKeys\[1\]\.publicKey/);
  });

  it("create_policies: no first policy", async () => {
    const policy = (policyName: string) => ({ policyName, effect: "EFFECT_ALLOW" as const, condition: "activity.resource == 'USER'", notes: "" });
    await leavesNothing(() => t.client.createPolicies({ policies: [policy("same-name"), policy("same-name")] }), /policies\[1\]/);
  });

  it("create_invitations: no first invitation", async () => {
    const invitation = (receiverUserTags: string[]) => ({ receiverUserName: "hire", receiverUserEmail: "hire@example.com", receiverUserTags, accessType: "ACCESS_TYPE_WEB" as const, senderUserId: rootUserId });
    await leavesNothing(() => t.client.createInvitations({ invitations: [invitation([]), invitation([UNKNOWN_ID])] }), /invitations\[1\]\.receiverUserTags\[0\]/);
  });

  it("create_private_keys: no first key", async () => {
    const key = (privateKeyName: string, privateKeyTags: string[] = []) => ({ privateKeyName, curve: "CURVE_SECP256K1" as const, privateKeyTags, addressFormats: ["ADDRESS_FORMAT_ETHEREUM" as const] });
    await leavesNothing(() => t.client.createPrivateKeys({ privateKeys: [key("k-first"), key("k-second", [UNKNOWN_ID])] }), /privateKeys\[1\]\.privateKeyTags\[0\]/);
  });

  it("create_wallet and create_wallet_accounts: no wallet, no first account", async () => {
    await leavesNothing(() => t.client.createWallet({ walletName: "half-made", accounts: [ETH(0), ETH(0)] }), /accounts\[1\]/);
    const { walletId } = await t.client.createWallet({ walletName: "whole", accounts: [ETH(0)] });
    await leavesNothing(() => t.client.createWalletAccounts({ walletId, accounts: [ETH(1), ETH(0)] }), /accounts\[1\]/);
  });

  it("delete_policies: the first policy stays", async () => {
    const { policyId } = await t.client.createPolicy({ policyName: "kept", effect: "EFFECT_DENY", condition: "activity.resource == 'WALLET'", notes: "" });
    await leavesNothing(() => t.client.deletePolicies({ policyIds: [policyId, UNKNOWN_ID] }), /policyIds\[1\]/);
    expect((await t.client.getPolicy({ policyId })).policy.policyName).toBe("kept");
  });
});
