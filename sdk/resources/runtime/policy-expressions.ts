/**
 * @module resources/runtime/policy-expressions
 * `check` of the policy language for resources: each expression property that is known at
 * preview is parsed and type checked (sdk/policy), and an error becomes a failure on that
 * property with its line and column, so `pulumi preview` stops before anything ships. Lint
 * warnings never fail `check`: the TypeScript resource classes log them from the program
 * (`resources/policy-warnings.ts`), the provider plugin from its `check`; both word them with
 * {@link lintWarnings}.
 */
// The modules themselves, not the policy package's index: a provider process needs the checker,
// not the solver's access diff the index also loads.
import { checkPolicy, type DeclaredExpressions } from "../../policy/check-policy";
import { checkPolicyExpression } from "../../policy/compile";
import { formatDiagnostic } from "../../policy/errors";
import type { ExpressionKind } from "../../policy/types";
import type { CheckFailure } from "./check";
import { containsUnknown } from "./values";

/**
 * Failures of the expression properties of `inputs`, mapped `property → kind`
 * (e.g. `{ condition: "condition", consensus: "consensus" }`, or `{ scope: "scope" }`).
 */
export function expressionFailures(inputs: Record<string, unknown>, properties: Readonly<Record<string, ExpressionKind>>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  for (const [property, kind] of Object.entries(properties)) {
    const value = inputs[property];
    if (typeof value !== "string" || value.trim() === "" || containsUnknown(value)) continue;
    for (const error of checkPolicyExpression(kind, value).errors) {
      failures.push({ property, reason: `${kind} ${formatDiagnostic(error)}` });
    }
  }
  return failures;
}

/** The properties of each resource kind whose expressions are linted, as the classes pass them. */
export const LINTED_PROPERTIES: Readonly<Record<string, readonly (keyof DeclaredExpressions)[]>> = {
  Policy: ["effect", "condition", "consensus", "time"],
  SessionProfile: ["scope"],
};

/**
 * The lint warnings of `declared`, one line each, for the resource `label` (e.g.
 * `Policy "allow-ops"`): the words both front doors show.
 */
export function lintWarnings(label: string, declared: DeclaredExpressions): string[] {
  return checkPolicy(declared)
    .filter((d) => d.severity === "warning")
    .map((d) => `${label}: ${d.property} ${formatDiagnostic(d)} [${d.rule}]`);
}
