/**
 * `accessFor`: whether a policy set lets the deploying user run every request of an activity
 * kind alone, none, or some ("not proved"), differentially against a brute-force oracle: each
 * set is decided by the evaluator for every combination of version of the kind and time in a
 * sample (the request dimensions these policies read), and "always" / "never" must hold for all
 * of them; "not proved" must allow some and come with a counterexample the evaluator denies.
 */
import { describe, expect, it } from "vitest";
import type { PolicyRecord } from "../../sdk/policy/engine";
import { activityKind } from "../../sdk/policy/activity";
import { activityCatalog, latestTypeOf } from "../../sdk/policy/catalog";
import { simulate } from "../../sdk/policy/simulate";
import { ACTIVITY_KINDS, neededKinds, stepOf } from "../../sdk/resources/runtime/needed-activities";
import { accessFor } from "../../sdk/resources/runtime/policy-lockout";

const deployer = { userId: "8c1f0f4e-0000-4000-8000-00000000d301", userName: "deployer", userTags: ["5a1e0f4e-0000-4000-8000-0000000007a9"] };
const byDeployer = `approvers.any(user, user.id == '${deployer.userId}')`;
const allowDeployer: PolicyRecord = { policyId: "allow", policyName: "allow deployer", effect: "EFFECT_ALLOW", consensus: byDeployer };
const denyUsers: PolicyRecord = { policyId: "deny-users", policyName: "no user changes", effect: "EFFECT_DENY", condition: "activity.resource == 'USER'" };
const denyFrom2030: PolicyRecord = { policyId: "deny-2030", policyName: "frozen from 2030", effect: "EFFECT_DENY", condition: "time.now >= Timestamp('2030-01-01T00:00:00Z')" };
const walletsByTag: PolicyRecord = {
  policyId: "wallets-by-tag",
  policyName: "ops make wallets",
  effect: "EFFECT_ALLOW",
  condition: "activity.resource == 'WALLET' && activity.action == 'CREATE'",
  consensus: `approvers.any(user, '${deployer.userTags[0]}' in user.tags)`,
};

const TIMES = [0, 1_700_000_000_000, 1_900_000_000_000, 4_000_000_000_000];

/** Every version of `kind` the catalog knows. */
const versionsOf = (kind: string) => [...activityCatalog().keys()].filter((type) => activityKind(type) === kind);

/** The evaluator's decision for every sampled request of `kind` by the deployer alone. */
function sampled(policies: readonly PolicyRecord[], kind: string): boolean[] {
  const out: boolean[] = [];
  for (const type of versionsOf(kind)) {
    for (const now of TIMES) {
      const activity = {
        type,
        approvers: [{ id: deployer.userId, tags: deployer.userTags, alias: deployer.userName }],
        credentials: [{ type: "CREDENTIAL_TYPE_API_KEY_P256", user_id: deployer.userId }],
        now,
      };
      out.push(simulate(policies, activity).outcome === "OUTCOME_ALLOW");
    }
  }
  return out;
}

const CASES: Array<{ policies: PolicyRecord[]; kind: string; expected: "always" | "never" | "not proved" }> = [
  { policies: [], kind: "CREATE_USER_TAG", expected: "never" },
  { policies: [allowDeployer], kind: "CREATE_USER_TAG", expected: "always" },
  { policies: [allowDeployer, denyUsers], kind: "CREATE_USER_TAG", expected: "never" },
  { policies: [allowDeployer, denyUsers], kind: "CREATE_USERS", expected: "never" },
  { policies: [allowDeployer, denyUsers], kind: "CREATE_WALLET", expected: "always" },
  { policies: [allowDeployer, denyFrom2030], kind: "CREATE_WALLET", expected: "not proved" },
  { policies: [walletsByTag], kind: "CREATE_WALLET", expected: "always" },
  { policies: [walletsByTag], kind: "CREATE_USERS", expected: "never" },
  // The one version the service has of the kind: every request today (that it stops applying after a migration is a note of the diff, not a verdict).
  { policies: [{ ...walletsByTag, condition: "activity.type == 'ACTIVITY_TYPE_CREATE_WALLET'" }], kind: "CREATE_WALLET", expected: "always" },
  // One version of a kind the service has two of: a request of the other is refused, so not proved.
  { policies: [{ ...walletsByTag, condition: "activity.type == 'ACTIVITY_TYPE_CREATE_API_KEYS'" }], kind: "CREATE_API_KEYS", expected: "not proved" },
];

describe("accessFor", () => {
  it.each(CASES)("$kind under $policies.length policies: $expected", { timeout: 120_000 }, async ({ policies, kind, expected }) => {
    const verdict = await accessFor(policies, deployer, kind);
    expect(verdict.verdict).toBe(expected);
    const decisions = sampled(policies, kind);
    if (verdict.verdict === "always") expect(decisions.every(Boolean)).toBe(true);
    if (verdict.verdict === "never") expect(decisions.some(Boolean)).toBe(false);
    if (verdict.verdict === "not proved") {
      // Some request is allowed, and the counterexample (a request of the kind) is denied.
      expect(decisions.some(Boolean)).toBe(true);
      expect(activityKind(verdict.counterexample!.type)).toBe(kind);
      expect(simulate(policies, verdict.counterexample!).outcome).not.toBe("OUTCOME_ALLOW");
      expect(verdict.why).toMatch(new RegExp(`some requests of it are denied, e\\.g\\. ACTIVITY_TYPE_${kind}`));
    }
  });
});

describe("neededKinds", () => {
  it("names activity kinds the catalog knows, for every resource kind and step", () => {
    for (const [kind, steps] of Object.entries(ACTIVITY_KINDS)) {
      for (const name of [...(steps.create ?? []), ...(steps.update ?? []), ...(steps.delete ?? [])]) expect(latestTypeOf(name), `${kind}: ${name}`).toBeDefined();
    }
  });

  it("reads the step from the check: create, update, replace (both halves), or nothing", () => {
    const replacing = (p: string) => p === "userName";
    expect(neededKinds("User", stepOf(false, [], replacing))).toEqual(["CREATE_USERS"]);
    expect(neededKinds("User", stepOf(true, ["userEmail"], replacing))).toEqual(["UPDATE_USER"]);
    expect(neededKinds("User", stepOf(true, ["userEmail", "userName"], replacing))).toEqual(["CREATE_USERS", "DELETE_USERS"]);
    expect(neededKinds("User", stepOf(true, [], replacing))).toEqual([]);
    expect(neededKinds("Invitation", stepOf(false, [], replacing))).toEqual(["CREATE_INVITATIONS"]);
    expect(neededKinds("RootQuorum", "create")).toEqual([]);
  });
});
