/**
 * Real engine, real emulator, one stack: the lifecycle of User, RootQuorum, WebhookEndpoint,
 * IpAllowlist, Wallet, PrivateKey, PrivateKeyTag and SessionProfile declared together.
 * up creates them (and the official `@turnkey/http` client reads each back) → preview shows
 * nothing → in-place changes are updates and fixed properties replacements, counted by
 * operation → out-of-band changes are found by a refresh and undone by the same up → importId adopts
 * objects made with the client → destroy removes what may go and leaves, with a warning, what
 * must stay (the root quorum, its members, session profiles, retained key material).
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, keyformResources, loadKeyform, since } from "../resources/harness/engine-harness";

const keyform = loadKeyform();

let emu: TestEmulator;
let client: KeyformClient;
let official: TurnkeyClient;
let env: Record<string, string>;
let rootUserId: string;
let bobUserId: string;
let receiver: http.Server;
let hookUrl: string;
const figures: Record<string, number> = {};

beforeAll(async () => {
  emu = await startTestEmulator();
  client = emu.client;
  env = emulatorEnv(emu.emulator);
  const b = emu.emulator.bootstrap;
  rootUserId = b.userId;
  official = new TurnkeyClient({ baseUrl: emu.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }));
  const { userIds } = await client.createUsers({ users: [{ userName: "bob", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
  bobUserId = userIds[0]!;
  receiver = http.createServer((_req, res) => res.writeHead(200).end());
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await emu?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  console.log(`resources-organization figures (ms): ${JSON.stringify(figures)}`);
});

const ETH = { curve: "CURVE_SECP256K1", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" };
const SOL = { curve: "CURVE_ED25519", path: "m/44'/501'/0'/0'", addressFormat: "ADDRESS_FORMAT_SOLANA" };

interface Desired {
  alice: Record<string, unknown>;
  quorumExtra: string[];
  webhook: Record<string, unknown>;
  allowlistRules: Array<{ cidr: string; label?: string }>;
  wallet: Record<string, unknown>;
  key: Record<string, unknown>;
  keyTagName: string;
  profile: Record<string, unknown>;
  policyTime?: string;
  importedUser?: Record<string, unknown>;
  importedKeyTag?: Record<string, unknown>;
  imported?: Record<"wallet" | "key" | "webhook" | "profile" | "orgAllowlist", Record<string, unknown>>;
}

describe("organization resources", () => {
  it("lifecycle in one stack", { timeout: 900_000 }, async () => {
    const t0 = performance.now();
    const aliceKey = generateApiKeyPair();
    const state: { desired: Desired } = {
      desired: {
        alice: { userName: "alice", userEmail: "alice@example.com", apiKeys: [{ apiKeyName: "laptop", publicKey: aliceKey.publicKey }] },
        quorumExtra: [],
        webhook: { url: `${hookUrl}/a`, name: "activity-feed", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] },
        allowlistRules: [{ cidr: "203.0.113.0/24", label: "CI runners" }],
        wallet: { walletName: "treasury", accounts: [ETH, SOL] },
        key: { privateKeyName: "signer", curve: "CURVE_SECP256K1", addressFormats: ["ADDRESS_FORMAT_ETHEREUM"], deleteWithoutExport: true },
        keyTagName: "hot",
        profile: { sessionProfileName: "read-only-v1", scope: "activity.resource == 'WALLET'", expirationSeconds: 900 },
        policyTime: "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')",
      },
    };
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-organization",
      envVars: env,
      program: async () => {
        const d = state.desired;
        const alice = new keyform.User("alice", d.alice as never);
        const quorum = new keyform.RootQuorum("root-quorum", { threshold: 1, userIds: [rootUserId, alice.userId, ...d.quorumExtra] });
        const webhook = new keyform.WebhookEndpoint("webhook", d.webhook as never);
        const allowlist = new keyform.IpAllowlist("alice-laptop-ips", { publicKey: aliceKey.publicKey, rules: d.allowlistRules }, { dependsOn: [alice] });
        const wallet = new keyform.Wallet("treasury", d.wallet as never);
        const key = new keyform.PrivateKey("signer", d.key as never);
        const keyTag = new keyform.PrivateKeyTag("hot-keys", { privateKeyTagName: d.keyTagName, privateKeyIds: [key.privateKeyId] });
        const profile = new keyform.SessionProfile("profile", d.profile as never);
        const policy = new keyform.Policy("timed", { policyName: "timed", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'", time: d.policyTime });
        const out: Record<string, unknown> = {
          aliceId: alice.userId,
          quorumId: quorum.rootQuorumId,
          endpointId: webhook.endpointId,
          allowlistId: allowlist.allowlistId,
          walletId: wallet.walletId,
          addresses: wallet.addresses,
          keyId: key.privateKeyId,
          keyTagId: keyTag.privateKeyTagId,
          profileId: profile.sessionProfileId,
          policyId: policy.policyId,
        };
        if (d.importedUser) out.importedUserId = new keyform.User("imported-user", d.importedUser as never).userId;
        if (d.importedKeyTag) out.importedKeyTagId = new keyform.PrivateKeyTag("imported-key-tag", d.importedKeyTag as never).privateKeyTagId;
        if (d.imported) {
          out.importedWalletId = new keyform.Wallet("imported-wallet", d.imported.wallet as never).walletId;
          out.importedKeyId = new keyform.PrivateKey("imported-key", d.imported.key as never).privateKeyId;
          out.importedEndpointId = new keyform.WebhookEndpoint("imported-webhook", d.imported.webhook as never).endpointId;
          out.importedProfileId = new keyform.SessionProfile("imported-profile", d.imported.profile as never).sessionProfileId;
          out.importedAllowlistId = new keyform.IpAllowlist("imported-org-allowlist", d.imported.orgAllowlist as never).allowlistId;
        }
        return out;
      },
    });
    try {
      // up creates all nine
      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 9 });
      const o = (name: string) => up.outputs[name]!.value as string;
      const ids = { alice: o("aliceId"), endpoint: o("endpointId"), wallet: o("walletId"), key: o("keyId"), keyTag: o("keyTagId"), profile: o("profileId"), policy: o("policyId") };
      expect(o("quorumId")).toBe(emu.emulator.bootstrap.organizationId);
      expect(o("allowlistId")).toBe(aliceKey.publicKey);
      figures.create = since(t0);

      // the official client reads each object back
      const organizationId = emu.emulator.bootstrap.organizationId;
      const user = (await official.getUser({ organizationId, userId: ids.alice })).user;
      expect(user).toMatchObject({ userName: "alice", userEmail: "alice@example.com" });
      expect(user.apiKeys.map((k) => k.credential.publicKey)).toEqual([aliceKey.publicKey]);
      expect(user.userTags).toEqual([]);
      const { organizationData } = await official.getOrganization({ organizationId });
      expect(organizationData.rootQuorum).toMatchObject({ threshold: 1 });
      expect([...(organizationData.rootQuorum?.userIds ?? [])].sort()).toEqual([rootUserId, ids.alice].sort());
      const { webhookEndpoints } = await official.listWebhookEndpoints({ organizationId });
      expect(webhookEndpoints).toMatchObject([{ endpointId: ids.endpoint, name: "activity-feed", isActive: true, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }]);
      expect((await official.getIpAllowlist({ organizationId, publicKey: aliceKey.publicKey })).allowlist).toMatchObject({
        rules: [{ cidr: "203.0.113.0/24", label: "CI runners" }],
        onEvaluationError: "DENY",
      });
      expect((await official.getWallet({ organizationId, walletId: ids.wallet })).wallet.walletName).toBe("treasury");
      const accounts = (await official.getWalletAccounts({ organizationId, walletId: ids.wallet })).accounts;
      expect(accounts.map((a) => a.addressFormat)).toEqual(["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"]);
      expect(up.outputs.addresses!.value).toEqual(accounts.map((a) => a.address));
      const privateKey = (await official.getPrivateKey({ organizationId, privateKeyId: ids.key })).privateKey;
      expect(privateKey).toMatchObject({ privateKeyName: "signer", curve: "CURVE_SECP256K1", privateKeyTags: [ids.keyTag] });
      expect((await official.listPrivateKeyTags({ organizationId })).privateKeyTags).toMatchObject([{ tagId: ids.keyTag, tagName: "hot" }]);
      expect((await official.getSessionProfile({ organizationId, sessionProfileId: ids.profile })).sessionProfile).toMatchObject({
        sessionProfileName: "read-only-v1",
        scope: "activity.resource == 'WALLET'",
        expirationSeconds: "900",
      });
      expect((await official.getPolicy({ organizationId, policyId: ids.policy })).policy).toMatchObject({ time: "CronSpan('0 9 * * 1-5', '8h', 'America/New_York')" });

      // a second preview shows no changes
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // in place: user, quorum, webhook, allowlist, wallet name, key tag name, policy time
      const t1 = performance.now();
      const phoneKey = generateApiKeyPair();
      state.desired = {
        ...state.desired,
        alice: {
          userName: "alice-smith",
          userEmail: "alice@example.org",
          apiKeys: [
            { apiKeyName: "laptop", publicKey: aliceKey.publicKey },
            { apiKeyName: "phone", publicKey: phoneKey.publicKey },
          ],
        },
        quorumExtra: [bobUserId],
        webhook: { url: `${hookUrl}/b`, name: "activity-feed-v2", isActive: false, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] },
        allowlistRules: [{ cidr: "198.51.100.0/24" }, { cidr: "203.0.113.0/24", label: "CI runners" }],
        wallet: { walletName: "treasury-main", accounts: [ETH, SOL] },
        keyTagName: "hot-signers",
        policyTime: "time.now > Timestamp('2020-01-01T00:00:00Z')",
      };
      // No preview first: the up's counts by operation are the proof.
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 7 });
      expect(up.outputs.walletId!.value).toBe(ids.wallet);
      expect(up.outputs.endpointId!.value).toBe(ids.endpoint);
      const alice = (await client.getUser({ userId: ids.alice })).user;
      expect(alice).toMatchObject({ userName: "alice-smith", userEmail: "alice@example.org" });
      expect(alice.apiKeys.map((k) => k.apiKeyName).sort()).toEqual(["laptop", "phone"]);
      expect((await client.getOrganization()).organizationData.rootQuorum?.userIds.sort()).toEqual([rootUserId, ids.alice, bobUserId].sort());
      expect((await client.listWebhookEndpoints()).webhookEndpoints[0]).toMatchObject({ url: `${hookUrl}/b`, name: "activity-feed-v2", isActive: false });
      expect((await client.getWallet({ walletId: ids.wallet })).wallet.walletName).toBe("treasury-main");
      expect((await client.listPrivateKeyTags()).privateKeyTags.map((t) => t.tagName)).toEqual(["hot-signers"]);
      figures.updateInPlace = since(t1);

      // replacements: webhook subscriptions, session profile (a new name: the old one stays), private key curve
      const t2 = performance.now();
      state.desired = {
        ...state.desired,
        webhook: { ...state.desired.webhook, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }, { eventType: "BALANCE_CONFIRMED_UPDATES" }] },
        profile: { sessionProfileName: "read-only-v2", scope: "activity.resource == 'WALLET' && activity.action == 'SIGN'", expirationSeconds: 600 },
        key: { ...state.desired.key, curve: "CURVE_ED25519", addressFormats: ["ADDRESS_FORMAT_SOLANA"] },
      };
      let destroyLog = "";
      up = await stack.up({ onOutput: (text) => (destroyLog += text) });
      // The key tag follows the new key's id: an update.
      expect(changes(up.summary.resourceChanges)).toEqual({ replace: 3, update: 1 });
      expect(up.outputs.endpointId!.value).not.toBe(ids.endpoint);
      expect(up.outputs.profileId!.value).not.toBe(ids.profile);
      expect(up.outputs.keyId!.value).not.toBe(ids.key);
      expect(destroyLog).toMatch(/SessionProfile "read-only-v1".*cannot delete session profiles/);
      const profiles = (await client.getSessionProfiles()).sessionProfiles.map((p) => p.sessionProfileName).sort();
      expect(profiles).toEqual(["read-only-v1", "read-only-v2"]);
      expect((await client.listPrivateKeys()).privateKeys.map((k) => k.curve)).toEqual(["CURVE_ED25519"]);
      const replaced = { endpoint: up.outputs.endpointId!.value as string, key: up.outputs.keyId!.value as string };
      figures.replace = since(t2);

      // out-of-band changes: found by a refresh and undone by the up that runs it
      const t3 = performance.now();
      await client.updateUser({ userId: ids.alice, userEmail: "hand@example.org" });
      await client.updateWallet({ walletId: ids.wallet, walletName: "renamed-by-hand" });
      await client.updateWebhookEndpoint({ endpointId: replaced.endpoint, isActive: true });
      await client.setIpAllowlist({ publicKey: aliceKey.publicKey, rules: [{ cidr: "0.0.0.0/0" }] });
      await client.updatePrivateKeyTag({ privateKeyTagId: ids.keyTag, addPrivateKeyIds: [], removePrivateKeyIds: [replaced.key] });
      // One run refreshes and undoes: the program is unchanged since the last up, so without a
      // refresh that saw each change (the read keeping the previous outputs, say) there is
      // nothing to update; the five updates are the five changes the refresh found.
      up = await stack.up({ refresh: true });
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 5 });
      expect((await client.getIpAllowlist({ publicKey: aliceKey.publicKey })).allowlist.rules.map((r) => r.cidr)).toEqual(["198.51.100.0/24", "203.0.113.0/24"]);
      expect((await client.getUser({ userId: ids.alice })).user.userEmail).toBe("alice@example.org");
      expect((await client.getWallet({ walletId: ids.wallet })).wallet.walletName).toBe("treasury-main");
      expect((await client.listWebhookEndpoints()).webhookEndpoints[0]!.isActive).toBe(false);
      expect((await client.getPrivateKey({ privateKeyId: replaced.key })).privateKey.privateKeyTags).toEqual([ids.keyTag]);
      // That the up undid everything (nothing left to change) is proven by the next up's exact
      // counts: only the seven adoptions, no update.
      figures.drift = since(t3);

      // importId adopts objects made with the client, of every kind here, and updates them to
      // match: renamed or switched where the service allows it (one up for the seven)
      const { userIds: [handUser] } = await client.createUsers({ users: [{ userName: "hand-made", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] }] });
      const { privateKeyTagId: handTag } = await client.createPrivateKeyTag({ privateKeyTagName: "hand-tag", privateKeyIds: [] });
      const { walletId: handWallet } = await client.createWallet({ walletName: "hand-wallet", accounts: [{ ...ETH, pathFormat: "PATH_FORMAT_BIP32" } as never] });
      const { privateKeys: [handKey] } = await client.createPrivateKeys({ privateKeys: [{ privateKeyName: "hand-key", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: [] }] });
      const { endpointId: handEndpoint } = await client.createWebhookEndpoint({ url: `${hookUrl}/hand`, name: "hand-hook", subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] });
      const { sessionProfileId: handProfile } = await client.createSessionProfile({ sessionProfileName: "hand-profile", scope: "activity.resource == 'WALLET'" });
      // Disabled: an organization-level list must not lock this test out.
      await client.setIpAllowlist({ enabled: false, rules: [{ cidr: "10.0.0.0/8" }] });
      state.desired = {
        ...state.desired,
        importedUser: { userName: "carol", userEmail: "carol@example.com", importId: handUser },
        importedKeyTag: { privateKeyTagName: "hand-tag", privateKeyIds: [replaced.key], importId: handTag },
        imported: {
          wallet: { walletName: "adopted-wallet", accounts: [ETH], deleteWithoutExport: true, importId: handWallet },
          key: { privateKeyName: "hand-key", curve: "CURVE_SECP256K1", deleteWithoutExport: true, importId: handKey!.privateKeyId },
          webhook: { url: `${hookUrl}/adopted`, name: "hand-hook", isActive: false, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }], importId: handEndpoint },
          profile: { sessionProfileName: "hand-profile", scope: "activity.resource == 'WALLET'", importId: handProfile },
          orgAllowlist: { enabled: false, rules: [{ cidr: "10.0.0.0/8" }, { cidr: "192.168.0.0/16", label: "office" }], importId: "organization" },
        },
      };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 7 });
      expect(up.outputs.importedUserId!.value).toBe(handUser);
      expect(up.outputs.importedKeyTagId!.value).toBe(handTag);
      expect((await client.getUser({ userId: handUser! })).user).toMatchObject({ userName: "carol", userEmail: "carol@example.com" });
      expect((await client.getPrivateKey({ privateKeyId: replaced.key })).privateKey.privateKeyTags.sort()).toEqual([ids.keyTag, handTag].sort());
      expect([up.outputs.importedWalletId!.value, up.outputs.importedKeyId!.value, up.outputs.importedEndpointId!.value, up.outputs.importedProfileId!.value]).toEqual([
        handWallet,
        handKey!.privateKeyId,
        handEndpoint,
        handProfile,
      ]);
      expect(up.outputs.importedAllowlistId!.value).toBe("organization");
      expect((await client.getWallet({ walletId: handWallet })).wallet.walletName).toBe("adopted-wallet");
      expect((await client.listWebhookEndpoints()).webhookEndpoints.find((e) => e.endpointId === handEndpoint)).toMatchObject({ url: `${hookUrl}/adopted`, isActive: false });
      expect((await client.getIpAllowlist({})).allowlist.rules.map((r) => r.cidr)).toEqual(["10.0.0.0/8", "192.168.0.0/16"]);
      // A property the service cannot change is refused, naming it, and nothing is recorded.
      const { sessionProfileId: otherProfile } = await client.createSessionProfile({ sessionProfileName: "other-profile", scope: "activity.resource == 'POLICY'" });
      const adopted = state.desired.imported!;
      state.desired = { ...state.desired, imported: { ...adopted, profile: { sessionProfileName: "other-profile", scope: "activity.resource == 'WALLET'", importId: otherProfile } } };
      await expect(stack.up()).rejects.toThrow(/scope \(declared "activity.resource == 'WALLET'", found "activity.resource == 'POLICY'"\)/);
      state.desired = { ...state.desired, imported: adopted };
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // destroy: what may go goes; the quorum, its members, the profiles and the retained wallet stay
      const t4 = performance.now();
      let log = "";
      const destroyed = await stack.destroy({ onOutput: (text) => (log += text) });
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 16 });
      expect(log).toMatch(/RootQuorum of organization .* leaves the root quorum as it is/);
      expect(log).toMatch(/User "alice-smith" .* member of the root quorum/);
      expect(log).toMatch(/SessionProfile "read-only-v2"/);
      expect((await client.getOrganization()).organizationData.rootQuorum?.userIds.sort()).toEqual([rootUserId, ids.alice, bobUserId].sort());
      const users = (await client.listUsers()).users.map((u) => u.userName).sort();
      expect(users).toEqual(["alice-smith", "bob", "root"]);
      expect((await client.getWallet({ walletId: ids.wallet })).wallet.walletName).toBe("treasury-main");
      await expect(client.getWallet({ walletId: handWallet })).rejects.toMatchObject({ status: 404 });
      expect((await client.listPrivateKeys()).privateKeys).toEqual([]);
      await expect(client.getIpAllowlist({})).rejects.toMatchObject({ status: 404 });
      expect((await client.listPrivateKeyTags()).privateKeyTags).toEqual([]);
      expect((await client.listWebhookEndpoints()).webhookEndpoints).toEqual([]);
      expect((await client.getSessionProfiles()).sessionProfiles).toHaveLength(4);
      await expect(client.getIpAllowlist({ publicKey: aliceKey.publicKey })).rejects.toMatchObject({ status: 404 });
      expect(await keyformResources(stack)).toEqual([]);
      figures.destroy = since(t4);
    } finally {
      await cleanup();
      figures.total = since(t0);
    }
  });
});
