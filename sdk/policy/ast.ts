/**
 * @module policy/ast
 * The syntax tree of a policy expression. Every node keeps the position of its first token and
 * whether it was written inside parentheses (the mixed `&&`/`||` lint needs that).
 */
import type { Position } from "./errors";

interface NodeBase {
  readonly position: Position;
  /** Written as `( … )`. */
  parenthesized?: boolean;
}

export type ComparisonOperator = "==" | "!=" | "<" | ">" | "<=" | ">=" | "in";
export type LogicalOperator = "&&" | "||";

export type Expr =
  | (NodeBase & { readonly kind: "string"; readonly value: string })
  | (NodeBase & { readonly kind: "int"; readonly value: bigint })
  | (NodeBase & { readonly kind: "bool"; readonly value: boolean })
  | (NodeBase & { readonly kind: "ident"; readonly name: string })
  | (NodeBase & { readonly kind: "list"; readonly items: readonly Expr[] })
  | (NodeBase & { readonly kind: "not"; readonly operand: Expr })
  | (NodeBase & { readonly kind: "logical"; readonly op: LogicalOperator; readonly left: Expr; readonly right: Expr })
  | (NodeBase & { readonly kind: "compare"; readonly op: ComparisonOperator; readonly left: Expr; readonly right: Expr })
  | (NodeBase & { readonly kind: "member"; readonly object: Expr; readonly name: string; readonly namePosition: Position })
  | (NodeBase & {
      readonly kind: "method";
      readonly object: Expr;
      readonly name: string;
      readonly namePosition: Position;
      readonly args: readonly Expr[];
    })
  | (NodeBase & { readonly kind: "index"; readonly object: Expr; readonly index: Expr })
  | (NodeBase & { readonly kind: "slice"; readonly object: Expr; readonly start: Expr; readonly end: Expr })
  | (NodeBase & { readonly kind: "call"; readonly name: "Timestamp" | "CronSpan"; readonly args: readonly Expr[] });

/** Calls `visit` on `expr` and every node below it, parents first. */
export function walk(expr: Expr, visit: (node: Expr) => void): void {
  visit(expr);
  for (const child of children(expr)) walk(child, visit);
}

function children(expr: Expr): readonly Expr[] {
  switch (expr.kind) {
    case "list":
      return expr.items;
    case "not":
      return [expr.operand];
    case "logical":
    case "compare":
      return [expr.left, expr.right];
    case "member":
      return [expr.object];
    case "method":
      return [expr.object, ...expr.args];
    case "index":
      return [expr.object, expr.index];
    case "slice":
      return [expr.object, expr.start, expr.end];
    case "call":
      return expr.args;
    default:
      return [];
  }
}

/** The dotted path of a member chain rooted at an identifier (`activity.params.user_ids`), if it is one. */
export function memberPath(expr: Expr): string | undefined {
  if (expr.kind === "ident") return expr.name;
  if (expr.kind === "member") {
    const base = memberPath(expr.object);
    return base === undefined ? undefined : `${base}.${expr.name}`;
  }
  return undefined;
}

/** The expression as canonical text (one spacing, explicit parentheses), used as a stable key for a clause. */
export function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case "string":
      return `'${expr.value}'`;
    case "int":
      return expr.value.toString();
    case "bool":
      return String(expr.value);
    case "ident":
      return expr.name;
    case "list":
      return `[${expr.items.map(printExpr).join(", ")}]`;
    case "not":
      return `!${printExpr(expr.operand)}`;
    case "logical":
    case "compare":
      return `(${printExpr(expr.left)} ${expr.op} ${printExpr(expr.right)})`;
    case "member":
      return `${printExpr(expr.object)}.${expr.name}`;
    case "method":
      return `${printExpr(expr.object)}.${expr.name}(${expr.args.map(printExpr).join(", ")})`;
    case "index":
      return `${printExpr(expr.object)}[${printExpr(expr.index)}]`;
    case "slice":
      return `${printExpr(expr.object)}[${printExpr(expr.start)}..${printExpr(expr.end)}]`;
    case "call":
      return `${expr.name}(${expr.args.map(printExpr).join(", ")})`;
  }
}
