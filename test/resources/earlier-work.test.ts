/**
 * When a create looks for its own earlier work, and what it adopts, through the runtime
 * handlers against the real emulator, with the requests counted at a (fault-free) proxy:
 * a user tag in an organization without consensus costs no `list_activities`; a 409 on a
 * matching tag adopts it, one that differs names it and importId; an invitation an earlier
 * run made is adopted once (a second resource with the same parameters gets its own); the key an
 * earlier run generated and never recorded is replaced, a key of that name made otherwise is not.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateApiKeyPair, publicKeyFromPrivateKey } from "../../sdk/protocol/keys";
import { handlers } from "../../sdk/resources/runtime";
import { useRuntimeSettings } from "./harness/runtime-settings";
import { forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";

let emu: TestEmulator;
let proxy: FaultProxy;
let restoreSettings: (() => void) | undefined;

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 7 });
  const b = emu.emulator.bootstrap;
  restoreSettings = useRuntimeSettings(proxy.url, b);
});

afterAll(async () => {
  restoreSettings?.();
  await proxy?.close();
  await emu?.stop();
});

/** Each case is a new run: a fresh provider process remembers nothing. */
beforeEach(() => {
  forgetEarlierWork();
  forgetSharedReads();
  proxy.resetCounts();
});

async function checked(kind: string, news: Record<string, unknown>) {
  const result = await handlers[kind]!.check({}, news);
  expect(result.failures).toEqual([]);
  return result.inputs as Record<string, unknown>;
}

const historyReads = () => proxy.counts.byPath["/public/v1/query/list_activities"] ?? 0;

describe("UserTag (unique name)", () => {
  it("a plain create reads no activity history", async () => {
    await handlers.UserTag!.create(await checked("UserTag", { userTagName: "plain", userIds: [] }));
    expect(historyReads()).toBe(0);
  });

  it("a 409 on a tag that matches is adopted; one that differs fails naming its id and importId", async () => {
    const userId = emu.emulator.bootstrap.userId;
    const { userTagId } = await emu.client.createUserTag({ userTagName: "made-earlier", userIds: [userId] });
    const adopted = await handlers.UserTag!.create(await checked("UserTag", { userTagName: "made-earlier", userIds: [userId] }));
    expect(adopted.id).toBe(userTagId);
    expect((await emu.client.listUserTags()).userTags.filter((t) => t.tagName === "made-earlier")).toHaveLength(1);

    forgetEarlierWork();
    const differs = await handlers.UserTag!.create(await checked("UserTag", { userTagName: "made-earlier", userIds: [] })).catch((e: Error) => e);
    expect(String(differs)).toContain(`the existing UserTag "${userTagId}" differs from the declared inputs: userIds (declared [], found ["${userId}"]). To manage it with this resource, set importId: "${userTagId}"`);
  });
});

describe("Invitation (no unique name)", () => {
  const invitation = { receiverUserName: "Dana", receiverUserEmail: "dana@example.com", accessType: "ACCESS_TYPE_API" };

  it("an invitation an earlier run made is adopted once; a second resource with the same parameters gets its own", async () => {
    const inputs = await checked("Invitation", { ...invitation, senderUserId: emu.emulator.bootstrap.userId });
    const first = await handlers.Invitation!.create(inputs);
    // The next run (the first one was killed before recording it).
    forgetEarlierWork();
    proxy.resetCounts();
    const adopted = await handlers.Invitation!.create(inputs);
    expect(adopted.id).toBe(first.id);
    expect(historyReads()).toBe(1);
    // Another resource of the same run, same parameters: the earlier invitation is taken.
    const second = await handlers.Invitation!.create(inputs);
    expect(second.id).not.toBe(first.id);
    // The history was read once for the run.
    expect(historyReads()).toBe(1);
    const { organizationData } = await emu.client.getOrganization();
    expect((organizationData.invitations ?? []).filter((i) => i.receiverEmail === "dana@example.com")).toHaveLength(2);
  });
});

describe("ApiKey with a generated key pair", () => {
  const curveType = "API_KEY_CURVE_P256";

  /** What a killed run left: the key it generated and registered, its private key lost with it. */
  async function keyOfKilledRun(apiKeyName: string): Promise<string> {
    const { apiKeyIds } = await emu.client.createApiKeys({
      userId: emu.emulator.bootstrap.userId,
      apiKeys: [{ apiKeyName, publicKey: generateApiKeyPair(curveType).publicKey, curveType }],
    });
    return apiKeyIds[0]!;
  }

  const keysNamed = async (apiKeyName: string) =>
    (await emu.client.listUsers()).users.find((u) => u.userId === emu.emulator.bootstrap.userId)!.apiKeys.filter((k) => k.apiKeyName === apiKeyName);

  it("replaces the key an earlier run of the same credential registered and never recorded", async () => {
    const orphanId = await keyOfKilledRun("ci-generated");
    const created = await handlers.ApiKey!.create(await checked("ApiKey", { userId: emu.emulator.bootstrap.userId, apiKeyName: "ci-generated", curveType }));
    expect(created.id).not.toBe(orphanId);
    const outs = created.outs as { publicKey: string; privateKey: string };
    expect(publicKeyFromPrivateKey(outs.privateKey, curveType)).toBe(outs.publicKey.toLowerCase());
    const left = await keysNamed("ci-generated");
    expect(left.map((k) => k.apiKeyId)).toEqual([created.id]);
  });

  it("never touches a key of that name that differs from the declaration: the create fails naming it", async () => {
    const { apiKeyIds } = await emu.client.createApiKeys({
      userId: emu.emulator.bootstrap.userId,
      apiKeys: [{ apiKeyName: "made-by-hand", publicKey: generateApiKeyPair("API_KEY_CURVE_ED25519").publicKey, curveType: "API_KEY_CURVE_ED25519" }],
    });
    const byHand = apiKeyIds[0]!;
    const failure = await handlers.ApiKey!.create(await checked("ApiKey", { userId: emu.emulator.bootstrap.userId, apiKeyName: "made-by-hand", curveType })).catch((e: Error) => e);
    expect(String(failure)).toContain(`the existing ApiKey "${byHand}"`);
    expect((await keysNamed("made-by-hand")).map((k) => k.apiKeyId)).toEqual([byHand]);
  });

  it("never takes a key another resource of this run holds", async () => {
    const inputs = await checked("ApiKey", { userId: emu.emulator.bootstrap.userId, apiKeyName: "twice", curveType });
    const first = await handlers.ApiKey!.create(inputs);
    const failure = await handlers.ApiKey!.create(inputs).catch((e: Error) => e);
    expect(String(failure)).toContain(`"${first.id}" belongs to another resource of this program`);
    expect((await keysNamed("twice")).map((k) => k.apiKeyId)).toEqual([first.id]);
  });
});
