/**
 * The users a change of the access diff lists, against a brute-force oracle: every user of the
 * organization replayed one by one through the evaluator, on the whole policy sets, with none of
 * the labeller's reductions (policies whose condition fails left out, users grouped by tags).
 */
import { describe, expect, it } from "vitest";
import { simulateVotes, type PolicyRecord } from "../../sdk/policy";
import { diffPolicies, type AccessChange, type DiffUser } from "../../sdk/policy/smt/diff";
import { UserLabels } from "../../sdk/policy/smt/labels";

const allow = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_ALLOW", condition, consensus });
const deny = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_DENY", condition, consensus });

/** Users in 4 tags, some with two, some named by policies, one with an email equal to its id, one without tags. */
const users: DiffUser[] = [
  ...Array.from({ length: 16 }, (_, i) => ({ id: `user-${i}`, tags: [`tag-${i % 4}`, ...(i % 5 === 0 ? [`tag-${(i + 1) % 4}`] : [])], alias: `user ${i}` })),
  { id: "same@x", email: "same@x", tags: ["tag-1"] },
  { id: "untagged" },
];

const before: PolicyRecord[] = [
  allow("tag-admin", "activity.resource == 'USER' && activity.action == 'CREATE'", "approvers.any(u, u.tags.contains('tag-0'))"),
  allow("pair", "activity.resource == 'USER'", "approvers.filter(u, u.tags.contains('tag-1')).count() >= 2"),
  allow("by-id", "activity.resource == 'USER' && activity.action == 'CREATE'", "approvers.any(u, u.id == 'user-3')"),
  allow("other-by-id", "activity.resource == 'POLICY'", "approvers.any(u, u.id == 'user-5' || u.alias == 'user 6')"),
  deny("no-delete", "activity.resource == 'USER' && activity.action == 'DELETE'", "approvers.any(u, u.id == 'user-7')"),
  allow("sign", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-1'", "approvers.any(u, u.tags.contains('tag-2'))"),
  allow("tags-edit", "activity.kind in ['CREATE_USER_TAG', 'UPDATE_USER_TAG'] && activity.params.user_ids.count() <= 1", "approvers.any(u, u.id == 'user-9')"),
];

/** The same set after a pull request: a lowered threshold, a wider signing ALLOW, a removed DENY, a new ALLOW by alias or tag. */
const after: PolicyRecord[] = [
  before[0]!,
  { ...before[1]!, consensus: "approvers.filter(u, u.tags.contains('tag-1')).count() >= 1" },
  before[2]!,
  before[3]!,
  { ...before[5]!, condition: "activity.kind == 'SIGN_TRANSACTION' && wallet.id in ['w-1', 'w-cold']" },
  before[6]!,
  allow("by-alias", "activity.resource == 'USER' && activity.action == 'DELETE'", "approvers.any(u, u.alias == 'user 11' || u.tags.contains('tag-3'))"),
];

/** Every user for whom the witness, submitted by them with the same approvals (in the submitter's place, or first when they approve) voting in turn, changes as the change says. */
function oracle(change: AccessChange, b4: readonly PolicyRecord[], af: readonly PolicyRecord[]): string[] {
  const given = change.how === "alone" ? [] : (change.witness.approvers ?? []);
  return users
    .filter((u) => {
      const submitter = { id: u.id, tags: u.tags ?? [], email: u.email ?? "", alias: u.alias ?? "" };
      const others = given.some((o) => o.id === u.id) ? given.filter((o) => o.id !== u.id) : given.slice(1);
      const activity = { ...change.witness, approvers: [submitter, ...others] };
      const [b, a] = [simulateVotes(b4, activity).outcome === "OUTCOME_ALLOW", simulateVotes(af, activity).outcome === "OUTCOME_ALLOW"];
      return change.direction === "gains" ? !b && a : b && !a;
    })
    .map((u) => u.id)
    .sort();
}

describe("diff labels", () => {
  it("each change lists exactly the users the brute-force replay finds, both ways", async () => {
    for (const [b4, af] of [
      [before, after],
      [after, before],
    ] as const) {
      const diff = await diffPolicies(b4, af, { users });
      expect(diff.notProved).toEqual([]);
      expect(diff.changes.length).toBeGreaterThan(2);
      expect(diff.changes.some((c) => c.users.length > 0 && c.users.length < users.length)).toBe(true);
      for (const change of diff.changes) {
        expect(change.users.map((u) => u.id).sort()).toEqual(oracle(change, b4, af));
        // Names beside the ids; the witness's submitter and approvers are the organization's users, with their own tags.
        for (const u of change.users) expect(u.name).toBe(users.find((x) => x.id === u.id)!.alias || users.find((x) => x.id === u.id)!.email || u.id);
        for (const a of change.witness.approvers ?? []) expect([...(a.tags ?? [])].sort()).toEqual([...(users.find((x) => x.id === a.id)!.tags ?? [])].sort());
      }
    }
  }, 120_000);

  it("a user named only by a policy whose condition fails on the witness answers with its tags' group", () => {
    // user-5 is named by other-by-id (POLICY only): on a CREATE_USER witness it is one more tag-1 user.
    const witness = { type: "ACTIVITY_TYPE_CREATE_USERS_V3", parameters: { users: [] }, approvers: [] };
    const labels = new UserLabels(users);
    const named = labels.replaying(witness, "alone", "gains", [before[1]!, before[3]!], [after[1]!, after[3]!]).map((u) => u.id);
    const change = { direction: "gains", how: "alone", witness } as unknown as AccessChange;
    expect(named.sort()).toEqual(oracle(change, [before[1]!, before[3]!], [after[1]!, after[3]!]));
    expect(named).toContain("user-5");
    expect(named).not.toContain("user-6");
  });
});
