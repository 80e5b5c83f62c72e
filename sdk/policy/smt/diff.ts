/**
 * @module policy/smt/diff
 * Which access decisions change between two policy sets, proved with Z3 over the policy
 * language (see `encode.ts` for the encoded fragment, `universe.ts` for the request space)
 * rather than sampled: for each activity type (or class of types no policy tells apart) and
 * signing target (a wallet or private key the policies name, or another one), whether some
 * user, alone or with some approvers, goes from refused to allowed ("gains") or the reverse
 * ("loses"). The principals are any users with any tags, named by id, email or alias, any number
 * of approvers; the organization's users, when given, only label the table.
 *
 * Each change comes with a concrete witness activity (every required parameter of its type, the
 * approvers, `now`), replayed through the evaluator (`simulate`, a non-root submitter) on both
 * sides; a witness that does not replay is a failure of the diff and the verdict is "not proved".
 * The verdict is "proved" only when every clause was encoded exactly, the approver bound was
 * met, the search ran to the end and every witness replayed.
 *
 * Decision model (the service's documented rules): the root quorum is out of scope (it bypasses
 * policies); a root-quorum-only activity is refused; any applicable DENY refuses; else any
 * applicable ALLOW allows; a policy applies when its condition, consensus and time hold and none
 * of them errors (an error is no match). Own-credential changes allowed without a policy are not
 * modelled (the same on both sides unless a DENY on them changes).
 */
import type { Expr } from "../ast";
import type { PolicyRecord } from "../engine";
import { simulate, type SimulatedActivity, type SimulatedUser } from "../simulate";
import { Encoder, payloadOf, RequestSpace, RESERVED_CODE, type OpaqueClause, type TypeSlot, type Z3Bool, type Z3Context } from "./encode";
import { compiledExpression } from "../compile";
import { conditionMayMatchFacts } from "../coverage";
import { classes, collectLiterals, genericSlotsNeeded, typeSignature, typeUniverse } from "./universe";
import { camelCaseKey, requiredParameters } from "./witness";
import { withSolver, z3Context } from "./runtime";
import { UserLabels } from "./labels";

export { solverMemory, withSolver, z3Context } from "./runtime";

/** A user of the organization, as the diff labels principals. */
export interface DiffUser {
  readonly id: string;
  /** Tag ids. */
  readonly tags?: readonly string[];
  readonly email?: string;
  /** The user name (the `alias` of the approvers keyword). */
  readonly alias?: string;
  /** A member of the root quorum: never listed (the root quorum bypasses policies). */
  readonly root?: boolean;
}

/** One changed decision. */
export interface AccessChange {
  /** `gains`: refused before, allowed after; `loses`: the reverse. */
  readonly direction: "gains" | "loses";
  /** `alone`: the submitter without approvers; `with approvers`: with the approvers of the witness (a consensus change). */
  readonly how: "alone" | "with approvers";
  /** Users of the organization (names) for whom the witness, submitted by them, replays; or the witness's submitter described. */
  readonly users: readonly string[];
  /** Every activity kind the change applies to. */
  readonly kinds: readonly string[];
  /** `wallet w-1` (`wallet Treasury (w-1)` when named), `private key pk-1`, `another wallet`, `another private key` or undefined (no signing target involved). */
  readonly target?: string;
  /** A concrete activity that is decided differently. */
  readonly witness: SimulatedActivity;
  readonly before: string;
  readonly after: string;
  /** The evaluator decides the witness as claimed on both sides. */
  readonly confirmed: boolean;
}

/** The result of {@link diffPolicies}. */
export interface AccessDiff {
  /** Every change found, and "no other change" holds for every request. */
  readonly proved: boolean;
  readonly changes: readonly AccessChange[];
  /** Why the verdict is not proved: clauses outside the exact fragment, bounds not met, witnesses that did not replay. */
  readonly notProved: readonly OpaqueClause[];
  /** How the principals were modelled. */
  readonly principals: string;
  readonly userCount: number;
  readonly typeCount: number;
  /** True when the search stopped at `maxChanges`. */
  readonly truncated: boolean;
}

export interface DiffOptions {
  /** The organization's users: they label the table (names, not ids) and never narrow the proof. */
  readonly users?: readonly DiffUser[];
  /** Names of tags, wallets and private keys by id, for the table. */
  readonly names?: Readonly<Record<string, string>>;
  /** Stop after this many changes (default 500). */
  readonly maxChanges?: number;
  /** Most generic approver slots to model (default 12); a larger bound makes the verdict "not proved". */
  readonly maxGenericApprovers?: number;
  /** More string literals the question names (a kind, a target id), so the type classes tell them apart. */
  readonly literals?: readonly string[];
  /** Evaluation time of witnesses that read no time (epoch ms; default now). */
  readonly nowMs?: number;
}

type Model = { eval(e: never, complete?: boolean): { toString(): string } };

/** A user's display name: alias, else email, else id. */
/** The request space and both sides' decisions, shared by the diff and the other properties. */
export interface Proof {
  readonly z: Z3Context;
  readonly space: RequestSpace;
  readonly typeClasses: readonly (readonly TypeSlot[])[];
  readonly typeCount: number;
  readonly wallets: readonly string[];
  readonly privateKeys: readonly string[];
  readonly notProved: OpaqueClause[];
  /** A decision formula (allowed, not root-only) of a policy set over the space. */
  decision(policies: readonly PolicyRecord[]): Z3Bool;
  /** Per-policy applies/error formulas of a policy set. */
  policyFormulas(policies: readonly PolicyRecord[]): { policy: PolicyRecord; applies: Z3Bool; err: Z3Bool }[];
  /** The constraints every request meets (call after all decisions are built). */
  wellFormed(): Z3Bool;
  /** A witness activity from a model. */
  witness(model: Model): SimulatedActivity;
  /** The type class index and signing target cell of a model, with a label. */
  cell(model: Model): { formula: Z3Bool; t: number; targetLabel?: string };
}

/** The activity-type classes of a question: the type universe of its policies, grouped by what they can tell apart. */
export interface TypeClasses {
  readonly classes: readonly (readonly TypeSlot[])[];
  /** Activity types in the universe (every class's members). */
  readonly typeCount: number;
}

/** The type classes of `policySets` (all sets a question compares), with `literals` (a kind, a target id) told apart too. */
export function typeClassesOf(policySets: readonly (readonly PolicyRecord[])[], literals: readonly string[] = []): TypeClasses {
  const found = collectLiterals(policySets.flat());
  for (const literal of literals) found.strings.add(literal);
  const allTypes = typeUniverse(found);
  return { classes: classes(allTypes, (slot) => typeSignature(slot, found)), typeCount: allTypes.length };
}

/**
 * Whether `policy` may apply to some activity of `group`: false only when its condition is ruled
 * out by the type, kind, resource and action of every type of the group (it then never applies
 * there, so it cannot take part in a decision on the group). A condition that does not compile
 * is kept: it is encoded as an error.
 */
export function mayApplyTo(policy: PolicyRecord, group: readonly TypeSlot[]): boolean {
  const condition = conditionOf(policy);
  if (!condition) return true;
  return group.some((slot) => mayMatch(condition, slot));
}

/** Answers of {@link conditionMayMatchFacts} by condition (compiled once per text, so both sides' copies of a policy share them) and facts. */
const matchAnswers = new WeakMap<Expr, Map<string, boolean>>();

function mayMatch(condition: Expr, slot: TypeSlot): boolean {
  let answers = matchAnswers.get(condition);
  if (answers === undefined) matchAnswers.set(condition, (answers = new Map()));
  const facts = `${slot.type}\u0000${slot.kind}\u0000${slot.resource}\u0000${slot.action}`;
  let answer = answers.get(facts);
  if (answer === undefined) answers.set(facts, (answer = conditionMayMatchFacts(condition, slot)));
  return answer;
}

const conditions = new WeakMap<PolicyRecord, Expr | undefined>();

/** A policy's compiled condition (asked once per policy and type): undefined when empty or not compiling. */
function conditionOf(policy: PolicyRecord): Expr | undefined {
  if (conditions.has(policy)) return conditions.get(policy);
  const text = policy.condition;
  const condition = text === undefined || text === null || text.trim() === "" ? undefined : compiledExpression("condition", text).expr;
  conditions.set(policy, condition);
  return condition;
}

/** A policy as the encoder reads it: two policies with one key have one formula. */
const encodingKey = (policy: PolicyRecord) =>
  [policy.effect, ...(["condition", "consensus", "time"] as const).map((kind) => (policy[kind]?.trim() ? policy[kind] : ""))].join("\u0000");

/** Whether two policy sets encode to the same decision: the same set of encoded policies. */
export function sameDecision(a: readonly PolicyRecord[], b: readonly PolicyRecord[]): boolean {
  const [ka, kb] = [new Set(a.map(encodingKey)), new Set(b.map(encodingKey))];
  return ka.size === kb.size && [...ka].every((k) => kb.has(k));
}

/** Activity types that the same policies of each side may apply to, with those policies. */
export interface RelevanceGroup {
  readonly types: readonly TypeSlot[];
  /** Per policy set, the policies that may apply to these types. */
  readonly policySets: readonly (readonly PolicyRecord[])[];
}

/**
 * Splits the type universe of `policySets` by which policies may apply (see {@link mayApplyTo}):
 * a policy that cannot apply to a type takes no part in any decision on it, so each group is a
 * question of its own over fewer policies.
 */
export function relevanceGroups(policySets: readonly (readonly PolicyRecord[])[], literals: readonly string[] = []): { groups: RelevanceGroup[]; typeCount: number } {
  const found = collectLiterals(policySets.flat());
  for (const literal of literals) found.strings.add(literal);
  const types = typeUniverse(found);
  const groups = new Map<string, { types: TypeSlot[]; policySets: PolicyRecord[][] }>();
  const index = new Map(policySets.flat().map((policy, i) => [policy, i]));
  for (const slot of types) {
    const sets = policySets.map((set) => set.filter((policy) => mayApplyTo(policy, [slot])));
    const key = sets.map((set) => set.map((p) => index.get(p)).join(",")).join("|");
    const group = groups.get(key);
    if (group) group.types.push(slot);
    else groups.set(key, { types: [slot], policySets: sets });
  }
  return { groups: [...groups.values()], typeCount: types.length };
}

/** The type classes of `types` as the given policies tell them apart. */
export function classesAmong(types: readonly TypeSlot[], policies: readonly PolicyRecord[], literals: readonly string[] = []): (readonly TypeSlot[])[] {
  const found = collectLiterals(policies);
  for (const literal of literals) found.strings.add(literal);
  return classes(types, (slot) => typeSignature(slot, found));
}

/**
 * Builds the request space of `policySets` (all sets a question compares). With `only`, the
 * space ranges over those type classes alone (the caller passes the policies that may apply
 * to them), which keeps each solver check small.
 */
export async function buildProof(policySets: readonly (readonly PolicyRecord[])[], options: DiffOptions = {}, only?: TypeClasses): Promise<Proof> {
  const z = await z3Context();
  const all = policySets.flat();
  const literals = collectLiterals(all);
  for (const literal of options.literals ?? []) literals.strings.add(literal);
  const universe = only ?? typeClassesOf(policySets, options.literals);
  const typeClasses = universe.classes;
  const notProved: OpaqueClause[] = [];
  // Generic approvers: the largest bound any type class needs, capped.
  const cap = options.maxGenericApprovers ?? 12;
  let needed = 1;
  for (const group of typeClasses) {
    const bound = genericSlotsNeeded(all, group[0]!.type);
    if (bound === undefined) {
      notProved.push({ clause: "approvers", reason: "an approver count is compared with something other than a number: no bound on the approvers to consider" });
      needed = cap;
      break;
    }
    needed = Math.max(needed, bound);
  }
  if (needed > cap) {
    notProved.push({ clause: "approvers", reason: `a change may need ${needed} kinds of approvers no policy names; ${cap} were considered` });
    needed = cap;
  }
  const space = new RequestSpace(z, typeClasses.map((group) => group[0]!), [...literals.userIds].sort(), needed);
  const wallets = [...literals.wallets];
  const privateKeys = [...literals.privateKeys];
  const encoder = new Encoder(space);
  const policyFormulas = (policies: readonly PolicyRecord[]) =>
    policies.map((policy) => {
      const parts = (["condition", "consensus", "time"] as const).map((kind) => encoder.expression(kind, policy[kind]));
      const err = z.Or(...parts.map((p) => p.err));
      return { policy, applies: z.And(...parts.map((p) => p.v), z.Not(err)), err };
    });
  const decision = (policies: readonly PolicyRecord[]) => {
    const formulas = policyFormulas(policies);
    const denied = z.Or(z.Bool.val(false), ...formulas.filter((a) => a.policy.effect === "EFFECT_DENY").map((a) => a.applies));
    const allowed = z.Or(z.Bool.val(false), ...formulas.filter((a) => a.policy.effect === "EFFECT_ALLOW").map((a) => a.applies));
    return z.And(z.Not(space.rootOnly()), z.Not(denied), allowed);
  };
  const nowMs = options.nowMs ?? Date.now();
  return {
    z,
    space,
    typeClasses,
    typeCount: universe.typeCount,
    wallets,
    privateKeys,
    notProved,
    decision,
    policyFormulas,
    wellFormed: () => {
      const formula = space.wellFormed();
      for (const [path, sorts] of space.dynSorts) if (sorts.size > 1) notProved.push({ clause: path, reason: `read as ${[...sorts].join(" and ")}: one value of undocumented shape, modelled apart` });
      for (const clause of space.opaque.values()) notProved.push(clause);
      return formula;
    },
    witness: (model) => witnessOf(space, model, nowMs),
    cell: (model) => cellOf(space, model, wallets, privateKeys, options.names),
  };
}

/** The type class and signing target of a model, as a formula that blocks it. */
function cellOf(space: RequestSpace, model: Model, wallets: readonly string[], keys: readonly string[], names: Readonly<Record<string, string>> = {}): { formula: Z3Bool; t: number; targetLabel?: string } {
  const z = space.z;
  const num = (e: unknown) => BigInt(model.eval(e as never, true).toString().replace(/[()\s]/g, ""));
  const t = Number(num(space.t));
  const target = Number(num(space.target));
  let formula: Z3Bool = z.And(space.t.eq(t), space.target.eq(target));
  let targetLabel: string | undefined;
  for (const [value, path, named, noun] of [
    [1, "str:wallet.id", wallets, "wallet"],
    [2, "str:private_key.id", keys, "private key"],
  ] as const) {
    if (target !== value) continue;
    const variable = space.strVar(path);
    const id = space.literalOf(num(variable));
    const isNamed = id !== undefined && named.includes(id);
    formula = z.And(formula, isNamed ? variable.eq(space.code(id)) : z.And(z.Bool.val(true), ...named.map((w) => variable.neq(space.code(w)))));
    targetLabel = isNamed ? `${noun} ${names[id] !== undefined && names[id] !== id ? `${names[id]} (${id})` : id}` : `another ${noun}`;
  }
  return { formula, t, targetLabel };
}

/**
 * Runs the change search over two policy sets, one relevance group at a time (types the same
 * policies may apply to): a group whose applicable policies are the same on both sides has the
 * same decision on both (the same formula), so it changes nothing and needs no solver; every
 * other group gets a space of its own with only those policies, so each check is small.
 */
export function diffPolicies(before: readonly PolicyRecord[], after: readonly PolicyRecord[], options: DiffOptions = {}): Promise<AccessDiff> {
  // The solver's objects of the whole diff are freed when it ends (the result is plain data).
  return withSolver(() => searchChanges(before, after, options));
}

async function searchChanges(before: readonly PolicyRecord[], after: readonly PolicyRecord[], options: DiffOptions): Promise<AccessDiff> {
  const { groups, typeCount } = relevanceGroups([before, after], options.literals);
  const orgUsers = (options.users ?? []).filter((u) => !u.root);
  const labels = new UserLabels(orgUsers);
  const changes: AccessChange[] = [];
  const notProved: OpaqueClause[] = [];
  const maxChanges = options.maxChanges ?? 500;
  let truncated = false;
  let replayFailures = 0;
  const replay = (b4: readonly PolicyRecord[], af: readonly PolicyRecord[], activity: SimulatedActivity, direction: "gains" | "loses") => {
    const [b, a] = [simulate(b4, activity), simulate(af, activity)];
    const [allowedB, allowedA] = [b.outcome === "OUTCOME_ALLOW", a.outcome === "OUTCOME_ALLOW"];
    return { b, a, confirmed: direction === "gains" ? !allowedB && allowedA : allowedB && !allowedA };
  };
  for (const group of groups) {
    if (truncated) break;
    const [relevantBefore, relevantAfter] = group.policySets as [readonly PolicyRecord[], readonly PolicyRecord[]];
    if (sameDecision(relevantBefore, relevantAfter)) continue;
    const typeClasses = classesAmong(group.types, [...relevantBefore, ...relevantAfter], options.literals);
    const proof = await buildProof([relevantBefore, relevantAfter], options, { classes: typeClasses, typeCount });
    const { z, space } = proof;
    const allowedBefore = proof.decision(relevantBefore);
    const allowedAfter = proof.decision(relevantAfter);
    const wellFormed = proof.wellFormed();
    // One solver per group (each check has a fixed cost): a model is a change, blocked by its
    // type class, target, direction and whether the submitter acts alone; unsat ends the group.
    const gains = z.And(z.Not(allowedBefore), allowedAfter);
    const loses = z.And(allowedBefore, z.Not(allowedAfter));
    const alone = space.alone();
    const solver = new z.Solver();
    solver.add(wellFormed, z.Or(gains, loses));
    // A scope from the start makes every check use Z3's incremental solver. Without it the first
    // check runs the one-shot solver (preprocessing the whole question) and the second, after the
    // first blocking clause, takes the question in again into the incremental one: the group's
    // questions then cost about twice as much. The answers are the same (sat, unsat or unknown).
    solver.push();
    for (;;) {
      if (changes.length >= maxChanges) {
        truncated = true;
        break;
      }
      const verdict = await solver.check();
      if (verdict === "unknown") {
        proof.notProved.push({ clause: "(search)", reason: "the solver gave up" });
        break;
      }
      if (verdict !== "sat") break;
      const found = solver.model();
      const model = found as unknown as Model;
      const direction = model.eval(gains as never, true).toString() === "true" ? "gains" : "loses";
      const how = model.eval(alone as never, true).toString() === "true" ? "alone" : "with approvers";
      const cell = proof.cell(model);
      const witness = proof.witness(model);
      // The witness replays against the whole sets: this also checks that the policies left out could not apply.
      const first = replay(before, after, witness, direction);
      if (!first.confirmed) replayFailures++;
      // The organization's users for whom the same activity, submitted by them (with the witness's approvers), changes too.
      const users = labels.replaying(witness, how, direction, relevantBefore, relevantAfter);
      solver.add(z.Not(z.And(cell.formula, direction === "gains" ? gains : loses, how === "alone" ? alone : z.Not(alone))));
      changes.push({
        direction,
        how,
        users: orgUsers.length > 0 ? users : [describeUser(witness.approvers![0]!, new Set(space.namedIds), options.names)],
        kinds: [...new Set(proof.typeClasses[cell.t]!.map((slot) => slot.kind))],
        ...(cell.targetLabel ? { target: cell.targetLabel } : {}),
        witness,
        before: first.b.outcome,
        after: first.a.outcome,
        confirmed: first.confirmed,
      });
      // Freed now rather than with the diff: a long search makes many models.
      found.release();
    }
    solver.release();
    for (const clause of proof.notProved) if (!notProved.some((n) => n.clause === clause.clause && n.reason === clause.reason)) notProved.push(clause);
  }
  if (replayFailures > 0) notProved.push({ clause: "(witnesses)", reason: `${replayFailures} witness${replayFailures === 1 ? "" : "es"} did not replay through the evaluator: a failure of the diff` });
  const namedIds = collectLiterals([...before, ...after]).userIds.size;
  return {
    proved: notProved.length === 0 && !truncated,
    changes,
    notProved,
    principals: `any user with any tags (${namedIds} named by id, any other user with any tags as submitter or approver, any number of each)${orgUsers.length > 0 ? `; ${orgUsers.length} users of the organization label the table` : ""}`,
    userCount: orgUsers.length,
    typeCount,
    truncated,
  };
}

/** "a user tagged tag-sec" for a made-up witness user. */
function describeUser(user: SimulatedUser, named: ReadonlySet<string>, names: Readonly<Record<string, string>> = {}): string {
  if (named.has(user.id)) return names[user.id] ?? user.id;
  const tags = (user.tags ?? []).map((t) => names[t] ?? t);
  return tags.length > 0 ? `any user tagged ${tags.join(", ")}` : "any user";
}

/** Sets `path` (`eth.tx.contract_call_args['wad']`) in a nested object. */
function setPath(root: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = root;
  segments.forEach((segment, i) => {
    if (i === segments.length - 1) {
      node[segment] = value;
      return;
    }
    if (typeof node[segment] !== "object" || node[segment] === null || Array.isArray(node[segment])) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  });
}

const segmentsOf = (path: string) => path.split(/\.|\[/).map((s) => s.replace(/^'|'\]$/g, ""));

/** A concrete activity from a model: type, approvers, every required parameter, signing target, chain payload, now. */
function witnessOf(space: RequestSpace, model: Model, defaultNow: number): SimulatedActivity {
  const read = (e: unknown) => model.eval(e as never, true).toString().replace(/[()\s]/g, "");
  const num = (e: unknown) => BigInt(read(e));
  const slot = space.types[Number(num(space.t))]!;
  const target = Number(num(space.target));
  // Strings: a literal, or another value named after where it is read.
  const others = new Map<string, string>();
  const text = (code: bigint, hint: string, classKey?: string) => {
    const literal = space.literalOf(code);
    if (literal !== undefined && (classKey === undefined || space.strings.literalsOf(classKey).has(Number(code)))) return literal;
    const key = code.toString();
    if (!others.has(key)) others.set(key, freshName(hint));
    return others.get(key)!;
  };
  // A made-up value stands for a string no policy names and unlike the other made-up ones:
  // `user-3` made up where a policy names user-3 would make that policy apply to the witness.
  const madeUp = new Set<string>();
  const freshName = (hint: string) => {
    let n = others.size + 1;
    while (madeUp.has(`${hint}-${n}`) || space.isLiteral(`${hint}-${n}`)) n++;
    madeUp.add(`${hint}-${n}`);
    return `${hint}-${n}`;
  };
  const tagsRead = new Map<number, string[]>();
  for (const [key, variable] of space.variables()) {
    const match = /^b:tag:(\d+)\u0000(.*)$/s.exec(key);
    if (match && read(variable) === "true") tagsRead.set(Number(match[1]), [...(tagsRead.get(Number(match[1])) ?? []), match[2]!]);
  }
  const s = Number(num(space.s));
  const userOf = (j: number, copy: number, count: number): SimulatedUser => {
    const slotJ = space.slots[j]!;
    const idCode = num(slotJ.id);
    const id = slotJ.named ?? (idCode >= BigInt(RESERVED_CODE) || count > 1 ? `(user ${j + 1}.${copy + 1})` : text(idCode, "user", "user.id"));
    const email = text(num(slotJ.email), "other", "user.email");
    const alias = text(num(slotJ.alias), "other", "user.alias");
    return { id, tags: tagsRead.get(j) ?? [], email, alias };
  };
  const approvers: SimulatedUser[] = [];
  space.slots.forEach((_, j) => {
    const n = Math.min(Number(num(space.slots[j]!.n)), 1000);
    for (let copy = 0; copy < n; copy++) approvers.push(userOf(j, copy, n));
  });
  const first = firstOfSlot(space, model, s);
  const ordered = [approvers[first]!, ...approvers.filter((_, i) => i !== first)];

  const params: Record<string, unknown> = {};
  const keywords: Record<string, unknown> = {};
  const has = (name: string) => !slot.keywords || slot.keywords.has(name);
  // A target id no policy reads is another one of its kind.
  const targetText = (key: string, hint: string) => (space.variables().has(`i:${key}`) ? text(num(space.strVar(key)), hint, key) : text(BigInt(-1 - hint.length), hint));
  if (target === 1 && has("wallet")) keywords.wallet = { id: targetText("str:wallet.id", "another-wallet"), imported: false, exported: false, label: "" };
  if (target === 1 && has("wallet_account")) keywords.wallet_account = { address: targetText("str:wallet_account.address", "another-address") };
  if (target === 2) keywords.private_key = { id: targetText("str:private_key.id", "another-private-key"), tags: [], imported: false, exported: false, label: "" };
  for (const [payload, present] of space.chainPresent) {
    if (read(present) !== "true") continue;
    const [chain, field] = payload.split(".") as [string, string];
    keywords[chain] = { ...((keywords[chain] as object | undefined) ?? {}), [field]: {} };
  }
  // A chain value is part of the request only when its payload is (the model's value of another is unused).
  const carried = (path: string) => {
    const payload = payloadOf(path);
    return payload === undefined || read(space.chainPresent.get(payload)!) === "true";
  };
  let now = Math.floor(defaultNow / 1000) * 1000;
  const sampled = requiredParameters(slot.type);
  for (const [key, variable] of space.variables()) {
    const match = /^(i|b):(str:|count:)?(.*)$/s.exec(key);
    if (!match) continue;
    const path = match[3]!;
    if (/^(has|err|opaque|opaque-err|sorterr:[a-z]+|notlist|notlist-err|substr|mem|tag):/.test(path)) continue;
    const [root, ...rest] = segmentsOf(path);
    const value = read(variable);
    let converted: unknown;
    if (match[1] === "b") converted = value === "true";
    else if (match[2] === "str:") {
      const literal = space.literalOf(BigInt(value));
      const isLiteral = literal !== undefined && space.strings.literalsOf(`str:${path}`).has(Number(value));
      // Another value than the policies name: a well-formed sample of the field where there is one.
      const sample = root === "activity" && rest[0] === "params" && rest.length === 2 ? sampled[camelCaseKey(rest[1]!)] : undefined;
      const sampleIsOther = typeof sample === "string" && !space.strings.literalsOf(`str:${path}`).has(space.code(sample));
      if (isLiteral) converted = literal;
      else if (!others.has(value) && sampleIsOther) {
        others.set(value, (converted = sample));
        madeUp.add(sample);
      }
      else converted = text(BigInt(value), root === "wallet" ? "another-wallet" : root === "private_key" ? "another-private-key" : "other", `str:${path}`);
    }
    else if (match[2] === "count:") converted = listOf(space, model, path, Number(value));
    else converted = value;
    // A value of another shape than the policies read: the read errors.
    const sort = sortOf(match);
    if (match[2] !== "count:" && space.variables().has(`b:sorterr:${sort}:${path}`) && read(space.boolVar(`sorterr:${sort}:${path}`)) === "true") {
      converted = sort === "int" ? "not-a-number" : sort === "string" ? { not: "a string" } : "not-a-bool";
    }
    if (space.variables().has(`b:err:${path}`) && read(space.boolVar(`err:${path}`)) === "true") continue;
    if (root === "activity" && rest[0] === "params") {
      const field = rest[1]!;
      const present = slot.params?.[field] === true || ((slot.params === undefined || slot.params[field] === false) && read(space.boolVar(`has:activity.params.${field}`)) === "true");
      if (present) setPath(params, rest.slice(1), converted);
    } else if (root !== undefined && root in keywords && carried(path)) {
      setPath(keywords, [root, ...rest], converted);
    }
  }
  // Lists read only through membership.
  for (const [key] of space.variables()) {
    const match = /^b:mem:(.*)\u0000/s.exec(key);
    if (!match || space.variables().has(`i:count:${match[1]}`)) continue;
    const path = match[1]!;
    const [root, ...rest] = segmentsOf(path);
    const value = listOf(space, model, path, 0);
    if (root === "activity" && rest[0] === "params") {
      const field = rest[1]!;
      const present = slot.params?.[field] === true || ((slot.params === undefined || slot.params[field] === false) && read(space.boolVar(`has:activity.params.${field}`)) === "true");
      if (present) setPath(params, rest.slice(1), value);
    } else if (root !== undefined && root in keywords && carried(path)) setPath(keywords, [root, ...rest], value);
  }
  if (space.nowRead) now = Number(num(space.now));
  // A payload the policies read nothing of is left out.
  for (const payload of space.chainPresent.keys()) {
    const [chain, field] = payload.split(".") as [string, string];
    const held = keywords[chain] as Record<string, unknown> | undefined;
    if (held && typeof held[field] === "object" && held[field] !== null && Object.keys(held[field] as object).length === 0) delete held[field];
    if (held && Object.keys(held).length === 0) delete keywords[chain];
  }
  // Every required parameter of the type, then what the policies read (camelCase, as a client sends it).
  const parameters: Record<string, unknown> = { ...requiredParameters(slot.type) };
  const targetId = (keywords.wallet_account as { address?: string } | undefined)?.address ?? (keywords.wallet as { id?: string } | undefined)?.id ?? (keywords.private_key as { id?: string } | undefined)?.id;
  if (targetId !== undefined) {
    if ("signWith" in parameters || slot.params?.sign_with !== undefined) parameters.signWith = targetId;
    if ("walletId" in parameters && keywords.wallet) parameters.walletId = (keywords.wallet as { id: string }).id;
    if ("privateKeyId" in parameters && keywords.private_key) parameters.privateKeyId = (keywords.private_key as { id: string }).id;
  }
  for (const [field, value] of Object.entries(params)) {
    const camel = camelCaseKey(field);
    // A key that would not come back to the same snake_case name stays as written.
    const wire = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) === field ? camel : field;
    if (wire !== field) delete parameters[field];
    parameters[wire] = value;
  }
  return { type: slot.type, parameters, approvers: ordered, keywords, now: new Date(now).toISOString() };
}

function sortOf(match: RegExpExecArray): string {
  return match[1] === "b" ? "bool" : match[2] === "str:" ? "string" : "int";
}

/** The index, among the witness's approvers, of the first user of slot `s`. */
function firstOfSlot(space: RequestSpace, model: Model, s: number): number {
  let index = 0;
  for (let j = 0; j < s; j++) index += Math.min(Number(model.eval(space.slots[j]!.n as never, true).toString().replace(/[()\s]/g, "")), 1000);
  return index;
}

/** A request list from the model: its members, a wrong item when `contains` errors, fillers up to its count; no list at all when it is not one. */
function listOf(space: RequestSpace, model: Model, path: string, count: number): unknown {
  const read = (e: unknown) => model.eval(e as never, true).toString();
  if (space.variables().has(`b:notlist:${path}`) && read(space.boolVar(`notlist:${path}`)) === "true") {
    if (read(space.boolVar(`notlist-err:${path}`)) === "true") return { not: "a list" };
    return space
      .membersRead(path)
      .filter((l) => space.variables().has(`b:substr:${path}\u0000${l}`) && read(space.boolVar(`substr:${path}\u0000${l}`)) === "true")
      .join("|");
  }
  const members = space.membersRead(path).filter((l) => read(space.membership(path, l)) === "true");
  const items: unknown[] = [...members];
  for (let i = items.length; i < Math.min(count, 50); i++) items.push(`(item ${i + 1})`);
  return items;
}
