/**
 * @module resources/runtime/lockout-census
 * The part of the plan's census the lockout proof keeps during a run (`deployer-access.ts`,
 * `org-after-plan.ts`): the plan as the engine checked it so far, and the allowlists read once
 * for it. Kept per configuration in the "census" group (`run-state.ts`), so `forgetPlanCensus`
 * forgets it with the rest of the census.
 *
 * Its own module, typed by its users (`Allowlists`), so that the checks import it and it
 * imports none of them.
 */
import { perRun } from "./run-state";
import type { RunContext } from "./run-types";

/** What the lockout proof keeps of the plan during one run. */
export interface LockoutCensus<Allowlists> {
  /** org → URN → a resource of the plan, in the order the engine checked it (`deployer-access.ts`). */
  readonly plannedObjects: Map<string, Map<string, unknown>>;
  /** org|public key → the organization-level IP allowlist and the deploying key's own before this run (`org-after-plan.ts`). */
  readonly allowlistsBefore: Map<string, Promise<Allowlists>>;
}

const censusOfRun = perRun<LockoutCensus<unknown>>(() => ({ plannedObjects: new Map(), allowlistsBefore: new Map() }), "census");

/** The lockout census of `context`, its promises typed as the checks that keep them know them. */
export function lockoutCensusOf<Allowlists = unknown>(context: RunContext): LockoutCensus<Allowlists> {
  return censusOfRun.of(context) as LockoutCensus<Allowlists>;
}
