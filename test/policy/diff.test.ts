/**
 * The access diff, proved with the real Z3 solver over the policy language: changes found with
 * concrete witnesses that the evaluator replays, "no change" proved for rewrites that mean the
 * same, the service's error semantics (an erroring DENY blocks nothing), consensus changes, and
 * clauses outside the proved fragment reported as such.
 */
import { describe, expect, it } from "vitest";
import { simulate, simulateVotes, type PolicyRecord } from "../../sdk/policy";
import { diffPolicies, type DiffUser } from "../../sdk/policy/smt/diff";
import { DOCUMENTED_EXAMPLES } from "./examples";
import { activityCatalog } from "../../sdk/policy/catalog";
import { requiredParameters, witnessProblem } from "../../sdk/policy/smt/witness";
import { encodeEthereumTransaction } from "../../sdk/policy/transactions/encode";

const allow = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_ALLOW", condition, consensus });
const deny = (policyId: string, condition: string, consensus = ""): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_DENY", condition, consensus });
const users: DiffUser[] = [
  { id: "u-alice", tags: ["tag-sec"] },
  { id: "u-bob", tags: ["tag-sec"] },
  { id: "u-carol", tags: ["tag-ops"] },
  { id: "u-dave" },
];

describe("policy diff", () => {
  it("example 3 with its threshold lowered: each security user gains creating policies alone, proved and replayed", async () => {
    const before = DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith("3 "))!.policies;
    const after = [{ ...before[0]!, consensus: "approvers.filter(user, user.tags.contains('tag-sec')).count() >= 1" }];
    const diff = await diffPolicies(before, after, { users });
    expect(diff.notProved).toEqual([]);
    expect(diff.changes.every((c) => c.direction === "gains" && c.confirmed)).toBe(true);
    const alone = diff.changes.find((c) => c.how === "alone")!;
    expect(alone.users.map((u) => u.id).sort()).toEqual(["u-alice", "u-bob"]);
    expect(alone.kinds).toContain("CREATE_POLICY");
    expect(alone.kinds.every((k) => /POLIC/.test(k))).toBe(true);
    expect(simulate(after, alone.witness).outcome).toBe("OUTCOME_ALLOW");
    expect(simulate(before, alone.witness).outcome).toBe("OUTCOME_REQUIRES_CONSENSUS");
    // Everyone now needs one security approver instead of two: a consensus change for every user.
    const consensus = diff.changes.filter((c) => c.how === "with approvers");
    expect([...new Set(consensus.flatMap((c) => c.users.map((u) => u.id)))].sort()).toEqual(users.map((u) => u.id).sort());
    for (const c of consensus) expect(c.witness.approvers!.some((a) => a.tags?.includes("tag-sec"))).toBe(true);
  });

  it("rewrites that mean the same are proved to change nothing", async () => {
    const before = [allow("a", "activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.any(u, u.id == 'u-alice')"), deny("d", "activity.action == 'DELETE'")];
    const after = [
      allow("a", "activity.action in ['CREATE'] && !(activity.resource != 'WALLET')", "approvers.any(x, x.id == 'u-alice' || (x.id == 'u-alice' && x.tags.contains('tag-sec')))"),
      deny("d", "activity.action == 'DELETE' || (activity.action == 'DELETE' && activity.kind == 'DELETE_USERS')"),
    ];
    const diff = await diffPolicies(before, after, { users });
    expect(diff.changes).toEqual([]);
    expect(diff.notProved).toEqual([]);
    expect(diff.proved).toBe(true);
  });

  it("a change only a user the organization does not have could make is a note, not a row; without users it is a row", async () => {
    const before = [allow("a", "activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.any(u, u.id == 'u-alice')")];
    const after = [allow("a", "activity.resource == 'WALLET' && activity.action == 'CREATE'", "approvers.any(x, x.id == 'u-alice' || x.id == 'u-nobody')")];
    const diff = await diffPolicies(before, after, { users });
    expect(diff.changes).toEqual([]);
    expect(diff.proved).toBe(true);
    expect(diff.outsiders.length).toBeGreaterThan(0);
    expect(diff.outsiders[0]!.witness.approvers!.some((a) => a.id === "u-nobody")).toBe(true);
    // More approvers than the organization has: a note too.
    const count = (n: number) => [allow("c", "activity.kind == 'CREATE_WALLET'", `approvers.count() >= ${n}`)];
    const many = await diffPolicies(count(6), count(5), { users });
    expect(many.changes).toEqual([]);
    expect(many.outsiders.map((o) => o.note).join()).toMatch(/5 approvers where it has 4 users/);
    const symbolic = await diffPolicies(before, after);
    expect(symbolic.symbolic).toBe(true);
    expect(symbolic.changes.find((c) => c.direction === "gains")!.witness.approvers!.some((a) => a.id === "u-nobody")).toBe(true);
  });

  it("adding example 14's DENY takes away blind raw-payload signing only: it errors, so blocks nothing, elsewhere", async () => {
    const base = [allow("policies", "activity.resource == 'POLICY'"), allow("raw", "activity.kind in ['SIGN_RAW_PAYLOAD', 'SIGN_TRANSACTION'] && private_key.id == 'pk-1'")];
    const rawDeny = DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith("14 "))!.policies[0]!;
    const diff = await diffPolicies(base, [...base, rawDeny], { users });
    expect(diff.changes.length).toBeGreaterThan(0);
    for (const change of diff.changes) {
      expect(change).toMatchObject({ direction: "loses", kinds: ["SIGN_RAW_PAYLOAD"], target: "private key pk-1", confirmed: true });
      expect(change.witness.parameters).toMatchObject({ hashFunction: "HASH_FUNCTION_NO_OP", signWith: "pk-1", payload: expect.any(String) });
      expect((change.witness.parameters as { encoding: string }).encoding).not.toBe("PAYLOAD_ENCODING_EIP712");
    }
    expect([...new Set(diff.changes.flatMap((c) => c.users.map((u) => u.id)))].sort()).toEqual(users.map((u) => u.id).sort());
  });

  it("removing a DENY limited by an approver's id gains access only for that approver, who was refused at submission", async () => {
    const base = [allow("deletes", "activity.action == 'DELETE'")];
    const blocker = deny("no-deletes-with-dave", "activity.resource == 'USER' && activity.action == 'DELETE'", "approvers.any(u, u.id == 'u-dave')");
    // Conditions that error on a type are no match there: a DENY reading eth.tx under an ALLOW on POLICY changes nothing.
    const onPolicy = [allow("policies", "activity.resource == 'POLICY'")];
    const chainDeny = await diffPolicies(onPolicy, [...onPolicy, deny("chain", "eth.tx.chain_id != 1")], { users });
    expect(chainDeny.changes).toEqual([]);
    expect(chainDeny.proved).toBe(true);
    const diff = await diffPolicies([...base, blocker], base, { users });
    const gains = diff.changes.filter((c) => c.direction === "gains");
    expect(gains.length).toBeGreaterThan(0);
    for (const change of gains) {
      expect(change.kinds.every((k) => k.startsWith("DELETE_USER"))).toBe(true);
      expect(change.witness.approvers!.map((a) => a.id)).toContain("u-dave");
    }
    // As the service decides, votes in turn: anyone else submitting is allowed at once, before dave
    // could vote; only dave's own submissions were refused (the DENY applied to his first vote).
    expect([...new Set(gains.flatMap((c) => c.users.map((u) => u.id)))].sort()).toEqual(["u-dave"]);
  });

  it("a pair that differs only in its time clause is a change, with a witness at a time the clauses tell apart", async () => {
    const condition = "activity.kind == 'SIGN_TRANSACTION'";
    const always = { ...allow("sign", condition), time: "" };
    const from2030 = { ...allow("sign", condition), time: "time.now >= Timestamp('2030-01-01T00:00:00Z')" };
    const untilJune2030 = { ...allow("sign", condition), time: "time.now < Timestamp('2030-06-01T00:00:00Z')" };
    const added = await diffPolicies([always], [from2030], { users });
    expect(added.notProved).toEqual([]);
    expect(added.changes.length).toBeGreaterThan(0);
    for (const change of added.changes) {
      expect(change).toMatchObject({ direction: "loses", confirmed: true });
      expect(change.kinds).toContain("SIGN_TRANSACTION");
      expect(simulate([always], change.witness).outcome).toBe("OUTCOME_ALLOW");
      expect(simulate([from2030], change.witness).outcome).not.toBe("OUTCOME_ALLOW");
    }
    // One time clause for another: access is both gained and lost, each replayed.
    const swapped = await diffPolicies([from2030], [untilJune2030], { users });
    expect(swapped.notProved).toEqual([]);
    expect(new Set(swapped.changes.map((c) => c.direction))).toEqual(new Set(["gains", "loses"]));
    expect(swapped.changes.every((c) => c.confirmed)).toBe(true);
  });

  it("without users, the principals are symbolic and the report says so: a tag's members are described, not invented", async () => {
    const diff = await diffPolicies([], [allow("ops", "activity.resource == 'USER'", "approvers.any(u, u.tags.contains('tag-ops'))")]);
    expect(diff.symbolic).toBe(true);
    expect(diff.principals).toMatch(/^symbolic: any user with any tags/);
    const alone = diff.changes.find((c) => c.how === "alone")!;
    expect(alone.users).toEqual([]);
    expect(alone.who).toBe("any user tagged tag-ops");
    expect(diff.proved).toBe(true);
  });

  it("clauses outside the proved fragment are named; a change whose witness does not replay is no row, and the diff is not proved", async () => {
    const passkey = DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith("7 "))!.policies[0]!;
    const diff = await diffPolicies([], [passkey], { users });
    expect(diff.proved).toBe(false);
    expect(diff.notProved.map((n) => n.clause)).toContain("credentials.any(credential, (credential.type == 'CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR'))");
    expect(diff.notProved.map((n) => n.reason).join()).toMatch(/did not replay as the service decides \(submission, then votes in turn\): not reported/);
    expect(diff.changes.every((c) => c.confirmed && simulate([passkey], c.witness).outcome === "OUTCOME_ALLOW")).toBe(true);
  });

  it("a user whose change the solver found only replays with another approver submitting first is still searched, and listed", async () => {
    // erin alone is allowed at once under both sets when the value is 0 (the second ALLOW), so the
    // set of approvers the solver picks for her replays only with bob submitting; her own loss is
    // at value 1, with bob's vote after hers.
    const tagged: DiffUser[] = [
      { id: "u-alice", tags: ["tag-a"], alias: "alice" },
      { id: "u-bob", tags: ["tag-a", "tag-b"], alias: "bob" },
      { id: "u-carol", tags: ["tag-b"], alias: "carol" },
      { id: "u-erin", tags: ["tag-a"], alias: "erin" },
    ];
    const quorum = allow("quorum", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.value <= 1", "(approvers.any(u, u.id == 'u-erin' && u.tags.contains('tag-a'))) && (approvers.any(u, 'tag-b' in u.tags))");
    const erinAtZero = allow("erin-at-zero", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.value == 0", "approvers.any(u, u.id == 'u-erin' && u.tags.contains('tag-a'))");
    const before = [quorum, erinAtZero];
    const after = [{ ...quorum, effect: "EFFECT_DENY" }, erinAtZero];
    const erinFirst = {
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      parameters: { signWith: `0x${"a1".repeat(20)}`, unsignedTransaction: encodeEthereumTransaction({ kind: "TYPE_2", chainId: 1n, nonce: 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, gas: 21000n, to: "", value: 1n, data: "0x" }), type: "TRANSACTION_TYPE_ETHEREUM" },
      keywords: { eth: { tx: { value: 1 } } },
      approvers: [tagged[3]!, tagged[1]!],
    };
    expect([simulateVotes(before, erinFirst).outcome, simulateVotes(after, erinFirst).outcome]).toEqual(["OUTCOME_ALLOW", "OUTCOME_DENY_IMPLICIT"]);
    const diff = await diffPolicies(before, after, { users: tagged });
    const erinLoses = diff.changes.some((c) => c.direction === "loses" && c.kinds.includes("SIGN_TRANSACTION") && c.users.some((u) => u.id === "u-erin"));
    // Every set the solver picks for erin at value 0 is decided alike in every order of votes with
    // her first: those are ruled out one by one, and her own change (at value 1) is found.
    expect(erinLoses).toBe(true);
    expect(diff.proved).toBe(true);
  });

  it("rows speak only of the service's catalog: a kind's versions it does not have are no rows, and an exact version match is a migration note", async () => {
    const byResource = [allow("p", "activity.resource == 'POLICY' && activity.action == 'DELETE'")];
    const byKinds = [allow("p", "activity.kind in ['DELETE_POLICY', 'DELETE_POLICIES']")];
    const same = await diffPolicies(byResource, byKinds, { users });
    expect(same.changes).toEqual([]);
    expect(same.proved).toBe(true);
    const exact = await diffPolicies([allow("s", "activity.kind == 'EXPORT_WALLET'")], [allow("s", "activity.type == 'ACTIVITY_TYPE_EXPORT_WALLET'")], { users });
    expect(exact.changes).toEqual([]);
    expect(exact.migrations.map((m) => m.note).join()).toMatch(/stops applying when the service moves EXPORT_WALLET to a new version/);
    // Always-erroring ALLOWs (a params field no documented type has) rewritten: nothing changes.
    const erroring = await diffPolicies([allow("e", "activity.params.policy_name == 'x'")], [allow("e", "activity.params.policy_name != 'y'")], { users });
    expect(erroring.changes).toEqual([]);
    expect(erroring.proved).toBe(true);
  });

  it("a witness of every catalog type carries parameters valid under the type's wire schema; a type the service does not have is refused", () => {
    const problems = [...activityCatalog().keys()].map((type) => witnessProblem({ type, parameters: requiredParameters(type), approvers: [{ id: "u" }] })).filter((p) => p !== undefined);
    expect(problems).toEqual([]);
    expect(witnessProblem({ type: "ACTIVITY_TYPE_EXPORT_WALLET_V2", parameters: {}, approvers: [{ id: "u" }] })).toMatch(/not an activity type of the service's catalog/);
    expect(witnessProblem({ type: "ACTIVITY_TYPE_CREATE_POLICIES", parameters: { policies: [] }, approvers: [{ id: "u" }] })).toMatch(/parameters\.policies/);
  });

  it("each parsed payload is present on its own: an EIP-712 DENY takes nothing from transaction signing; Tempo is modelled, but no transaction keyform decodes carries it", async () => {
    const signing = allow("sign", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.value < 10");
    const permitDeny = deny("no-permit", "eth.eip_712.primary_type == 'Permit'");
    const same = await diffPolicies([signing], [signing, permitDeny]);
    expect(same.notProved).toEqual([]);
    expect(same.changes).toEqual([]);
    expect(same.proved).toBe(true);
    // The solver finds the gain; its witness would need a Tempo transaction, which neither the
    // emulator nor keyform decodes: a witness whose payload is an Ethereum transaction does not
    // show it, so there is no row and the diff is not proved.
    const tempo = await diffPolicies([], [allow("tempo", "activity.kind == 'SIGN_TRANSACTION' && tempo.tx.gas_limit <= 21000")]);
    expect(tempo.changes).toEqual([]);
    expect(tempo.proved).toBe(false);
    expect(tempo.notProved.map((n) => n.clause)).toEqual(["(witnesses)"]);
  });
});
