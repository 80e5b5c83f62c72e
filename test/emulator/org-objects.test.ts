/**
 * The operations behind the organization resources, over real HTTP with the typed client:
 * update_wallet and delete_wallets (never-exported wallets need deleteWithoutExport),
 * list_wallets, private key tags (membership is each key's `privateKeyTags`), set/get
 * IP allowlists (whole-list replacement, the enabled flag gating per-key lists) and the `time`
 * field of policies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { ApiKeyStamper, KeyformClient as Client } from "../../sdk/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let client: KeyformClient;

beforeAll(async () => {
  t = await startTestEmulator();
  client = t.client;
});
afterAll(async () => {
  await t?.stop();
});

const ETH = { curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" } as const;

describe("wallets", () => {
  it("renames in place, lists under list_wallets, and deletes an unexported wallet only with deleteWithoutExport", async () => {
    const { walletId } = await client.createWallet({ walletName: "ops", accounts: [ETH] });
    await client.updateWallet({ walletId, walletName: "ops-renamed" });
    expect((await client.getWallet({ walletId })).wallet.walletName).toBe("ops-renamed");
    expect((await client.listWallets()).wallets.map((w) => w.walletName)).toContain("ops-renamed");

    const { walletId: other } = await client.createWallet({ walletName: "taken", accounts: [] });
    await expect(client.updateWallet({ walletId, walletName: "taken" })).rejects.toMatchObject({ status: 409, message: expect.stringMatching(/walletName/) });

    await expect(client.deleteWallets({ walletIds: [walletId] })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/walletIds\[0\].*deleteWithoutExport/) });
    expect((await client.listWalletAccounts({ walletId })).accounts).toHaveLength(1);
    await client.deleteWallets({ walletIds: [walletId, other], deleteWithoutExport: true });
    await expect(client.getWallet({ walletId })).rejects.toMatchObject({ status: 404 });
    expect((await client.listWalletAccounts({})).accounts.filter((a) => a.walletId === walletId)).toEqual([]);
  });
});

describe("private key tags", () => {
  it("create, rename, move members, delete: the keys' privateKeyTags follow", async () => {
    const created = await client.createPrivateKeys({
      privateKeys: [
        { privateKeyName: "k1", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: [] },
        { privateKeyName: "k2", curve: "CURVE_ED25519", privateKeyTags: [], addressFormats: [] },
      ],
    });
    const [k1, k2] = created.privateKeys.map((k) => k.privateKeyId!);
    const tagsOf = async (id: string) => (await client.getPrivateKey({ privateKeyId: id! })).privateKey.privateKeyTags;

    const { privateKeyTagId } = await client.createPrivateKeyTag({ privateKeyTagName: "hot", privateKeyIds: [k1!] });
    expect(await tagsOf(k1!)).toEqual([privateKeyTagId]);
    await expect(client.createPrivateKeyTag({ privateKeyTagName: "hot", privateKeyIds: [] })).rejects.toMatchObject({ status: 409 });
    // A user tag of the same name is another namespace.
    await client.createUserTag({ userTagName: "hot", userIds: [] });

    await client.updatePrivateKeyTag({ privateKeyTagId, newPrivateKeyTagName: "cold", addPrivateKeyIds: [k2!], removePrivateKeyIds: [k1!] });
    expect((await client.listPrivateKeyTags()).privateKeyTags).toMatchObject([{ tagId: privateKeyTagId, tagName: "cold", tagType: "TAG_TYPE_PRIVATE_KEY" }]);
    expect(await tagsOf(k1!)).toEqual([]);
    expect(await tagsOf(k2!)).toEqual([privateKeyTagId]);
    await expect(client.updatePrivateKeyTag({ privateKeyTagId, addPrivateKeyIds: ["nope"], removePrivateKeyIds: [] })).rejects.toMatchObject({
      status: 404,
      message: expect.stringMatching(/addPrivateKeyIds\[0\]/),
    });

    const deleted = await client.deletePrivateKeyTags({ privateKeyTagIds: [privateKeyTagId] });
    expect(deleted.privateKeyIds).toEqual([k2]);
    expect(await tagsOf(k2!)).toEqual([]);
    expect((await client.listPrivateKeyTags()).privateKeyTags).toEqual([]);
  });
});

describe("IP allowlists", () => {
  it("set replaces the rules whole, get reads them back, a disabled organization list gates nothing", async () => {
    const b = t.emulator.bootstrap;
    await expect(client.getIpAllowlist({})).rejects.toMatchObject({ status: 404 });

    // A per-key list that excludes this caller, in force only while the organization list is enabled.
    const pair = generateApiKeyPair();
    const { userIds } = await client.createUsers({
      users: [{ userName: "ci", apiKeys: [{ apiKeyName: "ci", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    const ci = new Client({ baseUrl: t.emulator.url, organizationId: b.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }) });
    await client.setIpAllowlist({ publicKey: pair.publicKey, rules: [{ cidr: "203.0.113.0/24", label: "runners" }] });
    expect((await client.getIpAllowlist({ publicKey: pair.publicKey })).allowlist).toMatchObject({
      publicKey: pair.publicKey,
      rules: [{ cidr: "203.0.113.0/24", label: "runners" }],
      onEvaluationError: "DENY",
    });
    expect((await ci.whoami()).userId).toBe(userIds[0]);

    await client.setIpAllowlist({ enabled: false, rules: [{ cidr: "127.0.0.0/8" }, { cidr: "::1/128", label: "v6" }], onEvaluationError: "ALLOW" });
    expect((await client.getIpAllowlist({})).allowlist).toMatchObject({ enabled: false, onEvaluationError: "ALLOW", rules: [{ cidr: "127.0.0.0/8" }, { cidr: "::1/128", label: "v6" }] });
    expect((await ci.whoami()).userId).toBe(userIds[0]);

    await client.setIpAllowlist({ enabled: true });
    expect((await client.getIpAllowlist({})).allowlist.rules).toHaveLength(2);
    await expect(ci.whoami()).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/127\.0\.0\.1/) });
    expect((await client.whoami()).userId).toBe(b.userId);

    // Whole replacement; bad input names the rule.
    await client.setIpAllowlist({ rules: [{ cidr: "127.0.0.1/32" }] });
    expect((await client.getIpAllowlist({})).allowlist.rules.map((r) => r.cidr)).toEqual(["127.0.0.1/32"]);
    await expect(client.setIpAllowlist({ rules: [{ cidr: "10.0.0.0/33" }] })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/rules\[0\]\.cidr/) });
    const eleven = Array.from({ length: 11 }, (_, i) => ({ cidr: `10.0.${i}.0/24` }));
    await expect(client.setIpAllowlist({ rules: eleven })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/rules\[10\].*at most 10 IPv4/) });
    await expect(client.setIpAllowlist({ publicKey: pair.publicKey, enabled: true })).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^.*enabled/) });

    await client.removeIpAllowlist({ publicKey: pair.publicKey });
    await client.removeIpAllowlist({});
    expect((await ci.whoami()).userId).toBe(userIds[0]);
  });
});

describe("policies", () => {
  it("keep the time field through create and update", async () => {
    const { policyId } = await client.createPolicy({ policyName: "office hours", effect: "EFFECT_ALLOW", notes: "", time: "9-17" });
    expect((await client.getPolicy({ policyId })).policy.time).toBe("9-17");
    await client.updatePolicy({ policyId, time: "8-18" });
    expect((await client.getPolicy({ policyId })).policy).toMatchObject({ time: "8-18", policyName: "office hours" });
  });
});
