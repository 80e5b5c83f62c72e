/**
 * @module policy/simulate
 * The library entry point of policy tests: given an organization's policies (declared in a
 * program, read from a file, or listed from a server) and one activity (type, parameters, who
 * submits and approves it, with which credentials), the outcome the policy engine gives and each
 * policy's evaluation, without sending anything anywhere.
 */
import { activityFacts, activityKind } from "./activity";
import { keywordsFor } from "./catalog";
import { decide, type Decision, type DecisionSettings, type PolicyRecord } from "./engine";
import { parseTimestamp } from "./time";
import { KEYWORDS } from "./types";

/** One approver (the submitter first), as the `approvers` keyword shows users. */
export interface SimulatedUser {
  readonly id: string;
  /** Tag ids of the user. */
  readonly tags?: readonly string[];
  readonly email?: string;
  readonly alias?: string;
}

/** One credential that signed a submission or approval (`credentials` keyword). */
export interface SimulatedCredential {
  readonly type: string;
  readonly id?: string;
  readonly user_id?: string;
  readonly credential_id?: string;
  readonly public_key?: string;
}

/** An activity to decide. */
export interface SimulatedActivity {
  /** The versioned type, e.g. `ACTIVITY_TYPE_CREATE_USER_TAG`. */
  readonly type: string;
  /** The activity's `parameters` as sent on the wire (camelCase; conditions read them in snake_case). */
  readonly parameters?: unknown;
  /** The submitter, then the users who approved so far. */
  readonly approvers?: readonly SimulatedUser[];
  readonly credentials?: readonly SimulatedCredential[];
  /** Other keywords of the request: `wallet`, `wallets`, `private_key`, `wallet_account`, `secret`, `eth`, `solana`, `tron`, `bitcoin`, `tempo`. */
  readonly keywords?: Readonly<Record<string, unknown>>;
  /** The submitter acts as the root quorum (policies are bypassed). */
  readonly rootQuorum?: boolean;
  /** The submitter changes their own credentials (allowed without a policy unless a DENY applies). */
  readonly ownCredentials?: boolean;
  /** Evaluation time: RFC 3339 UTC or epoch ms (default: now). */
  readonly now?: string | number;
}

export type Simulation = Decision;

/** The condition keywords a request may carry besides `activity` and `time` (the type checker's table, so the two never disagree). */
const OTHER_KEYWORDS: ReadonlySet<string> = new Set(Object.keys(KEYWORDS.condition).filter((name) => name !== "activity" && name !== "time"));

/**
 * Decides `activity` under `policies`.
 * @throws TypeError naming the field of `activity` that is malformed
 */
export function simulate(policies: readonly PolicyRecord[], activity: SimulatedActivity, settings: DecisionSettings = {}): Simulation {
  if (typeof activity.type !== "string" || !/^ACTIVITY_TYPE_[A-Z0-9_]+$/.test(activity.type)) {
    throw new TypeError(`activity.type: expected an ACTIVITY_TYPE_… name, got ${JSON.stringify(activity.type)}`);
  }
  policies.forEach((policy, i) => {
    if (typeof policy.policyId !== "string" || policy.policyId === "") throw new TypeError(`policies[${i}].policyId: expected a non-empty string`);
    if (policy.effect !== "EFFECT_ALLOW" && policy.effect !== "EFFECT_DENY") {
      throw new TypeError(`policies[${i}].effect: expected EFFECT_ALLOW or EFFECT_DENY, got ${JSON.stringify(policy.effect)}`);
    }
  });
  (activity.approvers ?? []).forEach((user, i) => {
    if (typeof user?.id !== "string") throw new TypeError(`activity.approvers[${i}].id: expected a user id string`);
  });
  for (const name of Object.keys(activity.keywords ?? {})) {
    if (!OTHER_KEYWORDS.has(name)) throw new TypeError(`activity.keywords.${name}: not a request keyword (use one of ${[...OTHER_KEYWORDS].join(", ")})`);
  }
  let nowMs = Date.now();
  if (typeof activity.now === "number") nowMs = activity.now;
  else if (typeof activity.now === "string") {
    try {
      nowMs = parseTimestamp(activity.now);
    } catch (error) {
      throw new TypeError(`activity.now: ${(error as Error).message}`);
    }
  }
  if (activity.rootQuorum) return { outcome: "OUTCOME_ALLOW", reason: "the root quorum bypasses policies", evaluations: [] };
  const approvers = (activity.approvers ?? []).map((u) => ({ id: u.id, tags: u.tags ?? [], email: u.email ?? "", alias: u.alias ?? "" }));
  const credentials = (activity.credentials ?? []).map((c) => ({
    id: c.id ?? "",
    user_id: c.user_id ?? "",
    type: c.type,
    credential_id: c.credential_id ?? "",
    public_key: c.public_key ?? "",
  }));
  // A keyword the activity type does not have is left out, as the service does: a policy reading it errors (no match).
  const keywords = { ...keywordsFor(activity.type, activity.keywords ?? {}), activity: activityFacts(activity.type, activity.parameters), approvers, credentials };
  return decide(policies, activityKind(activity.type), { keywords, nowMs }, { ...settings, implicitlyAllowed: activity.ownCredentials === true });
}

/**
 * Decides `activity` as the service reaches a decision on it: the first of `approvers` submits it
 * (decided with that user alone), and each of the others votes in turn (decided again with
 * everyone so far), until a decision is not "requires consensus". An activity allowed with fewer
 * votes runs then, and one refused is refused then: the later votes are never cast.
 * @throws TypeError naming the field of `activity` that is malformed
 */
export function simulateVotes(policies: readonly PolicyRecord[], activity: SimulatedActivity, settings: DecisionSettings = {}): Simulation & { readonly votes: number } {
  const approvers = activity.approvers ?? [];
  let votes = Math.min(1, approvers.length);
  let decision = simulate(policies, { ...activity, approvers: approvers.slice(0, 1) }, settings);
  while (votes < approvers.length && decision.outcome === "OUTCOME_REQUIRES_CONSENSUS") {
    votes++;
    decision = simulate(policies, { ...activity, approvers: approvers.slice(0, votes) }, settings);
  }
  // `votes`: how many approvers (the submitter counted) had voted when it was decided.
  return { ...decision, votes };
}
