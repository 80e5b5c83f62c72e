/**
 * @module policy/engine
 * Decides an activity from an organization's policies (reference, "Evaluation"):
 *
 * 1. the root quorum bypasses policies (decided by the caller of {@link decide}, which knows who
 *    acts; root-quorum-only activities are refused to everyone else before policies are read);
 * 2. any applicable DENY → OUTCOME_DENY_EXPLICIT;
 * 3. else any applicable ALLOW → OUTCOME_ALLOW;
 * 4. else an ALLOW whose condition holds but whose consensus does not yet →
 *    OUTCOME_REQUIRES_CONSENSUS (the activity waits for approvals);
 * 5. else OUTCOME_DENY_IMPLICIT.
 *
 * A policy applies when its time, condition and consensus all hold (an empty expression holds).
 * Per policy: time false → OUTCOME_TIME_INACTIVE (skipped); an expression that does not compile
 * or errors → OUTCOME_ERROR, which counts as no match for ALLOW and DENY alike (a DENY reading
 * `activity.params.hash_function` does not block activities that have no such field); condition
 * false → OUTCOME_DENY_IMPLICIT (it does not apply).
 *
 * Two points the service leaves undocumented are settings ({@link DecisionSettings}).
 */
import { ROOT_QUORUM_ONLY_KINDS } from "./activity";
import { compiledExpression } from "./compile";
import { formatDiagnostic } from "./errors";
import { evaluateExpression, type EvaluationInput } from "./evaluate";
import type { ExpressionKind } from "./types";

export type Outcome =
  | "OUTCOME_ALLOW"
  | "OUTCOME_DENY_EXPLICIT"
  | "OUTCOME_DENY_IMPLICIT"
  | "OUTCOME_REQUIRES_CONSENSUS"
  | "OUTCOME_ERROR"
  | "OUTCOME_TIME_INACTIVE";

/** A policy as stored (the wire's `v1Policy` fields the engine reads). */
export interface PolicyRecord {
  readonly policyId: string;
  readonly policyName?: string;
  readonly effect: string;
  readonly condition?: string | null;
  readonly consensus?: string | null;
  readonly time?: string | null;
}

/** One policy's evaluation, as get_policy_evaluations reports it (plus a reason for people). */
export interface PolicyEvaluation {
  readonly policyId: string;
  readonly policyName: string;
  readonly effect: string;
  readonly outcome: Outcome;
  /** Why (the failing clause, the error with its position). */
  readonly reason: string;
}

/** The decision on one activity. */
export interface Decision {
  readonly outcome: Outcome;
  readonly reason: string;
  readonly evaluations: readonly PolicyEvaluation[];
}

/** Choices the service does not document. */
export interface DecisionSettings {
  /**
   * Whether a DENY whose expressions error blocks the activity (true) or counts as no match like
   * any other erroring policy (false, the default: the service's notes say a keyword missing
   * for the activity makes that policy an error, and an erroring policy counts as no match, for
   * ALLOW and DENY alike).
   */
  readonly erroredDenyBlocks?: boolean;
  /**
   * Whether a DENY applies only once its consensus holds too (true, the default: "a policy
   * applies when its consensus, condition and time all hold") or as soon as its condition
   * holds (false).
   */
  readonly denyNeedsConsensus?: boolean;
}

export const DEFAULT_DECISION_SETTINGS: Required<DecisionSettings> = { erroredDenyBlocks: false, denyNeedsConsensus: true };

type Clause = { value: boolean } | { error: string };

function clause(kind: ExpressionKind, text: string | null | undefined, input: EvaluationInput): Clause {
  if (text === undefined || text === null || text.trim() === "") return { value: true };
  const compiled = compiledExpression(kind, text);
  if (!compiled.expr) return { error: `${kind}: ${formatDiagnostic(compiled.errors[0]!)}` };
  try {
    return { value: evaluateExpression(compiled.expr, input) };
  } catch (error) {
    return { error: `${kind}: ${(error as Error).message}` };
  }
}

/** Evaluates one policy against a request. */
export function evaluatePolicy(policy: PolicyRecord, input: EvaluationInput, settings: DecisionSettings = {}): PolicyEvaluation {
  const denyNeedsConsensus = settings.denyNeedsConsensus ?? DEFAULT_DECISION_SETTINGS.denyNeedsConsensus;
  const base = { policyId: policy.policyId, policyName: policy.policyName ?? "", effect: policy.effect };
  const time = clause("time", policy.time, input);
  if ("value" in time && !time.value) return { ...base, outcome: "OUTCOME_TIME_INACTIVE", reason: "time is false now" };
  // Every clause runs (no short-circuit): any error is the policy's outcome.
  const condition = clause("condition", policy.condition, input);
  const consensus = clause("consensus", policy.consensus, input);
  const failed = [time, condition, consensus].find((c): c is { error: string } => "error" in c);
  if (failed) return { ...base, outcome: "OUTCOME_ERROR", reason: failed.error };
  const holds = (c: Clause) => "value" in c && c.value;
  if (!holds(condition)) return { ...base, outcome: "OUTCOME_DENY_IMPLICIT", reason: "condition is false" };
  const deny = policy.effect === "EFFECT_DENY";
  if (!holds(consensus)) {
    if (deny && denyNeedsConsensus) return { ...base, outcome: "OUTCOME_DENY_IMPLICIT", reason: "condition holds, consensus does not" };
    if (!deny) return { ...base, outcome: "OUTCOME_REQUIRES_CONSENSUS", reason: "condition holds, consensus not met yet" };
  }
  return deny
    ? { ...base, outcome: "OUTCOME_DENY_EXPLICIT", reason: "condition and consensus hold" }
    : { ...base, outcome: "OUTCOME_ALLOW", reason: "condition and consensus hold" };
}

/**
 * Decides an activity for a caller who is not acting as the root quorum.
 * @param kind the activity's kind (root-quorum-only kinds are refused without reading policies)
 * @param implicitlyAllowed the activity is one the caller may run without a policy (changing
 *   their own credentials); an applicable DENY still refuses it
 */
export function decide(
  policies: readonly PolicyRecord[],
  kind: string,
  input: EvaluationInput,
  options: DecisionSettings & { implicitlyAllowed?: boolean } = {},
): Decision {
  if (ROOT_QUORUM_ONLY_KINDS.has(kind)) {
    return { outcome: "OUTCOME_DENY_IMPLICIT", reason: `${kind} can only be run by the root quorum; no policy can grant it`, evaluations: [] };
  }
  const evaluations = policies.map((policy) => evaluatePolicy(policy, input, options));
  const erroredDenyBlocks = options.erroredDenyBlocks ?? DEFAULT_DECISION_SETTINGS.erroredDenyBlocks;
  const denying = evaluations.find(
    (e) => e.outcome === "OUTCOME_DENY_EXPLICIT" || (erroredDenyBlocks && e.effect === "EFFECT_DENY" && e.outcome === "OUTCOME_ERROR"),
  );
  if (denying) {
    const how = denying.outcome === "OUTCOME_ERROR" ? `errored (${denying.reason}) and an erroring DENY blocks` : "applies";
    return { outcome: "OUTCOME_DENY_EXPLICIT", reason: `DENY policy ${JSON.stringify(denying.policyName)} ${how}`, evaluations };
  }
  const allowing = evaluations.find((e) => e.outcome === "OUTCOME_ALLOW");
  if (allowing) return { outcome: "OUTCOME_ALLOW", reason: `ALLOW policy ${JSON.stringify(allowing.policyName)} applies`, evaluations };
  if (options.implicitlyAllowed) return { outcome: "OUTCOME_ALLOW", reason: "users may change their own credentials", evaluations };
  const waiting = evaluations.find((e) => e.outcome === "OUTCOME_REQUIRES_CONSENSUS");
  if (waiting) {
    return { outcome: "OUTCOME_REQUIRES_CONSENSUS", reason: `ALLOW policy ${JSON.stringify(waiting.policyName)} needs more approvals`, evaluations };
  }
  return { outcome: "OUTCOME_DENY_IMPLICIT", reason: "no policy allows this activity (implicit deny)", evaluations };
}
