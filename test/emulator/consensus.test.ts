/**
 * Consensus from the root quorum over real HTTP: with threshold 2 over users A (bootstrap) and
 * B, an activity of A waits (CONSENSUS_NEEDED, A's vote, nothing applied) until B approves
 * (then it runs and completes) or rejects it. Also the keyform client's ConsensusNeededError
 * and consensus wait, and what the official @turnkey/sdk-server sees.
 */
import { Turnkey } from "@turnkey/sdk-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { ConsensusNeededError } from "../../sdk/client/errors";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { activityFingerprint } from "../../sdk/client/transport";
import type { Activity } from "../../sdk/wire/activity";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { envelope, post, rootStamper } from "./raw";

let t: TestEmulator;
let a: KeyformClient;
let b: KeyformClient;
let c: KeyformClient;
let orgId: string;
let userA: string;
let userB: string;
let userC: string;
let keyB: { publicKey: string; privateKey: string };

function clientFor(pair: { publicKey: string; privateKey: string }, extra: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}): KeyformClient {
  return new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: orgId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 50 },
    ...extra,
  });
}

const CONSENSUS = "ACTIVITY_STATUS_CONSENSUS_NEEDED";

/** Submits as A and returns the raw activity, whatever its status. */
function submitTag(client: KeyformClient, userTagName: string): Promise<Activity> {
  return client.submitActivity("createUserTag", { userTagName, userIds: [userA] }, { allowIncomplete: true });
}

async function tagNames(): Promise<string[]> {
  return (await a.listUserTags()).userTags.map((tag) => tag.tagName);
}

async function activity(id: string): Promise<Activity> {
  return (await a.getActivity({ activityId: id })).activity;
}

beforeAll(async () => {
  t = await startTestEmulator();
  orgId = t.emulator.bootstrap.organizationId;
  userA = t.emulator.bootstrap.userId;
  a = clientFor({ publicKey: t.emulator.bootstrap.apiPublicKey, privateKey: t.emulator.bootstrap.apiPrivateKey });
  keyB = generateApiKeyPair();
  const keyC = generateApiKeyPair();
  const user = (name: string, publicKey: string) => ({
    userName: name,
    apiKeys: [{ apiKeyName: `${name}-key`, publicKey, curveType: "API_KEY_CURVE_P256" as const }],
    authenticators: [],
    oauthProviders: [],
    userTags: [],
  });
  const { userIds } = await a.createUsers({ users: [user("approver-b", keyB.publicKey), user("outsider-c", keyC.publicKey)] });
  userB = userIds[0]!;
  userC = userIds[1]!;
  b = clientFor(keyB);
  c = clientFor(keyC);
  // Threshold 1 today: the quorum change itself applies at once.
  const quorumChange = await a.submitActivity("updateRootQuorum", { threshold: 2, userIds: [userA, userB] });
  expect(quorumChange.status).toBe("ACTIVITY_STATUS_COMPLETED");
  expect(quorumChange.result).toEqual({ updateRootQuorumResult: {} });
});
afterAll(async () => {
  await t?.stop();
});

describe("root quorum with threshold 2", () => {
  it("get_organization shows the quorum", async () => {
    const { organizationData } = await a.getOrganization();
    expect(organizationData.rootQuorum).toEqual({ threshold: 2, userIds: [userA, userB] });
  });

  it("holds A's activity with A's vote and applies nothing; B's approval runs it", async () => {
    const held = await submitTag(a, "consensus-ops");
    expect(held.status).toBe(CONSENSUS);
    expect(held.canApprove).toBe(true);
    expect(held.canReject).toBe(true);
    expect(held.result).toEqual({});
    expect(held.intent).toEqual({ createUserTagIntent: { userTagName: "consensus-ops", userIds: [userA] } });
    expect(held.votes).toHaveLength(1);
    const [vote] = held.votes;
    expect(vote).toMatchObject({
      userId: userA,
      activityId: held.id,
      selection: "VOTE_SELECTION_APPROVED",
      publicKey: t.emulator.bootstrap.apiPublicKey,
      scheme: "SIGNATURE_SCHEME_TK_API_P256",
      user: { userId: userA },
    });
    expect(vote!.signature).toMatch(/^[0-9a-f]+$/);
    // The message is the exact body A signed: its fingerprint is the activity's.
    expect(activityFingerprint(vote!.message!)).toBe(held.fingerprint);
    expect(await tagNames()).not.toContain("consensus-ops");
    expect((await activity(held.id)).status).toBe(CONSENSUS);
    const waiting = await a.listActivities({ filterByStatus: [CONSENSUS] });
    expect(waiting.activities.map((x) => x.id)).toContain(held.id);

    const approval = await b.submitActivity("approveActivity", { fingerprint: held.fingerprint });
    expect(approval.type).toBe("ACTIVITY_TYPE_APPROVE_ACTIVITY");
    expect(approval.status).toBe("ACTIVITY_STATUS_COMPLETED");

    const done = await activity(held.id);
    expect(done.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(done.canApprove).toBe(false);
    expect(done.votes.map((v) => [v.userId, v.selection])).toEqual([
      [userA, "VOTE_SELECTION_APPROVED"],
      [userB, "VOTE_SELECTION_APPROVED"],
    ]);
    expect(done.votes[1]!.publicKey).toBe(keyB.publicKey);
    const result = done.result.createUserTagResult as { userTagId: string; userIds: string[] };
    expect(result.userIds).toEqual([userA]);
    const { userTags } = await a.listUserTags();
    const created = userTags.filter((tag) => tag.tagName === "consensus-ops");
    expect(created.map((tag) => tag.tagId)).toEqual([result.userTagId]);
    // The effects are those of a direct run: A is a member of the new tag.
    expect((await a.getUser({ userId: userA })).user.userTags).toContain(result.userTagId);
  });

  it("reject_activity makes it REJECTED and nothing is applied; later votes are refused", async () => {
    const held = await submitTag(a, "consensus-rejected");
    await b.rejectActivity({ fingerprint: held.fingerprint });
    const rejected = await activity(held.id);
    expect(rejected.status).toBe("ACTIVITY_STATUS_REJECTED");
    expect(rejected.votes.map((v) => v.selection)).toEqual(["VOTE_SELECTION_APPROVED", "VOTE_SELECTION_REJECTED"]);
    expect(await tagNames()).not.toContain("consensus-rejected");
    await expect(b.approveActivity({ fingerprint: held.fingerprint })).rejects.toMatchObject({ status: 400, code: 9 });
  });

  it("refuses a second vote of the same user, votes on settled activities, and outsiders", async () => {
    const held = await submitTag(a, "consensus-votes");
    await expect(a.approveActivity({ fingerprint: held.fingerprint })).rejects.toMatchObject({
      status: 400,
      code: 9,
      message: expect.stringMatching(/already voted/),
    });
    await expect(c.approveActivity({ fingerprint: held.fingerprint })).rejects.toMatchObject({ status: 403, code: 7 });
    await expect(b.approveActivity({ fingerprint: "sha256:" + "0".repeat(64) })).rejects.toMatchObject({ status: 404, code: 5 });
    expect((await activity(held.id)).votes).toHaveLength(1);

    await b.approveActivity({ fingerprint: held.fingerprint });
    expect((await activity(held.id)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    await expect(b.approveActivity({ fingerprint: held.fingerprint })).rejects.toMatchObject({
      status: 400,
      code: 9,
      message: expect.stringMatching(/COMPLETED, not awaiting consensus/),
    });
    await expect(a.rejectActivity({ fingerprint: held.fingerprint })).rejects.toMatchObject({ status: 400, code: 9 });
  });

  it("answers a byte-identical resubmission with the same waiting activity", async () => {
    const body = envelope("ACTIVITY_TYPE_CREATE_USER_TAG", orgId, { userTagName: "consensus-retry", userIds: [] });
    const text = JSON.stringify(body);
    const first = await post(t.emulator.url, "/public/v1/submit/create_user_tag", text, rootStamper(t.emulator.bootstrap));
    const second = await post(t.emulator.url, "/public/v1/submit/create_user_tag", text, rootStamper(t.emulator.bootstrap));
    expect(first.status).toBe(200);
    expect(first.body.activity.status).toBe(CONSENSUS);
    expect(second.body.activity.id).toBe(first.body.activity.id);
    expect(second.body.activity.votes).toHaveLength(1);
  });

  it("refuses at submission what the handler refuses, and fails at execution what became invalid", async () => {
    // A duplicate of an existing tag is refused at once and records nothing.
    await expect(submitTag(a, "consensus-ops")).rejects.toMatchObject({ status: 409, code: 6 });
    // Two waiting requests for one name: the second to run fails.
    const first = await submitTag(a, "consensus-twice");
    const second = await submitTag(a, "consensus-twice");
    await b.approveActivity({ fingerprint: first.fingerprint });
    await b.approveActivity({ fingerprint: second.fingerprint });
    expect((await activity(first.id)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const failed = await activity(second.id);
    expect(failed.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(failed.failure).toMatchObject({ code: 6, message: expect.stringMatching(/userTagName/) });
    expect((await tagNames()).filter((name) => name === "consensus-twice")).toHaveLength(1);
  });

  it("a submitter outside the quorum is refused without a policy, and acts directly (no root-quorum wait) under an ALLOW", async () => {
    await expect(c.submitActivity("createUserTag", { userTagName: "consensus-outsider", userIds: [] })).rejects.toMatchObject({ status: 403, code: 7 });
    expect(await tagNames()).not.toContain("consensus-outsider");
    // Creating the policy is itself a root activity: A submits, B approves.
    const policy = await a.submitActivity(
      "createPolicy",
      {
        policyName: "outsider may create tags",
        effect: "EFFECT_ALLOW",
        condition: "activity.resource == 'USER' && activity.action == 'CREATE'",
        consensus: `approvers.any(user, user.id == '${userC}')`,
        notes: "",
      },
      { allowIncomplete: true },
    );
    await b.approveActivity({ fingerprint: policy.fingerprint });
    expect((await activity(policy.id)).status).toBe("ACTIVITY_STATUS_COMPLETED");
    const direct = await c.submitActivity("createUserTag", { userTagName: "consensus-outsider", userIds: [] });
    expect(direct.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(direct.votes).toEqual([]);
  });

  it("get_activity and list_activities include the stored App Proofs", async () => {
    const held = await a.submitActivity(
      "createUserTag",
      { userTagName: "consensus-proofs", userIds: [] },
      { allowIncomplete: true, generateAppProofs: true },
    );
    expect(held.appProofs).toHaveLength(1);
    expect((await activity(held.id)).appProofs).toEqual(held.appProofs);
    const listed = (await a.listActivities({ filterByStatus: [CONSENSUS] })).activities.find((x) => x.id === held.id);
    expect(listed?.appProofs).toEqual(held.appProofs);
    await b.rejectActivity({ fingerprint: held.fingerprint });
    expect((await activity(held.id)).appProofs).toEqual(held.appProofs);
  });
});

describe("clients under consensus", () => {
  it("KeyformClient without consensus.waitMs throws ConsensusNeededError naming id and fingerprint", async () => {
    const error = await a.createUserTag({ userTagName: "consensus-client", userIds: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConsensusNeededError);
    const { activityId, fingerprint } = error as ConsensusNeededError;
    expect(activityId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((error as Error).message).toContain(activityId!);
    expect((error as Error).message).toContain(fingerprint!);
    expect((await activity(activityId!)).status).toBe(CONSENSUS);
  });

  it("KeyformClient with consensus.waitMs returns the result once B approves during the wait", async () => {
    const waiting = clientFor(
      { publicKey: t.emulator.bootstrap.apiPublicKey, privateKey: t.emulator.bootstrap.apiPrivateKey },
      { consensus: { waitMs: 15_000 } },
    );
    const call = waiting.createUserTag({ userTagName: "consensus-waited", userIds: [userA] });
    // B finds the waiting activity and approves it while the call polls.
    let fingerprint: string | undefined;
    for (let i = 0; i < 100 && fingerprint === undefined; i++) {
      const { activities } = await b.listActivities({ filterByStatus: [CONSENSUS] });
      fingerprint = activities.find(
        (x) => (x.intent.createUserTagIntent as { userTagName?: string } | undefined)?.userTagName === "consensus-waited",
      )?.fingerprint;
      if (fingerprint === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(fingerprint).toBeDefined();
    await b.approveActivity({ fingerprint: fingerprint! });
    const result = await call;
    expect(result.userIds).toEqual([userA]);
    expect((await a.listUserTags()).userTags.find((tag) => tag.tagName === "consensus-waited")?.tagId).toBe(result.userTagId);
  });

  it("@turnkey/sdk-server returns the CONSENSUS_NEEDED activity after its polls", async () => {
    const api = new Turnkey({
      apiBaseUrl: t.emulator.url,
      apiPublicKey: t.emulator.bootstrap.apiPublicKey,
      apiPrivateKey: t.emulator.bootstrap.apiPrivateKey,
      defaultOrganizationId: orgId,
      activityPoller: { intervalMs: 20, numRetries: 1 },
    }).apiClient();
    const response = await api.createUserTag({ userTagName: "consensus-sdk", userIds: [] });
    expect(response.activity.status).toBe(CONSENSUS);
    expect(response.activity.votes).toHaveLength(1);
    expect(response.userTagId).toBeUndefined();
    const votes = await api.approveActivity({ fingerprint: response.activity.fingerprint }).catch((e: unknown) => e);
    // The official client stamps with A's key, who already voted.
    expect(votes).toMatchObject({ code: 9 });
  });
});

describe("changing the quorum under consensus", () => {
  it("update_root_quorum waits for the quorum too, is validated at submission, and applies on approval", async () => {
    await expect(a.submitActivity("updateRootQuorum", { threshold: 3, userIds: [userA, userB] }, { allowIncomplete: true })).rejects.toMatchObject({
      status: 400,
      code: 3,
      serverMessage: expect.stringMatching(/^threshold: must be between 1 and the number of userIds \(2\), got 3/),
    });
    const held = await a.submitActivity("updateRootQuorum", { threshold: 1, userIds: [userA] }, { allowIncomplete: true });
    expect(held.status).toBe(CONSENSUS);
    expect((await a.getOrganization()).organizationData.rootQuorum).toEqual({ threshold: 2, userIds: [userA, userB] });
    await b.approveActivity({ fingerprint: held.fingerprint });
    expect((await activity(held.id)).result).toEqual({ updateRootQuorumResult: {} });
    expect((await a.getOrganization()).organizationData.rootQuorum).toEqual({ threshold: 1, userIds: [userA] });
    // Threshold 1 again: activities complete at once.
    expect((await submitTag(a, "consensus-after")).status).toBe("ACTIVITY_STATUS_COMPLETED");
  });
});
