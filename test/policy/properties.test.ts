/**
 * Properties of a policy set beyond a diff, proved with the real Z3 solver, each "yes" with a
 * witness the evaluator replays: can/cannot, errors, redundant ALLOWs, DENYs that block nothing,
 * and a break-glass tag's lockout.
 */
import { describe, expect, it } from "vitest";
import { activityCatalog, simulate, type PolicyRecord } from "../../sdk/policy";
import { canQuery, lockoutCheck, policyFindings } from "../../sdk/policy/smt/properties";
import { proveContradictions } from "../../sdk/policy/smt/consistency";

const allow = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_ALLOW", condition, consensus });
const deny = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_DENY", condition, consensus });

describe("policy properties", () => {
  const policies = [
    allow("sign-w1", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-1'", "approvers.any(u, u.tags.contains('tag-ops'))"),
    allow("policies", "activity.resource == 'POLICY'", "approvers.filter(u, u.tags.contains('tag-sec')).count() >= 2"),
  ];

  it("can: a tagged user signs with w-1 alone (replayed); an untagged user cannot alone, proved", async () => {
    const yes = await canQuery(policies, { user: { id: "u-ann", tags: ["tag-ops"] } }, "SIGN_TRANSACTION", "w-1");
    const alone = yes.answers.find((a) => a.how === "alone")!;
    expect(alone.allowed).toBe(true);
    expect(simulate(policies, alone.witness!).outcome).toBe("OUTCOME_ALLOW");
    expect(alone.witness!.approvers![0]!.id).toBe("u-ann");
    const no = await canQuery(policies, { user: { id: "u-bo", tags: [] } }, "SIGN_TRANSACTION", "w-2");
    expect(no.answers.every((a) => !a.allowed && a.proved)).toBe(true);
    const withApprovers = await canQuery(policies, { tag: "tag-sec" }, "CREATE_POLICY");
    expect(withApprovers.answers.find((a) => a.how === "alone")!).toMatchObject({ allowed: false, proved: true });
    expect(withApprovers.answers.find((a) => a.how === "with approvers")!.allowed).toBe(true);
  });

  it("can over the organization's users: their own tags, its users as approvers, and the witness agrees with simulate", async () => {
    const users = [
      { id: "u-ann", tags: ["tag-sec"], alias: "ann" },
      { id: "u-ben", tags: ["tag-sec"], alias: "ben" },
      { id: "u-cy", tags: [], alias: "cy" },
    ];
    const ann = await canQuery(policies, { user: users[0]! }, "CREATE_POLICY", undefined, users);
    const voted = ann.answers.find((a) => a.how === "with approvers")!;
    expect(voted.allowed).toBe(true);
    expect(voted.witness!.approvers!.map((a) => a.id).sort()).toEqual(["u-ann", "u-ben"]);
    expect(voted.witness!.approvers![0]!.id).toBe("u-ann");
    expect(simulate(policies, voted.witness!).outcome).toBe("OUTCOME_ALLOW");
    // Only one tag-sec user besides cy: cy cannot gather two security approvals without ann and ben, who exist.
    const cy = await canQuery(policies, { user: users[2]! }, "CREATE_POLICY", undefined, users);
    expect(cy.answers.find((a) => a.how === "with approvers")!.allowed).toBe(true);
    // With one security user only, nobody can (symbolic approvers could: any number of tag-sec users).
    const lone = [users[0]!, users[2]!];
    const none = await canQuery(policies, { user: lone[1]! }, "CREATE_POLICY", undefined, lone);
    expect(none.answers.every((a) => !a.allowed && a.proved)).toBe(true);
    const symbolic = await canQuery(policies, { user: lone[1]! }, "CREATE_POLICY");
    expect(symbolic.answers.find((a) => a.how === "with approvers")!.allowed).toBe(true);
  });

  it("findings: a DENY reading a missing param errors and blocks nothing; a duplicate ALLOW is redundant", async () => {
    const set = [...policies, allow("dup", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-1'", "approvers.any(u, u.tags.contains('tag-ops'))"), deny("no-raw", "activity.kind == 'CREATE_WALLET' && activity.params.hash_function == 'X'")];
    const { findings } = await policyFindings(set);
    expect(findings.find((f) => f.policyId === "no-raw" && f.property === "deny-blocks-nothing")).toMatchObject({ proved: true });
    const errs = findings.find((f) => f.policyId === "no-raw" && f.property === "may-error")!;
    expect(simulate([set[3]!], errs.witness!).evaluations[0]!.outcome).toBe("OUTCOME_ERROR");
    expect(findings.some((f) => f.policyId === "dup" && f.property === "redundant")).toBe(true);
    expect(findings.some((f) => f.policyId === "policies" && f.property === "redundant")).toBe(false);
  });

  it("findings over the organization's users: every witness names its users with their own tags, and the run agrees with simulate and can", async () => {
    const users = [
      { id: "u-ann", tags: ["tag-sec", "tag-ops"], alias: "ann" },
      { id: "u-ben", tags: ["tag-sec"], alias: "ben" },
      { id: "u-cy", tags: [], alias: "cy" },
      { id: "u-root", tags: ["tag-sec"], alias: "root", root: true },
    ];
    const set = [...policies, allow("dup", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-1'", "approvers.any(u, u.tags.contains('tag-ops'))"), deny("no-raw", "activity.kind == 'CREATE_WALLET' && activity.params.hash_function == 'X'")];
    const result = await policyFindings(set, users);
    const members = new Map(users.filter((u) => !u.root).map((u) => [u.id, u]));
    const witnesses = [...result.findings.flatMap((f) => (f.witness ? [f.witness] : [])), ...result.matters.map((m) => m.witness)];
    expect(witnesses.length).toBeGreaterThan(2);
    for (const w of witnesses) {
      for (const a of w.approvers ?? []) expect([...(a.tags ?? [])].sort()).toEqual([...(members.get(a.id)?.tags ?? ["(not a user)"])].sort());
    }
    // The ALLOWs that matter show it with a request of the organization's users.
    expect(result.matters.map((m) => m.policyId)).toContain("policies");
    // Each of two identical ALLOWs is redundant (the other stays).
    expect(result.findings.filter((f) => f.property === "redundant").map((f) => f.policyId).sort()).toEqual(["dup", "sign-w1"]);
    expect(await proveContradictions(set, result, users)).toEqual([]);
  });

  it("a run that contradicts itself is caught: a finding simulate or can disagrees with", async () => {
    const users = [
      { id: "u-ann", tags: ["tag-ops"], alias: "ann" },
      { id: "u-cy", tags: [], alias: "cy" },
    ];
    const result = await policyFindings(policies, users);
    const signs = result.matters.find((m) => m.policyId === "sign-w1")!;
    expect(signs).toBeDefined();
    // Claimed redundant while a request of the run needs it; claimed never erring while its witness errs.
    const redundant = { ...result, findings: [...result.findings, { policyId: "sign-w1", policyName: "sign-w1", property: "redundant" as const, proved: true }] };
    expect((await proveContradictions(policies, redundant, users)).join()).toMatch(/"sign-w1" is proved redundant, but removing it changes simulate's decision/);
    const erring = deny("erring", "activity.params.hash_function == 'X'");
    const withErring = await policyFindings([...policies, erring], users);
    const flipped = { ...withErring, findings: withErring.findings.map((f) => (f.policyId === "erring" && f.property === "may-error" ? { ...f, property: "never-errors" as const, proved: true } : f)) };
    expect((await proveContradictions([...policies, erring], flipped, users)).join()).toMatch(/"erring" is proved never to error, but errors in simulate/);
    // A witness that gives a user a tag the organization does not give them: allowed in simulate, while `can` proves cy unable alone.
    const byCy = { ...result, matters: [{ policyId: "sign-w1", witness: { ...signs.witness, approvers: [{ id: "u-cy", tags: ["tag-ops"], email: "", alias: "cy" }] } }] };
    expect((await proveContradictions(policies, byCy, users)).join()).toMatch(/by u-cy is allowed alone in simulate .*, but can proves u-cy unable to run SIGN_TRANSACTION alone/);
  });

  it("may-error lists every activity kind where the policy errors, complete and each replayed", async () => {
    const unscoped = deny("unscoped", "activity.params.hash_function == 'HASH_FUNCTION_NO_OP'");
    const scoped = allow("scoped", "activity.kind == 'CREATE_USERS'", "approvers.any(u, u.tags.contains('tag-ops'))");
    const { findings, notProved } = await policyFindings([unscoped, scoped]);
    expect(notProved).toEqual([]);
    const errs = findings.find((f) => f.policyId === "unscoped" && f.property === "may-error")!;
    expect(errs.proved).toBe(true);
    // Types without the field error; so may a later version of a type that has it (its params are unknown).
    expect(errs.kinds).toEqual(expect.arrayContaining(["CREATE_USERS", "DELETE_POLICY", "CREATE_WALLET", "SIGN_RAW_PAYLOAD"]));
    expect(errs.kinds!.length).toBeGreaterThan(20);
    expect(findings.find((f) => f.policyId === "scoped")!.property).toBe("never-errors");
    // Each kind listed errors on some request of that kind.
    const typeOf = (kind: string) => [...activityCatalog().values()].find((entry) => entry.kind === kind)?.type;
    const onUsers = simulate([unscoped], { type: typeOf("CREATE_USERS")!, parameters: {}, approvers: [{ id: "u-1", tags: [] }] });
    expect(onUsers.evaluations[0]!.outcome).toBe("OUTCOME_ERROR");
  });

  it("lockout: raising the threshold out of reach of no one keeps access; removing the policy ALLOW loses it for the break-glass tag", async () => {
    const kept = await lockoutCheck(policies, [policies[0]!, { ...policies[1]!, consensus: "approvers.filter(u, u.tags.contains('tag-sec')).count() >= 5" }], "tag-sec", ["CREATE_POLICY"]);
    expect(kept.lost).toEqual([]);
    const lost = await lockoutCheck(policies, [policies[0]!], "tag-sec", ["CREATE_POLICY"]);
    expect(lost.lost).toEqual(["CREATE_POLICY"]);
  });

  it("lockout covers what recovery needs beyond the policies: putting a user in a tag", async () => {
    const tagging = allow("tagging", "activity.resource == 'USER' && activity.action == 'UPDATE'", "approvers.any(u, u.tags.contains('tag-sec'))");
    const result = await lockoutCheck([...policies, tagging], policies, "tag-sec");
    expect(result.lost).toEqual(expect.arrayContaining(["UPDATE_USER_TAG", "UPDATE_USER"]));
    expect(result.lost).not.toContain("CREATE_POLICY");
    expect(result.proved).toBe(true);
    const kept = await lockoutCheck([...policies, tagging], [...policies, tagging], "tag-sec");
    expect(kept.lost).toEqual([]);
  });
});
