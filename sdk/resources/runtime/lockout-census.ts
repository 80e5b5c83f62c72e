/**
 * @module resources/runtime/lockout-census
 * The part of the plan's census the lockout checks keep during a run (`policy-lockout.ts`,
 * `deployer-access.ts`, `org-after-plan.ts`): the plan as the engine checked it so far, and
 * what was read or proved once for it. Kept per configuration in the "census" group
 * (`run-state.ts`), so `forgetPlanCensus` forgets it with the rest of the census.
 *
 * Its own module, typed by its users (`Verdict`, `Allowlists`), so that the checks import it
 * and it imports none of them.
 */
import { perRun } from "./run-state";
import type { RunContext } from "./run-types";

/** What the lockout checks keep of the plan during one run. */
export interface LockoutCensus<Verdict, Allowlists> {
  /** org → URN → a Policy resource of the plan (`policy-lockout.ts`). */
  readonly plannedPolicies: Map<string, Map<string, unknown>>;
  /** org → activity kind → the resources of the plan that submit it. */
  readonly neededActivities: Map<string, Map<string, Set<string>>>;
  /** org → "declared" → the RootQuorum inputs of the plan. */
  readonly plannedQuorums: Map<string, Map<string, Record<string, unknown>>>;
  /** org → URN → a resource of the plan, in the order the engine checked it (`deployer-access.ts`). */
  readonly plannedObjects: Map<string, Map<string, unknown>>;
  /** org|public key → the organization-level IP allowlist and the deploying key's own before this run (`org-after-plan.ts`). */
  readonly allowlistsBefore: Map<string, Promise<Allowlists>>;
  /** org|kind|policy set → what the solver said. */
  readonly accessVerdicts: Map<string, Promise<Verdict>>;
}

const censusOfRun = perRun<LockoutCensus<unknown, unknown>>(
  () => ({
    plannedPolicies: new Map(),
    neededActivities: new Map(),
    plannedQuorums: new Map(),
    plannedObjects: new Map(),
    allowlistsBefore: new Map(),
    accessVerdicts: new Map(),
  }),
  "census",
);

/** The lockout census of `context`, its promises typed as the checks that keep them know them. */
export function lockoutCensusOf<Verdict = unknown, Allowlists = unknown>(context: RunContext): LockoutCensus<Verdict, Allowlists> {
  return censusOfRun.of(context) as LockoutCensus<Verdict, Allowlists>;
}
