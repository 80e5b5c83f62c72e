/**
 * The access diff against the brute-force oracle (test/policy/oracle.ts): a seeded sample of
 * 500 random policy-set pairs and mutations; every "no change" the solver proves is checked by
 * exhaustive evaluation with the real evaluator over a bounded domain, every change it reports
 * must replay. `npm run bench:policy-oracle` runs 10,000 pairs.
 */
import { describe, expect, it } from "vitest";
import { diffPolicies } from "../../sdk/policy/smt/diff";
import { exhaustiveDifference, runOracle } from "./oracle";

const PAIRS = Number(process.env.KEYFORM_ORACLE_PAIRS ?? 500);

describe("policy diff against the exhaustive oracle", () => {
  it("the oracle itself finds a known difference and passes a known equivalence", async () => {
    const base = { policyId: "p", policyName: "p", effect: "EFFECT_ALLOW", condition: "activity.kind == 'SIGN_TRANSACTION'", consensus: "approvers.all(u, 'tag-b' in u.tags)" };
    expect(exhaustiveDifference([base], [{ ...base, consensus: "approvers.any(u, 'tag-b' in u.tags)" }])).toBeDefined();
    expect(exhaustiveDifference([base], [{ ...base, consensus: "approvers.all(u, u.tags.contains('tag-b'))" }])).toBeUndefined();
    // The solver agrees on both, and the gain is one a client could submit.
    const diff = await diffPolicies([base], [{ ...base, consensus: "approvers.any(u, 'tag-b' in u.tags)" }]);
    expect(diff.changes.some((c) => c.direction === "gains" && c.confirmed && c.how === "with approvers")).toBe(true);
  });

  it(`${PAIRS} seeded pairs: no disagreement`, async () => {
    const result = await runOracle(2027, PAIRS);
    expect(result.disagreements).toEqual([]);
    // The sample exercises both verdicts.
    expect(result.provedNoChange).toBeGreaterThan(PAIRS / 10);
    expect(result.changes).toBeGreaterThan(PAIRS / 10);
  }, 3_600_000);
});
