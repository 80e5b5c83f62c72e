/**
 * Every emulated operation through KeyformClient over real HTTP: happy paths and the main
 * failure paths (404 code 5 for missing ids, 409 code 6 for duplicate names, 400 code 3 for
 * invalid arguments).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { wrapperAddressFor } from "../../sdk/emulator/handlers/earn";
import { notImplemented } from "../../sdk/emulator/errors";
import type { OperationDef } from "../../sdk/wire/define";
import { operations } from "../../sdk/wire/registry";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { envelope, post, rootStamper } from "./raw";

let t: TestEmulator;
let client: KeyformClient;
let rootUserId: string;
let orgId: string;

beforeAll(async () => {
  t = await startTestEmulator();
  client = t.client;
  rootUserId = t.emulator.bootstrap.userId;
  orgId = t.emulator.bootstrap.organizationId;
});
afterAll(async () => {
  await t?.stop();
});

const notFound = { status: 404, code: 5 };
const conflict = { status: 409, code: 6 };
const badRequest = { status: 400, code: 3 };

/** A client stamping with a given key pair. */
function clientFor(pair: { publicKey: string; privateKey: string }, organizationId = orgId): KeyformClient {
  return new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
  });
}

async function createUser(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const { userIds } = await client.createUsers({
    users: [{ userName: name, apiKeys: [], authenticators: [], oauthProviders: [], userTags: [], ...extra }],
  });
  return userIds[0]!;
}

describe("users and organization", () => {
  it("creates, reads, updates and deletes users", async () => {
    const pair = generateApiKeyPair();
    const { userTagId } = await client.createUserTag({ userTagName: "users-test", userIds: [] });
    const userId = await createUser("alice", {
      userEmail: "alice@example.com",
      apiKeys: [{ apiKeyName: "alice-key", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }],
      userTags: [userTagId],
      oauthProviders: [{ providerName: "google", oidcClaims: { iss: "https://accounts.example", sub: "123", aud: "app" } }],
    });
    const { user } = await client.getUser({ userId });
    expect(user).toMatchObject({ userId, userName: "alice", userEmail: "alice@example.com", userTags: [userTagId] });
    expect(user.apiKeys.map((k) => k.credential.publicKey)).toEqual([pair.publicKey]);
    expect(user.oauthProviders[0]).toMatchObject({ issuer: "https://accounts.example", subject: "123", audience: "app" });

    // The new user's key stamps at once, and whoami names that user (lowercase `username`).
    expect(await clientFor(pair).whoami()).toEqual({
      organizationId: orgId,
      organizationName: "keyform emulator",
      userId,
      username: "alice",
    });

    await client.updateUser({ userId, userEmail: "a@example.com", userTagIds: [] });
    await client.updateUserName({ userId, userName: "alice2" });
    const after = (await client.getUser({ userId })).user;
    expect(after).toMatchObject({ userName: "alice2", userEmail: "a@example.com", userTags: [] });

    await expect(createUser("alice2")).rejects.toMatchObject(conflict);
    await expect(client.updateUserName({ userId, userName: "root" })).rejects.toMatchObject(conflict);
    await expect(client.updateUser({ userId, userTagIds: ["00000000-0000-4000-8000-000000000000"] })).rejects.toMatchObject(notFound);
    await expect(client.getUser({ userId: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject(notFound);

    await client.deleteUsers({ userIds: [userId] });
    await expect(client.getUser({ userId })).rejects.toMatchObject(notFound);
    // Its key went with it.
    await expect(clientFor(pair).whoami()).rejects.toMatchObject({ status: 401, code: 16 });
    await expect(client.deleteUsers({ userIds: [userId] })).rejects.toMatchObject(notFound);
    await expect(client.deleteUsers({ userIds: [rootUserId] })).rejects.toMatchObject({ status: 400, code: 9 });
  });

  it("lists users and shows the organization", async () => {
    const { users } = await client.listUsers();
    expect(users.map((u) => u.userName)).toContain("root");
    const { organizationData } = await client.getOrganization();
    expect(organizationData.organizationId).toBe(orgId);
    expect(organizationData.rootQuorum).toEqual({ threshold: 1, userIds: [rootUserId] });
    expect(organizationData.users?.some((u) => u.userId === rootUserId)).toBe(true);
  });
});

describe("user tags", () => {
  it("creates, renames, changes membership and deletes a tag", async () => {
    const bob = await createUser("bob");
    const { userTagId, userIds } = await client.createUserTag({ userTagName: "ops", userIds: [rootUserId] });
    expect(userIds).toEqual([rootUserId]);
    expect((await client.listUserTags()).userTags.find((tag) => tag.tagId === userTagId)).toMatchObject({
      tagName: "ops",
      tagType: "TAG_TYPE_USER",
    });
    expect((await client.getUser({ userId: rootUserId })).user.userTags).toContain(userTagId);

    await expect(client.createUserTag({ userTagName: "ops", userIds: [] })).rejects.toMatchObject(conflict);
    await expect(client.createUserTag({ userTagName: "ghost-members", userIds: ["nope"] })).rejects.toMatchObject(notFound);
    // The failed create left nothing behind.
    expect((await client.listUserTags()).userTags.some((tag) => tag.tagName === "ghost-members")).toBe(false);

    await client.updateUserTag({ userTagId, newUserTagName: "operators", addUserIds: [bob], removeUserIds: [rootUserId] });
    expect((await client.getUser({ userId: bob })).user.userTags).toEqual([userTagId]);
    expect((await client.getUser({ userId: rootUserId })).user.userTags).not.toContain(userTagId);
    expect((await client.listUserTags()).userTags.find((tag) => tag.tagId === userTagId)?.tagName).toBe("operators");

    const { userTagId: other } = await client.createUserTag({ userTagName: "other", userIds: [] });
    await expect(
      client.updateUserTag({ userTagId: other, newUserTagName: "operators", addUserIds: [], removeUserIds: [] }),
    ).rejects.toMatchObject(conflict);

    const deleted = await client.deleteUserTags({ userTagIds: [userTagId, other] });
    expect(deleted.userTagIds).toEqual([userTagId, other]);
    expect(deleted.userIds).toEqual([bob]);
    expect((await client.getUser({ userId: bob })).user.userTags).toEqual([]);
    await expect(client.deleteUserTags({ userTagIds: [userTagId] })).rejects.toMatchObject(notFound);
  });
});

describe("policies", () => {
  it("creates, reads, updates (policy* fields) and deletes a policy", async () => {
    const { policyId } = await client.createPolicy({
      policyName: "allow-ops",
      effect: "EFFECT_ALLOW",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      consensus: "approvers.any(user, user.id == 'x')",
      notes: "first",
    });
    expect((await client.getPolicy({ policyId })).policy).toMatchObject({
      policyId,
      policyName: "allow-ops",
      effect: "EFFECT_ALLOW",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
      notes: "first",
    });
    await expect(client.createPolicy({ policyName: "allow-ops", effect: "EFFECT_DENY", notes: "" })).rejects.toMatchObject(conflict);

    await client.updatePolicy({ policyId, policyName: "allow-ops-2", policyEffect: "EFFECT_DENY", policyNotes: "second" });
    expect((await client.getPolicy({ policyId })).policy).toMatchObject({
      policyName: "allow-ops-2",
      effect: "EFFECT_DENY",
      notes: "second",
      condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USER_TAG'",
    });
    expect((await client.listPolicies()).policies.map((p) => p.policyId)).toContain(policyId);

    await client.deletePolicy({ policyId });
    await expect(client.getPolicy({ policyId })).rejects.toMatchObject(notFound);
    await expect(client.deletePolicy({ policyId })).rejects.toMatchObject(notFound);
    await expect(client.updatePolicy({ policyId, policyNotes: "x" })).rejects.toMatchObject(notFound);
  });
});

describe("API keys", () => {
  it("creates keys that stamp at once, reads and deletes them", async () => {
    const p256 = generateApiKeyPair("API_KEY_CURVE_P256");
    const k1 = generateApiKeyPair("API_KEY_CURVE_SECP256K1");
    const ed = generateApiKeyPair("API_KEY_CURVE_ED25519");
    const { apiKeyIds } = await client.createApiKeys({
      userId: rootUserId,
      apiKeys: [
        { apiKeyName: "ci-p256", publicKey: p256.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "3600" },
        { apiKeyName: "ci-k1", publicKey: k1.publicKey, curveType: "API_KEY_CURVE_SECP256K1" },
        { apiKeyName: "ci-ed", publicKey: ed.publicKey, curveType: "API_KEY_CURVE_ED25519" },
      ],
    });
    expect(apiKeyIds).toHaveLength(3);
    const { apiKey } = await client.getApiKey({ apiKeyId: apiKeyIds[0]! });
    expect(apiKey).toMatchObject({
      apiKeyName: "ci-p256",
      expirationSeconds: "3600",
      credential: { publicKey: p256.publicKey, type: "CREDENTIAL_TYPE_API_KEY_P256" },
    });
    const { apiKeys } = await client.getApiKeys({ userId: rootUserId });
    expect(apiKeys.map((k) => k.apiKeyName)).toEqual(expect.arrayContaining(["bootstrap", "ci-p256", "ci-k1", "ci-ed"]));

    for (const [pair, curve] of [
      [p256, "API_KEY_CURVE_P256"],
      [k1, "API_KEY_CURVE_SECP256K1"],
      [ed, "API_KEY_CURVE_ED25519"],
    ] as const) {
      const c = new KeyformClient({
        baseUrl: t.emulator.url,
        organizationId: orgId,
        stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey, curve }),
      });
      expect((await c.whoami()).userId).toBe(rootUserId);
    }

    await expect(
      client.createApiKeys({ userId: rootUserId, apiKeys: [{ apiKeyName: "ci-p256", publicKey: generateApiKeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }] }),
    ).rejects.toMatchObject(conflict);
    await expect(
      client.createApiKeys({ userId: rootUserId, apiKeys: [{ apiKeyName: "again", publicKey: p256.publicKey, curveType: "API_KEY_CURVE_P256" }] }),
    ).rejects.toMatchObject(conflict);
    await expect(
      client.createApiKeys({ userId: rootUserId, apiKeys: [{ apiKeyName: "bad", publicKey: "02" + "ff".repeat(32), curveType: "API_KEY_CURVE_P256" }] }),
    ).rejects.toMatchObject(badRequest);
    await expect(
      client.createApiKeys({ userId: "no-such-user", apiKeys: [{ apiKeyName: "x", publicKey: generateApiKeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }] }),
    ).rejects.toMatchObject(notFound);

    await client.deleteApiKeys({ userId: rootUserId, apiKeyIds: [apiKeyIds[0]!] });
    await expect(client.getApiKey({ apiKeyId: apiKeyIds[0]! })).rejects.toMatchObject(notFound);
    await expect(clientFor(p256).whoami()).rejects.toMatchObject({ status: 401, code: 16 });
    await expect(client.deleteApiKeys({ userId: rootUserId, apiKeyIds: [apiKeyIds[0]!] })).rejects.toMatchObject(notFound);
  });
});

describe("invitations", () => {
  it("creates invitations visible in get_organization and deletes them", async () => {
    const { userTagId } = await client.createUserTag({ userTagName: "invitees", userIds: [] });
    const { invitationIds } = await client.createInvitations({
      invitations: [
        {
          receiverUserName: "carol",
          receiverUserEmail: "carol@example.com",
          receiverUserTags: [userTagId],
          accessType: "ACCESS_TYPE_WEB",
          senderUserId: rootUserId,
        },
      ],
    });
    const { organizationData } = await client.getOrganization();
    expect(organizationData.invitations?.find((i) => i.invitationId === invitationIds[0])).toMatchObject({
      receiverUserName: "carol",
      receiverEmail: "carol@example.com",
      receiverUserTags: [userTagId],
      accessType: "ACCESS_TYPE_WEB",
      status: "INVITATION_STATUS_CREATED",
      senderUserId: rootUserId,
    });
    await expect(
      client.createInvitations({
        invitations: [{ receiverUserName: "d", receiverUserEmail: "d@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_API", senderUserId: "nobody" }],
      }),
    ).rejects.toMatchObject(notFound);

    await client.deleteInvitation({ invitationId: invitationIds[0]! });
    expect((await client.getOrganization()).organizationData.invitations?.some((i) => i.invitationId === invitationIds[0])).toBe(false);
    await expect(client.deleteInvitation({ invitationId: invitationIds[0]! })).rejects.toMatchObject(notFound);
  });
});

describe("smart contract interfaces", () => {
  it("stores the ABI text as given and enforces one interface per address and type", async () => {
    const abi = '[ {"type":"function","name":"transfer","inputs":[]} ]';
    const address = "0x" + "ab".repeat(20);
    const { smartContractInterfaceId } = await client.createSmartContractInterface({
      smartContractAddress: address,
      smartContractInterface: abi,
      type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
      label: "token",
      notes: "erc20",
    });
    const { smartContractInterface } = await client.getSmartContractInterface({ smartContractInterfaceId });
    expect(smartContractInterface).toMatchObject({
      organizationId: orgId,
      smartContractAddress: address,
      smartContractInterface: abi,
      type: "ETHEREUM",
      label: "token",
      notes: "erc20",
    });
    expect((await client.listSmartContractInterfaces()).smartContractInterfaces.map((i) => i.smartContractInterfaceId)).toContain(
      smartContractInterfaceId,
    );
    await expect(
      client.createSmartContractInterface({ smartContractAddress: address, smartContractInterface: "[]", type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM", label: "again" }),
    ).rejects.toMatchObject(conflict);
    // Same address, other type: allowed.
    await client.createSmartContractInterface({ smartContractAddress: address, smartContractInterface: "{}", type: "SMART_CONTRACT_INTERFACE_TYPE_SOLANA", label: "idl" });

    await client.deleteSmartContractInterface({ smartContractInterfaceId });
    await expect(client.getSmartContractInterface({ smartContractInterfaceId })).rejects.toMatchObject(notFound);
    await expect(client.deleteSmartContractInterface({ smartContractInterfaceId })).rejects.toMatchObject(notFound);
  });
});

describe("Earn wrappers", () => {
  it("deploys a wrapper at a deterministic address and switches deposits", async () => {
    const vault = "0x" + "12".repeat(20);
    const deployed = await client.earnDeployWrapper({
      vaultAddress: vault,
      chainCaip2: "eip155:8453",
      clientFeeBps: "50",
      clientFeeWallet: "0x" + "34".repeat(20),
    });
    expect(deployed.wrapperAddress).toMatch(/^0x[0-9a-f]{40}$/);
    expect(deployed.wrapperAddress).toBe(wrapperAddressFor(orgId, vault, "eip155:8453"));
    await expect(
      client.earnDeployWrapper({ vaultAddress: vault, chainCaip2: "eip155:8453", clientFeeBps: "50", clientFeeWallet: "0x" + "34".repeat(20) }),
    ).rejects.toMatchObject(conflict);

    const listed = async () =>
      (await client.listEarnEnabledVaults()).enabledVaults?.find((v) => v.wrapperAddress === deployed.wrapperAddress);
    expect(await listed()).toMatchObject({ vaultAddress: vault, depositsDisabled: false, clientFeeBps: "50" });

    expect(await client.earnSetWrapperState({ wrapperAddress: deployed.wrapperAddress, depositsDisabled: true })).toEqual({
      wrapperAddress: deployed.wrapperAddress,
      depositsDisabled: true,
    });
    expect((await listed())?.depositsDisabled).toBe(true);
    await client.earnSetWrapperState({ wrapperAddress: deployed.wrapperAddress, depositsDisabled: false });
    expect((await listed())?.depositsDisabled).toBe(false);

    await expect(
      client.earnSetWrapperState({ wrapperAddress: "0x" + "99".repeat(20), depositsDisabled: true }),
    ).rejects.toMatchObject(notFound);
    await expect(client.earnSetWrapperState({ wrapperAddress: "not-an-address", depositsDisabled: true })).rejects.toMatchObject(badRequest);
  });
});

describe("activities", () => {
  it("records every submit and lists newest first with cursor pagination", async () => {
    const activity = await client.submitActivity("createUserTag", { userTagName: "act-1", userIds: [] });
    expect(activity).toMatchObject({
      organizationId: orgId,
      status: "ACTIVITY_STATUS_COMPLETED",
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      intent: { createUserTagIntent: { userTagName: "act-1", userIds: [] } },
      votes: [],
      canApprove: false,
      canReject: false,
    });
    expect(activity.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(activity.createdAt).toMatch(/^\d+$/);
    expect((await client.getActivity({ activityId: activity.id })).activity).toEqual(activity);
    await expect(client.getActivity({ activityId: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject(notFound);

    await client.createUserTag({ userTagName: "act-2", userIds: [] });
    await client.createUserTag({ userTagName: "act-3", userIds: [] });
    const filter = { filterByType: ["ACTIVITY_TYPE_CREATE_USER_TAG"] };
    const all = (await client.listActivities({ ...filter, paginationOptions: { limit: "100" } })).activities;
    const names = all.map((a) => (a.intent.createUserTagIntent as { userTagName: string }).userTagName);
    expect(names.slice(0, 3)).toEqual(["act-3", "act-2", "act-1"]);

    const first = (await client.listActivities({ ...filter, paginationOptions: { limit: "2" } })).activities;
    const second = (await client.listActivities({ ...filter, paginationOptions: { limit: "2", after: first[1]!.id } })).activities;
    expect([...first, ...second].map((a) => a.id)).toEqual(all.slice(0, 4).map((a) => a.id));
    const back = (await client.listActivities({ ...filter, paginationOptions: { limit: "2", before: second[0]!.id } })).activities;
    expect(back.map((a) => a.id)).toEqual(first.map((a) => a.id));

    const failed = (await client.listActivities({ filterByStatus: ["ACTIVITY_STATUS_FAILED"] })).activities;
    expect(failed).toEqual([]);
    await expect(client.approveActivity({ fingerprint: activity.fingerprint })).rejects.toMatchObject({ status: 400, code: 9 });
  });

  it("runs a byte-identical resubmission once and returns the same activity", async () => {
    const body = JSON.stringify(envelope("ACTIVITY_TYPE_CREATE_USER_TAG", orgId, { userTagName: "idem", userIds: [] }));
    const stamper = rootStamper(t.emulator.bootstrap);
    const first = await post(t.emulator.url, "/public/v1/submit/create_user_tag", body, stamper);
    const second = await post(t.emulator.url, "/public/v1/submit/create_user_tag", body, stamper);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.activity.id).toBe(first.body.activity.id);
    expect(second.body).toEqual(first.body);
    const tags = (await client.listUserTags()).userTags.filter((tag) => tag.tagName === "idem");
    expect(tags).toHaveLength(1);
    const recorded = (await client.listActivities({ paginationOptions: { limit: "100" } })).activities.filter(
      (a) => a.fingerprint === first.body.activity.fingerprint,
    );
    expect(recorded).toHaveLength(1);
  });

  it("serves every main-API operation of the registry (none answers 501 any more)", async () => {
    // The 501 answer stays for operations added to the registry before the emulator serves them.
    expect(notImplemented("list_x").toBody()).toEqual({ code: 12, message: "not implemented by the emulator yet: list_x", details: [] });
    for (const def of Object.values(operations as Record<string, OperationDef>)) {
      if (def.kind === "authProxy") continue;
      const body = def.kind === "activity" ? envelope(def.type, orgId, {}) : { organizationId: orgId };
      const res = await post(t.emulator.url, def.path, body, rootStamper(t.emulator.bootstrap));
      expect(res.status, def.name).not.toBe(501);
    }
  });
});
