/**
 * @module policy/evaluate
 * Evaluates a checked expression against one request. As the service documents, there is no
 * short-circuit: both sides of `&&` and `||` are evaluated, so a clause that errors (a missing
 * `activity.params` field, `wallet` on a request that signs with a private key) makes the whole
 * expression error, whatever the other side says.
 *
 * Values: strings, bigint ints, booleans, {@link Instant} timestamps, arrays and plain objects
 * (JSON numbers read from request data become bigint; a decimal string compared with an int is
 * read as that int, since the service carries u256 amounts as strings).
 */
import type { Expr } from "./ast";
import { PolicyEvaluationError, type Position } from "./errors";
import { cronSpanHolds, parseCronSpan, parseTimestamp } from "./time";

/** A point in time (`time.now`, `Timestamp('…')`). */
export class Instant {
  constructor(readonly ms: number) {}
}

/** What an expression may read: the keywords' values and the current time. */
export interface EvaluationInput {
  /** Keyword values (`activity`, `approvers`, `wallet`, …); a keyword left out is "not part of this request". */
  readonly keywords: Readonly<Record<string, unknown>>;
  /** Epoch ms used for `time.now` and CronSpan. */
  readonly nowMs: number;
}

type Value = unknown;

/**
 * Evaluates a bool expression.
 * @throws PolicyEvaluationError when a clause cannot be evaluated for this request
 */
export function evaluateExpression(expr: Expr, input: EvaluationInput): boolean {
  const value = new Evaluator(input).value(expr, new Map());
  if (typeof value !== "boolean") throw new PolicyEvaluationError(`expected a bool result, got ${describe(value)}`, expr.position);
  return value;
}

function describe(value: Value): string {
  if (value === null || value === undefined) return "nothing";
  if (value instanceof Instant) return "a timestamp";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "bigint") return "an int";
  return `a ${typeof value === "object" ? "map" : typeof value}`;
}

/** Request data as language values: integral numbers become bigint. */
function normalize(value: Value): Value {
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value);
  return value;
}

const DECIMAL = /^-?\d+$/;

/** Two values as comparable ints, or undefined when one is not an int. */
function asInts(a: Value, b: Value): [bigint, bigint] | undefined {
  const toInt = (v: Value) => (typeof v === "bigint" ? v : typeof v === "string" && DECIMAL.test(v) ? BigInt(v) : undefined);
  if (typeof a !== "bigint" && typeof b !== "bigint") return undefined;
  const x = toInt(a);
  const y = toInt(b);
  return x === undefined || y === undefined ? undefined : [x, y];
}

function equal(a: Value, b: Value, at: Position): boolean {
  const ints = asInts(a, b);
  if (ints) return ints[0] === ints[1];
  if (a instanceof Instant && b instanceof Instant) return a.ms === b.ms;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => equal(normalize(x), normalize(b[i]), at));
  if (typeof a !== typeof b || a === null || b === null || typeof a === "object") {
    throw new PolicyEvaluationError(`cannot compare ${describe(a)} with ${describe(b)}`, at);
  }
  return a === b;
}

class Evaluator {
  constructor(private readonly input: EvaluationInput) {}

  value(expr: Expr, scope: ReadonlyMap<string, Value>): Value {
    switch (expr.kind) {
      case "string":
      case "int":
      case "bool":
        return expr.value;
      case "ident":
        return this.name(expr.name, expr.position, scope);
      case "list":
        return expr.items.map((item) => this.value(item, scope));
      case "not":
        return !this.bool(expr.operand, scope);
      case "logical": {
        // Both sides always run: an error on either side is the expression's error.
        const left = this.bool(expr.left, scope);
        const right = this.bool(expr.right, scope);
        return expr.op === "&&" ? left && right : left || right;
      }
      case "compare":
        return this.compare(expr, scope);
      case "member":
        return this.field(this.value(expr.object, scope), expr.name, expr.namePosition);
      case "method":
        return this.method(expr, scope);
      case "index":
        return this.index(this.value(expr.object, scope), this.value(expr.index, scope), expr.index.position);
      case "slice":
        return this.slice(expr, scope);
      case "call": {
        const args = expr.args.map((arg) => (arg.kind === "string" ? arg.value : ""));
        if (expr.name === "Timestamp") return new Instant(parseTimestamp(args[0]!));
        return cronSpanHolds(parseCronSpan(args[0]!, args[1]!, args[2]!), this.input.nowMs);
      }
    }
  }

  private bool(expr: Expr, scope: ReadonlyMap<string, Value>): boolean {
    const value = this.value(expr, scope);
    if (typeof value !== "boolean") throw new PolicyEvaluationError(`expected a bool, got ${describe(value)}`, expr.position);
    return value;
  }

  private name(name: string, at: Position, scope: ReadonlyMap<string, Value>): Value {
    if (scope.has(name)) return scope.get(name);
    if (name === "time") return { now: new Instant(this.input.nowMs) };
    const value = this.input.keywords[name];
    if (value === undefined || value === null) throw new PolicyEvaluationError(`'${name}' is not part of this request`, at);
    return normalize(value);
  }

  private field(object: Value, name: string, at: Position): Value {
    if (typeof object !== "object" || object === null || Array.isArray(object) || object instanceof Instant) {
      throw new PolicyEvaluationError(`cannot read field '${name}' of ${describe(object)}`, at);
    }
    if (!Object.prototype.hasOwnProperty.call(object, name) || (object as Record<string, unknown>)[name] === undefined) {
      throw new PolicyEvaluationError(`no field '${name}' in this request`, at);
    }
    return normalize((object as Record<string, unknown>)[name]);
  }

  private index(object: Value, index: Value, at: Position): Value {
    if (typeof index === "string") return this.field(object, index, at);
    if (typeof index !== "bigint") throw new PolicyEvaluationError(`an index must be an int or a string key, got ${describe(index)}`, at);
    if (!Array.isArray(object) && typeof object !== "string") throw new PolicyEvaluationError(`cannot index ${describe(object)} by position`, at);
    const i = Number(index);
    if (i < 0 || i >= object.length) throw new PolicyEvaluationError(`index ${i} is out of range (length ${object.length})`, at);
    return normalize(object[i]);
  }

  private slice(expr: Extract<Expr, { kind: "slice" }>, scope: ReadonlyMap<string, Value>): Value {
    const object = this.value(expr.object, scope);
    const start = this.value(expr.start, scope);
    const end = this.value(expr.end, scope);
    if (typeof start !== "bigint" || typeof end !== "bigint") throw new PolicyEvaluationError("slice bounds must be ints", expr.start.position);
    if (!Array.isArray(object) && typeof object !== "string") throw new PolicyEvaluationError(`cannot slice ${describe(object)}`, expr.position);
    const [from, to] = [Number(start), Number(end)];
    if (from < 0 || to < from || to > object.length) {
      throw new PolicyEvaluationError(`slice [${from}..${to}] is out of range (length ${object.length})`, expr.start.position);
    }
    return object.slice(from, to);
  }

  private compare(expr: Extract<Expr, { kind: "compare" }>, scope: ReadonlyMap<string, Value>): boolean {
    const left = this.value(expr.left, scope);
    const right = this.value(expr.right, scope);
    switch (expr.op) {
      case "==":
        return equal(left, right, expr.position);
      case "!=":
        return !equal(left, right, expr.position);
      case "in":
        if (!Array.isArray(right)) throw new PolicyEvaluationError(`'in' needs a list, got ${describe(right)}`, expr.right.position);
        return right.some((item) => equal(left, normalize(item), expr.position));
      default: {
        let pair: [bigint | number, bigint | number] | undefined = asInts(left, right);
        if (!pair && left instanceof Instant && right instanceof Instant) pair = [left.ms, right.ms];
        if (!pair) throw new PolicyEvaluationError(`'${expr.op}' cannot order ${describe(left)} and ${describe(right)}`, expr.position);
        const [a, b] = pair;
        return expr.op === "<" ? a < b : expr.op === ">" ? a > b : expr.op === "<=" ? a <= b : a >= b;
      }
    }
  }

  private method(expr: Extract<Expr, { kind: "method" }>, scope: ReadonlyMap<string, Value>): Value {
    const object = this.value(expr.object, scope);
    const at = expr.namePosition;
    if (typeof object === "string" && expr.name === "contains") {
      const needle = this.value(expr.args[0]!, scope);
      if (typeof needle !== "string") throw new PolicyEvaluationError(`contains on a string needs a string, got ${describe(needle)}`, at);
      return object.includes(needle);
    }
    if (!Array.isArray(object)) throw new PolicyEvaluationError(`'${expr.name}' needs a list, got ${describe(object)}`, at);
    const items = object.map(normalize);
    switch (expr.name) {
      case "count":
        return BigInt(items.length);
      case "contains": {
        const needle = this.value(expr.args[0]!, scope);
        return items.some((item) => equal(item, needle, at));
      }
      default: {
        const variable = (expr.args[0] as Extract<Expr, { kind: "ident" }>).name;
        // Every item is tested (no short-circuit), so an item that errors is an error.
        const results = items.map((item) => this.bool(expr.args[1]!, new Map(scope).set(variable, item)));
        if (expr.name === "all") return results.every(Boolean);
        if (expr.name === "any") return results.some(Boolean);
        return items.filter((_, i) => results[i]);
      }
    }
  }
}
