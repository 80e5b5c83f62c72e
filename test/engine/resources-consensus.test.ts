/**
 * Real engine, real emulator, root quorum at threshold 2: `up` of a UserTag stops with an error
 * naming the activity id and fingerprint to approve, and nothing is in state. After another
 * quorum member approves through the client, the tag exists once. What a second `up` does
 * then is pinned here: the resource's create submits a new create_user_tag, which the
 * emulator refuses (409, the name exists), so no second tag is made but `up` does not adopt
 * the approved tag by itself; `importId` with the approved activity's `userTagId` does.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/client/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/client/keys";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, loadKeyform, stateOf } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
const TIMEOUT = 600_000;

let emu: TestEmulator;
let approver: KeyformClient;
let rootUserId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  rootUserId = emu.emulator.bootstrap.userId;
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName: "approver", apiKeys: [{ apiKeyName: "approver", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  approver = new KeyformClient({
    baseUrl: emu.emulator.url,
    organizationId: emu.emulator.bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: key.publicKey, apiPrivateKey: key.privateKey }),
  });
  await emu.client.updateRootQuorum({ threshold: 2, userIds: [rootUserId, userIds[0]!] });
});

afterAll(async () => {
  await emu?.stop();
});

describe("UserTag under consensus", () => {
  it("up fails naming the activity; after approval the tag exists once", { timeout: TIMEOUT }, async () => {
    const state: { tag: Record<string, unknown> } = { tag: { userTagName: "needs-approval", userIds: [rootUserId] } };
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-consensus",
      program: async () => ({ tagId: new keyform.UserTag("tag", state.tag as never).userTagId }),
      envVars: emulatorEnv(emu.emulator),
    });
    const named = async () => (await emu.client.listUserTags()).userTags.filter((t) => t.tagName === "needs-approval");
    try {
      const failed = String(await stack.up().then(() => "up succeeded", (e: Error) => e));
      const found = /activity id ([0-9a-f-]{36}), fingerprint (sha256:[0-9a-f]{64})/.exec(failed);
      expect(found, failed).not.toBeNull();
      const [, activityId, fingerprint] = found!;
      expect(failed).toMatch(/UserTag "needs-approval": create: the activity needs consensus approval/);
      expect(await stateOf(stack, "tag")).toBeUndefined();
      const held = (await emu.client.getActivity({ activityId: activityId! })).activity;
      expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      expect(held.fingerprint).toBe(fingerprint);
      expect(await named()).toEqual([]);

      await approver.approveActivity({ fingerprint: fingerprint! });
      const approved = (await emu.client.getActivity({ activityId: activityId! })).activity;
      expect(approved.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const userTagId = (approved.result.createUserTagResult as { userTagId: string }).userTagId;
      expect((await named()).map((t) => t.tagId)).toEqual([userTagId]);

      // A plain second up submits create_user_tag again: refused (the name exists), no second tag.
      const second = String(await stack.up().then(() => "up succeeded", (e: Error) => e));
      expect(second).toMatch(/UserTag "needs-approval": create: .*userTagName: a user tag named \"needs-approval\" already exists/);
      expect(second).not.toBe("up succeeded");
      expect((await named()).map((t) => t.tagId)).toEqual([userTagId]);
      expect(await stateOf(stack, "tag")).toBeUndefined();

      // Adopting the approved tag by its id completes the stack without a new activity.
      state.tag = { ...state.tag, importId: userTagId };
      const up = await stack.up();
      // The stack resource itself was created by the first (failed) up.
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.tagId!.value).toBe(userTagId);
      expect((await named()).map((t) => t.tagId)).toEqual([userTagId]);
      expect(changes((await stack.preview()).changeSummary)).toEqual({});
    } finally {
      await cleanup();
    }
  });
});
