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
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

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
