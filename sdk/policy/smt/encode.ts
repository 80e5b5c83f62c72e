/**
 * @module policy/smt/encode
 * Policy expressions as Z3 formulas over one symbolic request, with the service's semantics:
 * every clause yields a value and an error condition, `&&`/`||` do not short-circuit (an error
 * on either side is the expression's error), and a policy applies only when nothing errors.
 *
 * The request: `t` picks the activity type (its type, kind, resource, action and which params
 * fields and keywords exist follow from it), `s` the submitter, one boolean per user says who
 * approved, `target` whether the request signs with a wallet (1), a private key (2) or neither
 * (0). Strings are interned as ints (only equality is ever asked of them), so a string variable
 * is an int and a value outside the literals stands for "some other string".
 *
 * Encoded exactly: activity type/kind/resource/action, `==`, `!=`, `<`…, `in` on literal lists,
 * `&&`, `||`, `!`, `activity.params` fields and chain/target keyword fields read as strings or
 * ints (with their availability), approvers via any/all/filter/count over the users' ids, tags,
 * emails and aliases, `.count()` of a request list. Anything else (credentials, time windows,
 * lambdas over request lists, slices, `in` on request lists) becomes an opaque clause: a free
 * value and a free error keyed by its text, the same in both policy sets, and is reported.
 */
import type { Arith, Bool, Context } from "z3-solver";
import { printExpr, type Expr } from "../ast";
import { compiledExpression } from "../compile";
import { KEYWORDS, type ExpressionKind, type Type } from "../types";

export type Z3Context = Context<"main">;
export type Z3Bool = Bool<"main">;
export type Z3Int = Arith<"main">;

/** One activity type (or a class of types no policy tells apart) of the request space. */
export interface TypeSlot {
  readonly type: string;
  readonly kind: string;
  readonly resource: string;
  readonly action: string;
  /** Top-level params fields: true required, false optional; undefined when the type is not in the catalog. */
  readonly params?: Readonly<Record<string, boolean>>;
  /** Keywords that may exist beyond the universal ones; undefined when unknown (all may). */
  readonly keywords?: ReadonlySet<string>;
  readonly rootOnly: boolean;
}

/** One user who may submit or approve. */
export interface UserSlot {
  readonly id: string;
  readonly tags: readonly string[];
  readonly email: string;
  readonly alias: string;
}

/** A value during encoding. */
type Term =
  | { readonly k: "bool"; readonly v: Z3Bool; readonly err: Z3Bool }
  | { readonly k: "int"; readonly v: Z3Int; readonly err: Z3Bool }
  | { readonly k: "str"; readonly v: Z3Int; readonly err: Z3Bool }
  | { readonly k: "fact"; readonly path: string }
  | { readonly k: "path"; readonly path: string; readonly err: Z3Bool }
  | { readonly k: "strings"; readonly values: readonly string[] }
  | { readonly k: "user"; readonly index: number }
  | { readonly k: "approvers" }
  | { readonly k: "items"; readonly items: readonly Term[] };

/** Fields of `activity` decided by the type alone. */
const FACT_FIELDS = new Set(["type", "kind", "resource", "action"]);
const TARGET_OF: Readonly<Record<string, number>> = { wallet: 1, wallet_account: 1, private_key: 2 };
const CHAINS = ["eth", "solana", "tron", "bitcoin"];

/** The symbolic request and everything the policies of both sides share. */
export class RequestSpace {
  readonly t: Z3Int;
  /** The submitter's class of users. */
  readonly s: Z3Int;
  readonly target: Z3Int;
  /** How many users of each class approve (the submitter included). */
  readonly approvals: readonly Z3Int[];
  readonly chainPresent: ReadonlyMap<string, Z3Bool>;
  /** Texts of clauses encoded as opaque (outside the exact fragment). */
  readonly opaque = new Set<string>();
  /** Encoded expressions by kind and text: both policy sets share unchanged policies' formulas. */
  readonly encoded = new Map<string, { v: Z3Bool; err: Z3Bool }>();
  private readonly codes = new Map<string, number>();
  private readonly vars = new Map<string, Z3Int | Z3Bool>();

  constructor(
    readonly z: Z3Context,
    readonly types: readonly TypeSlot[],
    /** Users in classes no policy tells apart (same referenced id, tags, email, alias): each class is one count. */
    readonly userClasses: readonly (readonly UserSlot[])[],
  ) {
    this.t = z.Int.const("t");
    this.s = z.Int.const("s");
    this.target = z.Int.const("target");
    this.approvals = userClasses.map((_, i) => z.Int.const(`approvals_${i}`));
    this.chainPresent = new Map(CHAINS.map((c) => [c, z.Bool.const(`chain_${c}`)]));
  }

  /** The int standing for a string literal (interned). */
  code(text: string): number {
    let code = this.codes.get(text);
    if (code === undefined) {
      code = this.codes.size;
      this.codes.set(text, code);
    }
    return code;
  }

  /** The literal an interned int stands for, if any. */
  literalOf(code: bigint): string | undefined {
    for (const [text, c] of this.codes) if (BigInt(c) === code) return text;
    return undefined;
  }

  intVar(key: string): Z3Int {
    let v = this.vars.get(`i:${key}`) as Z3Int | undefined;
    if (!v) this.vars.set(`i:${key}`, (v = this.z.Int.const(`i:${key}`)));
    return v;
  }

  boolVar(key: string): Z3Bool {
    let v = this.vars.get(`b:${key}`) as Z3Bool | undefined;
    if (!v) this.vars.set(`b:${key}`, (v = this.z.Bool.const(`b:${key}`)));
    return v;
  }

  /** Every int and bool variable made so far, by key (`i:…`, `b:…`), for reading a model. */
  variables(): ReadonlyMap<string, Z3Int | Z3Bool> {
    return this.vars;
  }

  /** The type indices for which `test` holds. */
  private typesWhere(test: (slot: TypeSlot) => boolean): Z3Bool {
    const z = this.z;
    const hits = this.types.map((slot, i) => (test(slot) ? this.t.eq(i) : undefined)).filter((x): x is Z3Bool => x !== undefined);
    return hits.length === 0 ? z.Bool.val(false) : hits.length === 1 ? hits[0]! : z.Or(...hits);
  }

  /** Constraints every request meets: indices in range, approvers include the submitter, keywords only where the type has them. */
  wellFormed(): Z3Bool {
    const z = this.z;
    const parts: Z3Bool[] = [
      this.t.ge(0),
      this.t.lt(this.types.length),
      this.s.ge(0),
      this.s.lt(this.userClasses.length),
      ...this.approvals.flatMap((n, i) => [n.ge(0), n.le(this.userClasses[i]!.length), z.Implies(this.s.eq(i), n.ge(1))]),
      this.target.ge(0),
      this.target.le(2),
      z.Implies(this.target.eq(1), this.typesWhere((slot) => !slot.keywords || slot.keywords.has("wallet"))),
      z.Implies(this.target.eq(2), this.typesWhere((slot) => !slot.keywords || slot.keywords.has("private_key"))),
      // A request that must name what it signs or exports always has a target.
      z.Implies(this.typesWhere((slot) => ["sign_with", "wallet_id", "private_key_id"].some((f) => slot.params?.[f] === true)), this.target.neq(0)),
    ];
    for (const [chain, present] of this.chainPresent) {
      parts.push(z.Implies(present, this.typesWhere((slot) => !slot.keywords || slot.keywords.has(chain))));
      for (const other of CHAINS) if (other > chain) parts.push(z.Not(z.And(present, this.chainPresent.get(other)!)));
    }
    return z.And(...parts);
  }

  /** Only the submitter approves. */
  alone(): Z3Bool {
    const z = this.z;
    return z.And(...this.approvals.map((n, i) => n.eq(z.If(this.s.eq(i), z.Int.val(1), z.Int.val(0)) as Z3Int)));
  }

  /** Whether the request's activity is one only the root quorum may run. */
  rootOnly(): Z3Bool {
    return this.typesWhere((slot) => slot.rootOnly);
  }

  /** The error condition of reading `path` (`activity.params.user_ids`, `eth.tx.to`, `wallet.id`). */
  availabilityError(path: string): Z3Bool {
    const z = this.z;
    const [root = "", ...rest] = path.split(".");
    if (root === "activity") {
      if (rest.length <= 1) return z.Bool.val(false);
      const field = rest[1]!.replace(/\[.*$/, "");
      const present = this.typesWhere((slot) => slot.params?.[field] === true);
      const optional = this.typesWhere((slot) => slot.params === undefined || slot.params[field] === false);
      let error = z.Not(z.Or(present, z.And(optional, this.boolVar(`has:activity.params.${field}`))));
      if (rest.length > 2 || rest[1]!.includes("[")) error = z.Or(error, this.boolVar(`err:${path}`));
      return error;
    }
    const target = TARGET_OF[root];
    if (target !== undefined) return this.target.neq(target);
    const chain = this.chainPresent.get(root);
    if (chain) return z.Or(z.Not(chain), pathReachesDyn(path) ? this.boolVar(`err:${path}`) : z.Bool.val(false));
    return this.boolVar(`err:${path}`);
  }

  /** The value of an activity fact (`activity.kind`) as an interned string. */
  factValue(path: string): Z3Int {
    const field = path.split(".")[1] as "type" | "kind" | "resource" | "action";
    let value: Z3Int = this.z.Int.val(this.code(this.types[0]?.[field] ?? ""));
    this.types.forEach((slot, i) => {
      if (i > 0) value = this.z.If(this.t.eq(i), this.z.Int.val(this.code(slot[field])), value);
    });
    return value;
  }

  /** Whether an activity fact equals one of `literals`. */
  factIn(path: string, literals: readonly string[]): Z3Bool {
    const field = path.split(".")[1] as "type" | "kind" | "resource" | "action";
    return this.typesWhere((slot) => literals.includes(slot[field]));
  }
}

/** Whether a keyword path runs past a typed field into undocumented (`dyn`) data. */
function pathReachesDyn(path: string): boolean {
  const [root = "", ...rest] = path.split(/\.|\[/);
  let type: Type | undefined = KEYWORDS.condition[root];
  for (const segment of rest) {
    if (!type || type.t === "dyn") return true;
    if (type.t !== "object") return true;
    type = type.fields[segment.replace(/^'|'\]$/g, "")] ?? (type.open ? { t: "dyn" } : undefined);
  }
  return !type || type.t === "dyn";
}

/** The dotted path of a keyword read (`eth.tx.contract_call_args['wad']`), or undefined. */
function pathOf(expr: Expr, bound: ReadonlyMap<string, Term>): string | undefined {
  if (expr.kind === "ident") return bound.has(expr.name) ? undefined : expr.name;
  if (expr.kind === "member") {
    const base = pathOf(expr.object, bound);
    return base === undefined ? undefined : `${base}.${expr.name}`;
  }
  if (expr.kind === "index" && expr.index.kind === "string") {
    const base = pathOf(expr.object, bound);
    return base === undefined ? undefined : `${base}['${expr.index.value}']`;
  }
  return undefined;
}

/** Encodes the expressions of one policy set over a {@link RequestSpace}. */
export class Encoder {
  private readonly z: Z3Context;

  constructor(private readonly space: RequestSpace) {
    this.z = space.z;
  }

  /** A policy expression as `{value, error}`; empty text holds without error; text that does not compile always errors. */
  expression(kind: ExpressionKind, text: string | null | undefined): { v: Z3Bool; err: Z3Bool } {
    const z = this.z;
    if (text === undefined || text === null || text.trim() === "") return { v: z.Bool.val(true), err: z.Bool.val(false) };
    const key = `${kind}\u0000${text}`;
    let found = this.space.encoded.get(key);
    if (!found) {
      found = this.encode(kind, text);
      this.space.encoded.set(key, found);
    }
    return found;
  }

  private encode(kind: ExpressionKind, text: string): { v: Z3Bool; err: Z3Bool } {
    const z = this.z;
    const compiled = compiledExpression(kind, text);
    if (!compiled.expr) return { v: z.Bool.val(false), err: z.Bool.val(true) };
    if (kind === "time") return this.opaqueBool(`time: ${printExpr(compiled.expr)}`, z.Bool.val(false));
    const term = this.bool(compiled.expr, new Map());
    return { v: term.v, err: term.err };
  }

  private opaqueBool(text: string, err: Z3Bool): { k: "bool"; v: Z3Bool; err: Z3Bool } {
    this.space.opaque.add(text);
    return { k: "bool", v: this.space.boolVar(`opaque:${text}`), err: this.z.Or(err, this.space.boolVar(`opaque-err:${text}`)) };
  }

  private errOf(term: Term): Z3Bool {
    return "err" in term ? term.err : this.z.Bool.val(false);
  }

  private bool(expr: Expr, env: ReadonlyMap<string, Term>): { k: "bool"; v: Z3Bool; err: Z3Bool } {
    const term = this.term(expr, env);
    if (term.k === "bool") return term;
    if (term.k === "path") return { k: "bool", v: this.space.boolVar(term.path), err: term.err };
    return this.opaqueBool(printExpr(expr), this.errOf(term));
  }

  private asInt(term: Term): { v: Z3Int; err: Z3Bool } | undefined {
    if (term.k === "int") return term;
    if (term.k === "path") return { v: this.space.intVar(term.path), err: term.err };
    return undefined;
  }

  private asStr(term: Term): { v: Z3Int; err: Z3Bool } | undefined {
    if (term.k === "str") return term;
    if (term.k === "path") return { v: this.space.intVar(`str:${term.path}`), err: term.err };
    if (term.k === "fact") return { v: this.space.factValue(term.path), err: this.z.Bool.val(false) };
    return undefined;
  }

  private term(expr: Expr, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    const f = z.Bool.val(false);
    switch (expr.kind) {
      case "string":
        return { k: "str", v: z.Int.val(this.space.code(expr.value)), err: f };
      case "int":
        return { k: "int", v: z.Int.val(expr.value), err: f };
      case "bool":
        return { k: "bool", v: z.Bool.val(expr.value), err: f };
      case "list": {
        const items = expr.items.map((item) => this.term(item, env));
        return { k: "items", items };
      }
      case "not": {
        const inner = this.bool(expr.operand, env);
        return { k: "bool", v: z.Not(inner.v), err: inner.err };
      }
      case "logical": {
        // No short-circuit: both sides' errors count.
        const [left, right] = [this.bool(expr.left, env), this.bool(expr.right, env)];
        return { k: "bool", v: expr.op === "&&" ? z.And(left.v, right.v) : z.Or(left.v, right.v), err: z.Or(left.err, right.err) };
      }
      case "compare":
        return this.compare(expr, env);
      case "ident": {
        const bound = env.get(expr.name);
        if (bound) return bound;
        if (expr.name === "approvers") return { k: "approvers" };
        return { k: "path", path: expr.name, err: this.space.availabilityError(expr.name) };
      }
      case "member":
      case "index": {
        const object = this.term(expr.object, env);
        if (object.k === "user" && expr.kind === "member") return this.userField(object.index, expr.name);
        const path = pathOf(expr, env);
        if (path !== undefined) {
          if (path.startsWith("activity.") && FACT_FIELDS.has(path.slice("activity.".length))) return { k: "fact", path };
          return { k: "path", path, err: this.space.availabilityError(path) };
        }
        return this.opaqueBool(printExpr(expr), this.errOf(object));
      }
      case "method":
        return this.method(expr, env);
      default:
        return this.opaqueBool(printExpr(expr), f);
    }
  }

  private userField(index: number, field: string): Term {
    const user = this.space.userClasses[index]![0]!;
    const z = this.z;
    if (field === "tags") return { k: "strings", values: user.tags };
    const value = field === "id" ? user.id : field === "email" ? user.email : user.alias;
    return { k: "str", v: z.Int.val(this.space.code(value)), err: z.Bool.val(false) };
  }

  private compare(expr: Extract<Expr, { kind: "compare" }>, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    const left = this.term(expr.left, env);
    const right = this.term(expr.right, env);
    const literals = (term: Term): string[] | undefined => {
      if (term.k === "items" && term.items.every((i) => i.k === "str")) {
        return expr.right.kind === "list" ? expr.right.items.map((i) => (i.kind === "string" ? i.value : "")) : undefined;
      }
      return undefined;
    };
    // activity facts against literals: a set of types.
    if (left.k === "fact" && (expr.op === "==" || expr.op === "!=") && expr.right.kind === "string") {
      const hit = this.space.factIn(left.path, [expr.right.value]);
      return { k: "bool", v: expr.op === "==" ? hit : z.Not(hit), err: z.Bool.val(false) };
    }
    if (left.k === "fact" && expr.op === "in") {
      const list = literals(right);
      if (list) return { k: "bool", v: this.space.factIn(left.path, list), err: z.Bool.val(false) };
    }
    if (expr.op === "in") {
      if (right.k !== "items") return this.opaqueBool(printExpr(expr), z.Or(this.errOf(left), this.errOf(right)));
      const parts = right.items.map((item) => this.equality(left, item));
      if (parts.some((p) => p === undefined)) return this.opaqueBool(printExpr(expr), this.errOf(left));
      const ok = parts as { v: Z3Bool; err: Z3Bool }[];
      return { k: "bool", v: ok.length === 0 ? z.Bool.val(false) : z.Or(...ok.map((p) => p.v)), err: z.Or(z.Bool.val(false), ...ok.map((p) => p.err)) };
    }
    if (expr.op === "==" || expr.op === "!=") {
      const eq = this.equality(left, right);
      if (!eq) return this.opaqueBool(printExpr(expr), z.Or(this.errOf(left), this.errOf(right)));
      return { k: "bool", v: expr.op === "==" ? eq.v : z.Not(eq.v), err: eq.err };
    }
    const [a, b] = [this.asInt(left), this.asInt(right)];
    if (!a || !b) return this.opaqueBool(printExpr(expr), z.Or(this.errOf(left), this.errOf(right)));
    const v = expr.op === "<" ? a.v.lt(b.v) : expr.op === "<=" ? a.v.le(b.v) : expr.op === ">" ? a.v.gt(b.v) : a.v.ge(b.v);
    return { k: "bool", v, err: z.Or(a.err, b.err) };
  }

  private equality(left: Term, right: Term): { v: Z3Bool; err: Z3Bool } | undefined {
    const z = this.z;
    if (left.k === "bool" || right.k === "bool") {
      const [a, b] = [left.k === "bool" ? left : left.k === "path" ? { v: this.space.boolVar(left.path), err: left.err } : undefined, right.k === "bool" ? right : right.k === "path" ? { v: this.space.boolVar(right.path), err: right.err } : undefined];
      return a && b ? { v: a.v.eq(b.v), err: z.Or(a.err, b.err) } : undefined;
    }
    const numeric = left.k === "int" || right.k === "int";
    const [a, b] = numeric ? [this.asInt(left), this.asInt(right)] : [this.asStr(left), this.asStr(right)];
    return a && b ? { v: a.v.eq(b.v), err: z.Or(a.err, b.err) } : undefined;
  }

  private method(expr: Extract<Expr, { kind: "method" }>, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    if (expr.object.kind === "method" && expr.object.name === "filter" && expr.name === "count") {
      const filtered = this.filteredApprovers(expr.object, env);
      if (filtered) return filtered;
    }
    const object = this.term(expr.object, env);
    const f = z.Bool.val(false);
    if (object.k === "strings") {
      if (expr.name === "count") return { k: "int", v: z.Int.val(object.values.length), err: f };
      if (expr.name === "contains" && expr.args[0]?.kind === "string") {
        return { k: "bool", v: z.Bool.val(object.values.includes(expr.args[0].value)), err: f };
      }
    }
    if (object.k === "approvers") return this.approvers(expr, env);
    if (object.k === "path" && expr.name === "count") {
      return { k: "int", v: this.space.intVar(`count:${object.path}`), err: object.err };
    }
    return this.opaqueBool(printExpr(expr), this.errOf(object));
  }

  /** Per class of users: (some approve, how many approve, predicate value, predicate error). */
  private perApprover(variable: string, predicate: Expr, env: ReadonlyMap<string, Term>): { a: Z3Bool; n: Z3Int; v: Z3Bool; err: Z3Bool }[] {
    return this.space.userClasses.map((_, i) => {
      const p = this.bool(predicate, new Map(env).set(variable, { k: "user", index: i }));
      const n = this.space.approvals[i]!;
      return { a: n.ge(1), n, v: p.v, err: p.err };
    });
  }

  private filteredApprovers(filter: Extract<Expr, { kind: "method" }>, env: ReadonlyMap<string, Term>): Term | undefined {
    if (filter.object.kind !== "ident" || filter.object.name !== "approvers" || env.has("approvers") || filter.args[0]?.kind !== "ident") return undefined;
    const z = this.z;
    const rows = this.perApprover(filter.args[0].name, filter.args[1]!, env);
    const count = rows.map((r) => z.If(r.v, r.n, z.Int.val(0)) as Z3Int);
    return { k: "int", v: count.length === 0 ? z.Int.val(0) : z.Sum(count[0]!, ...count.slice(1)), err: z.Or(z.Bool.val(false), ...rows.map((r) => z.And(r.a, r.err))) };
  }

  private approvers(expr: Extract<Expr, { kind: "method" }>, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    const f = z.Bool.val(false);
    if (expr.name === "count") {
      const count = this.space.approvals;
      return { k: "int", v: count.length === 0 ? z.Int.val(0) : z.Sum(count[0]!, ...count.slice(1)), err: f };
    }
    if ((expr.name === "any" || expr.name === "all") && expr.args[0]?.kind === "ident") {
      const rows = this.perApprover(expr.args[0].name, expr.args[1]!, env);
      // Every approver's predicate runs (no short-circuit): one error is the clause's error.
      const err = z.Or(f, ...rows.map((r) => z.And(r.a, r.err)));
      const v = expr.name === "any" ? z.Or(f, ...rows.map((r) => z.And(r.a, r.v))) : z.And(z.Bool.val(true), ...rows.map((r) => z.Implies(r.a, r.v)));
      return { k: "bool", v, err };
    }
    return this.opaqueBool(printExpr(expr), f);
  }
}
