/**
 * @module policy/compile
 * Parse, type check and lint one expression: the single entry point the resources, the CLI
 * and the emulator use, so they all refuse and warn about the same things.
 */
import type { Expr } from "./ast";
import { checkExpression } from "./checker";
import { PolicySyntaxError, type Diagnostic } from "./errors";
import { lintDocumentedPitfalls } from "./docs-lints";
import { lintExpression } from "./lints";
import { parseExpression } from "./parser";
import type { ExpressionKind } from "./types";

/** The result of checking one expression. */
export interface ExpressionCheck {
  /** The tree, when the expression parsed and type checked. */
  readonly expr?: Expr;
  /** At most one error (the first problem found). */
  readonly errors: readonly Diagnostic[];
  readonly warnings: readonly Diagnostic[];
}

/**
 * Checks a `condition`, `consensus`, `time` or session-profile `scope` expression.
 * Never throws for bad text: problems come back as diagnostics with line and column.
 */
export function checkPolicyExpression(kind: ExpressionKind, text: string): ExpressionCheck {
  let expr: Expr;
  try {
    expr = parseExpression(text);
    checkExpression(expr, kind);
  } catch (error) {
    if (error instanceof PolicySyntaxError) return { errors: [error.toDiagnostic()], warnings: [] };
    throw error;
  }
  return { expr, errors: [], warnings: [...lintExpression(expr), ...lintDocumentedPitfalls(expr)] };
}

const cache = new Map<string, ExpressionCheck>();
const CACHE_LIMIT = 1000;

/** {@link checkPolicyExpression}, remembered (the emulator evaluates the same texts on every request). */
export function compiledExpression(kind: ExpressionKind, text: string): ExpressionCheck {
  const key = `${kind}\u0000${text}`;
  let found = cache.get(key);
  if (!found) {
    found = checkPolicyExpression(kind, text);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, found);
  }
  return found;
}
