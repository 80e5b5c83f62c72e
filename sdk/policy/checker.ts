/**
 * @module policy/checker
 * Type checks an expression of one kind (`condition`, `consensus`, `time`, `scope`): every name
 * is a keyword of that kind or a lambda variable, every field exists, operands have the types the
 * operators need, and the whole expression is a bool. The documented errata are refused, not
 * waved through: `transfers.count` without `()`, a number compared with a string
 * (`chain_id == '1'`), unquoted `<PLACEHOLDER>`s (a syntax error).
 */
import type { Expr } from "./ast";
import { PolicySyntaxError, type Position } from "./errors";
import { parseCronSpan, parseTimestamp } from "./time";
import { assignable, BOOL, DYN, INT, isNumeric, KEYWORDS, listOf, STRING, TIMESTAMP, typeName, type ExpressionKind, type Type } from "./types";

const LIST_METHODS = ["all", "any", "filter", "contains", "count"];

type Scope = ReadonlyMap<string, Type>;

/**
 * Checks `expr` as an expression of `kind`.
 * @throws PolicySyntaxError (rule "type") at the first problem
 */
export function checkExpression(expr: Expr, kind: ExpressionKind): void {
  const type = new Checker(kind).typeOf(expr, new Map());
  if (!assignable(type, BOOL)) fail(expr.position, `a ${kind} must be a bool expression, but this is ${typeName(type)}`);
}

/** " (write 1 without quotes)" when a number is compared with a quoted number (a documented erratum), else "". */
function quotedNumberHint(expr: Extract<Expr, { kind: "compare" }>, left: Type, right: Type): string {
  const quoted = [expr.left, expr.right].find((side): side is Extract<Expr, { kind: "string" }> => side.kind === "string" && /^\d+$/.test(side.value));
  return quoted && (isNumeric(left) || isNumeric(right)) ? ` (write ${quoted.value} without quotes)` : "";
}

function fail(position: Position, message: string): never {
  throw new PolicySyntaxError("type", message, position);
}

class Checker {
  constructor(private readonly kind: ExpressionKind) {}

  typeOf(expr: Expr, scope: Scope): Type {
    switch (expr.kind) {
      case "string":
        return STRING;
      case "int":
        return INT;
      case "bool":
        return BOOL;
      case "ident":
        return this.name(expr.name, expr.position, scope);
      case "list":
        return this.list(expr.items, scope);
      case "not":
        this.expect(expr.operand, BOOL, scope, "'!'");
        return BOOL;
      case "logical":
        this.expect(expr.left, BOOL, scope, `'${expr.op}'`);
        this.expect(expr.right, BOOL, scope, `'${expr.op}'`);
        return BOOL;
      case "compare":
        return this.compare(expr, scope);
      case "member":
        return this.member(this.typeOf(expr.object, scope), expr.name, expr.namePosition);
      case "method":
        return this.method(expr, scope);
      case "index":
        return this.index(expr.object, expr.index, scope);
      case "slice": {
        const object = this.typeOf(expr.object, scope);
        this.expect(expr.start, INT, scope, "a slice start");
        this.expect(expr.end, INT, scope, "a slice end");
        if (object.t === "list" || object.t === "string" || object.t === "dyn") return object;
        return fail(expr.position, `only lists and strings can be sliced, not ${typeName(object)}`);
      }
      case "call":
        return this.call(expr.name, expr.args, expr.position);
    }
  }

  private expect(expr: Expr, want: Type, scope: Scope, where: string): void {
    const type = this.typeOf(expr, scope);
    if (!assignable(type, want)) fail(expr.position, `${where} needs ${typeName(want)}, found ${typeName(type)}`);
  }

  private name(name: string, position: Position, scope: Scope): Type {
    const local = scope.get(name);
    if (local) return local;
    const keyword = KEYWORDS[this.kind][name];
    if (keyword) return keyword;
    const allowed = Object.keys(KEYWORDS[this.kind]).join(", ");
    const owner = (Object.keys(KEYWORDS) as ExpressionKind[]).find((k) => KEYWORDS[k][name] !== undefined);
    if (owner) fail(position, `'${name}' is a ${owner} keyword; a ${this.kind} may use ${allowed}`);
    return fail(position, `unknown name '${name}'; a ${this.kind} may use ${allowed}`);
  }

  private list(items: readonly Expr[], scope: Scope): Type {
    if (items.length === 0) return listOf(DYN);
    const first = this.typeOf(items[0]!, scope);
    for (const item of items.slice(1)) {
      const type = this.typeOf(item, scope);
      if (!assignable(type, first)) fail(item.position, `list items must have one type: expected ${typeName(first)}, found ${typeName(type)}`);
    }
    return listOf(first);
  }

  private compare(expr: Extract<Expr, { kind: "compare" }>, scope: Scope): Type {
    const left = this.typeOf(expr.left, scope);
    const right = this.typeOf(expr.right, scope);
    const mismatch = () => fail(expr.position, `'${expr.op}' cannot compare ${typeName(left)} with ${typeName(right)}${quotedNumberHint(expr, left, right)}`);
    if (expr.op === "in") {
      if (right.t === "dyn") return BOOL;
      if (right.t !== "list") return fail(expr.right.position, `'in' needs a list on its right, found ${typeName(right)}`);
      if (!assignable(left, right.of)) mismatch();
      return BOOL;
    }
    if (expr.op === "==" || expr.op === "!=") {
      if (!assignable(left, right)) mismatch();
      return BOOL;
    }
    const ordered = (t: Type) => isNumeric(t) || t.t === "timestamp" || t.t === "dyn";
    if (!ordered(left) || !ordered(right) || !assignable(left, right)) {
      fail(expr.position, `'${expr.op}' orders ints or timestamps, not ${typeName(left)} and ${typeName(right)}`);
    }
    return BOOL;
  }

  private member(object: Type, name: string, position: Position): Type {
    if (object.t === "dyn") return DYN;
    if (object.t === "object") {
      const field = object.fields[name];
      if (field) return field;
      if (object.open) return DYN;
      return fail(position, `${object.name} has no field '${name}'; its fields are ${Object.keys(object.fields).join(", ")}`);
    }
    if (object.t === "map") return fail(position, `${typeName(object)} is read by key: write ['${name}'], not .${name}`);
    if (object.t === "list" && LIST_METHODS.includes(name)) {
      return fail(position, `'${name}' is a method: write ${name}(${name === "count" ? "" : "…"})`);
    }
    return fail(position, `${typeName(object)} has no field '${name}'`);
  }

  private method(expr: Extract<Expr, { kind: "method" }>, scope: Scope): Type {
    const object = this.typeOf(expr.object, scope);
    const at = expr.namePosition;
    const element: Type | undefined = object.t === "list" ? object.of : object.t === "dyn" ? DYN : undefined;
    if (object.t === "string" && expr.name === "contains") {
      this.arity(expr, 1);
      this.expect(expr.args[0]!, STRING, scope, "contains");
      return BOOL;
    }
    if (element === undefined) return fail(at, `${typeName(object)} has no method '${expr.name}'; lists have ${LIST_METHODS.join(", ")}`);
    switch (expr.name) {
      case "all":
      case "any":
      case "filter": {
        this.arity(expr, 2);
        const variable = expr.args[0]!;
        if (variable.kind !== "ident") return fail(variable.position, `${expr.name} expects a variable name first, as in ${expr.name}(x, x == …)`);
        if (KEYWORDS[this.kind][variable.name]) fail(variable.position, `'${variable.name}' is a keyword; choose another variable name`);
        const inner = new Map(scope).set(variable.name, element);
        this.expect(expr.args[1]!, BOOL, inner, `the predicate of ${expr.name}`);
        return expr.name === "filter" ? listOf(element) : BOOL;
      }
      case "contains":
        this.arity(expr, 1);
        this.expect(expr.args[0]!, element, scope, "contains");
        return BOOL;
      case "count":
        this.arity(expr, 0);
        return INT;
      default:
        return fail(at, `unknown method '${expr.name}'; lists have ${LIST_METHODS.join(", ")}`);
    }
  }

  private arity(expr: Extract<Expr, { kind: "method" }>, count: number): void {
    if (expr.args.length !== count) {
      fail(expr.namePosition, `${expr.name} takes ${count} argument${count === 1 ? "" : "s"}, found ${expr.args.length}`);
    }
  }

  private index(objectExpr: Expr, indexExpr: Expr, scope: Scope): Type {
    const object = this.typeOf(objectExpr, scope);
    const index = this.typeOf(indexExpr, scope);
    if (object.t === "dyn") {
      if (index.t !== "int" && index.t !== "string" && index.t !== "dyn") fail(indexExpr.position, `an index is an int or a string key, found ${typeName(index)}`);
      return DYN;
    }
    if (object.t === "map") {
      if (index.t !== "string" && index.t !== "dyn") fail(indexExpr.position, `a ${typeName(object)} is read by a string key, found ${typeName(index)}`);
      return object.of;
    }
    if (object.t === "list" || object.t === "string") {
      if (!assignable(index, INT)) fail(indexExpr.position, `a ${typeName(object)} index must be an int, found ${typeName(index)}`);
      return object.t === "list" ? object.of : STRING;
    }
    if (object.t === "object" && indexExpr.kind === "string") return this.member(object, indexExpr.value, indexExpr.position);
    return fail(indexExpr.position, `${typeName(object)} cannot be indexed`);
  }

  private call(name: "Timestamp" | "CronSpan", args: readonly Expr[], position: Position): Type {
    const want = name === "Timestamp" ? 1 : 3;
    if (args.length !== want) fail(position, `${name} takes ${want} string argument${want === 1 ? "" : "s"}, found ${args.length}`);
    const texts = args.map((arg) => (arg.kind === "string" ? arg.value : fail(arg.position, `${name} arguments must be quoted strings`)));
    try {
      if (name === "Timestamp") {
        parseTimestamp(texts[0]!);
        return TIMESTAMP;
      }
      parseCronSpan(texts[0]!, texts[1]!, texts[2]!);
      return BOOL;
    } catch (error) {
      return fail(position, (error as Error).message);
    }
  }
}
