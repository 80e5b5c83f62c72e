/**
 * The official client packages work against the emulator unchanged, pointed at it with the
 * bootstrap key: @turnkey/http (with its activity poller) and @turnkey/sdk-server.
 */
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { generateP256KeyPair } from "@turnkey/crypto";
import { createActivityPoller, TurnkeyClient } from "@turnkey/http";
import { Turnkey } from "@turnkey/sdk-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;

beforeAll(async () => {
  t = await startTestEmulator();
});
afterAll(async () => {
  await t?.stop();
});

const ABI = JSON.stringify([{ type: "function", name: "approve", inputs: [] }]);

describe("@turnkey/http", () => {
  it("creates and reads user tags, policies, API keys and smart contract interfaces", async () => {
    const { organizationId, userId, apiPublicKey, apiPrivateKey } = t.emulator.bootstrap;
    const client = new TurnkeyClient({ baseUrl: t.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey, apiPrivateKey }));
    const ts = () => String(Date.now());

    const { activity } = await client.createUserTag({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      timestampMs: ts(),
      organizationId,
      parameters: { userTagName: "http-ops", userIds: [userId] },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const userTagId = activity.result.createUserTagResult?.userTagId;
    expect((await client.listUserTags({ organizationId })).userTags.map((tag) => tag.tagId)).toContain(userTagId);

    // The poller sees the activity completed.
    const poll = createActivityPoller({ client, requestFn: client.createPolicy, refreshIntervalMs: 50 });
    const policyActivity = await poll({
      type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
      timestampMs: ts(),
      organizationId,
      parameters: { policyName: "http-policy", effect: "EFFECT_ALLOW", condition: "true", notes: "n" },
    });
    const policyId = policyActivity.result.createPolicyResult?.policyId as string;
    expect((await client.getPolicy({ organizationId, policyId })).policy.policyName).toBe("http-policy");
    expect((await client.getPolicies({ organizationId })).policies.map((p) => p.policyId)).toContain(policyId);
    expect((await client.getActivity({ organizationId, activityId: policyActivity.id })).activity.status).toBe(
      "ACTIVITY_STATUS_COMPLETED",
    );

    const pair = generateP256KeyPair();
    const keys = await client.createApiKeys({
      type: "ACTIVITY_TYPE_CREATE_API_KEYS_V2",
      timestampMs: ts(),
      organizationId,
      parameters: { userId, apiKeys: [{ apiKeyName: "http-key", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }] },
    });
    expect(keys.activity.result.createApiKeysResult?.apiKeyIds).toHaveLength(1);
    const { apiKeys } = await client.getApiKeys({ organizationId, userId });
    expect(apiKeys.map((k) => k.apiKeyName)).toContain("http-key");
    // The new key works with the official stamper.
    const second = new TurnkeyClient(
      { baseUrl: t.emulator.url },
      new TurnkeyApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    );
    expect((await second.getWhoami({ organizationId })).userId).toBe(userId);

    const sci = await client.createSmartContractInterface({
      type: "ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE",
      timestampMs: ts(),
      organizationId,
      parameters: {
        smartContractAddress: "0x" + "cd".repeat(20),
        smartContractInterface: ABI,
        type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
        label: "http-sci",
      },
    });
    const sciId = sci.activity.result.createSmartContractInterfaceResult?.smartContractInterfaceId;
    const { smartContractInterfaces } = await client.getSmartContractInterfaces({ organizationId });
    expect(smartContractInterfaces.find((i) => i.smartContractInterfaceId === sciId)?.smartContractInterface).toBe(ABI);

    const org = await client.getOrganization({ organizationId });
    expect(org.organizationData.organizationId).toBe(organizationId);
  });

  it("surfaces emulator errors as TurnkeyRequestError with the gRPC code", async () => {
    const { organizationId, apiPublicKey, apiPrivateKey } = t.emulator.bootstrap;
    const client = new TurnkeyClient({ baseUrl: t.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey, apiPrivateKey }));
    await expect(client.getPolicy({ organizationId, policyId: "00000000-0000-4000-8000-000000000000" })).rejects.toMatchObject({
      name: "TurnkeyRequestError",
      code: 5,
    });
  });
});

describe("@turnkey/sdk-server", () => {
  it("creates and reads user tags, policies, API keys and smart contract interfaces", async () => {
    const { organizationId, userId, apiPublicKey, apiPrivateKey } = t.emulator.bootstrap;
    const api = new Turnkey({
      apiBaseUrl: t.emulator.url,
      apiPublicKey,
      apiPrivateKey,
      defaultOrganizationId: organizationId,
      activityPoller: { intervalMs: 50, numRetries: 3 },
    }).apiClient();

    const tag = await api.createUserTag({ userTagName: "sdk-ops", userIds: [] });
    expect(tag.activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await api.listUserTags()).userTags.map((x) => x.tagId)).toContain(tag.userTagId);

    const policy = await api.createPolicy({ policyName: "sdk-policy", effect: "EFFECT_DENY", notes: "" });
    expect((await api.getPolicies()).policies.find((p) => p.policyId === policy.policyId)?.effect).toBe("EFFECT_DENY");

    const pair = generateP256KeyPair();
    const created = await api.createApiKeys({
      userId,
      apiKeys: [{ apiKeyName: "sdk-key", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256", expirationSeconds: "600" }],
    });
    expect(created.apiKeyIds).toHaveLength(1);
    const listed = (await api.getApiKeys({ userId })).apiKeys.find((k) => k.apiKeyId === created.apiKeyIds[0]);
    expect(listed).toMatchObject({ apiKeyName: "sdk-key", expirationSeconds: "600" });

    const sci = await api.createSmartContractInterface({
      smartContractAddress: "0x" + "ef".repeat(20),
      smartContractInterface: ABI,
      type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
      label: "sdk-sci",
    });
    expect((await api.getSmartContractInterfaces({ organizationId })).smartContractInterfaces.map((i) => i.smartContractInterfaceId)).toContain(
      sci.smartContractInterfaceId,
    );
    expect((await api.getWhoami()).username).toBe("root");
  });
});
