/**
 * Real engine, real emulator, root quorum at threshold 2: `up` of a UserTag stops with an error
 * naming the activity id and fingerprint to approve, and nothing is in state. A second `up`
 * before the approval reports the same activity and submits nothing. After another quorum
 * member approves through the client, a plain `up` adopts the tag the approved activity made
 * (no new activity, one tag), and the stack is then up to date.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
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
  it("up fails naming the activity, is not resubmitted, and a plain up after approval adopts its tag", { timeout: TIMEOUT }, async () => {
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-consensus",
      program: async () => ({ tagId: new keyform.UserTag("tag", { userTagName: "needs-approval", userIds: [rootUserId] }).userTagId }),
      envVars: emulatorEnv(emu.emulator),
    });
    const named = async () => (await emu.client.listUserTags()).userTags.filter((t) => t.tagName === "needs-approval");
    const createTagActivities = async () =>
      (await emu.client.listActivities({ filterByType: ["ACTIVITY_TYPE_CREATE_USER_TAG"], paginationOptions: { limit: "100" } })).activities;
    const details = /activity id ([0-9a-f-]{36}), fingerprint (sha256:[0-9a-f]{64})/;
    try {
      const failed = String(await stack.up().then(() => "up succeeded", (e: Error) => e));
      const found = details.exec(failed);
      expect(found, failed).not.toBeNull();
      const [, activityId, fingerprint] = found!;
      expect(failed).toMatch(/UserTag "needs-approval": create: the activity needs consensus approval/);
      expect(failed).toMatch(/then run pulumi up again/);
      expect(await stateOf(stack, "tag")).toBeUndefined();
      const held = (await emu.client.getActivity({ activityId: activityId! })).activity;
      expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
      expect(held.fingerprint).toBe(fingerprint);
      expect(await named()).toEqual([]);
      expect((await createTagActivities()).map((a) => a.id)).toEqual([activityId]);

      // Before the approval: the create resends the bytes its journal holds, so the service answers
      // with the same activity, which is reported again; nothing new is submitted.
      const again = String(await stack.up().then(() => "up succeeded", (e: Error) => e));
      expect(details.exec(again)?.slice(1), again).toEqual([activityId, fingerprint]);
      expect(again).toMatch(/UserTag "needs-approval": create: the activity needs consensus approval/);
      expect((await createTagActivities()).map((a) => a.id)).toEqual([activityId]);
      expect(await stateOf(stack, "tag")).toBeUndefined();

      await approver.approveActivity({ fingerprint: fingerprint! });
      const approved = (await emu.client.getActivity({ activityId: activityId! })).activity;
      expect(approved.status).toBe("ACTIVITY_STATUS_COMPLETED");
      const userTagId = (approved.result.createUserTagResult as { userTagId: string }).userTagId;
      expect((await named()).map((t) => t.tagId)).toEqual([userTagId]);

      // A plain up now adopts the approved tag: no new activity, still one tag.
      const up = await stack.up();
      // The stack resource itself was created by the first (failed) up.
      expect(changes(up.summary.resourceChanges)).toEqual({ create: 1 });
      expect(up.outputs.tagId!.value).toBe(userTagId);
      expect((await named()).map((t) => t.tagId)).toEqual([userTagId]);
      expect((await createTagActivities()).map((a) => a.id)).toEqual([activityId]);
      expect((await stateOf(stack, "tag"))?.outputs).toMatchObject({ userTagId, userTagName: "needs-approval", userIds: [rootUserId] });
      expect(changes((await stack.preview()).changeSummary)).toEqual({});
    } finally {
      await cleanup();
    }
  });
});
