/**
 * The evaluation rules as the service documents them, each with the documented examples: an
 * erroring policy counts as no match for DENY as for ALLOW; no short-circuit; a keyword that does
 * not exist for the activity type is an error (no match). And the coverage lints: a keyword
 * unavailable for the types a policy can match, an exact versioned type with a newer version, a
 * DENY that matches every activity.
 */
import { describe, expect, it } from "vitest";
import { checkPolicy, keywordAvailable, simulate, type PolicyRecord, type SimulatedActivity } from "../../sdk/policy";
import { DOCUMENTED_EXAMPLES } from "./examples";

const example = (prefix: string) => DOCUMENTED_EXAMPLES.find((e) => e.name.startsWith(prefix))!;
const allow = (policyId: string, condition: string): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_ALLOW", condition });
const deny = (policyId: string, condition: string): PolicyRecord => ({ policyId, policyName: policyId, effect: "EFFECT_DENY", condition });
const by = [{ id: "u-ops", tags: ["ops"] }];

const createPolicy: SimulatedActivity = {
  type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
  parameters: { policyName: "p", effect: "EFFECT_ALLOW", notes: "" },
  approvers: by,
};
const usdcTransfer: SimulatedActivity = {
  type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  parameters: { signWith: "w-hot", unsignedTransaction: "02f8", type: "TRANSACTION_TYPE_ETHEREUM" },
  approvers: by,
  keywords: { wallet: { id: "w-hot" }, eth: { tx: { to: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", data: "0xa9059cbb00", chain_id: 1 } } },
};
const baseline = [allow("policies", "activity.resource == 'POLICY'"), allow("signing", "activity.kind == 'SIGN_TRANSACTION' && wallet.id == 'w-hot'")];

describe("an erroring policy counts as no match, DENY as well as ALLOW", () => {
  const rawPayloadDeny = example("14 ").policies[0]!;

  it("example 14's DENY does not block policy creation: it errors there (no params.hash_function) and counts as no match", () => {
    const decision = simulate([...baseline, rawPayloadDeny], createPolicy);
    expect(decision.outcome).toBe("OUTCOME_ALLOW");
    expect(decision.evaluations.find((e) => e.policyId === "p14")).toMatchObject({
      outcome: "OUTCOME_ERROR",
      reason: expect.stringContaining("no field 'hash_function' in this request"),
    });
  });

  it("example 14's DENY does not block a USDC transfer, and still blocks the blind raw payload it is about", () => {
    expect(simulate([...baseline, rawPayloadDeny], usdcTransfer).outcome).toBe("OUTCOME_ALLOW");
    const refused = example("14 ").refused;
    expect(simulate(example("14 ").policies, refused).outcome).toBe("OUTCOME_DENY_EXPLICIT");
  });

  it("example 16's Solana DENY does not block an Ethereum transfer: 'solana' is not part of that request", () => {
    const solanaDeny = example("16 ").policies[0]!;
    const decision = simulate([...baseline, solanaDeny], usdcTransfer);
    expect(decision.outcome).toBe("OUTCOME_ALLOW");
    expect(decision.evaluations.find((e) => e.policyId === "p16")).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("'solana' is not part of this request") });
  });

  it("the old fail-closed reading stays available as a setting", () => {
    expect(simulate([...baseline, example("14 ").policies[0]!], createPolicy, { erroredDenyBlocks: true }).outcome).toBe("OUTCOME_DENY_EXPLICIT");
  });
});

describe("no short-circuit", () => {
  it("an ALLOW whose left side holds still errors when its right side errors (|| as &&)", () => {
    const either = allow("either", "activity.resource == 'POLICY' || activity.params.hash_function == 'HASH_FUNCTION_NO_OP'");
    const decision = simulate([either], createPolicy);
    expect(decision.outcome).toBe("OUTCOME_DENY_IMPLICIT");
    expect(decision.evaluations[0]).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("hash_function") });
  });

  it("a DENY whose left side is false still errors on its right side (and so does not apply)", () => {
    const guard = deny("guard", "activity.kind == 'SIGN_RAW_PAYLOAD' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP'");
    const decision = simulate([...baseline, guard], createPolicy);
    expect(decision.outcome).toBe("OUTCOME_ALLOW");
    expect(decision.evaluations.find((e) => e.policyId === "guard")!.outcome).toBe("OUTCOME_ERROR");
  });
});

describe("keywords exist per activity type", () => {
  it("the catalog: chain keywords on transactions, eth on raw payloads, targets where a request names one", () => {
    expect(keywordAvailable("ACTIVITY_TYPE_SIGN_TRANSACTION_V2", "solana")).toBe(true);
    expect(keywordAvailable("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "eth")).toBe(true);
    expect(keywordAvailable("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", "bitcoin")).toBe(false);
    expect(keywordAvailable("ACTIVITY_TYPE_CREATE_POLICY_V3", "eth")).toBe(false);
    expect(keywordAvailable("ACTIVITY_TYPE_CREATE_POLICY_V3", "wallet")).toBe(false);
    expect(keywordAvailable("ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT", "wallet_account")).toBe(true);
    expect(keywordAvailable("ACTIVITY_TYPE_CREATE_POLICY_V3", "approvers")).toBe(true);
  });

  it("a keyword handed to simulate for an activity that has no such keyword is left out: the policy reading it errors", () => {
    const sepolia = example("12 ").policies[0]!;
    const decision = simulate([sepolia], { ...createPolicy, keywords: { eth: { tx: { chain_id: 11155111 } } } });
    expect(decision.outcome).toBe("OUTCOME_DENY_IMPLICIT");
    expect(decision.evaluations[0]).toMatchObject({ outcome: "OUTCOME_ERROR", reason: expect.stringContaining("'eth' is not part of this request") });
    expect(simulate([sepolia], example("12 ").allowed).outcome).toBe("OUTCOME_ALLOW");
  });
});

describe("coverage lints", () => {
  const rules = (policy: PolicyRecord) => checkPolicy(policy).filter((d) => d.severity === "warning");

  it("a DENY reading a params field most activities lack warns, naming them", () => {
    const [found] = rules(deny("raw", "activity.params.hash_function == 'HASH_FUNCTION_NO_OP'")).filter((d) => d.rule === "keyword-unavailable");
    expect(found!.message).toMatch(/'activity\.params\.hash_function' does not exist for .*CREATE_POLICY|'activity\.params\.hash_function' does not exist for [A-Z_, ]+ and \d+ more/);
    expect(found!.message).toMatch(/this DENY blocks nothing there/);
    expect(found!.position).toMatchObject({ line: 1, column: 17 });
  });

  it("an ALLOW that can only match activities without the keyword it reads warns that it never applies", () => {
    const [found] = rules(allow("never", "activity.kind == 'CREATE_POLICY' && eth.tx.to == '0x1'")).filter((d) => d.rule === "keyword-unavailable");
    expect(found!.message).toMatch(/'eth' does not exist for any activity this policy can match \(CREATE_POLICY\)/);
  });

  it("documented examples scoped to their activities stay quiet (14, 15, 16, 8, 9)", () => {
    for (const prefix of ["14 ", "15 ", "16 ", "8 ", "9 "]) {
      expect(rules(example(prefix).policies[0]!).filter((d) => d.rule === "keyword-unavailable"), prefix).toEqual([]);
    }
  });

  it("an exact versioned type with a newer version suggests kind or resource/action", () => {
    const [found] = rules(allow("subs", "activity.type == 'ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V2'"));
    expect(found).toMatchObject({ rule: "versioned-activity-type", position: { column: 18 } });
    expect(found!.message).toMatch(/ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8 is newer.*activity\.kind == 'CREATE_SUB_ORGANIZATION'.*activity\.resource == 'ORGANIZATION' && activity\.action == 'CREATE'/);
    expect(rules(allow("latest", "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'")).map((d) => d.rule)).not.toContain("versioned-activity-type");
  });

  it("a DENY that matches every activity warns; a scoped one, or one limited by consensus, does not", () => {
    for (const condition of ["", "true", "activity.kind != 'NOT_A_KIND' || activity.resource == 'USER'"]) {
      expect(rules(deny("all", condition)).map((d) => d.rule), condition).toContain("deny-everything");
    }
    expect(rules(deny("deletes", "activity.action == 'DELETE'")).map((d) => d.rule)).not.toContain("deny-everything");
    expect(rules({ ...deny("interns", ""), consensus: "approvers.any(u, u.tags.contains('intern'))" }).map((d) => d.rule)).not.toContain("deny-everything");
    // The submitter always approves: a count of at least one always holds.
    for (const consensus of ["approvers.count() >= 1", "approvers.count() > 0", "1 <= approvers.count()"]) {
      expect(rules({ ...deny("all", ""), consensus }).map((d) => d.rule), consensus).toContain("deny-everything");
    }
    expect(rules({ ...deny("pairs", ""), consensus: "approvers.count() >= 2" }).map((d) => d.rule)).not.toContain("deny-everything");
  });

  it("a DENY on eth.tx scoped to SIGN_TRANSACTION warns: on other chains' requests it errors, so blocks nothing there", () => {
    const found = rules(deny("to", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '0xdead'")).filter((d) => d.rule === "keyword-unavailable");
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(/'eth\.tx' exists only on requests that carry it: SIGN_TRANSACTION requests carrying solana\.tx, tron\.tx, bitcoin\.tx, tempo\.tx instead/);
    expect(found[0]!.message).toMatch(/this DENY errors there and blocks nothing/);
    // Confirmed by the evaluator: a Solana request is not blocked by it.
    const policies = [allow("sign", "activity.kind == 'SIGN_TRANSACTION'"), deny("to", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '0xdead'")];
    expect(simulate(policies, { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers: [{ id: "u" }], keywords: { solana: { tx: {} } } }).outcome).toBe("OUTCOME_ALLOW");
    // An ALLOW on it is the chain's own scope, and an ETH_SEND_TRANSACTION DENY (always EVM) is quiet.
    expect(rules(allow("to", "activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '0xdead'")).filter((d) => d.rule === "keyword-unavailable" && /exists only on requests/.test(d.message))).toEqual([]);
    expect(rules(deny("to", "activity.kind == 'ETH_SEND_TRANSACTION' && eth.tx.to == '0xdead'")).filter((d) => d.rule === "keyword-unavailable")).toEqual([]);
  });
});
