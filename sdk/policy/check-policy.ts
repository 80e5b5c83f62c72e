/**
 * @module policy/check-policy
 * The check of a declared policy (or a session profile's `scope`): every expression parsed and
 * type checked, and the policy-level lints. Its own module, apart from the package's index, so
 * that what checks a resource's expressions (the provider runtime, the resource classes, the
 * provider plugin) loads the parser, the checker and the lints, and not the solver's access diff
 * nor the evaluator the index also exports.
 */
import { compiledExpression } from "./compile";
import { lintCoverage } from "./coverage";
import { lintPolicyPitfalls } from "./docs-lints";
import type { Diagnostic } from "./errors";
import { lintSigningScope } from "./lints";
import type { ExpressionKind } from "./types";

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
