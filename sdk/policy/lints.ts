/**
 * @module policy/lints
 * Warnings from the service's own authoring rules. They never refuse a policy:
 *
 * - `mixed-and-or`: `&&` and `||` side by side without parentheses. The service does not
 *   document their precedence and every example parenthesises; keyform reads `&&` first.
 * - `wallet-and-private-key`: `wallet` and `private_key` in one expression. A request signs with
 *   one or the other and there is no short-circuit, so the expression always errors.
 * - `unscoped-signing-allow`: an ALLOW that covers signing but names no wallet, private key or
 *   wallet account, so it lets the submitter sign with every key of the organization.
 * - `unknown-resource` / `unknown-action`: `activity.resource` or `activity.action` compared
 *   with a value outside the documented lists (the comparison can never hold).
 */
import { memberPath, walk, type Expr } from "./ast";
import type { Diagnostic, Position } from "./errors";
import { ACTIONS, CHAIN_KEYWORDS, RESOURCES } from "./types";

const warning = (rule: string, message: string, position: Position): Diagnostic => ({ severity: "warning", rule, message, position });

/** Names (keywords) an expression reads. */
export function keywordsUsed(expr: Expr): Set<string> {
  const names = new Set<string>();
  walk(expr, (node) => {
    if (node.kind === "ident") names.add(node.name);
  });
  return names;
}

/** The lints of one expression. */
export function lintExpression(expr: Expr): Diagnostic[] {
  const found: Diagnostic[] = [];
  walk(expr, (node) => {
    if (node.kind !== "logical") return;
    for (const side of [node.left, node.right]) {
      if (side.kind === "logical" && side.op !== node.op && !side.parenthesized) {
        found.push(
          warning(
            "mixed-and-or",
            `'&&' and '||' are mixed without parentheses; the service does not document their precedence, so write ( … ) around the '${side.op}' part`,
            side.position,
          ),
        );
      }
    }
  });
  const names = keywordsUsed(expr);
  if (names.has("wallet") && names.has("private_key")) {
    let at: Position = expr.position;
    walk(expr, (node) => {
      if (node.kind === "ident" && node.name === "private_key") at = node.position;
    });
    found.push(
      warning(
        "wallet-and-private-key",
        "'wallet' and 'private_key' in one expression: a request signs with one or the other and every clause is evaluated, so this always errors; write two policies",
        at,
      ),
    );
  }
  walk(expr, (node) => {
    if (node.kind !== "compare" || (node.op !== "==" && node.op !== "!=" && node.op !== "in")) return;
    const path = memberPath(node.left);
    const known = path === "activity.resource" ? RESOURCES : path === "activity.action" ? ACTIONS : undefined;
    if (!known) return;
    const literals = node.right.kind === "string" ? [node.right] : node.right.kind === "list" ? node.right.items : [];
    for (const literal of literals) {
      if (literal.kind === "string" && !known.has(literal.value)) {
        const what = path === "activity.resource" ? "resource" : "action";
        found.push(warning(`unknown-${what}`, `'${literal.value}' is not a documented activity ${what}`, literal.position));
      }
    }
  });
  return found;
}

/** Whether a condition is about signing: signing actions or kinds, or a chain payload. */
function coversSigning(condition: Expr | undefined): boolean {
  if (!condition) return true;
  let signing = false;
  walk(condition, (node) => {
    if (node.kind === "ident" && CHAIN_KEYWORDS.has(node.name)) signing = true;
    if (node.kind !== "compare" || (node.op !== "==" && node.op !== "in")) return;
    const path = memberPath(node.left);
    const literals = node.right.kind === "string" ? [node.right] : node.right.kind === "list" ? node.right.items : [];
    for (const literal of literals) {
      if (literal.kind !== "string") continue;
      if (path === "activity.action" && literal.value === "SIGN") signing = true;
      if ((path === "activity.kind" || path === "activity.type") && literal.value.includes("SIGN_")) signing = true;
    }
  });
  return signing;
}

/**
 * The policy-level lint: a signing ALLOW not scoped to a wallet or key.
 * @param condition the parsed condition, or undefined when the policy has none
 */
export function lintSigningScope(effect: string, condition: Expr | undefined): Diagnostic[] {
  if (effect !== "EFFECT_ALLOW" || !coversSigning(condition)) return [];
  const names = condition ? keywordsUsed(condition) : new Set<string>();
  if (names.has("wallet") || names.has("private_key") || names.has("wallet_account")) return [];
  return [
    warning(
      "unscoped-signing-allow",
      "this ALLOW covers signing but names no wallet, private_key or wallet_account, so it allows signing with every key of the organization",
      condition?.position ?? { offset: 0, line: 1, column: 1 },
    ),
  ];
}
