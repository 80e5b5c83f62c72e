/**
 * Real engine, real emulator: the lifecycle of UserTag, Policy and ApiKey through `pulumi`
 * (Automation API, an inline program importing the compiled keyform). Settings come from the
 * KEYFORM_* environment. The three are declared in one stack and each step is one engine run
 * for all of them (docs/testing.md): up creates → preview shows nothing → a change is an
 * update or a replacement as diff promised → an out-of-band change is found by refresh and
 * undone by up (the service has no update of API keys: refresh keeps the key's private key,
 * still secret) → an out-of-band deletion is dropped by refresh and re-created by the next up,
 * in which importId adopts an object of each kind made with the client → destroy leaves nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, keyformResources, loadKeyform, since, stateOf, storedState } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
const LIFECYCLE_TIMEOUT = 900_000;

let emu: TestEmulator;
let client: KeyformClient;
let env: Record<string, string>;
let rootUserId: string;
let botUserId: string;
const figures: Record<string, number> = {};

beforeAll(async () => {
  emu = await startTestEmulator();
  client = emu.client;
  env = emulatorEnv(emu.emulator);
  rootUserId = emu.emulator.bootstrap.userId;
  const anchor = generateApiKeyPair();
  const { userIds } = await client.createUsers({
    users: [{ userName: "bot", apiKeys: [{ apiKeyName: "anchor", publicKey: anchor.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  botUserId = userIds[0]!;
});

afterAll(async () => {
  await emu?.stop();
  console.log(`resources-tags-policies-keys figures (ms): ${JSON.stringify(figures)}`);
});

interface Desired {
  tag: Record<string, unknown>;
  policy: Record<string, unknown>;
  key: Record<string, unknown>;
  adoptedTag?: Record<string, unknown>;
  adoptedPolicy?: Record<string, unknown>;
  adoptedKey?: Record<string, unknown>;
}

describe("UserTag, Policy and ApiKey", () => {
  it("lifecycle in one stack, and the generated private key is a secret in state", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const state: { desired: Desired } = {
      desired: {
        tag: { userTagName: "platform", userIds: [rootUserId] },
        policy: { policyName: "deny exports", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'", notes: "v1" },
        key: { userId: botUserId, apiKeyName: "ci" },
      },
    };
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-tags-policies-keys",
      envVars: env,
      program: async () => {
        const d = state.desired;
        const key = new keyform.ApiKey("key", d.key as never);
        const out: Record<string, unknown> = {
          tagId: new keyform.UserTag("tag", d.tag as never).userTagId,
          policyId: new keyform.Policy("policy", d.policy as never).policyId,
          apiKeyId: key.apiKeyId,
          publicKey: key.publicKey,
          privateKey: key.privateKey,
        };
        if (d.adoptedTag) out.adoptedTagId = new keyform.UserTag("adopted-tag", d.adoptedTag as never).userTagId;
        if (d.adoptedPolicy) out.adoptedPolicyId = new keyform.Policy("adopted-policy", d.adoptedPolicy as never).policyId;
        if (d.adoptedKey) out.adoptedKeyId = new keyform.ApiKey("adopted-key", d.adoptedKey as never).apiKeyId;
        return out;
      },
    });
    try {
      const tags = async () => (await client.listUserTags()).userTags;
      const members = async (tagId: string) => (await client.listUsers()).users.filter((u) => u.userTags.includes(tagId)).map((u) => u.userId).sort();
      const live = async (policyId: string) => (await client.getPolicy({ policyId })).policy;
      const keysOf = async () => (await client.getApiKeys({ userId: botUserId })).apiKeys;
      // The state at rest holds the private keys only as ciphertext, and no credential at all.
      const scan = async (keys: string[]) => {
        const stored = storedState(stack);
        expect(stored.length).toBeGreaterThan(1000);
        for (const key of [...keys, emu.emulator.bootstrap.apiPrivateKey]) expect(stored).not.toContain(key);
        expect(stored).toMatch(/"privateKey":\s*\{\s*"4dabf18193072939515e22adb298388d":\s*"1b47061264138c4ac30d75fd1eb44270",\s*"ciphertext"/);
      };

      // up creates the three
      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 3 });
      const tagId = up.outputs.tagId!.value as string;
      expect((await tags()).find((t) => t.tagId === tagId)?.tagName).toBe("platform");
      expect(await members(tagId)).toEqual([rootUserId]);
      const policyId = up.outputs.policyId!.value as string;
      expect(await live(policyId)).toMatchObject({ policyName: "deny exports", effect: "EFFECT_DENY", notes: "v1" });
      const apiKeyId = up.outputs.apiKeyId!.value as string;
      const privateKey = up.outputs.privateKey!.value as string;
      expect(up.outputs.privateKey!.secret).toBe(true);
      expect(privateKey).toMatch(/^[0-9a-f]{64}$/);
      expect((await keysOf()).find((k) => k.apiKeyId === apiKeyId)?.credential.publicKey).toBe(up.outputs.publicKey!.value);
      await scan([privateKey]);

      // a second preview shows no changes
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // the tag's rename and membership and every field of the policy change in place (same
      // ids); no update of API keys exists, so a new name replaces the key
      state.desired.tag = { userTagName: "platform-team", userIds: [botUserId, rootUserId] };
      state.desired.policy = { policyName: "allow exports with approval", effect: "EFFECT_ALLOW", condition: "activity.action == 'EXPORT'", consensus: "approvers.count() >= 2", notes: "v2" };
      state.desired.key = { userId: botUserId, apiKeyName: "ci-2" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 2, replace: 1 });
      expect(up.outputs.tagId!.value).toBe(tagId);
      expect((await tags()).find((t) => t.tagId === tagId)?.tagName).toBe("platform-team");
      expect(await members(tagId)).toEqual([botUserId, rootUserId].sort());
      expect(up.outputs.policyId!.value).toBe(policyId);
      expect(await live(policyId)).toMatchObject({ policyName: "allow exports with approval", effect: "EFFECT_ALLOW", consensus: "approvers.count() >= 2", notes: "v2" });
      const replacedKeyId = up.outputs.apiKeyId!.value as string;
      expect(replacedKeyId).not.toBe(apiKeyId);
      expect((await keysOf()).map((k) => k.apiKeyName).sort()).toEqual(["anchor", "ci-2"]);
      const secondKey = up.outputs.privateKey!.value as string;

      // out-of-band changes: found by refresh, undone by up; refresh keeps the private key, still secret
      await client.updateUserTag({ userTagId: tagId, newUserTagName: "renamed-by-hand", addUserIds: [], removeUserIds: [botUserId] });
      await client.updatePolicy({ policyId, policyEffect: "EFFECT_DENY", policyNotes: "edited by hand" });
      await stack.refresh();
      expect((await stateOf(stack, "tag"))?.outputs).toMatchObject({ userTagName: "renamed-by-hand", userIds: [rootUserId] });
      expect((await stateOf(stack, "policy"))?.outputs).toMatchObject({ effect: "EFFECT_DENY", notes: "edited by hand" });
      expect((await stack.outputs()).privateKey).toMatchObject({ secret: true, value: secondKey });
      await scan([privateKey, secondKey]);
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 2 });
      expect(await members(tagId)).toEqual([botUserId, rootUserId].sort());
      expect(await live(policyId)).toMatchObject({ effect: "EFFECT_ALLOW", notes: "v2" });

      // out-of-band deletions (the only change the service has for keys): dropped by refresh,
      // re-created by the next up, which also adopts by importId objects made with the client and
      // updates them to match (a key's public key must be declared): one engine run for both
      await client.deleteUserTags({ userTagIds: [tagId] });
      await client.deletePolicy({ policyId });
      await client.deleteApiKeys({ userId: botUserId, apiKeyIds: [replacedKeyId] });
      await stack.refresh();
      for (const name of ["tag", "policy", "key"]) expect(await stateOf(stack, name), name).toBeUndefined();
      const { userTagId: handMadeTag } = await client.createUserTag({ userTagName: "hand-made", userIds: [] });
      const { policyId: handMadePolicy } = await client.createPolicy({ policyName: "hand made", effect: "EFFECT_ALLOW", notes: "" });
      const pair = generateApiKeyPair("API_KEY_CURVE_SECP256K1");
      const { apiKeyIds } = await client.createApiKeys({ userId: botUserId, apiKeys: [{ apiKeyName: "hand-made", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_SECP256K1" }] });
      state.desired.adoptedTag = { userTagName: "adopted", userIds: [botUserId], importId: handMadeTag };
      state.desired.adoptedPolicy = { policyName: "hand made", effect: "EFFECT_DENY", notes: "adopted", importId: handMadePolicy };
      state.desired.adoptedKey = { userId: botUserId, apiKeyName: "hand-made", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_SECP256K1", importId: apiKeyIds[0] };
      up = await stack.up();
      // the three dropped ones re-created, the three made by hand adopted
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 6 });
      const recreatedTagId = up.outputs.tagId!.value as string;
      expect(recreatedTagId).not.toBe(tagId);
      expect(await members(recreatedTagId)).toEqual([botUserId, rootUserId].sort());
      expect((await live(up.outputs.policyId!.value as string)).policyName).toBe("allow exports with approval");
      expect((await keysOf()).map((k) => k.apiKeyName).sort()).toEqual(["anchor", "ci-2", "hand-made"]);
      expect(up.outputs.adoptedTagId!.value).toBe(handMadeTag);
      expect((await tags()).filter((t) => t.tagId === handMadeTag).map((t) => t.tagName)).toEqual(["adopted"]);
      expect(await members(handMadeTag)).toEqual([botUserId]);
      expect(up.outputs.adoptedPolicyId!.value).toBe(handMadePolicy);
      expect(await live(handMadePolicy)).toMatchObject({ effect: "EFFECT_DENY", notes: "adopted" });
      expect(up.outputs.adoptedKeyId!.value).toBe(apiKeyIds[0]);
      await scan([privateKey, secondKey, up.outputs.privateKey!.value as string]);

      // destroy leaves nothing (the bot's anchor key is not the stack's)
      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 6 });
      expect(await tags()).toEqual([]);
      expect((await client.listPolicies()).policies).toEqual([]);
      expect((await keysOf()).map((k) => k.apiKeyName)).toEqual(["anchor"]);
      expect(await keyformResources(stack)).toEqual([]);
    } finally {
      await cleanup();
      figures.lifecycle = since(t0);
    }
  });
});
