/**
 * The policy engine of the emulator over real HTTP with real stamps: a non-root user's
 * activities are decided by the organization's policies (implicit deny, ALLOW, DENY wins,
 * consensus completed by approvals, `time` false skipping a policy, root-quorum-only
 * activities, erroring expressions, own credentials), the bootstrap key stays the root quorum,
 * and get_policy_evaluations reports each policy's outcome. The end-to-end case runs through the official @turnkey/http client:
 * a CI bot key may create tags but not delete policies.
 */
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let root: KeyformClient;
let orgId: string;
const keys = { bot: generateApiKeyPair(), approver: generateApiKeyPair(), other: generateApiKeyPair() };
const users: Record<keyof typeof keys, string> = { bot: "", approver: "", other: "" };
const clients = {} as Record<keyof typeof keys, KeyformClient>;
const policy: Record<string, string> = {};

function clientFor(pair: { publicKey: string; privateKey: string }): KeyformClient {
  return new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: orgId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 50 },
  });
}

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Record<string, any>);

async function evaluationsOf(activityId: string) {
  return (await root.getPolicyEvaluations({ activityId })).policyEvaluations;
}

beforeAll(async () => {
  t = await startTestEmulator();
  root = t.client;
  orgId = t.emulator.bootstrap.organizationId;
  const user = (name: keyof typeof keys) => ({
    userName: `policy-${name}`,
    apiKeys: [{ apiKeyName: `${name}-key`, publicKey: keys[name].publicKey, curveType: "API_KEY_CURVE_P256" as const }],
    authenticators: [],
    oauthProviders: [],
    userTags: [],
  });
  const { userIds } = await root.createUsers({ users: [user("bot"), user("approver"), user("other")] });
  [users.bot, users.approver, users.other] = userIds as [string, string, string];
  for (const name of Object.keys(keys) as (keyof typeof keys)[]) clients[name] = clientFor(keys[name]);
  const { userTagId: approversTag } = await root.createUserTag({ userTagName: "approvers", userIds: [users.approver] });
  const declare = async (key: string, effect: "EFFECT_ALLOW" | "EFFECT_DENY", condition: string, consensus?: string) => {
    const { policyId } = await root.createPolicy({ policyName: key, effect, condition, ...(consensus ? { consensus } : {}), notes: "" });
    policy[key] = policyId;
  };
  const byBot = `approvers.any(user, user.id == '${users.bot}')`;
  await declare("bot creates tags", "EFFECT_ALLOW", "activity.resource == 'USER' && activity.kind == 'CREATE_USER_TAG'", byBot);
  await declare("bot manages policies", "EFFECT_ALLOW", "activity.resource == 'POLICY'", byBot);
  await declare("nobody deletes policies", "EFFECT_DENY", "activity.resource == 'POLICY' && activity.action == 'DELETE'");
  await declare("tag deletes need an approver", "EFFECT_ALLOW", "activity.kind == 'DELETE_USER_TAGS'", `approvers.any(user, user.tags.contains('${approversTag}'))`);
  await declare("quorum changes", "EFFECT_ALLOW", "activity.kind == 'UPDATE_ROOT_QUORUM'");
  await declare("invitations (broken)", "EFFECT_ALLOW", "activity.kind == 'CREATE_INVITATIONS' && activity.params.no_such_field == 'x'");
});
afterAll(async () => {
  await t?.stop();
});

describe("policies decide a non-root user's activities", () => {
  it("no applicable ALLOW: 403 code 7 with the service's message and evaluations, and nothing changes", async () => {
    const error = await failure(clients.bot.updateUserName({ userId: users.approver, userName: "renamed" }));
    expect(error).toMatchObject({ status: 403, code: 7, serverMessage: expect.stringMatching(/^You don't have sufficient permissions to take this action/) });
    expect(error!.details).toEqual([
      expect.objectContaining({
        "@type": "type.googleapis.com/errors.v1.PolicyEnginePermissionError",
        message: "No policies evaluated to outcome: Allow",
        policyEvaluations: expect.arrayContaining([{ policyId: policy["bot creates tags"], outcome: "OUTCOME_DENY_IMPLICIT" }]),
      }),
    ]);
    expect((await root.getUser({ userId: users.approver })).user.userName).toBe("policy-approver");
  });

  it("an applicable ALLOW runs the activity; get_policy_evaluations reports every policy", async () => {
    const activity = await clients.bot.submitActivity("createUserTag", { userTagName: "made-by-bot", userIds: [] });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await root.listUserTags()).userTags.map((tag) => tag.tagName)).toContain("made-by-bot");
    const [evaluation, ...more] = await evaluationsOf(activity.id);
    expect(more).toEqual([]);
    expect(evaluation).toMatchObject({ activityId: activity.id, organizationId: orgId, voteId: "" });
    expect(evaluation!.policyEvaluations).toHaveLength(Object.keys(policy).length);
    expect(evaluation!.policyEvaluations).toContainEqual({ policyId: policy["bot creates tags"], outcome: "OUTCOME_ALLOW" });
    expect(evaluation!.policyEvaluations).toContainEqual({ policyId: policy["nobody deletes policies"], outcome: "OUTCOME_DENY_IMPLICIT" });
  });

  it("an applicable DENY wins over an applicable ALLOW", async () => {
    const error = await failure(clients.bot.deletePolicy({ policyId: policy["quorum changes"]! }));
    expect(error).toMatchObject({ status: 403, code: 7 });
    expect(error!.details[0].policyEvaluations).toEqual(
      expect.arrayContaining([
        { policyId: policy["bot manages policies"], outcome: "OUTCOME_ALLOW" },
        { policyId: policy["nobody deletes policies"], outcome: "OUTCOME_DENY_EXPLICIT" },
      ]),
    );
    expect((await root.getPolicy({ policyId: policy["quorum changes"]! })).policy.policyName).toBe("quorum changes");
  });

  it("an ALLOW with unmet consensus waits (CONSENSUS_NEEDED); only an approval that satisfies it runs the activity", async () => {
    const { userTagId } = await root.createUserTag({ userTagName: "doomed", userIds: [] });
    const held = await clients.bot.submitActivity("deleteUserTags", { userTagIds: [userTagId] }, { allowIncomplete: true });
    expect(held.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(held.votes.map((v) => v.userId)).toEqual([users.bot]);
    // An approval from a user the consensus does not name changes nothing.
    await clients.other.approveActivity({ fingerprint: held.fingerprint });
    expect((await root.getActivity({ activityId: held.id })).activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await root.listUserTags()).userTags.map((tag) => tag.tagId)).toContain(userTagId);
    await clients.approver.approveActivity({ fingerprint: held.fingerprint });
    const done = (await root.getActivity({ activityId: held.id })).activity;
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.result).toEqual({ deleteUserTagsResult: { userTagIds: [userTagId], userIds: [] } });
    expect((await root.listUserTags()).userTags.map((tag) => tag.tagId)).not.toContain(userTagId);
    const outcomes = (await evaluationsOf(held.id)).map((e) => e.policyEvaluations.find((p) => p.policyId === policy["tag deletes need an approver"])?.outcome);
    expect(outcomes).toEqual(["OUTCOME_REQUIRES_CONSENSUS", "OUTCOME_REQUIRES_CONSENSUS", "OUTCOME_ALLOW"]);
    const voteIds = (await evaluationsOf(held.id)).map((e) => e.voteId);
    expect(new Set(voteIds).size).toBe(3);
    expect(done.votes.map((v) => v.id).sort()).toEqual([...voteIds].sort());
  });

  it("a policy whose time is false is skipped (OUTCOME_TIME_INACTIVE); once its time holds it applies", async () => {
    const { userTagId } = await root.createUserTag({ userTagName: "renamable", userIds: [] });
    const { policyId } = await root.createPolicy({
      policyName: "renames in a window",
      effect: "EFFECT_ALLOW",
      condition: "activity.kind == 'UPDATE_USER_TAG'",
      time: "time.now < Timestamp('2000-01-01T00:00:00Z')",
      notes: "",
    });
    const rename = () => clients.bot.updateUserTag({ userTagId, newUserTagName: "renamed", addUserIds: [], removeUserIds: [] });
    const error = await failure(rename());
    expect(error).toMatchObject({ status: 403, code: 7 });
    expect(error!.details[0].policyEvaluations).toContainEqual({ policyId, outcome: "OUTCOME_TIME_INACTIVE" });
    await root.updatePolicy({ policyId, time: "time.now >= Timestamp('2000-01-01T00:00:00Z')" });
    await rename();
    expect((await root.listUserTags()).userTags.map((tag) => tag.tagName)).toContain("renamed");
    await root.deletePolicy({ policyId });
  });

  it("root-quorum-only activities cannot be granted by any policy", async () => {
    const error = await failure(clients.bot.submitActivity("updateRootQuorum", { threshold: 1, userIds: [users.bot] }));
    expect(error).toMatchObject({ status: 403, code: 7, serverMessage: expect.stringMatching(/UPDATE_ROOT_QUORUM can only be run by the root quorum/) });
    expect((await root.getOrganization()).organizationData.rootQuorum?.userIds).toEqual([t.emulator.bootstrap.userId]);
  });

  it("an expression that errors makes that policy's outcome OUTCOME_ERROR (it allows nothing)", async () => {
    const invitation = { receiverUserName: "x", receiverUserEmail: "x@example.com", receiverUserTags: [], accessType: "ACCESS_TYPE_WEB" as const, senderUserId: users.bot };
    const error = await failure(clients.bot.createInvitations({ invitations: [invitation] }));
    expect(error).toMatchObject({ status: 403, code: 7 });
    expect(error!.details[0].policyEvaluations).toContainEqual({
      policyId: policy["invitations (broken)"],
      outcome: "OUTCOME_ERROR",
      error: expect.stringContaining("no field 'no_such_field' in this request"),
    });
  });

  it("users change their own credentials without a policy, but not another user's", async () => {
    const own = generateApiKeyPair();
    await clients.bot.createApiKeys({ userId: users.bot, apiKeys: [{ apiKeyName: "bot-second", publicKey: own.publicKey, curveType: "API_KEY_CURVE_P256" }] });
    expect((await root.getApiKeys({ userId: users.bot })).apiKeys.map((k) => k.apiKeyName)).toContain("bot-second");
    const error = await failure(
      clients.bot.createApiKeys({ userId: users.approver, apiKeys: [{ apiKeyName: "sneaky", publicKey: generateApiKeyPair().publicKey, curveType: "API_KEY_CURVE_P256" }] }),
    );
    expect(error).toMatchObject({ status: 403, code: 7 });
  });

  it("the bootstrap key is the root quorum: policies are bypassed and nothing is evaluated", async () => {
    const { policyId } = await root.createPolicy({ policyName: "temporary", effect: "EFFECT_ALLOW", condition: "true", notes: "" });
    const deleted = await root.submitActivity("deletePolicy", { policyId });
    expect(deleted.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await evaluationsOf(deleted.id)).toEqual([]);
  });
});

describe("official client end to end", () => {
  it("@turnkey/http with a CI bot key: creating tags is allowed, deleting policies is denied", async () => {
    const bot = new TurnkeyClient({ baseUrl: t.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey: keys.bot.publicKey, apiPrivateKey: keys.bot.privateKey }));
    const { activity } = await bot.createUserTag({
      type: "ACTIVITY_TYPE_CREATE_USER_TAG",
      timestampMs: String(Date.now()),
      organizationId: orgId,
      parameters: { userTagName: "ci-release", userIds: [] },
    });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect((await bot.listUserTags({ organizationId: orgId })).userTags.map((tag) => tag.tagName)).toContain("ci-release");

    const denied = await failure(
      bot.deletePolicy({ type: "ACTIVITY_TYPE_DELETE_POLICY", timestampMs: String(Date.now()), organizationId: orgId, parameters: { policyId: policy["bot creates tags"]! } }),
    );
    expect(denied).toMatchObject({ name: "TurnkeyRequestError", code: 7 });
    expect(String(denied!.message)).toMatch(/Turnkey error 7: You don't have sufficient permissions to take this action/);
    expect(String(denied!.message)).toContain('"outcome":"OUTCOME_DENY_EXPLICIT"');
    expect((await bot.getPolicy({ organizationId: orgId, policyId: policy["bot creates tags"]! })).policy.policyName).toBe("bot creates tags");
  });
});
