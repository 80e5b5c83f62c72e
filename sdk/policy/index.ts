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
export { checkPolicy, type DeclaredExpressions, type PropertyDiagnostic } from "./check-policy";
