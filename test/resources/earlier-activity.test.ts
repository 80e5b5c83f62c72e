/**
 * The rule that keeps a create from submitting twice: which earlier activity counts as the same
 * intent (unit), and what the runtime does with it against the real emulator over HTTP (report
 * the waiting one again, adopt the completed one and update it to match, skip deleted objects,
 * adopt an object an ordinary create made when it matches, name it with importId when not).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { ApiError, ConsensusNeededError } from "../../sdk/client/errors";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { handlers } from "../../sdk/resources/runtime";
import { useRuntimeSettings } from "./harness/runtime-settings";
import {
  findEarlierActivities,
  LOOKUP_WINDOW_MS,
  matchingActivities,
  type CreateActivity,
} from "../../sdk/resources/runtime/earlier-activity";
import { forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { apiKeySpec, type ApiKeyInputs as ApiKeyState } from "../../sdk/resources/runtime/api-key";
import { policySpec, type PolicyInputs as PolicyState } from "../../sdk/resources/runtime/policy";
import type { Activity } from "../../sdk/wire/activity";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const NOW = Date.parse("2030-01-01T00:00:00Z");
const declared = policySpec.createActivity as CreateActivity<PolicyState>;
const PARAMS = { policyName: "p", effect: "EFFECT_ALLOW", consensus: "approvers.count() >= 2", notes: "n" };

function vote(userId: string, selection = "VOTE_SELECTION_APPROVED") {
  return { id: `vote-${userId}`, userId, activityId: "a", selection, createdAt: String(NOW) } as Activity["votes"][number];
}

function activity(overrides: Partial<Activity> & { params?: Record<string, unknown> } = {}): Activity {
  const { params = PARAMS, ...rest } = overrides;
  return {
    id: "act-1",
    organizationId: "org",
    status: "ACTIVITY_STATUS_COMPLETED",
    type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
    intent: { createPolicyIntentV3: params },
    result: { createPolicyResult: { policyId: "pol-1" } },
    votes: [vote("alice"), vote("bob")],
    fingerprint: "sha256:aa",
    canApprove: false,
    canReject: false,
    createdAt: String(NOW - 60_000),
    updatedAt: String(NOW),
    ...rest,
  };
}

describe("matching rule", () => {
  const match = (activities: Activity[], params: Record<string, unknown> = PARAMS) =>
    matchingActivities(declared, params, activities, NOW).map((m) => ({ id: m.activity.id, createdId: m.createdId }));

  it("same parameters, completed with approvals of two users: adopted with the id of its result", () => {
    expect(match([activity()])).toEqual([{ id: "act-1", createdId: "pol-1" }]);
  });

  it("same parameters, still waiting for consensus: matched, with no id yet", () => {
    const waiting = activity({ status: "ACTIVITY_STATUS_CONSENSUS_NEEDED", result: {}, votes: [vote("alice")] });
    expect(match([waiting])).toEqual([{ id: "act-1", createdId: undefined }]);
  });

  it("same parameters, an ordinary completed create by any key (one voter, or none): matched too", () => {
    expect(match([activity({ votes: [vote("alice")] })])).toEqual([{ id: "act-1", createdId: "pol-1" }]);
    expect(match([activity({ votes: [] })])).toEqual([{ id: "act-1", createdId: "pol-1" }]);
  });

  it("different parameters: not adopted", () => {
    expect(match([activity()], { ...PARAMS, notes: "other" })).toEqual([]);
    expect(match([activity()], { ...PARAMS, effect: "EFFECT_DENY" })).toEqual([]);
    expect(match([activity({ params: { ...PARAMS, condition: "true" } })])).toEqual([]);
  });

  it("key order, and absent versus empty or null fields, are the same parameters", () => {
    const echoed = { notes: "n", condition: null, consensus: "approvers.count() >= 2", effect: "EFFECT_ALLOW", policyName: "p" };
    expect(match([activity({ params: echoed })])).toEqual([{ id: "act-1", createdId: "pol-1" }]);
  });

  it("other types, other statuses, results without an id and activities older than the window do not match", () => {
    expect(match([activity({ type: "ACTIVITY_TYPE_CREATE_POLICY" })])).toEqual([]);
    expect(match([activity({ status: "ACTIVITY_STATUS_FAILED" })])).toEqual([]);
    expect(match([activity({ status: "ACTIVITY_STATUS_REJECTED" })])).toEqual([]);
    expect(match([activity({ result: {} })])).toEqual([]);
    expect(match([activity({ createdAt: String(NOW - LOOKUP_WINDOW_MS - 1) })])).toEqual([]);
    expect(match([activity({ createdAt: String(NOW - LOOKUP_WINDOW_MS + 1000) })])).toHaveLength(1);
  });

  it("keeps the service's order (newest first)", () => {
    const older = activity({ id: "act-old", result: { createPolicyResult: { policyId: "pol-old" } } });
    const newer = activity({ id: "act-new", status: "ACTIVITY_STATUS_CONSENSUS_NEEDED", result: {} });
    expect(match([newer, older]).map((m) => m.id)).toEqual(["act-new", "act-old"]);
  });

  it("a key that may not list activities (403) or a service without the query (501) skips the lookup; other errors stop", async () => {
    const failing = (status: number) =>
      ({ organizationId: "org", client: { listActivities: () => Promise.reject(ApiError.from(status, { code: 0, message: "no", details: [] }, { operation: "listActivities" })) } }) as never;
    expect(await findEarlierActivities(failing(403), declared, PARAMS)).toEqual([]);
    expect(await findEarlierActivities(failing(501), declared, PARAMS)).toEqual([]);
    await expect(findEarlierActivities(failing(500), declared, PARAMS)).rejects.toThrow(/HTTP 500/);
  });

  it("an ApiKey whose key pair is generated at create is never matched", () => {
    const apiKey = apiKeySpec.createActivity as CreateActivity<ApiKeyState>;
    expect(apiKey.parameters({ userId: "u", apiKeyName: "k", curveType: "API_KEY_CURVE_P256" })).toBeUndefined();
    expect(apiKey.parameters({ userId: "u", apiKeyName: "k", curveType: "API_KEY_CURVE_P256", publicKey: "02ab" })).toEqual({
      userId: "u",
      apiKeys: [{ apiKeyName: "k", publicKey: "02ab", curveType: "API_KEY_CURVE_P256" }],
    });
  });
});

// The runtime, against the emulator, with a root quorum of two.
let emu: TestEmulator;
let approver: KeyformClient;
let outsider: KeyformClient;
let setupPolicyId: string;
let restoreSettings: (() => void) | undefined;

function client(url: string, organizationId: string, pair: { publicKey: string; privateKey: string }) {
  return new KeyformClient({ baseUrl: url, organizationId, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }), poll: { intervalMs: 50 } });
}

beforeAll(async () => {
  emu = await startTestEmulator();
  const b = emu.emulator.bootstrap;
  restoreSettings = useRuntimeSettings(emu.emulator.url, b);
  const approverKey = generateApiKeyPair();
  const outsiderKey = generateApiKeyPair();
  const user = (name: string, publicKey: string) => ({
    userName: name,
    apiKeys: [{ apiKeyName: name, publicKey, curveType: "API_KEY_CURVE_P256" as const }],
    authenticators: [],
    oauthProviders: [],
    userTags: [],
  });
  const { userIds } = await emu.client.createUsers({ users: [user("approver", approverKey.publicKey), user("outsider", outsiderKey.publicKey)] });
  approver = client(emu.emulator.url, b.organizationId, approverKey);
  // Not in the root quorum: acts directly whatever the threshold.
  outsider = client(emu.emulator.url, b.organizationId, outsiderKey);
  // Outside the root quorum, only a policy lets the outsider act; it acts alone on policies.
  const allowOutsider = await emu.client.createPolicy({
    policyName: "outsider manages policies",
    effect: "EFFECT_ALLOW",
    consensus: `approvers.any(user, user.id == '${userIds[1]}')`,
    condition: "activity.resource == 'POLICY'",
    notes: "",
  });
  setupPolicyId = allowOutsider.policyId;
  await emu.client.updateRootQuorum({ threshold: 2, userIds: [b.userId, userIds[0]!] });
});

afterAll(async () => {
  restoreSettings?.();
  await emu?.stop();
});

/** The create_policy activities of the test itself (not the setup's). */
async function createPolicyActivities(): Promise<Activity[]> {
  const { activities } = await emu.client.listActivities({ filterByType: ["ACTIVITY_TYPE_CREATE_POLICY_V3"], paginationOptions: { limit: "100" } });
  return activities.filter((a) => (a.result?.createPolicyResult as { policyId?: string } | undefined)?.policyId !== setupPolicyId);
}

async function checked(news: Record<string, unknown>) {
  const result = await handlers.Policy!.check({}, news);
  expect(result.failures).toEqual([]);
  return result.inputs as Record<string, unknown>;
}

const DETAILS = /activity id ([0-9a-f-]{36}), fingerprint (sha256:[0-9a-f]{64})/;

describe("Policy create under consensus (runtime, real emulator)", () => {
  const h = () => handlers.Policy!;

  it("reports the waiting activity again, then adopts the approved policy and updates it to match", async () => {
    const inputs = await checked({ policyName: "gated", effect: "EFFECT_ALLOW", notes: "declared" });
    const first = String(await h().create(inputs).catch((e: Error) => e));
    const [, activityId, fingerprint] = DETAILS.exec(first) ?? [];
    expect(activityId, first).toBeDefined();
    expect(await createPolicyActivities()).toHaveLength(1);

    // Each `up` is a new provider process, which reads the history afresh.
    forgetEarlierWork();
    const second = String(await h().create(inputs).catch((e: Error) => e));
    expect(second).toContain(`activity id ${activityId}, fingerprint ${fingerprint}`);
    expect(second).toMatch(/Approve it \(approve_activity with that fingerprint\), then run pulumi up again\. It was submitted by an earlier run/);
    expect(await createPolicyActivities()).toHaveLength(1);

    await approver.approveActivity({ fingerprint: fingerprint! });
    const { activity } = await emu.client.getActivity({ activityId: activityId! });
    const policyId = (activity.result.createPolicyResult as { policyId: string }).policyId;
    // Changed out of band after the approval (the outsider acts directly).
    await outsider.updatePolicy({ policyId, policyNotes: "changed" });
    // Let the root key act directly, so that the update create makes is not gated again.
    const lower = await emu.client.updateRootQuorum({ threshold: 1, userIds: [emu.emulator.bootstrap.userId] }).catch((e: unknown) => e);
    expect(lower).toBeInstanceOf(ConsensusNeededError);
    await approver.approveActivity({ fingerprint: (lower as ConsensusNeededError).fingerprint! });

    forgetEarlierWork();
    forgetSharedReads(); // the next run
    const { id, outs } = await h().create(inputs);
    expect(id).toBe(policyId);
    expect(outs).toMatchObject({ policyId, policyName: "gated", notes: "declared" });
    expect(outs.importId).toBeUndefined();
    expect((await emu.client.getPolicy({ policyId })).policy.notes).toBe("declared");
    expect(await createPolicyActivities()).toHaveLength(1);

    // Deleted since: the approved activity no longer stands for it; create makes a new one.
    await emu.client.deletePolicy({ policyId });
    forgetEarlierWork();
    forgetSharedReads(); // the next run starts a fresh provider process, with no shared reads
    const again = await h().create(inputs);
    expect(again.id).not.toBe(policyId);
    expect(await createPolicyActivities()).toHaveLength(2);
    await h().delete(again.id, again.outs);

    // An object an ordinary create made (another key, one voter) with the same parameters is the
    // declared one: adopted, nothing submitted.
    const { policyId: directId } = await outsider.createPolicy({ policyName: "direct", effect: "EFFECT_DENY", notes: "" });
    const before = (await createPolicyActivities()).length;
    forgetEarlierWork();
    forgetSharedReads();
    expect((await h().create(await checked({ policyName: "direct", effect: "EFFECT_DENY" }))).id).toBe(directId);
    expect(await createPolicyActivities()).toHaveLength(before);
    // One that differs is not: the 409 names it and how to adopt it.
    forgetEarlierWork();
    forgetSharedReads();
    await expect(h().create(await checked({ policyName: "direct", effect: "EFFECT_ALLOW" }))).rejects.toThrow(
      new RegExp(`Policy "direct": create: the service refused it \\(HTTP 409: policyName: a policy named "direct" already exists\\); the existing Policy "${directId}" differs from the declared inputs: effect \\(declared "EFFECT_ALLOW", found "EFFECT_DENY"\\)\\. To manage it with this resource, set importId: "${directId}"`),
    );
  });
});
