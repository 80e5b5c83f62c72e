/**
 * The plan census (`plan-census.ts`): `check` of a resource fails when another resource of the
 * same program declares the same unique value, and when the plan would hold more objects than
 * the service allows, naming the count and the objects. Limits are counted against a real
 * emulator's organization.
 */
import { directContext } from "../../sdk/resources/runtime/context";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { handlers } from "../../sdk/resources/runtime";
import { forgetPlanCensus, limitFailures, URN_INPUT } from "../../sdk/resources/runtime/plan-census";
import { before, forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { claim, forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { KeyformClient } from "../../sdk/client";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";

const ORG = "org-1";
const urn = (kind: string, name: string) => `urn:pulumi:dev::proj::pulumi-nodejs:dynamic/keyform:${kind}::${name}`;

async function check(kind: string, name: string, news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  return handlers[kind]!.check(olds, { organizationId: ORG, ...news, [URN_INPUT]: urn(kind, name) });
}

beforeEach(() => forgetPlanCensus());

describe("duplicate unique values within one program", () => {
  it("the second UserTag with a name the first declares fails, naming both resources", async () => {
    expect((await check("UserTag", "a", { userTagName: "ops" })).failures).toEqual([]);
    expect((await check("UserTag", "b", { userTagName: "dev" })).failures).toEqual([]);
    const second = await check("UserTag", "c", { userTagName: "ops" });
    expect(second.failures).toHaveLength(1);
    expect(second.failures![0]!.property).toBe("userTagName");
    expect(second.failures![0]!.reason).toMatch(/"ops" is declared by 2 UserTag resources of this program \("a", "c"\)/);
  });

  it("one resource checked again is not a duplicate of itself; other kinds and other organizations are apart", async () => {
    expect((await check("UserTag", "a", { userTagName: "ops" })).failures).toEqual([]);
    expect((await check("UserTag", "a", { userTagName: "ops" })).failures).toEqual([]);
    expect((await check("Policy", "p", { policyName: "ops", effect: "EFFECT_DENY" })).failures).toEqual([]);
    expect((await check("UserTag", "x", { userTagName: "ops", organizationId: "org-2" })).failures).toEqual([]);
  });

  it("API keys: a name is unique per user, a public key per organization", async () => {
    const { publicKey } = generateApiKeyPair();
    expect((await check("ApiKey", "k1", { userId: "u1", apiKeyName: "ci", publicKey })).failures).toEqual([]);
    expect((await check("ApiKey", "k2", { userId: "u2", apiKeyName: "ci" })).failures).toEqual([]);
    const sameName = await check("ApiKey", "k3", { userId: "u1", apiKeyName: "ci" });
    expect(sameName.failures!.map((f) => f.property)).toEqual(["apiKeyName"]);
    const sameKey = await check("ApiKey", "k4", { userId: "u3", apiKeyName: "other", publicKey: publicKey.toUpperCase() });
    expect(sameKey.failures!.map((f) => f.property)).toEqual(["publicKey"]);
  });

  it("smart contract interfaces: one per address and type, whatever the case of the address", async () => {
    const abi = [{ type: "function", name: "ping", inputs: [] }];
    const address = "0xAbCdEf0000000000000000000000000000000001";
    expect((await check("SmartContractInterface", "s1", { smartContractAddress: address, smartContractInterface: abi, type: "ETHEREUM", label: "a" })).failures).toEqual([]);
    const again = await check("SmartContractInterface", "s2", { smartContractAddress: address.toLowerCase(), smartContractInterface: abi, type: "ETHEREUM", label: "b" });
    expect(again.failures!.map((f) => f.property)).toEqual(["smartContractAddress"]);
  });
});

describe("resource limits, counted against a real organization", () => {
  let emu: TestEmulator;
  const session = () => ({ organizationId: emu.emulator.bootstrap.organizationId, client: emu.client, credentialPublicKey: emu.emulator.bootstrap.apiPublicKey, context: directContext() });
  const planned = (kind: string, name: string, inputs: Record<string, unknown>, olds: Record<string, unknown> = {}) => ({
    kind,
    urn: urn(kind, name),
    organizationId: emu.emulator.bootstrap.organizationId,
    inputs,
    olds,
  });

  beforeAll(async () => {
    emu = await startTestEmulator();
    for (let i = 0; i < 96; i++) await emu.client.createUserTag({ userTagName: `old-${i}`, userIds: [] });
    forgetSharedReads();
  }, 120_000);
  afterAll(async () => emu?.stop());

  it("96 existing user tags and 4 declared pass; the 5th declared fails with the count and the objects", async () => {
    for (let i = 0; i < 4; i++) expect(await limitFailures(session(), planned("UserTag", `n${i}`, { userTagName: `new-${i}` }))).toEqual([]);
    const over = await limitFailures(session(), planned("UserTag", "n4", { userTagName: "new-4" }));
    expect(over).toHaveLength(1);
    expect(over[0]!.property).toBe("userTagName");
    expect(over[0]!.reason).toMatch(/this plan would hold 101 user tags .* the service allows 100\. 96 exist and are not declared here \("old-\d+" /);
    expect(over[0]!.reason).toMatch(/5 are declared by this program \("new-0", "new-1", "new-2", "new-3", "new-4"\)/);
  });

  it("an existing tag the program declares counts once, and one renamed in place frees its old name", async () => {
    for (let i = 0; i < 4; i++) expect(await limitFailures(session(), planned("UserTag", `n${i}`, { userTagName: `new-${i}` }))).toEqual([]);
    // Declares an existing one: not one more.
    expect(await limitFailures(session(), planned("UserTag", "kept", { userTagName: "old-0" }))).toEqual([]);
    // Renames old-1 to new-4: old-1 is not held after the update.
    expect(await limitFailures(session(), planned("UserTag", "renamed", { userTagName: "new-4" }, { userTagName: "old-1" }))).toEqual([]);
    const over = await limitFailures(session(), planned("UserTag", "n5", { userTagName: "new-5" }));
    expect(over[0]?.reason).toMatch(/would hold 101 user tags/);
  });

  it("expiring API keys: 10 per user; the 11th fails (the service would silently delete the oldest)", async () => {
    const userId = emu.emulator.bootstrap.userId;
    for (let i = 0; i < 10; i++) {
      expect(await limitFailures(session(), planned("ApiKey", `e${i}`, { userId, apiKeyName: `exp-${i}`, expirationSeconds: "3600" }))).toEqual([]);
    }
    const over = await limitFailures(session(), planned("ApiKey", "e10", { userId, apiKeyName: "exp-10", expirationSeconds: "3600" }));
    expect(over[0]?.reason).toMatch(new RegExp(`would hold 11 API keys \\(expiring API keys of user ${userId}\\)`));
    // Long-lived keys are counted apart: the root user's own key and one more are far from 10.
    expect(await limitFailures(session(), planned("ApiKey", "l0", { userId, apiKeyName: "long-0" }))).toEqual([]);
  });
});

describe("API keys of a user made after the census read (one read per run)", () => {
  let emu: TestEmulator;
  let proxy: FaultProxy;
  let client: KeyformClient;
  const organizationId = () => emu.emulator.bootstrap.organizationId;
  const session = () => ({ organizationId: organizationId(), client, credentialPublicKey: emu.emulator.bootstrap.apiPublicKey, context: directContext() });
  const planned = (kind: string, name: string, inputs: Record<string, unknown>) => ({ kind, urn: urn(kind, name), organizationId: organizationId(), inputs, olds: {} });
  const keyParams = (name: string) => ({ apiKeyName: name, publicKey: generateApiKeyPair().publicKey, curveType: "API_KEY_CURVE_P256" as const });
  /** Makes a user through the counted client (as a create of the run would) and returns its id. */
  const makeUser = async (userName: string, keys: number) =>
    (await client.createUsers({ users: [{ userName, apiKeys: Array.from({ length: keys }, (_, i) => keyParams(`${userName}-own-${i}`)), authenticators: [], oauthProviders: [], userTags: [] }] })).userIds[0]!;
  /** Checks API keys k0… on `userId` until one fails; returns how many passed and that failure. */
  async function fillUntilRefused(userId: string, prefix: string) {
    for (let i = 0; i < 20; i++) {
      const failures = await limitFailures(session(), planned("ApiKey", `${prefix}${i}`, { userId, apiKeyName: `${prefix}-key-${i}` }));
      if (failures.length > 0) return { passed: i, reason: failures[0]!.reason };
    }
    return { passed: 20, reason: undefined };
  }

  beforeAll(async () => {
    emu = await startTestEmulator();
    proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
    const b = emu.emulator.bootstrap;
    client = new KeyformClient({ baseUrl: proxy.url, organizationId: b.organizationId, stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }), poll: { intervalMs: 50 } });
  }, 120_000);
  beforeEach(() => {
    forgetEarlierWork();
    forgetSharedReads();
  });
  afterAll(async () => {
    await proxy?.close();
    await emu?.stop();
  });

  it("made by this run with no API key of its own: it holds none but the declared ones, and the checks read nothing more", async () => {
    // The run's first read (the settings check) comes before the user exists.
    await before.organization(session());
    const userId = await makeUser("made-bare", 0);
    claim(session(), "User", userId);
    expect(await limitFailures(session(), planned("User", "made-bare", { userName: "made-bare" }))).toEqual([]);
    proxy.resetCounts();
    const { passed, reason } = await fillUntilRefused(userId, "bare");
    expect(passed).toBe(10);
    expect(reason).toMatch(new RegExp(`would hold 11 API keys \\(long-lived API keys of user ${userId}\\).*0 exist and are not declared here`));
    expect(proxy.counts.requests).toBe(0);
  });

  it("made by this run while a User of the plan declares API keys of its own: the keys it holds now are counted", async () => {
    await before.organization(session());
    expect(await limitFailures(session(), planned("User", "made-keyed", { userName: "made-keyed", apiKeys: [{ apiKeyName: "a" }, { apiKeyName: "b" }] }))).toEqual([]);
    const userId = await makeUser("made-keyed", 2);
    claim(session(), "User", userId);
    const { passed, reason } = await fillUntilRefused(userId, "keyed");
    expect(passed).toBe(8);
    expect(reason).toMatch(/would hold 11 API keys .*2 exist and are not declared here \("made-keyed-own-\d" /);
  });

  it("made after the census read by someone else: the keys it holds now are counted", async () => {
    await before.organization(session());
    const userId = await makeUser("made-elsewhere", 3);
    const { passed, reason } = await fillUntilRefused(userId, "other");
    expect(passed).toBe(7);
    expect(reason).toMatch(/would hold 11 API keys .*3 exist and are not declared here/);
  });
});
