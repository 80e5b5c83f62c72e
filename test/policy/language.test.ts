/**
 * The policy language: every documented example parses, type checks and decides an allowed and
 * a refused activity as expected; broken expressions fail at the right line and column; the
 * authoring lints; and each evaluation rule of the engine.
 */
import { describe, expect, it } from "vitest";
import {
  checkPolicy,
  checkPolicyExpression,
  decide,
  evaluatePolicy,
  simulate,
  type PolicyRecord,
} from "../../sdk/policy";
import { DOCUMENTED_EXAMPLES } from "./examples";

describe("documented examples", () => {
  it("has at least 20", () => {
    expect(DOCUMENTED_EXAMPLES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(DOCUMENTED_EXAMPLES.map((e) => [e.name, e] as const))("%s: checks, allows one activity and refuses the other", (_name, example) => {
    for (const policy of example.policies) {
      const errors = checkPolicy(policy).filter((d) => d.severity === "error");
      expect(errors, policy.policyId).toEqual([]);
    }
    const warnings = checkPolicy(example.policies[0]!).filter((d) => d.severity === "warning").map((d) => d.rule);
    expect(warnings).toEqual(example.warnings ?? []);
    const allowed = simulate(example.policies, example.allowed);
    expect(allowed.outcome, allowed.reason + JSON.stringify(allowed.evaluations)).toBe("OUTCOME_ALLOW");
    const refused = simulate(example.policies, example.refused);
    expect(refused.outcome, refused.reason + JSON.stringify(refused.evaluations)).toBe(example.refusedOutcome);
  });

  it("example 9 refused with a wallet: the policy errors because private_key is not part of the request", () => {
    const example = DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith("9 "))!;
    const [evaluation] = simulate(example.policies, example.refused).evaluations;
    expect(evaluation).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("'private_key' is not part of this request") });
  });

  it("example 20 on a Sunday: the policy is TIME_INACTIVE, not a deny", () => {
    const example = DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith("20 "))!;
    expect(simulate(example.policies, example.refused).evaluations[0]!.outcome).toBe("OUTCOME_TIME_INACTIVE");
    // 17:00 New York is the last minute of the 8h span from 09:00; 17:00 itself is past it.
    expect(simulate(example.policies, { ...example.allowed, now: "2025-01-06T21:59:00Z" }).outcome).toBe("OUTCOME_ALLOW");
    expect(simulate(example.policies, { ...example.allowed, now: "2025-01-06T22:00:00Z" }).outcome).toBe("OUTCOME_DENY_IMPLICIT");
  });
});

/** The position (1-based line and column) of the first `marker` in `text`. */
function at(text: string, marker: string): { line: number; column: number } {
  const offset = text.indexOf(marker);
  if (offset < 0) throw new Error(`marker ${marker} not in ${text}`);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

describe("errors name the line, column and what was expected", () => {
  const cases: [kind: "condition" | "consensus" | "time", text: string, marker: string | "END", message: RegExp][] = [
    ["condition", "activity.resource == 'USER' &&& (", "& (", /unexpected character '&' \(use '&&'\)/],
    ["condition", "activity.action == ", "END", /expected a value, found the end of the expression/],
    ["condition", "activity.action = 'SIGN'", "= 'SIGN'", /unexpected character '=' \(use '=='\)/],
    ["condition", "(activity.action == 'SIGN'", "END", /expected '\)', found the end of the expression/],
    ["condition", 'activity.action == "SIGN"', '"SIGN"', /single quotes/],
    ["condition", "activity.action == 'SIGN", "'SIGN", /unterminated string/],
    ["condition", "activity.resource == <RESOURCE>", "<RESOURCE>", /placeholders like <ID> must be replaced/],
    ["condition", "solana.tx.transfers.count == 1", "count", /'count' is a method: write count\(\)/],
    ["condition", "eth.tx.chain_id == '11155111'", "==", /'==' cannot compare int with string/],
    ["condition", "activity.action == 'SIGN' &&\n  wallet.idd == 'w-1'", "idd", /Wallet has no field 'idd'; its fields are id, imported, exported, label/],
    ["condition", "approvers.any(user, user.id == 'u')", "approvers", /'approvers' is a consensus keyword; a condition may use activity/],
    ["consensus", "approvers.any(user, user.nmae == 'x')", "nmae", /User has no field 'nmae'/],
    ["consensus", "approvers.count()", "approvers", /a consensus must be a bool expression, but this is int/],
    ["condition", "activity.kind == 'SIGN_TRANSACTION' && activity.params.amount > 'ten'", ">", /'>' orders ints or timestamps, not dyn and string/],
    ["condition", "activity.action in 'SIGN'", "'SIGN'", /'in' needs a list on its right, found string/],
    ["condition", "activity.resource.sort()", "sort", /string has no method 'sort'/],
    ["time", "CronSpan('0 9 * * 1-5', '8d', 'America/New_York')", "CronSpan", /longer than the maximum of 7d/],
    ["time", "CronSpan('*/5 9 * * *', '1h', 'UTC')", "CronSpan", /steps \('\/'\) are not supported/],
    ["time", "CronSpan('0 9 * * MON', '1h', 'UTC')", "CronSpan", /expected numbers, ranges/],
    ["time", "CronSpan('0 9 * * 1', '1h', 'Mars/Olympus')", "CronSpan", /not an IANA time zone/],
    ["time", "time.now > Timestamp('2025-13-01T00:00:00Z')", "Timestamp", /not a valid date and time/],
    ["time", "time.now > Timestamp('2025-01-01 00:00')", "Timestamp", /RFC 3339 UTC time/],
    ["condition", "activity.action == 'SIGN' activity.kind", "activity.kind", /expected '&&', '\|\|' or the end of the expression, found 'activity'/],
  ];

  it.each(cases)("%s %j", (kind, text, marker, message) => {
    const result = checkPolicyExpression(kind, text);
    expect(result.expr).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    const error = result.errors[0]!;
    expect(error.message).toMatch(message);
    const where = marker === "END" ? at(text + "\u0000", "\u0000") : at(text, marker);
    expect({ line: error.position.line, column: error.position.column }).toEqual(where);
  });

  it("an empty expression is refused", () => {
    expect(checkPolicyExpression("condition", "   ").errors[0]?.message).toMatch(/expected an expression/);
  });
});

describe("lints (warnings; the expression still checks)", () => {
  it("mixed && and || without parentheses, but not with them", () => {
    const text = "activity.action == 'CREATE' && activity.resource == 'USER' || activity.resource == 'POLICY'";
    const mixed = checkPolicyExpression("condition", text);
    expect(mixed.errors).toEqual([]);
    expect(mixed.warnings.map((w) => w.rule)).toEqual(["mixed-and-or"]);
    // It points at the operator of the unparenthesised part.
    expect(mixed.warnings[0]!.position.column).toBe(at(text, "&&").column);
    const grouped = checkPolicyExpression("condition", "(activity.action == 'CREATE' && activity.resource == 'USER') || activity.resource == 'POLICY'");
    expect(grouped.warnings).toEqual([]);
  });

  it("wallet and private_key in one expression", () => {
    const text = "wallet.id == 'w-1' || private_key.id == 'pk-1'";
    const result = checkPolicyExpression("condition", text);
    expect(result.warnings.map((w) => w.rule)).toEqual(["wallet-and-private-key"]);
    expect(result.warnings[0]!.position.column).toBe(at(text, "private_key").column);
  });

  it("a signing ALLOW not scoped to a wallet or key; DENY and scoped ALLOWs are fine", () => {
    const rules = (p: Parameters<typeof checkPolicy>[0]) => checkPolicy(p).map((d) => `${d.property}:${d.rule}`);
    expect(rules({ effect: "EFFECT_ALLOW", condition: "activity.action == 'SIGN'" })).toEqual(["condition:unscoped-signing-allow"]);
    expect(rules({ effect: "EFFECT_ALLOW", condition: "" })).toEqual(["condition:unscoped-signing-allow"]);
    expect(rules({ effect: "EFFECT_ALLOW", condition: "activity.action == 'SIGN' && wallet.id == 'w'" })).toEqual([]);
    expect(rules({ effect: "EFFECT_DENY", condition: "activity.action == 'SIGN'" })).toEqual([]);
    expect(rules({ effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER'" })).toEqual([]);
  });

  it("unknown resources and actions", () => {
    const result = checkPolicyExpression("condition", "activity.resource == 'WALLETS' && activity.action in ['CREATE', 'MAKE']");
    expect(result.warnings.map((w) => `${w.rule}:${w.message}`)).toEqual([
      "unknown-resource:'WALLETS' is not a documented activity resource",
      "unknown-action:'MAKE' is not a documented activity action",
    ]);
  });
});

describe("evaluation rules", () => {
  const input = (type: string, parameters: unknown = {}, keywords: Record<string, unknown> = {}) => ({
    type,
    parameters,
    approvers: [{ id: "u-bot" }],
    keywords,
  });
  const allowTags: PolicyRecord = { policyId: "allow-tags", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER' && activity.action == 'CREATE'" };
  const denyPolicies: PolicyRecord = { policyId: "deny-policy-deletes", effect: "EFFECT_DENY", condition: "activity.resource == 'POLICY' && activity.action == 'DELETE'" };
  const allowPolicies: PolicyRecord = { policyId: "allow-policies", effect: "EFFECT_ALLOW", condition: "activity.resource == 'POLICY'" };

  it("an applicable DENY wins over an applicable ALLOW", () => {
    const d = simulate([allowPolicies, denyPolicies], input("ACTIVITY_TYPE_DELETE_POLICY", { policyId: "p" }));
    expect(d.outcome).toBe("OUTCOME_DENY_EXPLICIT");
    expect(d.evaluations.map((e) => e.outcome)).toEqual(["OUTCOME_ALLOW", "OUTCOME_DENY_EXPLICIT"]);
  });

  it("an applicable ALLOW allows; nothing applicable is an implicit deny", () => {
    expect(simulate([allowTags, denyPolicies], input("ACTIVITY_TYPE_CREATE_USER_TAG")).outcome).toBe("OUTCOME_ALLOW");
    const none = simulate([allowTags, denyPolicies], input("ACTIVITY_TYPE_CREATE_SMART_CONTRACT_INTERFACE"));
    expect(none.outcome).toBe("OUTCOME_DENY_IMPLICIT");
    expect(none.evaluations.map((e) => e.outcome)).toEqual(["OUTCOME_DENY_IMPLICIT", "OUTCOME_DENY_IMPLICIT"]);
    expect(simulate([], input("ACTIVITY_TYPE_CREATE_USER_TAG")).outcome).toBe("OUTCOME_DENY_IMPLICIT");
  });

  it("the root quorum bypasses policies; root-quorum-only activities cannot be granted", () => {
    expect(simulate([denyPolicies], { ...input("ACTIVITY_TYPE_DELETE_POLICY"), rootQuorum: true }).outcome).toBe("OUTCOME_ALLOW");
    const everything: PolicyRecord = { policyId: "all", effect: "EFFECT_ALLOW", condition: "activity.kind == 'UPDATE_ROOT_QUORUM'" };
    const d = simulate([everything], input("ACTIVITY_TYPE_UPDATE_ROOT_QUORUM", { threshold: 1, userIds: ["u-bot"] }));
    expect(d).toMatchObject({ outcome: "OUTCOME_DENY_IMPLICIT", reason: expect.stringMatching(/only be run by the root quorum/) });
    for (const type of ["ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE", "ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE", "ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME"]) {
      expect(decide([{ policyId: "x", effect: "EFFECT_ALLOW" }], type.replace("ACTIVITY_TYPE_", ""), { keywords: {}, nowMs: 0 }).outcome).toBe("OUTCOME_DENY_IMPLICIT");
    }
  });

  it("no short-circuit: a clause that errors makes the policy's outcome an error, whatever the other side says", () => {
    const either: PolicyRecord = { policyId: "either", effect: "EFFECT_ALLOW", condition: "wallet.id == 'w-1' || private_key.id == 'pk-1'" };
    const e = evaluatePolicy(either, { keywords: { wallet: { id: "w-1" } }, nowMs: 0 });
    expect(e).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("'private_key' is not part of this request") });
    const missing: PolicyRecord = { policyId: "missing", effect: "EFFECT_ALLOW", condition: "activity.params.user_ids.count() == 1" };
    expect(simulate([missing], input("ACTIVITY_TYPE_CREATE_USER_TAG", { userTagName: "x" })).evaluations[0]).toMatchObject({
      outcome: "OUTCOME_ERROR",
      reason: expect.stringContaining("no field 'user_ids'"),
    });
  });

  it("a policy whose stored text does not compile is an error, not an allow", () => {
    const broken: PolicyRecord = { policyId: "broken", effect: "EFFECT_ALLOW", condition: "activity.kind == 'X' &&& (" };
    const d = simulate([broken], input("ACTIVITY_TYPE_CREATE_USER_TAG"));
    expect(d.outcome).toBe("OUTCOME_DENY_IMPLICIT");
    expect(d.evaluations[0]).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("line 1, column 24: unexpected character '&'") });
  });

  it("settings: an erroring DENY counts as no match by default (the service's rule), or blocks", () => {
    const erroringDeny: PolicyRecord = { policyId: "erroring-deny", effect: "EFFECT_DENY", condition: "wallet.label == 'cold'" };
    expect(simulate([allowTags, erroringDeny], input("ACTIVITY_TYPE_CREATE_USER_TAG")).outcome).toBe("OUTCOME_ALLOW");
    expect(simulate([allowTags, erroringDeny], input("ACTIVITY_TYPE_CREATE_USER_TAG"), { erroredDenyBlocks: true }).outcome).toBe("OUTCOME_DENY_EXPLICIT");
  });

  it("settings: a DENY with unmet consensus does not apply by default, or applies on its condition", () => {
    const denyUnlessOps: PolicyRecord = {
      policyId: "deny-by-intern",
      effect: "EFFECT_DENY",
      condition: "activity.resource == 'USER'",
      consensus: "approvers.any(u, u.tags.contains('intern'))",
    };
    expect(simulate([allowTags, denyUnlessOps], input("ACTIVITY_TYPE_CREATE_USER_TAG")).outcome).toBe("OUTCOME_ALLOW");
    expect(simulate([allowTags, denyUnlessOps], input("ACTIVITY_TYPE_CREATE_USER_TAG"), { denyNeedsConsensus: false }).outcome).toBe("OUTCOME_DENY_EXPLICIT");
  });

  it("an ALLOW whose consensus is not met yet requires consensus; more approvers complete it", () => {
    const twoApprovers: PolicyRecord = { policyId: "two", effect: "EFFECT_ALLOW", condition: "activity.resource == 'USER'", consensus: "approvers.count() >= 2" };
    expect(simulate([twoApprovers], input("ACTIVITY_TYPE_CREATE_USER_TAG")).outcome).toBe("OUTCOME_REQUIRES_CONSENSUS");
    expect(simulate([twoApprovers], { ...input("ACTIVITY_TYPE_CREATE_USER_TAG"), approvers: [{ id: "a" }, { id: "b" }] }).outcome).toBe("OUTCOME_ALLOW");
  });

  it("own credentials are allowed without a policy unless a DENY applies", () => {
    const keys = { ...input("ACTIVITY_TYPE_CREATE_API_KEYS_V2", { userId: "u-bot", apiKeys: [] }), ownCredentials: true };
    expect(simulate([], keys).outcome).toBe("OUTCOME_ALLOW");
    const denyKeys: PolicyRecord = { policyId: "no-keys", effect: "EFFECT_DENY", condition: "activity.resource == 'CREDENTIAL'" };
    expect(simulate([denyKeys], keys).outcome).toBe("OUTCOME_DENY_EXPLICIT");
  });

  it("big integers, decimal strings and timestamps compare as numbers and times", () => {
    const big: PolicyRecord = {
      policyId: "big",
      effect: "EFFECT_ALLOW",
      condition: "activity.params.transfer.threshold < 115792089237316195423570985008687907853269984665640564039457584007913129639935",
      time: "time.now >= Timestamp('2025-01-01T00:00:00Z') && time.now < Timestamp('2026-01-01T00:00:00Z')",
    };
    const at2025 = { ...input("ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER", {
        signWith: "sp1-account",
        transfer: { threshold: "115792089237316195423570985008687907853269984665640564039457584007913129639934" },
      }), now: "2025-06-01T00:00:00Z" };
    expect(simulate([big], at2025).outcome).toBe("OUTCOME_ALLOW");
    expect(simulate([big], { ...at2025, now: "2026-06-01T00:00:00Z" }).evaluations[0]!.outcome).toBe("OUTCOME_TIME_INACTIVE");
  });

  it("simulate refuses malformed input naming the field", () => {
    expect(() => simulate([], { type: "CREATE_USER_TAG" })).toThrow(/activity\.type: expected an ACTIVITY_TYPE_/);
    expect(() => simulate([{ policyId: "p", effect: "ALLOW" }], { type: "ACTIVITY_TYPE_CREATE_USER_TAG" })).toThrow(/policies\[0\]\.effect/);
    expect(() => simulate([], { type: "ACTIVITY_TYPE_CREATE_USER_TAG", keywords: { walet: {} } })).toThrow(/activity\.keywords\.walet/);
    expect(() => simulate([], { type: "ACTIVITY_TYPE_CREATE_USER_TAG", now: "yesterday" })).toThrow(/activity\.now/);
  });
});
