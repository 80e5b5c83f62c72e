/**
 * @module policy/smt/encode
 * Policy expressions as Z3 formulas over one symbolic request, with the service's semantics:
 * every clause yields a value and an error condition, `&&`/`||` do not short-circuit (an error
 * on either side is the expression's error), and a policy applies only when nothing errors.
 *
 * The request: `t` picks the activity type (its type, kind, resource, action and which params
 * fields and keywords exist follow from it); the approvers are a multiset of users given as
 * slots, each slot one profile (id, email, alias, tag membership) and how many users of that
 * profile approve (any number, so thresholds of any size can be met); `s` is the slot of the
 * submitter. Named slots stand for the users the policies name by id (at most one user each);
 * generic slots for everyone else, any user with any tags. With the organization's users, each
 * profile of users alike for every policy is a slot of its own with their fixed tags, at most
 * as many approving as it has users; the other slots then stand for users the organization does
 * not have, and `insiders()` rules them out. `target` says whether the request
 * signs with a wallet (1), a private key (2) or neither (0); `now` is the evaluation time.
 *
 * Strings are interned as ints (only equality is ever asked of them); a string variable takes
 * the code of a literal it is compared with (directly or through other variables) or a code
 * standing for "some other string", so a witness never reuses an unrelated literal.
 *
 * Encoded exactly: activity type/kind/resource/action on either side of `==`, `!=`, `in`;
 * `&&`, `||`, `!`; int ordering (typed counts and amounts are ≥ 0); `in` on literal lists;
 * `contains(x)` and `x in` on request lists (one membership unknown for both); `.count()` of
 * a request list; `activity.params`, chain and target keyword fields with their availability;
 * approvers via any/all/filter/count over each approver's own id, email, alias and tags;
 * `time.now` against `Timestamp(…)`. Anything else (credentials, CronSpan, lambdas over request
 * lists, slices, keywords outside the model) becomes an opaque clause: a free value and error,
 * per approver inside approver lambdas, recorded with a reason so the verdict says "not proved".
 */
import type { Arith, Bool, Context, Model } from "z3-solver";
import { printExpr, type Expr } from "../ast";
import { compiledExpression } from "../compile";
import { parseTimestamp } from "../time";
import { ALL_CHAIN_PAYLOADS, CHAIN_PAYLOADS } from "../catalog";
import { KEYWORDS, type ExpressionKind, type Type } from "../types";
import { ModelValues, type ConstantInfo } from "./model-values";
import { solverModel } from "./runtime";

export type Z3Context = Context<"main">;
export type Z3Bool = Bool<"main">;
export type Z3Model = Model<"main">;
export type Z3Int = Arith<"main">;

/** One activity type (or a class of types no policy tells apart) of the request space. */
export interface TypeSlot {
  readonly type: string;
  readonly kind: string;
  readonly resource: string;
  readonly action: string;
  /** Top-level params fields: true required, false optional; undefined when unknown (another version: any field may exist). */
  readonly params?: Readonly<Record<string, boolean>>;
  /** Keywords that may exist beyond the universal ones; undefined when unknown (all may). */
  readonly keywords?: ReadonlySet<string>;
  readonly rootOnly: boolean;
  /** The request must name what it signs or exports (a required `sign_with`, `wallet_id`, `private_key_id`, `address`…). */
  readonly targeted?: boolean;
  /** The documented type of each params field (`list<string>`): a documented list is a list. */
  readonly paramTypes?: Readonly<Record<string, string>>;
  /** Params fields whose list the wire schema wants non-empty (`user_ids` of DELETE_USERS). */
  readonly nonEmptyLists?: ReadonlySet<string>;
}

/** One profile of approving users. */
export interface ApproverSlot {
  /** How many users of this profile approve (the submitter counted in its own slot). */
  readonly n: Z3Int;
  readonly id: Z3Int;
  readonly email: Z3Int;
  readonly alias: Z3Int;
  /** The id literal of a named slot (one user at most). */
  readonly named?: string;
  /**
   * The organization's users this slot stands for (alike for every policy: same tags, and
   * strings no policy names), in order: `n` of them approve. Their tags are fixed.
   */
  readonly members?: readonly MemberUser[];
}

/** A user of the organization, as an approver slot holds it. */
export interface MemberUser {
  readonly id: string;
  readonly tags: readonly string[];
  readonly email: string;
  readonly alias: string;
}

/** A clause outside the exact fragment, and why. */
export interface OpaqueClause {
  readonly clause: string;
  readonly reason: string;
}

/** A value during encoding. */
type Term =
  | { readonly k: "bool"; readonly v: Z3Bool; readonly err: Z3Bool }
  | { readonly k: "int"; readonly v: Z3Int; readonly err: Z3Bool }
  | { readonly k: "str"; readonly v: Z3Int; readonly err: Z3Bool; readonly key?: string; readonly code?: number }
  | { readonly k: "fact"; readonly path: string }
  | { readonly k: "path"; readonly path: string; readonly err: Z3Bool; readonly type: Type | undefined }
  | { readonly k: "user"; readonly slot: number }
  | { readonly k: "tags"; readonly slot: number }
  | { readonly k: "approvers" }
  | { readonly k: "items"; readonly items: readonly Term[] };

/** Fields of `activity` decided by the type alone. */
const FACT_FIELDS = new Set(["type", "kind", "resource", "action"]);
/** Keywords a signing target brings, and the target value that brings them. */
export const TARGET_OF: Readonly<Record<string, number>> = { wallet: 1, wallet_account: 1, private_key: 2 };
/** Chain keywords: each holds parsed payloads (`eth.tx`, `eth.eip_712`), present or absent one by one. */
export const CHAINS = [...new Set(ALL_CHAIN_PAYLOADS.map((payload) => payload.split(".")[0]!))];

/** The parsed payload a chain path reads (`eth.tx.value` → `eth.tx`), or undefined for another path. */
export function payloadOf(path: string): string | undefined {
  const [root = "", field = ""] = path.split(/\.|\[/);
  const payload = `${root}.${field}`;
  return ALL_CHAIN_PAYLOADS.includes(payload) ? payload : undefined;
}

/** Whether a type's request may carry `payload` (a type of unknown keywords may carry any). */
export function mayCarry(slot: TypeSlot, payload: string): boolean {
  if (!slot.keywords) return true;
  return slot.keywords.has(payload.split(".")[0]!) && (CHAIN_PAYLOADS[slot.kind] ?? []).includes(payload);
}
/** Roots of condition paths the model knows; any other keyword is opaque. */
const MODELLED_ROOTS = new Set(["activity", "time", ...Object.keys(TARGET_OF), ...CHAINS]);
/** Codes at or above this stand for users' own fresh ids; request strings stay below. */
export const RESERVED_CODE = 1_000_000_000;
/** Codes at or above this stand for the organization's users' own strings that no policy names. */
const MEMBER_CODE = 2 * RESERVED_CODE;
/** `time.now` stays within years 1970…9999 (epoch ms). */
const MAX_NOW_MS = 253402300799000;

/** The declared type of a keyword path (`eth.tx.value` → int), dyn past an undocumented field, undefined when unknown. */
export function typeOfPath(path: string): Type | undefined {
  const [root = "", ...rest] = path.split(/\.|\[/);
  let type: Type | undefined = KEYWORDS.condition[root];
  for (const segment of rest) {
    if (!type) return undefined;
    if (type.t === "dyn") return type;
    if (type.t !== "object") return undefined;
    type = type.fields[segment.replace(/^'|'\]$/g, "")] ?? (type.open ? { t: "dyn" } : undefined);
  }
  return type;
}

/** Union-find over string variables compared with one another, each class with the literals it meets. */
class StringClasses {
  private readonly parent = new Map<string, string>();
  private readonly literals = new Map<string, Set<number>>();

  find(key: string): string {
    let root = key;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    this.parent.set(key, root);
    return root;
  }

  union(a: string, b: string): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra === rb) return;
    this.parent.set(ra, rb);
    const moved = this.literals.get(ra);
    if (moved) for (const code of moved) this.addLiteral(rb, code);
  }

  addLiteral(key: string, code: number): void {
    const root = this.find(key);
    const set = this.literals.get(root) ?? new Set<number>();
    set.add(code);
    this.literals.set(root, set);
  }

  literalsOf(key: string): ReadonlySet<number> {
    return this.literals.get(this.find(key)) ?? new Set();
  }
}

/** The symbolic request and everything the policies of both sides share. */
export class RequestSpace {
  readonly t: Z3Int;
  /** The submitter's slot. */
  readonly s: Z3Int;
  readonly target: Z3Int;
  readonly now: Z3Int;
  readonly slots: readonly ApproverSlot[];
  /** Per parsed payload (`eth.tx`, `eth.eip_712`): whether the request carries it. */
  readonly chainPresent: ReadonlyMap<string, Z3Bool>;
  /** Clauses encoded as opaque (outside the exact fragment), by text. */
  readonly opaque = new Map<string, OpaqueClause>();
  /** Encoded expressions by kind and text: both policy sets share unchanged policies' formulas. */
  readonly encoded = new Map<string, { v: Z3Bool; err: Z3Bool }>();
  readonly strings = new StringClasses();
  private readonly codes = new Map<string, number>();
  private readonly vars = new Map<string, Z3Int | Z3Bool>();
  /** Every constant made, for reading a model's values without calling Z3. */
  private readonly constants = new Map<object, ConstantInfo>();
  /** Keys of string variables of the request (not of users), kept below {@link RESERVED_CODE}. */
  private readonly requestStrings = new Set<string>();
  /** Int variables that cannot be negative (counts, typed amounts). */
  private readonly unsigned = new Set<string>();
  /** Per list path: the membership variables read. */
  private readonly memberships = new Map<string, Set<string>>();
  /** Dyn paths by the sorts they are read as; more than one sort is not exact. */
  readonly dynSorts = new Map<string, Set<string>>();
  /** Whether any clause reads `time.now`. */
  nowRead = false;

  constructor(
    readonly z: Z3Context,
    readonly types: readonly TypeSlot[],
    /** Ids the policies name: one slot each, at most one user. */
    readonly namedIds: readonly string[],
    /** Slots for users no policy names by id. */
    readonly genericSlots: number,
    /**
     * The organization's users, grouped into profiles (users alike for every policy), each a
     * slot of its own; `literals` are the strings the policies name (a user's string that is
     * one keeps its code, any other gets a code of its own, unlike every literal).
     */
    members: { readonly profiles: readonly (readonly MemberUser[])[]; readonly literals: ReadonlySet<string> } = { profiles: [], literals: new Set() },
  ) {
    this.t = this.intConst("t");
    this.s = this.intConst("s");
    this.target = this.intConst("target");
    this.now = this.intConst("now");
    const slots: ApproverSlot[] = [];
    const namedId = (id: string) => {
      const code = this.code(id);
      const term = z.Int.val(code);
      this.constants.set(term, { value: String(code) });
      return term;
    };
    const slot = (j: number, named?: string): ApproverSlot => ({
      n: this.intConst(`n_${j}`),
      id: named !== undefined ? namedId(named) : this.intConst(`id_${j}`),
      email: this.intConst(`email_${j}`),
      alias: this.intConst(`alias_${j}`),
      ...(named !== undefined ? { named } : {}),
    });
    namedIds.forEach((id, j) => slots.push(slot(j, id)));
    for (let g = 0; g < genericSlots; g++) slots.push(slot(namedIds.length + g));
    // A member's string: a literal's code when the policies name it, else one code per distinct string.
    const ownCodes = new Map<string, number>();
    const fixed = (text: string) => {
      const code = members.literals.has(text) ? this.code(text) : (ownCodes.get(text) ?? ownCodes.set(text, MEMBER_CODE + ownCodes.size).get(text)!);
      const term = z.Int.val(code);
      this.constants.set(term, { value: String(code) });
      return term;
    };
    for (const users of members.profiles) {
      const first = users[0]!;
      slots.push({ n: this.intConst(`n_${slots.length}`), id: fixed(first.id), email: fixed(first.email), alias: fixed(first.alias), members: users });
    }
    this.slots = slots;
    this.chainPresent = new Map(ALL_CHAIN_PAYLOADS.map((c) => [c, this.boolConst(`chain_${c}`)]));
  }

  private intConst(name: string): Z3Int {
    const term = this.z.Int.const(name);
    this.constants.set(term, { name, sort: "Int" });
    return term;
  }

  private boolConst(name: string): Z3Bool {
    const term = this.z.Bool.const(name);
    this.constants.set(term, { name, sort: "Bool" });
    return term;
  }

  /** The model's values of this space's constants, read at once ({@link ModelValues}). */
  valuesOf(model: Z3Model): ModelValues {
    return ModelValues.of(solverModel(model), this.constants);
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

  /** Whether `text` is a string the policies name (so a made-up value must not be it). */
  isLiteral(text: string): boolean {
    return this.codes.has(text);
  }

  /** The literal an interned int stands for, if any. */
  literalOf(code: bigint): string | undefined {
    for (const [text, c] of this.codes) if (BigInt(c) === code) return text;
    return undefined;
  }

  /**
   * A solver name for a key: unique by its index, and a plain symbol (the key's other characters
   * become `_`), so a model's text names it as it is ({@link ModelValues}).
   */
  private nameOf(key: string): string {
    return `k${this.vars.size}_${key.replace(/[^A-Za-z0-9_.\-\/]/g, "_")}`;
  }

  intVar(key: string, unsigned = false): Z3Int {
    let v = this.vars.get(`i:${key}`) as Z3Int | undefined;
    if (!v) this.vars.set(`i:${key}`, (v = this.intConst(this.nameOf(`i:${key}`))));
    if (unsigned) this.unsigned.add(`i:${key}`);
    return v;
  }

  /** A string variable of the request (`str:wallet.id`). */
  strVar(key: string): Z3Int {
    this.requestStrings.add(`i:${key}`);
    return this.intVar(key);
  }

  boolVar(key: string): Z3Bool {
    let v = this.vars.get(`b:${key}`) as Z3Bool | undefined;
    if (!v) this.vars.set(`b:${key}`, (v = this.boolConst(this.nameOf(`b:${key}`))));
    return v;
  }

  /** Whether `path`'s list holds the string `literal` (the same unknown for `contains(x)` and `x in`). */
  membership(path: string, literal: string): Z3Bool {
    const set = this.memberships.get(path) ?? new Set<string>();
    set.add(literal);
    this.memberships.set(path, set);
    return this.boolVar(`mem:${path}\u0000${literal}`);
  }

  /** Literals whose membership in `path`'s list was read. */
  membersRead(path: string): readonly string[] {
    return [...(this.memberships.get(path) ?? [])];
  }

  /** Every int and bool variable made so far, by key (`i:…`, `b:…`), for reading a model. */
  variables(): ReadonlyMap<string, Z3Int | Z3Bool> {
    return this.vars;
  }

  opaqueClause(clause: string, reason: string): void {
    if (!this.opaque.has(clause)) this.opaque.set(clause, { clause, reason });
  }

  /** The type indices for which `test` holds. */
  typesWhere(test: (slot: TypeSlot) => boolean): Z3Bool {
    const z = this.z;
    const hits = this.types.map((slot, i) => (test(slot) ? this.t.eq(i) : undefined)).filter((x): x is Z3Bool => x !== undefined);
    return hits.length === 0 ? z.Bool.val(false) : hits.length === 1 ? hits[0]! : z.Or(...hits);
  }

  /** Whether keyword `name` is part of the request. */
  keywordPresent(name: string): Z3Bool {
    const z = this.z;
    const onType = this.typesWhere((slot) => !slot.keywords || slot.keywords.has(name));
    const target = TARGET_OF[name];
    if (target !== undefined) return z.And(this.target.eq(target), onType);
    const chain = this.chainPresent.get(name);
    if (chain) return chain;
    return z.Bool.val(false);
  }

  /**
   * Constraints every request meets: indices in range; the submitter approves; named users at
   * most once; distinct users have distinct ids; keywords only where the type has them; string
   * variables take a literal they meet or another value; counts and typed amounts ≥ 0.
   * Call after encoding both sides (it constrains the variables made so far).
   */
  wellFormed(): Z3Bool {
    const z = this.z;
    const parts: Z3Bool[] = [this.t.ge(0), this.t.lt(this.types.length), this.s.ge(0), this.s.lt(this.slots.length)];
    parts.push(this.now.ge(0), this.now.le(MAX_NOW_MS));
    const namedCodes = this.namedIds.map((id) => this.code(id));
    this.slots.forEach((slot, j) => {
      parts.push(slot.n.ge(0), z.Implies(this.s.eq(j), slot.n.ge(1)));
      if (slot.members !== undefined) {
        parts.push(slot.n.le(slot.members.length));
        return;
      }
      if (slot.named !== undefined) {
        parts.push(slot.n.le(1));
        return;
      }
      // Users no policy names: another id than any named one; several of one profile each get a fresh id.
      for (const code of namedCodes) parts.push(slot.id.neq(code));
      for (const member of this.slots) if (member.members?.length === 1 && this.codes.has(member.members[0]!.id)) parts.push(slot.id.neq(this.code(member.members[0]!.id)));
      parts.push(z.Implies(slot.n.ge(2), slot.id.eq(RESERVED_CODE + j)));
      parts.push(z.Or(slot.n.ge(2), slot.id.lt(RESERVED_CODE)));
      this.slots.forEach((other, l) => {
        if (l > j && other.named === undefined && other.members === undefined) parts.push(z.Implies(z.And(slot.n.ge(1), other.n.ge(1)), slot.id.neq(other.id)));
      });
      parts.push(z.Or(slot.id.ge(RESERVED_CODE), this.inClass(slot.id, "user.id")));
    });
    for (const slot of this.slots) if (slot.members === undefined) parts.push(this.inClass(slot.email, "user.email"), this.inClass(slot.alias, "user.alias"));
    parts.push(this.target.ge(0), this.target.le(2));
    parts.push(z.Implies(this.target.eq(1), this.typesWhere((slot) => !slot.keywords || slot.keywords.has("wallet") || slot.keywords.has("wallet_account"))));
    parts.push(z.Implies(this.target.eq(2), this.typesWhere((slot) => !slot.keywords || slot.keywords.has("private_key"))));
    // A request that must name what it signs or exports always has a target.
    parts.push(z.Implies(this.typesWhere((slot) => slot.targeted === true || ["sign_with", "wallet_id", "private_key_id"].some((f) => slot.params?.[f] === true)), this.target.neq(0)));
    // A request carries at most one parsed payload, one its type may carry.
    for (const [chain, present] of this.chainPresent) {
      parts.push(z.Implies(present, this.typesWhere((slot) => mayCarry(slot, chain))));
      for (const other of this.chainPresent.keys()) if (other > chain) parts.push(z.Not(z.And(present, this.chainPresent.get(other)!)));
    }
    for (const [key, variable] of this.vars) {
      // A params field documented as a list is one; a list the wire schema wants non-empty has an item.
      const param = /^(?:b:notlist|i:count):activity\.params\.([a-z0-9_]+)$/.exec(key)?.[1];
      if (param !== undefined && key.startsWith("b:notlist")) parts.push(z.Implies(variable as Z3Bool, this.typesWhere((slot) => !slot.paramTypes?.[param]?.startsWith("list"))));
      if (param !== undefined && key.startsWith("i:count")) parts.push(z.Implies(this.typesWhere((slot) => slot.nonEmptyLists?.has(param) === true), (variable as Z3Int).ge(1)));
      if (this.unsigned.has(key)) parts.push((variable as Z3Int).ge(0));
      if (this.requestStrings.has(key)) {
        parts.push((variable as Z3Int).lt(RESERVED_CODE));
        parts.push(this.inClass(variable as Z3Int, key.slice(2)));
      }
    }
    // A list holds at least the literals it is said to hold.
    for (const [path, literals] of this.memberships) {
      const count = this.vars.get(`i:count:${path}`) as Z3Int | undefined;
      if (!count) continue;
      const held = [...literals].map((l) => z.If(this.boolVar(`mem:${path}\u0000${l}`), z.Int.val(1), z.Int.val(0)) as Z3Int);
      parts.push(count.ge(z.Sum(z.Int.val(0), ...held)));
    }
    return z.And(...parts);
  }

  /** A string variable takes a literal of its class or a code that is no literal. */
  private inClass(variable: Z3Int, key: string): Z3Bool {
    const z = this.z;
    const literals = [...this.strings.literalsOf(key)];
    return z.Or(variable.ge(this.codes.size), ...literals.map((code) => variable.eq(code)));
  }

  /** Whether user slot `j` has tag `literal`: fixed for the organization's users, free for any other. */
  tagOf(j: number, literal: string): Z3Bool {
    const members = this.slots[j]?.members;
    if (members !== undefined) return this.z.Bool.val(members[0]!.tags.includes(literal));
    return this.boolVar(`tag:${j}\u0000${literal}`);
  }

  /** Whether the space holds the organization's users (its principals are then those users). */
  get hasMembers(): boolean {
    return this.slots.some((slot) => slot.members !== undefined);
  }

  /** Only the organization's users submit and approve (no slot of a user it does not have is used); true without members. */
  insiders(): Z3Bool {
    const z = this.z;
    if (!this.hasMembers) return z.Bool.val(true);
    return z.And(z.Bool.val(true), ...this.slots.filter((slot) => slot.members === undefined).map((slot) => slot.n.eq(0)));
  }

  /** Only the submitter approves. */
  alone(): Z3Bool {
    const z = this.z;
    return z.And(...this.slots.map((slot, j) => slot.n.eq(z.If(this.s.eq(j), z.Int.val(1), z.Int.val(0)) as Z3Int)));
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
    if (root === "time") return z.Bool.val(false);
    const missing = z.Not(this.keywordPresent(payloadOf(path) ?? root));
    return typeOfPath(path)?.t === "dyn" && path.includes(".") ? z.Or(missing, this.boolVar(`err:${path}`)) : missing;
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

/** Whether `path` holds data of undocumented shape (activity.params, contract call args…). */
function isDyn(path: string): boolean {
  return path.startsWith("activity.params") || typeOfPath(path)?.t === "dyn";
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
    const term = this.bool(compiled.expr, new Map());
    return { v: term.v, err: term.err };
  }

  /** A clause outside the fragment: a free value and error, one per approver it ranges over. */
  private opaqueBool(expr: Expr, reason: string, err: Z3Bool, env: ReadonlyMap<string, Term>): { k: "bool"; v: Z3Bool; err: Z3Bool } {
    const text = printExpr(expr);
    this.space.opaqueClause(text, reason);
    const bound = [...env].filter(([, t]) => t.k === "user").map(([name, t]) => `${name}=${(t as { slot: number }).slot}`);
    const key = bound.length > 0 ? `${text}@${bound.join(",")}` : text;
    return { k: "bool", v: this.space.boolVar(`opaque:${key}`), err: this.z.Or(err, this.space.boolVar(`opaque-err:${key}`)) };
  }

  private errOf(term: Term): Z3Bool {
    return "err" in term ? term.err : this.z.Bool.val(false);
  }

  /** Records that dyn `path` is read as `sort`, and returns the error of reading it so (value of another sort). */
  private sortError(path: string, sort: string): Z3Bool {
    if (!isDyn(path)) return this.z.Bool.val(false);
    const sorts = this.space.dynSorts.get(path) ?? new Set<string>();
    sorts.add(sort);
    this.space.dynSorts.set(path, sorts);
    return this.space.boolVar(`sorterr:${sort}:${path}`);
  }

  private bool(expr: Expr, env: ReadonlyMap<string, Term>): { k: "bool"; v: Z3Bool; err: Z3Bool } {
    const term = this.term(expr, env);
    if (term.k === "bool") return term;
    if (term.k === "path" && (term.type?.t === "bool" || term.type?.t === "dyn")) {
      return { k: "bool", v: this.space.boolVar(term.path), err: this.z.Or(term.err, this.sortError(term.path, "bool")) };
    }
    return this.opaqueBool(expr, "not a bool the model reads", this.errOf(term), env);
  }

  private asInt(term: Term): { v: Z3Int; err: Z3Bool } | undefined {
    if (term.k === "int") return term;
    if (term.k === "path" && (term.type?.t === "int" || term.type?.t === "dyn")) {
      const typed = term.type.t === "int";
      return { v: this.space.intVar(term.path, typed), err: this.z.Or(term.err, this.sortError(term.path, "int")) };
    }
    return undefined;
  }

  private asStr(term: Term): { v: Z3Int; err: Z3Bool; key: string } | undefined {
    if (term.k === "str") return { v: term.v, err: term.err, key: term.key ?? "" };
    if (term.k === "path" && (term.type?.t === "string" || term.type?.t === "dyn")) {
      const key = `str:${term.path}`;
      return { v: this.space.strVar(key), err: this.z.Or(term.err, this.sortError(term.path, "string")), key };
    }
    if (term.k === "fact") return { v: this.space.factValue(term.path), err: this.z.Bool.val(false), key: "" };
    return undefined;
  }

  private term(expr: Expr, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    const f = z.Bool.val(false);
    switch (expr.kind) {
      case "string":
        return { k: "str", v: z.Int.val(this.space.code(expr.value)), err: f, code: this.space.code(expr.value) };
      case "int":
        return { k: "int", v: z.Int.val(expr.value), err: f };
      case "bool":
        return { k: "bool", v: z.Bool.val(expr.value), err: f };
      case "list":
        return { k: "items", items: expr.items.map((item) => this.term(item, env)) };
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
      case "call":
        if (expr.name === "Timestamp" && expr.args[0]?.kind === "string") return { k: "int", v: z.Int.val(parseTimestamp(expr.args[0].value)), err: f };
        return this.opaqueBool(expr, "CronSpan windows are not modelled", f, env);
      case "ident": {
        const bound = env.get(expr.name);
        if (bound) return bound;
        if (expr.name === "approvers") return { k: "approvers" };
        return this.keywordPath(expr, expr.name, env);
      }
      case "member":
      case "index": {
        const object = this.term(expr.object, env);
        if (object.k === "user" && expr.kind === "member") return this.userField(object.slot, expr.name);
        const path = pathOf(expr, env);
        if (path !== undefined) return this.keywordPath(expr, path, env);
        return this.opaqueBool(expr, "reads a value the model does not follow", this.errOf(object), env);
      }
      case "method":
        return this.method(expr, env);
      default:
        return this.opaqueBool(expr, `${expr.kind} is not modelled`, f, env);
    }
  }

  private keywordPath(expr: Expr, path: string, env: ReadonlyMap<string, Term>): Term {
    const root = path.split(/\.|\[/)[0]!;
    if (root === "activity" && FACT_FIELDS.has(path.slice("activity.".length))) return { k: "fact", path };
    if (path === "time.now") {
      this.space.nowRead = true;
      return { k: "int", v: this.space.now, err: this.z.Bool.val(false) };
    }
    if (!MODELLED_ROOTS.has(root) || (root === "time" && path !== "time")) return this.opaqueBool(expr, `the keyword '${root}' is not modelled`, this.z.Bool.val(false), env);
    return { k: "path", path, err: this.space.availabilityError(path), type: path.startsWith("activity.params") ? { t: "dyn" } : typeOfPath(path) };
  }

  private userField(slot: number, field: string): Term {
    if (field === "tags") return { k: "tags", slot };
    const s = this.space.slots[slot]!;
    const value = field === "id" ? s.id : field === "email" ? s.email : s.alias;
    return { k: "str", v: value, err: this.z.Bool.val(false), key: `user.${field}` };
  }

  /** Whether user `slot` has tag `literal`. */
  private tagged(slot: number, literal: string): Z3Bool {
    return this.space.tagOf(slot, literal);
  }

  /** `needle in list` / `list.contains(needle)`, or undefined when outside the fragment. */
  private member(list: Term, needle: Expr, env: ReadonlyMap<string, Term>, via: "in" | "contains"): { k: "bool"; v: Z3Bool; err: Z3Bool } | undefined {
    const z = this.z;
    if (needle.kind !== "string") return undefined;
    if (list.k === "tags") return { k: "bool", v: this.tagged(list.slot, needle.value), err: z.Bool.val(false) };
    if (list.k !== "path" || (list.type?.t !== "list" && list.type?.t !== "dyn")) return undefined;
    const held = this.space.membership(list.path, needle.value);
    if (list.type.t === "list") return { k: "bool", v: held, err: list.err };
    // Dyn data may be no list: `in` then errors; `contains` on a string is a substring test.
    const notList = this.space.boolVar(`notlist:${list.path}`);
    const other = this.space.boolVar(`notlist-err:${list.path}`);
    if (via === "in") return { k: "bool", v: held, err: z.Or(list.err, notList) };
    const substring = this.space.boolVar(`substr:${list.path}\u0000${needle.value}`);
    return { k: "bool", v: z.If(notList, substring, held), err: z.Or(list.err, z.And(notList, other)) };
  }

  private compare(expr: Extract<Expr, { kind: "compare" }>, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    const left = this.term(expr.left, env);
    const right = this.term(expr.right, env);
    const either = () => z.Or(this.errOf(left), this.errOf(right));
    if (expr.op === "in") {
      const member = this.member(right, expr.left, env, "in");
      if (member) return member;
      if (right.k !== "items") return this.opaqueBool(expr, "`in` on a list the model does not follow", either(), env);
      const parts = right.items.map((item) => this.equality(left, item));
      if (parts.some((p) => p === undefined)) return this.opaqueBool(expr, "compares values the model does not follow", either(), env);
      const ok = parts as { v: Z3Bool; err: Z3Bool }[];
      return { k: "bool", v: z.Or(z.Bool.val(false), ...ok.map((p) => p.v)), err: z.Or(this.errOf(left), ...ok.map((p) => p.err)) };
    }
    if (expr.op === "==" || expr.op === "!=") {
      const eq = this.equality(left, right);
      if (!eq) return this.opaqueBool(expr, "compares values the model does not follow", either(), env);
      return { k: "bool", v: expr.op === "==" ? eq.v : z.Not(eq.v), err: eq.err };
    }
    const [a, b] = [this.asInt(left), this.asInt(right)];
    if (!a || !b || (left.k === "path" && right.k === "path")) return this.opaqueBool(expr, "orders values the model does not follow", either(), env);
    const v = expr.op === "<" ? a.v.lt(b.v) : expr.op === "<=" ? a.v.le(b.v) : expr.op === ">" ? a.v.gt(b.v) : a.v.ge(b.v);
    return { k: "bool", v, err: z.Or(a.err, b.err) };
  }

  private equality(left: Term, right: Term): { v: Z3Bool; err: Z3Bool } | undefined {
    const z = this.z;
    // Facts against facts, and request values against request values of undocumented shape, are left out.
    if (left.k === "fact" && right.k === "fact") return undefined;
    if (left.k === "path" && right.k === "path" && (isDyn(left.path) || isDyn(right.path))) return undefined;
    if (left.k === "bool" || right.k === "bool" || (left.k === "path" && left.type?.t === "bool") || (right.k === "path" && right.type?.t === "bool")) {
      const asBool = (t: Term) => (t.k === "bool" ? t : t.k === "path" && (t.type?.t === "bool" || t.type?.t === "dyn") ? { v: this.space.boolVar(t.path), err: z.Or(t.err, this.sortError(t.path, "bool")) } : undefined);
      const [a, b] = [asBool(left), asBool(right)];
      return a && b ? { v: a.v.eq(b.v), err: z.Or(a.err, b.err) } : undefined;
    }
    const numeric = left.k === "int" || right.k === "int" || (left.k === "path" && left.type?.t === "int") || (right.k === "path" && right.type?.t === "int");
    if (numeric) {
      const [a, b] = [this.asInt(left), this.asInt(right)];
      return a && b ? { v: a.v.eq(b.v), err: z.Or(a.err, b.err) } : undefined;
    }
    const [a, b] = [this.asStr(left), this.asStr(right)];
    if (!a || !b) return undefined;
    // Literals join the class of the variable they meet; two variables join one class.
    if (left.k === "str" && left.code !== undefined && b.key) this.space.strings.addLiteral(b.key, left.code);
    if (right.k === "str" && right.code !== undefined && a.key) this.space.strings.addLiteral(a.key, right.code);
    if (a.key && b.key) this.space.strings.union(a.key, b.key);
    return { v: a.v.eq(b.v), err: z.Or(a.err, b.err) };
  }

  private method(expr: Extract<Expr, { kind: "method" }>, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    if (expr.object.kind === "method" && expr.object.name === "filter" && expr.name === "count") {
      const filtered = this.filteredApprovers(expr.object, env);
      if (filtered) return filtered;
    }
    const root = pathOf(expr.object, env)?.split(/\.|\[/)[0];
    if (root !== undefined && root !== "approvers" && !MODELLED_ROOTS.has(root)) return this.opaqueBool(expr, `the keyword '${root}' is not modelled`, z.Bool.val(false), env);
    const object = this.term(expr.object, env);
    if (object.k === "approvers") return this.approvers(expr, env);
    if (expr.name === "contains" && expr.args.length === 1) {
      const member = this.member(object, expr.args[0]!, env, "contains");
      if (member) return member;
    }
    if (expr.name === "count" && object.k === "path" && (object.type?.t === "list" || object.type?.t === "dyn")) {
      const dynErr = object.type.t === "dyn" ? this.space.boolVar(`notlist:${object.path}`) : z.Bool.val(false);
      return { k: "int", v: this.space.intVar(`count:${object.path}`, true), err: z.Or(object.err, dynErr) };
    }
    return this.opaqueBool(expr, `'${expr.name}' on this value is not modelled`, this.errOf(object), env);
  }

  /** Per approver slot: (some approve, how many, predicate value, predicate error). */
  private perApprover(variable: string, predicate: Expr, env: ReadonlyMap<string, Term>): { a: Z3Bool; n: Z3Int; v: Z3Bool; err: Z3Bool }[] {
    return this.space.slots.map((slot, j) => {
      const p = this.bool(predicate, new Map(env).set(variable, { k: "user", slot: j }));
      return { a: slot.n.ge(1), n: slot.n, v: p.v, err: p.err };
    });
  }

  private filteredApprovers(filter: Extract<Expr, { kind: "method" }>, env: ReadonlyMap<string, Term>): Term | undefined {
    if (filter.object.kind !== "ident" || filter.object.name !== "approvers" || env.has("approvers") || filter.args[0]?.kind !== "ident") return undefined;
    const z = this.z;
    const rows = this.perApprover(filter.args[0].name, filter.args[1]!, env);
    const count = rows.map((r) => z.If(r.v, r.n, z.Int.val(0)) as Z3Int);
    return { k: "int", v: z.Sum(z.Int.val(0), ...count), err: z.Or(z.Bool.val(false), ...rows.map((r) => z.And(r.a, r.err))) };
  }

  private approvers(expr: Extract<Expr, { kind: "method" }>, env: ReadonlyMap<string, Term>): Term {
    const z = this.z;
    const f = z.Bool.val(false);
    if (expr.name === "count") return { k: "int", v: z.Sum(z.Int.val(0), ...this.space.slots.map((s) => s.n)), err: f };
    if ((expr.name === "any" || expr.name === "all") && expr.args[0]?.kind === "ident") {
      const rows = this.perApprover(expr.args[0].name, expr.args[1]!, env);
      // Every approver's predicate runs (no short-circuit): one error is the clause's error.
      const err = z.Or(f, ...rows.map((r) => z.And(r.a, r.err)));
      const v = expr.name === "any" ? z.Or(f, ...rows.map((r) => z.And(r.a, r.v))) : z.And(z.Bool.val(true), ...rows.map((r) => z.Implies(r.a, r.v)));
      return { k: "bool", v, err };
    }
    return this.opaqueBool(expr, `approvers.${expr.name} is not modelled`, f, env);
  }
}
