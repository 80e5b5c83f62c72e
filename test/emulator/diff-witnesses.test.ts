/**
 * The access diff's witnesses submitted to the emulator as real activities: each row's witness is
 * sent by its submitter (an API key of that user, over HTTP), the other approvers vote on it, and
 * the activity's outcome under the organization's policies (the emulator's gate) must be the one
 * the row states, before and after the change. The organization's users are the principals: the
 * witnesses name only them, with their own tags.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyformClient } from "../../sdk/client/client";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { operations } from "../../sdk/wire/registry";
import { diffPolicies, type AccessChange, type DiffUser } from "../../sdk/policy/smt/diff";
import { simulate, type PolicyRecord } from "../../sdk/policy";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let t: TestEmulator;
let root: KeyformClient;
const clients = new Map<string, KeyformClient>();
const ids: Record<string, string> = {};
let ops = "";

function clientFor(pair: { publicKey: string; privateKey: string }): KeyformClient {
  return new KeyformClient({
    baseUrl: t.emulator.url,
    organizationId: t.emulator.bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }),
    retry: { maxRetries: 0 },
    poll: { intervalMs: 50 },
  });
}

/** The client operation that submits an activity type. */
function operationOf(type: string): string {
  const found = Object.entries(operations).find(([, op]) => (op as { kind: string; type?: string }).kind === "activity" && (op as { type: string }).type === type);
  if (!found) throw new Error(`no operation submits ${type}`);
  return found[0];
}

/** Replaces the organization's policies (as the root quorum, which policies do not bind). */
async function install(policies: readonly PolicyRecord[]): Promise<void> {
  for (const p of (await root.listPolicies()).policies) await root.deletePolicy({ policyId: p.policyId });
  for (const p of policies) await root.createPolicy({ policyName: p.policyName ?? p.policyId, effect: p.effect as "EFFECT_ALLOW", condition: p.condition ?? "", consensus: p.consensus ?? "", notes: "" });
}

let serial = 0;

/**
 * The witness's parameters with its names made unique (the organization refuses a second wallet
 * or tag of one name, a rule of the store, not of the policies): the policies here read no params,
 * which the evaluator confirms (the same decision with and without the new names).
 */
function unique(change: AccessChange, policies: readonly PolicyRecord[]): Record<string, unknown> {
  const parameters = { ...(change.witness.parameters as Record<string, unknown>) };
  serial++;
  for (const field of ["walletName", "userTagName"]) if (typeof parameters[field] === "string") parameters[field] = `${parameters[field] as string}-${serial}`;
  expect(simulate(policies, { ...change.witness, parameters }).outcome).toBe(simulate(policies, change.witness).outcome);
  return parameters;
}

/** Submits a row's witness as its submitter, with the approvers' votes; "allowed" when the activity ran. */
async function submitted(change: AccessChange, policies: readonly PolicyRecord[]): Promise<"allowed" | "refused" | "needs consensus"> {
  const [submitter, ...approvers] = change.witness.approvers!;
  const client = clients.get(submitter!.id)!;
  let activity;
  try {
    activity = await client.submitActivity(operationOf(change.witness.type) as never, unique(change, policies) as never, { allowIncomplete: true });
  } catch (error) {
    if ((error as { status?: number }).status === 403) return "refused";
    throw error;
  }
  for (const approver of approvers) {
    if (activity.status !== "ACTIVITY_STATUS_CONSENSUS_NEEDED") break;
    try {
      await clients.get(approver.id)!.approveActivity({ fingerprint: activity.fingerprint });
    } catch (error) {
      if ((error as { status?: number }).status === 403) return "refused";
      throw error;
    }
    activity = (await root.getActivity({ activityId: activity.id })).activity;
  }
  if (activity.status === "ACTIVITY_STATUS_COMPLETED") return "allowed";
  return activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED" ? "needs consensus" : "refused";
}

const expected = (outcome: string) => (outcome === "OUTCOME_ALLOW" ? "allowed" : outcome === "OUTCOME_REQUIRES_CONSENSUS" ? "needs consensus" : "refused");

beforeAll(async () => {
  t = await startTestEmulator();
  root = clientFor({ publicKey: t.emulator.bootstrap.apiPublicKey, privateKey: t.emulator.bootstrap.apiPrivateKey });
  for (const name of ["alice", "bob", "carol"]) {
    const key = generateApiKeyPair();
    const { userIds } = await root.createUsers({ users: [{ userName: name, apiKeys: [{ apiKeyName: `${name}-key`, publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }] });
    ids[name] = userIds[0]!;
    clients.set(userIds[0]!, clientFor(key));
  }
  ops = (await root.createUserTag({ userTagName: "ops", userIds: [ids.alice!, ids.bob!] })).userTagId;
}, 120_000);
afterAll(async () => {
  await t?.stop();
});

describe("diff witnesses submitted to the emulator", () => {
  it("every row's witness, sent and approved by the organization's users, is decided as the row says on both sides", async () => {
    const allow = (name: string, condition: string, consensus: string): PolicyRecord => ({ policyId: name, policyName: name, effect: "EFFECT_ALLOW", condition, consensus });
    const before = [
      allow("tags by two of ops", "activity.kind == 'CREATE_USER_TAG'", `approvers.filter(u, u.tags.contains('${ops}')).count() >= 2`),
      allow("wallets with alice", "activity.kind == 'CREATE_WALLET'", `approvers.any(u, u.id == '${ids.alice}')`),
    ];
    const after = [
      allow("tags by two of ops", "activity.kind == 'CREATE_USER_TAG'", `approvers.filter(u, u.tags.contains('${ops}')).count() >= 1`),
      before[1]!,
      { policyId: "no wallets with carol", policyName: "no wallets with carol", effect: "EFFECT_DENY", condition: "activity.kind == 'CREATE_WALLET'", consensus: `approvers.any(u, u.id == '${ids.carol}')` },
    ];
    // The organization's users as the CLI reads them (the root quorum's user is left out: it bypasses policies).
    const quorum = new Set([t.emulator.bootstrap.userId]);
    const users: DiffUser[] = (await root.listUsers()).users.map((u) => ({ id: u.userId, tags: u.userTags, email: u.userEmail ?? "", alias: u.userName, root: quorum.has(u.userId) }));
    const diff = await diffPolicies(before, after, { users });
    expect(diff.proved).toBe(true);
    expect(diff.changes.some((c) => c.direction === "gains")).toBe(true);
    expect(diff.changes.some((c) => c.direction === "loses")).toBe(true);
    // Votes are part of it: some witnesses are approved by others than their submitter.
    expect(diff.changes.some((c) => c.witness.approvers!.length > 1)).toBe(true);
    const members = new Map(users.filter((u) => !u.root).map((u) => [u.id, u]));
    for (const change of diff.changes) {
      for (const a of change.witness.approvers!) expect([...(a.tags ?? [])].sort()).toEqual([...(members.get(a.id)!.tags ?? [])].sort());
    }
    // Before the change, then after it (a witness runs only on the side that allows it).
    await install(before);
    const beforeSeen = [];
    for (const change of diff.changes) beforeSeen.push(await submitted(change, before));
    expect(beforeSeen).toEqual(diff.changes.map((c) => expected(c.before)));
    await install(after);
    const afterSeen = [];
    for (const change of diff.changes) afterSeen.push(await submitted(change, after));
    expect(afterSeen).toEqual(diff.changes.map((c) => expected(c.after)));
  }, 180_000);
});
