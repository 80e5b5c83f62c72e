/**
 * The organization resources' runtime against the real emulator, without the engine: the checks
 * that name a property, the User's refusal to delete keyform's own key, key material kept
 * unless deletion is asked for, and a root quorum change that needs consensus reported once
 * (activity id and fingerprint) and adopted after the approval.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, KeyformClient } from "../../sdk/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { handlers } from "../../sdk/resources/runtime";
import { useRuntimeSettings } from "./harness/runtime-settings";
import { forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";

/** What a new provider process (the next `pulumi up`) starts from. */
function nextRun(): void {
  forgetSharedReads();
  forgetEarlierWork();
}
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let client: KeyformClient;
let restoreSettings: (() => void) | undefined;

beforeAll(async () => {
  emu = await startTestEmulator();
  client = emu.client;
  const b = emu.emulator.bootstrap;
  restoreSettings = useRuntimeSettings(emu.emulator.url, b);
});

afterAll(async () => {
  restoreSettings?.();
  await emu?.stop();
});

const failuresOf = async (kind: string, news: Record<string, unknown>) => (await handlers[kind]!.check({}, news)).failures ?? [];

describe("checks name the property", () => {
  it.each([
    ["User", { userName: "x", userPhoneNumber: "555-1234" }, "userPhoneNumber"],
    ["User", { userName: "x", apiKeys: [{ apiKeyName: "k", publicKey: "02" + "a".repeat(64) }, { apiKeyName: "k", publicKey: "03" + "a".repeat(64) }] }, "apiKeys"],
    ["RootQuorum", { threshold: 3, userIds: ["a", "b"] }, "threshold"],
    ["RootQuorum", { threshold: 1, userIds: [] }, "userIds"],
    ["WebhookEndpoint", { url: "ftp://x", name: "w", subscriptions: [] }, "url"],
    ["WebhookEndpoint", { url: "https://x.example", name: "w", subscriptions: [{ eventType: "ACTIVITY_UPDATES", filtersJson: "{" }] }, "subscriptions"],
    ["IpAllowlist", { publicKey: "02" + "a".repeat(64), enabled: true, rules: [] }, "enabled"],
    ["IpAllowlist", { rules: [], onEvaluationError: "MAYBE" }, "onEvaluationError"],
    ["IpAllowlist", {}, "rules"],
    ["Wallet", { walletName: "w", accounts: [{ curve: "CURVE_NOPE", path: "m/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }] }, "accounts"],
    ["Wallet", { walletName: "w", accounts: [], mnemonicLength: 13 }, "mnemonicLength"],
    ["PrivateKey", { privateKeyName: "k", curve: "CURVE_NOPE", addressFormats: [] }, "curve"],
    ["SessionProfile", { sessionProfileName: "p", scope: "activity.resource == 'WALLET'", expirationSeconds: "soon" }, "expirationSeconds"],
  ])("%s %j fails on %s", async (kind, news, property) => {
    expect((await failuresOf(kind, news)).map((f) => f.property)).toContain(property);
  });

  it("accepts what it should", async () => {
    expect(await failuresOf("IpAllowlist", { publicKey: "02" + "a".repeat(64), rules: [{ cidr: "10.0.0.0/8" }] })).toEqual([]);
    expect(await failuresOf("RootQuorum", { threshold: 2, userIds: ["a", "b"] })).toEqual([]);
  });
});

describe("User", () => {
  it("refuses to delete the API key keyform signs with", async () => {
    const b = emu.emulator.bootstrap;
    const root = (await client.getUser({ userId: b.userId })).user;
    const own = root.apiKeys[0]!;
    const other = generateApiKeyPair();
    const handler = handlers.User!;
    const read = await handler.read(b.userId, { organizationId: b.organizationId });
    const olds = read.props!;
    await expect(handler.update(b.userId, olds, { userName: root.userName, apiKeys: [{ apiKeyName: "other", publicKey: other.publicKey }] })).rejects.toThrow(
      /apiKeys: the key "[^"]+" \([^)]+\) is the API key keyform itself signs with/,
    );
    forgetSharedReads();
    expect((await client.getUser({ userId: b.userId })).user.apiKeys.map((k) => k.apiKeyId)).toEqual([own.apiKeyId]);
  });
});

describe("User with OAuth providers", () => {
  it("creates them with the user, reads the claims back, and a change is a replacement", async () => {
    const handler = handlers.User!;
    const google = { providerName: "google", oidcClaims: { iss: "https://accounts.google.com", sub: "1234", aud: "client-1" } };
    const { id, outs } = await handler.create({ userName: "oauth-user", oauthProviders: [google] });
    expect(outs.oauthProviders).toMatchObject([google]);
    const live = (await client.getUser({ userId: id })).user.oauthProviders;
    expect(live).toMatchObject([{ providerName: "google", issuer: "https://accounts.google.com", subject: "1234", audience: "client-1" }]);
    // Unset: not managed here, no change; another subject: a new user.
    expect((await handler.diff(id, outs, { userName: "oauth-user" })).changes).toBe(false);
    const changed = await handler.diff(id, outs, { userName: "oauth-user", oauthProviders: [{ ...google, oidcClaims: { ...google.oidcClaims, sub: "5678" } }] });
    expect(changed).toMatchObject({ changes: true, replaces: ["oauthProviders"], deleteBeforeReplace: true });
  });
});

describe("key material", () => {
  it("a wallet is deleted only with deleteWithoutExport: the service refuses otherwise, naming the flag", async () => {
    const { walletId } = await client.createWallet({ walletName: "keep-me", accounts: [] });
    const organizationId = emu.emulator.bootstrap.organizationId;
    await expect(handlers.Wallet!.delete(walletId, { organizationId, walletId, deleteWithoutExport: false })).rejects.toThrow(/deleteWithoutExport/);
    expect((await client.getWallet({ walletId })).wallet.walletName).toBe("keep-me");
    await handlers.Wallet!.delete(walletId, { organizationId, walletId, deleteWithoutExport: true });
    await expect(client.getWallet({ walletId })).rejects.toMatchObject({ status: 404 });
  });
});

describe("RootQuorum under consensus", () => {
  it("reports the waiting change once, then adopts it after the approval", async () => {
    const b = emu.emulator.bootstrap;
    const pair = generateApiKeyPair();
    const { userIds } = await client.createUsers({
      users: [{ userName: "approver", apiKeys: [{ apiKeyName: "a", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    const approverId = userIds[0]!;
    await client.updateRootQuorum({ threshold: 2, userIds: [b.userId, approverId] });
    const handler = handlers.RootQuorum!;
    const wanted = { threshold: 1, userIds: [b.userId, approverId] };

    const first = await handler.create(wanted).then(() => undefined, (e: Error) => e);
    expect(first?.message).toMatch(/consensus/i);
    const fingerprint = /sha256:[0-9a-f]{64}/.exec(first!.message)?.[0];
    expect(fingerprint).toBeDefined();
    const waiting = (await client.listActivities({ filterByType: ["ACTIVITY_TYPE_UPDATE_ROOT_QUORUM"] })).activities.filter((a) => a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(waiting).toHaveLength(1);

    // The next run reports the same activity instead of submitting another.
    nextRun();
    const second = await handler.create(wanted).then(() => undefined, (e: Error) => e);
    expect(second?.message).toContain(fingerprint!);
    expect((await client.listActivities({ filterByType: ["ACTIVITY_TYPE_UPDATE_ROOT_QUORUM"] })).activities.filter((a) => a.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED")).toHaveLength(1);

    const approver = new KeyformClient({ baseUrl: emu.emulator.url, organizationId: b.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }) });
    await approver.approveActivity({ fingerprint: fingerprint! });
    nextRun();
    const created = await handler.create(wanted);
    expect(created.id).toBe(b.organizationId);
    expect(created.outs).toMatchObject({ rootQuorumId: b.organizationId, threshold: 1, userIds: [b.userId, approverId].sort() });
  });
});
