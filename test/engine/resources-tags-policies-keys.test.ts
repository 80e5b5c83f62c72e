/**
 * Real engine, real emulator: the lifecycle of UserTag, Policy and ApiKey through `pulumi`
 * (Automation API, inline programs importing the compiled keyform). Settings come from the
 * KEYFORM_* environment. Each resource: up creates → preview shows nothing → a change is an
 * update or a replacement as diff promised → an out-of-band change is found by refresh and
 * undone by up → an out-of-band deletion is dropped by refresh and re-created by up →
 * importId adopts an object made with the client → destroy leaves nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, keyformResources, loadKeyform, since, stateOf, storedState } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
const LIFECYCLE_TIMEOUT = 600_000;

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

/** A stack whose program declares whatever `desired` holds when it runs. */
async function lifecycleStack<T>(projectName: string, declare: (desired: T) => Record<string, unknown>, initial: T) {
  const state = { desired: initial };
  const handle = await createInlineStack({
    projectName,
    program: async () => declare(state.desired),
    envVars: env,
  });
  return { ...handle, state };
}

describe("UserTag", () => {
  type Desired = { tag?: Record<string, unknown>; adopted?: Record<string, unknown> };
  it("lifecycle", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const { stack, cleanup, state } = await lifecycleStack<Desired>(
      "kf-user-tag",
      (d) => {
        const out: Record<string, unknown> = {};
        if (d.tag) out.tagId = new keyform.UserTag("tag", d.tag as never).userTagId;
        if (d.adopted) out.adoptedId = new keyform.UserTag("adopted", d.adopted as never).userTagId;
        return out;
      },
      { tag: { userTagName: "platform", userIds: [rootUserId] } },
    );
    try {
      const tags = async () => (await client.listUserTags()).userTags;
      const members = async (tagId: string) => (await client.listUsers()).users.filter((u) => u.userTags.includes(tagId)).map((u) => u.userId).sort();

      // up creates it
      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 1 });
      const tagId = up.outputs.tagId!.value as string;
      expect((await tags()).find((t) => t.tagId === tagId)?.tagName).toBe("platform");
      expect(await members(tagId)).toEqual([rootUserId]);

      // a second preview shows no changes
      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // rename + membership: one in-place update, same id
      state.desired.tag = { userTagName: "platform-team", userIds: [botUserId, rootUserId] };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 1 });
      expect(up.outputs.tagId!.value).toBe(tagId);
      expect((await tags()).find((t) => t.tagId === tagId)?.tagName).toBe("platform-team");
      expect(await members(tagId)).toEqual([botUserId, rootUserId].sort());

      // out-of-band change: found by refresh, undone by up
      await client.updateUserTag({ userTagId: tagId, newUserTagName: "renamed-by-hand", addUserIds: [], removeUserIds: [botUserId] });
      await stack.refresh();
      expect((await stateOf(stack, "tag"))?.outputs).toMatchObject({ userTagName: "renamed-by-hand", userIds: [rootUserId] });
      expect(changes((await stack.preview()).changeSummary)).toEqual({ update: 1 });
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await members(tagId)).toEqual([botUserId, rootUserId].sort());

      // out-of-band deletion: dropped by refresh, re-created by up
      await client.deleteUserTags({ userTagIds: [tagId] });
      await stack.refresh();
      expect(await stateOf(stack, "tag")).toBeUndefined();
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      const recreatedId = up.outputs.tagId!.value as string;
      expect(recreatedId).not.toBe(tagId);
      expect(await members(recreatedId)).toEqual([botUserId, rootUserId].sort());

      // importId adopts a tag made with the client, and updates it to match
      const { userTagId: handMade } = await client.createUserTag({ userTagName: "hand-made", userIds: [] });
      state.desired.adopted = { userTagName: "adopted", userIds: [botUserId], importId: handMade };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.adoptedId!.value).toBe(handMade);
      expect((await tags()).filter((t) => t.tagId === handMade).map((t) => t.tagName)).toEqual(["adopted"]);
      expect(await members(handMade)).toEqual([botUserId]);

      // destroy leaves nothing
      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 2 });
      expect(await tags()).toEqual([]);
      expect(await keyformResources(stack)).toEqual([]);
    } finally {
      await cleanup();
      figures.userTagLifecycle = since(t0);
    }
  });
});

describe("Policy", () => {
  type Desired = { policy?: Record<string, unknown>; adopted?: Record<string, unknown> };
  it("lifecycle", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const { stack, cleanup, state } = await lifecycleStack<Desired>(
      "kf-policy",
      (d) => {
        const out: Record<string, unknown> = {};
        if (d.policy) out.policyId = new keyform.Policy("policy", d.policy as never).policyId;
        if (d.adopted) out.adoptedId = new keyform.Policy("adopted", d.adopted as never).policyId;
        return out;
      },
      { policy: { policyName: "deny exports", effect: "EFFECT_DENY", condition: "activity.action == 'EXPORT'", notes: "v1" } },
    );
    try {
      const live = async (policyId: string) => (await client.getPolicy({ policyId })).policy;

      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 1 });
      const policyId = up.outputs.policyId!.value as string;
      expect(await live(policyId)).toMatchObject({ policyName: "deny exports", effect: "EFFECT_DENY", notes: "v1" });

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // every field of a policy changes in place (update_policy)
      state.desired.policy = { policyName: "allow exports with approval", effect: "EFFECT_ALLOW", condition: "activity.action == 'EXPORT'", consensus: "approvers.count() >= 2", notes: "v2" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 1 });
      expect(up.outputs.policyId!.value).toBe(policyId);
      expect(await live(policyId)).toMatchObject({ policyName: "allow exports with approval", effect: "EFFECT_ALLOW", consensus: "approvers.count() >= 2", notes: "v2" });

      await client.updatePolicy({ policyId, policyEffect: "EFFECT_DENY", policyNotes: "edited by hand" });
      await stack.refresh();
      expect((await stateOf(stack, "policy"))?.outputs).toMatchObject({ effect: "EFFECT_DENY", notes: "edited by hand" });
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ update: 1 });
      expect(await live(policyId)).toMatchObject({ effect: "EFFECT_ALLOW", notes: "v2" });

      await client.deletePolicy({ policyId });
      await stack.refresh();
      expect(await stateOf(stack, "policy")).toBeUndefined();
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      const recreatedId = up.outputs.policyId!.value as string;
      expect((await live(recreatedId)).policyName).toBe("allow exports with approval");

      const { policyId: handMade } = await client.createPolicy({ policyName: "hand made", effect: "EFFECT_ALLOW", notes: "" });
      state.desired.adopted = { policyName: "hand made", effect: "EFFECT_DENY", notes: "adopted", importId: handMade };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.adoptedId!.value).toBe(handMade);
      expect(await live(handMade)).toMatchObject({ effect: "EFFECT_DENY", notes: "adopted" });

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 2 });
      expect((await client.listPolicies()).policies).toEqual([]);
    } finally {
      await cleanup();
      figures.policyLifecycle = since(t0);
    }
  });
});

describe("ApiKey", () => {
  type Desired = { key?: Record<string, unknown>; adopted?: Record<string, unknown> };
  it("lifecycle, and the generated private key is a secret in state", { timeout: LIFECYCLE_TIMEOUT }, async () => {
    const t0 = performance.now();
    const { stack, cleanup, state } = await lifecycleStack<Desired>(
      "kf-api-key",
      (d) => {
        const out: Record<string, unknown> = {};
        if (d.key) {
          const key = new keyform.ApiKey("key", d.key as never);
          out.apiKeyId = key.apiKeyId;
          out.publicKey = key.publicKey;
          out.privateKey = key.privateKey;
        }
        if (d.adopted) out.adoptedId = new keyform.ApiKey("adopted", d.adopted as never).apiKeyId;
        return out;
      },
      { key: { userId: botUserId, apiKeyName: "ci" } },
    );
    try {
      const keysOf = async () => (await client.getApiKeys({ userId: botUserId })).apiKeys;

      let up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 1 });
      const apiKeyId = up.outputs.apiKeyId!.value as string;
      const privateKey = up.outputs.privateKey!.value as string;
      expect(up.outputs.privateKey!.secret).toBe(true);
      expect(privateKey).toMatch(/^[0-9a-f]{64}$/);
      expect((await keysOf()).find((k) => k.apiKeyId === apiKeyId)?.credential.publicKey).toBe(up.outputs.publicKey!.value);

      // The state at rest holds the private key only as ciphertext, and no credential at all.
      const scan = async (keys: string[]) => {
        const stored = storedState(stack);
        expect(stored.length).toBeGreaterThan(1000);
        for (const key of [...keys, emu.emulator.bootstrap.apiPrivateKey]) expect(stored).not.toContain(key);
        expect(stored).toMatch(/"privateKey":\s*\{\s*"4dabf18193072939515e22adb298388d":\s*"1b47061264138c4ac30d75fd1eb44270",\s*"ciphertext"/);
      };
      await scan([privateKey]);

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      // no update exists: a new name replaces the key
      state.desired.key = { userId: botUserId, apiKeyName: "ci-2" };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ replace: 1 });
      const replacedId = up.outputs.apiKeyId!.value as string;
      expect(replacedId).not.toBe(apiKeyId);
      expect((await keysOf()).map((k) => k.apiKeyName).sort()).toEqual(["anchor", "ci-2"]);

      // refresh keeps the private key, still secret
      const secondKey = up.outputs.privateKey!.value as string;
      await stack.refresh();
      expect((await stack.outputs()).privateKey).toMatchObject({ secret: true, value: secondKey });
      await scan([privateKey, secondKey]);

      // the service has no update for keys, so the only out-of-band change is a deletion
      await client.deleteApiKeys({ userId: botUserId, apiKeyIds: [replacedId] });
      await stack.refresh();
      expect(await stateOf(stack, "key")).toBeUndefined();
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect((await keysOf()).map((k) => k.apiKeyName).sort()).toEqual(["anchor", "ci-2"]);

      // importId adopts a key registered with the client (its public key must be declared)
      const pair = generateApiKeyPair("API_KEY_CURVE_SECP256K1");
      const { apiKeyIds } = await client.createApiKeys({ userId: botUserId, apiKeys: [{ apiKeyName: "hand-made", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_SECP256K1" }] });
      state.desired.adopted = { userId: botUserId, apiKeyName: "hand-made", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_SECP256K1", importId: apiKeyIds[0] };
      up = await stack.up();
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.adoptedId!.value).toBe(apiKeyIds[0]);
      await scan([privateKey, secondKey, up.outputs.privateKey!.value as string]);

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 2 });
      expect((await keysOf()).map((k) => k.apiKeyName)).toEqual(["anchor"]);
    } finally {
      await cleanup();
      figures.apiKeyLifecycle = since(t0);
    }
  });
});
