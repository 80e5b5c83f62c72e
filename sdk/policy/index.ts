/**
 * @module policy
 * The service's policy language, checked before policies ship: a parser and type checker for
 * `condition`, `consensus`, `time` and session-profile `scope` expressions, lints from the
 * service's authoring rules, an evaluator, and the decision rules the emulator applies.
 *
 * ```ts
 * import { checkPolicyExpression } from "keyform/policy";
 * checkPolicyExpression("condition", "activity.resource == 'USER' &&& (").errors[0];
 * // { severity: "error", rule: "syntax", message: "unexpected character '&' (use '&&')", position: { line: 1, column: 30, … } }
 * ```
 */
import { compiledExpression } from "./compile";
import type { Diagnostic } from "./errors";
import { lintCoverage } from "./coverage";
import { lintPolicyPitfalls } from "./docs-lints";
import { lintSigningScope } from "./lints";
import type { ExpressionKind } from "./types";

export type { Expr } from "./ast";
export { activityFacts, activityKind, factsDocumented, policyParams, resourceAndAction, ROOT_QUORUM_ONLY_KINDS } from "./activity";
export { checkPolicyExpression, type ExpressionCheck } from "./compile";
export { DEFAULT_DECISION_SETTINGS, decide, evaluatePolicy } from "./engine";
export type { Decision, DecisionSettings, Outcome, PolicyEvaluation, PolicyRecord } from "./engine";
export { formatDiagnostic, PolicyEvaluationError, PolicySyntaxError, type Diagnostic, type Position } from "./errors";
export { evaluateExpression, Instant, type EvaluationInput } from "./evaluate";
export { parseExpression } from "./parser";
export { ACTIONS, CHAIN_KEYWORDS, EXPRESSION_KINDS, KEYWORDS, RESOURCES, typeName, type ExpressionKind, type Type } from "./types";
export { simulate, simulateVotes, type SimulatedActivity, type SimulatedCredential, type SimulatedUser, type Simulation } from "./simulate";
export { declaredPolicies } from "./declared";
export { activityCatalog, activityTypeInfo, keywordAvailable, keywordsFor, latestTypeOf, UNIVERSAL_KEYWORDS, type ActivityTypeInfo } from "./catalog";
export { documentedKinds, documentedParams, kindsWithoutFacts } from "./documented";
export { lintCoverage, matchableTypes, type PolicyShape } from "./coverage";
export { diffPolicies, solverMemory, withSolver, z3Context, type AccessChange, type AccessDiff, type DiffOptions, type DiffUser } from "./smt/diff";
export { formatAccessDiffMarkdown, formatAccessDiffText } from "./smt/report";

/** A diagnostic of one property of a policy. */
export interface PropertyDiagnostic extends Diagnostic {
  /** `condition`, `consensus`, `time` or `scope`. */
  readonly property: ExpressionKind;
}

/** The expressions of a policy (or a session profile's `scope`), as declared. */
export interface DeclaredExpressions {
  readonly effect?: string;
  readonly condition?: string | null;
  readonly consensus?: string | null;
  readonly time?: string | null;
  readonly scope?: string | null;
}

/**
 * Checks every expression of a policy and the policy-level lints. Empty or absent expressions
 * are fine (they hold for every request).
 * @returns errors and warnings, each naming its property and position
 */
export function checkPolicy(policy: DeclaredExpressions): PropertyDiagnostic[] {
  const found: PropertyDiagnostic[] = [];
  for (const property of ["condition", "consensus", "time", "scope"] as const) {
    const text = policy[property];
    if (text === undefined || text === null || text.trim() === "") continue;
    const result = compiledExpression(property, text);
    for (const d of [...result.errors, ...result.warnings]) found.push({ ...d, property });
  }
  if (policy.effect !== undefined && policy.scope === undefined) {
    const text = policy.condition ?? "";
    const condition = text.trim() === "" ? undefined : compiledExpression("condition", text);
    if (!condition || condition.expr) {
      const present = (text: string | null | undefined) => text !== undefined && text !== null && text.trim() !== "";
      const consensus = present(policy.consensus) ? compiledExpression("consensus", policy.consensus!).expr : undefined;
      const shape = { effect: policy.effect, condition: condition?.expr, hasConsensus: present(policy.consensus), ...(consensus ? { consensus } : {}), hasTime: present(policy.time) };
      const policyLints = [...lintSigningScope(policy.effect, condition?.expr), ...lintCoverage(shape), ...lintPolicyPitfalls(policy.effect, condition?.expr)];
      for (const d of policyLints) found.push({ ...d, property: "condition" });
    }
  }
  return found;
}
