/**
 * The provider runtime against the real emulator over HTTP, without the engine: each
 * resource's create → read → update → drift → delete, importId adoption, and the errors a
 * user acts on. The engine tests repeat the lifecycle through `pulumi`; these are fast and
 * pinpoint a failure.
 *
 * A provider process serves one engine run and shares collection reads within it
 * (shared-reads.ts); after a change made by hand, `byHand` forgets them, as the fresh process of
 * the next run would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import type { KeyformClient } from "../../sdk/client/client";
import { configure, handlers } from "../../sdk/resources/runtime";
import { explain } from "../../sdk/resources/runtime/errors";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { ConsensusNeededError, PermissionDeniedError } from "../../sdk/client/errors";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
let client: KeyformClient;
let rootUserId: string;
let otherUserId: string;
const saved: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string | undefined>) {
  for (const [key, value] of Object.entries(values)) {
    if (!(key in saved)) saved[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

beforeAll(async () => {
  emu = await startTestEmulator();
  client = emu.client;
  const b = emu.emulator.bootstrap;
  rootUserId = b.userId;
  setEnv({
    KEYFORM_BASE_URL: emu.emulator.url,
    KEYFORM_ORGANIZATION_ID: b.organizationId,
    KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
  });
  configure({ config: { get: () => undefined } });
  const pair = generateApiKeyPair();
  const { userIds } = await client.createUsers({
    users: [{ userName: "bob", apiKeys: [{ apiKeyName: "bob", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  otherUserId = userIds[0]!;
});

afterAll(async () => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  await emu?.stop();
});

async function checked(kind: string, news: Record<string, unknown>) {
  const result = await handlers[kind]!.check({}, news);
  expect(result.failures).toEqual([]);
  return result.inputs as Record<string, unknown>;
}

describe("UserTag", () => {
  const h = handlers.UserTag!;
  it("create, read, update in place, drift, delete", async () => {
    const inputs = await checked("UserTag", { userTagName: "ops", userIds: [rootUserId] });
    const { id, outs } = await h.create(inputs);
    expect(outs).toMatchObject({ userTagId: id, userTagName: "ops", userIds: [rootUserId] });
    expect((await client.listUserTags()).userTags.map((t) => t.tagName)).toContain("ops");

    const renamed = await checked("UserTag", { userTagName: "ops-2", userIds: [otherUserId] });
    expect((await h.diff(id, outs, renamed)).replaces).toEqual([]);
    const { outs: updated } = await h.update(id, outs, renamed);
    expect(updated).toMatchObject({ userTagName: "ops-2", userIds: [otherUserId] });

    // Drift: a member added out of band shows up on read, and read reports inputs to match.
    await client.updateUserTag({ userTagId: id, addUserIds: [rootUserId], removeUserIds: [] });
    forgetSharedReads(); // the next run
    const read = await h.read(id, updated);
    expect(read.props.userIds).toEqual([rootUserId, otherUserId].sort());
    expect(read.inputs).toMatchObject({ userTagName: "ops-2", userIds: [rootUserId, otherUserId].sort() });
    expect((await h.diff(id, read.props, renamed)).changes).toBe(true);

    await h.delete(id, read.props);
    expect((await h.read(id, read.props)).id).toBe("");
    // Deleting what is already gone succeeds.
    await h.delete(id, read.props);
  });

  it("importId adopts an existing tag and updates it to match", async () => {
    const { userTagId } = await client.createUserTag({ userTagName: "imported", userIds: [] });
    forgetSharedReads(); // the next run
    const inputs = await checked("UserTag", { userTagName: "imported-renamed", userIds: [rootUserId], importId: userTagId });
    const { id, outs } = await h.create(inputs);
    expect(id).toBe(userTagId);
    expect(outs).toMatchObject({ userTagName: "imported-renamed", userIds: [rootUserId], importId: userTagId });
    await h.delete(id, outs);
  });

  it("importId of a missing tag fails naming importId", async () => {
    const inputs = await checked("UserTag", { userTagName: "x", userIds: [], importId: "00000000-0000-0000-0000-000000000000" });
    await expect(h.create(inputs)).rejects.toThrow(/importId: no UserTag with id "00000000-0000-0000-0000-000000000000"/);
  });
});

describe("Policy", () => {
  const h = handlers.Policy!;
  it("create, update every field in place, clear the condition, delete", async () => {
    const inputs = await checked("Policy", { policyName: "p1", effect: "EFFECT_ALLOW", condition: "activity.action == 'SIGN'", notes: "n" });
    const { id, outs } = await h.create(inputs);
    expect(outs).toMatchObject({ policyId: id, effect: "EFFECT_ALLOW", condition: "activity.action == 'SIGN'", notes: "n" });
    // What the service holds as "" (none) is not echoed into state.
    expect(outs).not.toHaveProperty("consensus");
    expect(outs).not.toHaveProperty("time");
    const next = await checked("Policy", { policyName: "p1b", effect: "EFFECT_DENY", consensus: "approvers.count() >= 1" });
    const d = await h.diff(id, outs, next);
    expect(d).toMatchObject({ changes: true, replaces: [] });
    const { outs: updated } = await h.update(id, outs, next);
    expect(updated).toMatchObject({ policyId: id, policyName: "p1b", effect: "EFFECT_DENY", consensus: "approvers.count() >= 1" });
    expect(updated).not.toHaveProperty("condition");
    expect(updated).not.toHaveProperty("notes");
    expect((await client.getPolicy({ policyId: id })).policy.condition ?? "").toBe("");
    await h.delete(id, updated);
    await expect(client.getPolicy({ policyId: id })).rejects.toThrow(/404|no policy/);
  });
});

describe("ApiKey", () => {
  const h = handlers.ApiKey!;
  it("generates a pair when no public key is given; the private key matches the registered key", async () => {
    const inputs = await checked("ApiKey", { userId: otherUserId, apiKeyName: "gen", curveType: "API_KEY_CURVE_ED25519" });
    const { id, outs } = await h.create(inputs);
    expect(outs.privateKey).toMatch(/^[0-9a-f]{64}$/);
    const { apiKeys } = await client.getApiKeys({ userId: otherUserId });
    const key = apiKeys.find((k) => k.apiKeyId === id)!;
    expect(key.credential.type).toBe("CREDENTIAL_TYPE_API_KEY_ED25519");
    expect(key.credential.publicKey).toBe(outs.publicKey);
    // A refresh keeps the private key (the service never returns it) but never reports it as an input.
    const read = await h.read(id, outs);
    expect(read.props.privateKey).toBe(outs.privateKey);
    expect(JSON.stringify(read.inputs)).not.toContain(outs.privateKey);
    await h.delete(id, read.props);
    expect((await h.read(id, read.props)).id).toBe("");
  });

  it("adopting a key with other values fails listing the differing fields", async () => {
    const pair = generateApiKeyPair();
    const { apiKeyIds } = await client.createApiKeys({ userId: otherUserId, apiKeys: [{ apiKeyName: "made-by-hand", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }] });
    forgetSharedReads(); // the next run
    const bad = await checked("ApiKey", { userId: otherUserId, apiKeyName: "other-name", publicKey: pair.publicKey, importId: apiKeyIds[0] });
    await expect(h.create(bad)).rejects.toThrow(/differs from the declared inputs .*apiKeyName \(declared "other-name", found "made-by-hand"\)/);
    const good = await checked("ApiKey", { userId: otherUserId, apiKeyName: "made-by-hand", publicKey: pair.publicKey, importId: apiKeyIds[0] });
    const { id, outs } = await h.create(good);
    expect(id).toBe(apiKeyIds[0]);
    expect(outs.privateKey).toBeUndefined();
    await h.delete(id, outs);
  });
});

describe("Invitation", () => {
  const h = handlers.Invitation!;
  it("create, read from get_organization, delete, gone", async () => {
    const inputs = await checked("Invitation", { receiverUserName: "Carol", receiverUserEmail: "carol@example.com", accessType: "ACCESS_TYPE_API", senderUserId: rootUserId });
    const { id, outs } = await h.create(inputs);
    expect(outs).toMatchObject({ invitationId: id, status: "INVITATION_STATUS_CREATED", receiverUserEmail: "carol@example.com", receiverUserTags: [] });
    expect((await h.diff(id, outs, inputs)).changes).toBe(false);
    await client.deleteInvitation({ invitationId: id });
    forgetSharedReads(); // the next run
    expect((await h.read(id, outs)).id).toBe("");
    await h.delete(id, outs);
  });
});

describe("SmartContractInterface", () => {
  const h = handlers.SmartContractInterface!;
  it("stores canonical JSON; the same ABI written differently is no change", async () => {
    const abi = [{ type: "function", name: "f", inputs: [] }];
    const inputs = await checked("SmartContractInterface", { smartContractAddress: "0x" + "ab".repeat(20), smartContractInterface: abi, type: "ETHEREUM", label: "L" });
    const { id, outs } = await h.create(inputs);
    const { smartContractInterface } = await client.getSmartContractInterface({ smartContractInterfaceId: id });
    expect(JSON.parse(smartContractInterface.smartContractInterface)).toEqual(abi);
    const reformatted = await checked("SmartContractInterface", { ...inputs, smartContractInterface: ' [ { "name":"f", "inputs":[], "type":"function" } ] ' });
    expect((await h.diff(id, outs, reformatted)).changes).toBe(false);
    await h.delete(id, outs);
    expect((await h.read(id, outs)).id).toBe("");
  });
});

describe("EarnWrapperState", () => {
  const h = handlers.EarnWrapperState!;
  it("takes over a deployed wrapper, changes the flag in place, re-enables deposits on delete", async () => {
    const { wrapperAddress } = await client.earnDeployWrapper({ vaultAddress: "0x" + "cd".repeat(20), chainCaip2: "eip155:8453", clientFeeBps: "50", clientFeeWallet: "0x" + "ef".repeat(20) });
    const inputs = await checked("EarnWrapperState", { wrapperAddress, depositsDisabled: true });
    const { id, outs } = await h.create(inputs);
    expect(id).toBe(wrapperAddress);
    const live = async () => (await client.listEarnEnabledVaults()).enabledVaults!.find((v) => v.wrapperAddress === wrapperAddress)!.depositsDisabled;
    expect(await live()).toBe(true);
    const { outs: updated } = await h.update(id, outs, await checked("EarnWrapperState", { wrapperAddress, depositsDisabled: false }));
    expect(updated.depositsDisabled).toBe(false);
    await client.earnSetWrapperState({ wrapperAddress, depositsDisabled: true });
    forgetSharedReads(); // the next run
    expect((await h.read(id, updated)).props.depositsDisabled).toBe(true);
    await h.delete(id, updated);
    expect(await live()).toBe(false);
  });

  it("a wrapper that is not deployed fails naming wrapperAddress", async () => {
    const inputs = await checked("EarnWrapperState", { wrapperAddress: "0x" + "99".repeat(20), depositsDisabled: true });
    await expect(h.create(inputs)).rejects.toThrow(/wrapperAddress: 0x9999.* is not a deployed Earn wrapper/);
  });
});

describe("errors a user can act on", () => {
  it("a missing credential names the config key and the environment variable", async () => {
    setEnv({ KEYFORM_API_PRIVATE_KEY: undefined });
    try {
      const inputs = await checked("UserTag", { userTagName: "nokey", userIds: [] });
      await expect(handlers.UserTag!.create(inputs)).rejects.toThrow(/keyform:apiPrivateKey.*KEYFORM_API_PRIVATE_KEY/);
    } finally {
      setEnv({ KEYFORM_API_PRIVATE_KEY: emu.emulator.bootstrap.apiPrivateKey });
    }
  });

  it("stack config wins over the environment", async () => {
    // A short budget for the retries of the refused connection (the default is a minute): the
    // message, which names the stack config key, is the same.
    const config: Record<string, string> = { "keyform:baseUrl": "http://127.0.0.1:1", "keyform:timeoutMs": "3000" };
    configure({ config: { get: (key) => config[key] } });
    try {
      const inputs = await checked("UserTag", { userTagName: "cfg", userIds: [] });
      await expect(handlers.UserTag!.create(inputs)).rejects.toThrow(/connection failed.*keyform:baseUrl/);
    } finally {
      configure({ config: { get: () => undefined } });
    }
  });

  it("an unknown API key is reported with the settings to check", async () => {
    const pair = generateApiKeyPair();
    setEnv({ KEYFORM_API_PUBLIC_KEY: pair.publicKey, KEYFORM_API_PRIVATE_KEY: pair.privateKey });
    try {
      const inputs = await checked("Policy", { policyName: "x", effect: "EFFECT_ALLOW" });
      const error = await handlers.Policy!.create(inputs).catch((e: Error) => e);
      expect(String(error)).toMatch(/did not accept the API key \(HTTP 401\).*keyform:apiPublicKey/);
      expect(String(error)).not.toContain(pair.privateKey);
    } finally {
      setEnv({ KEYFORM_API_PUBLIC_KEY: emu.emulator.bootstrap.apiPublicKey, KEYFORM_API_PRIVATE_KEY: emu.emulator.bootstrap.apiPrivateKey });
    }
  });

  it("consensus and policy denials say what happened and what to do", () => {
    const context = { operation: "createPolicy", activityId: "act-1", fingerprint: "sha256:abc", activityStatus: "ACTIVITY_STATUS_CONSENSUS_NEEDED", activityType: "ACTIVITY_TYPE_CREATE_POLICY_V3" };
    const consensus = explain(new ConsensusNeededError(context), 'Policy "p": create');
    expect(consensus.message).toMatch(/Policy "p": create: the activity needs consensus approval: activity id act-1, fingerprint sha256:abc/);
    const denied = explain(
      PermissionDeniedError.from(403, { code: 7, message: "You don't have sufficient permissions to take this action", details: [] }, { operation: "createPolicy" }),
      'Policy "p": create',
    );
    expect(denied.message).toMatch(/denied by policy \(HTTP 403, code 7\): You don't have sufficient permissions/);
  });
});
