/**
 * @module resources/runtime/policy-expressions
 * `check` of the policy language for resources: each expression property that is known at
 * preview is parsed and type checked (sdk/policy), and an error becomes a failure on that
 * property with its line and column, so `pulumi preview` stops before anything ships. Lint
 * warnings never fail `check` (dynamic providers have no channel for warnings; the resource
 * classes log them from the program, see `resources/policy-warnings.ts`).
 */
import { checkPolicyExpression, formatDiagnostic, type ExpressionKind } from "../../policy";
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
