/**
 * @module policy/smt/diff
 * Which access decisions change between two policy sets, proved with Z3 over the policy
 * language (see `encode.ts` for the encoded fragment, `universe.ts` for the request space)
 * rather than sampled: for each activity type of the service's catalog (or class of types no
 * policy tells apart) and signing target (a wallet or private key the policies name, or another
 * one), whether some user, alone or with some approvers, goes from refused to allowed ("gains")
 * or the reverse ("loses"). With the organization's users, they are the principals (each with
 * its own tags, as submitter and approvers; a change only other users could make is a note, not
 * a row); without them the principals are symbolic: any users with any tags, named by id, email
 * or alias, any number of approvers.
 *
 * Each change comes with a concrete witness activity (every required parameter of its type, valid
 * under its wire schema; the approvers; `now`), replayed on both sides as the service decides it
 * (`simulateVotes`: submitted by the first approver, the others voting in turn); a change whose
 * witness does not replay, or could not be submitted, is no row and the verdict is "not proved".
 * The verdict is "proved" only when every clause was encoded exactly, the approver bound was
 * met, the search ran to the end and every witness replayed.
 *
 * Decision model (the service's documented rules): the root quorum is out of scope (it bypasses
 * policies); a root-quorum-only activity is refused; any applicable DENY refuses; else any
 * applicable ALLOW allows; a policy applies when its condition, consensus and time hold and none
 * of them errors (an error is no match). Own-credential changes allowed without a policy are not
 * modelled (the same on both sides unless a DENY on them changes).
 */
import type { CheckSatResult } from "z3-solver";
import type { Expr } from "../ast";
import type { PolicyRecord } from "../engine";
import { simulate, simulateVotes, type SimulatedActivity, type SimulatedUser } from "../simulate";
import { Encoder, RequestSpace, type OpaqueClause, type TypeSlot, type Z3Bool, type Z3Context, type Z3Model } from "./encode";
import { compiledExpression } from "../compile";
import { conditionMayMatchFacts } from "../coverage";
import { classes, collectLiterals, genericSlotsNeeded, typeSignature, typeUniverse, versionMigrations, type VersionMigration } from "./universe";
import type { ModelValues } from "./model-values";
import { witnessOf } from "./model-witness";
import { checkNow, modelHolds, newSolver, solverStarting, withSolver, z3Context } from "./runtime";
import { nameOf, profilesOf, UserLabels } from "./labels";
import { witnessProblem } from "./witness";
import { payloadOutOfReach } from "./payload-witness";
import { activityKind } from "../activity";

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

/** A user of the organization as a change names it: the id, with the name beside. */
export interface ChangeUser {
  readonly id: string;
  /** The user name, else the email, else the id. */
  readonly name: string;
}

/** One changed decision. */
export interface AccessChange {
  /** `gains`: refused before, allowed after; `loses`: the reverse. */
  readonly direction: "gains" | "loses";
  /** `alone`: the submitter without approvers; `with approvers`: with the approvers of the witness (a consensus change). */
  readonly how: "alone" | "with approvers";
  /** Users of the organization for whom the witness, submitted by them (with its approvers), changes so; empty when the principals are symbolic. */
  readonly users: readonly ChangeUser[];
  /** Who the change is about, for a reader: the users' names, or the symbolic submitter ("any user tagged tag-a"). */
  readonly who: string;
  /** Every activity kind the change applies to. */
  readonly kinds: readonly string[];
  /** `wallet w-1` (`wallet Treasury (w-1)` when named), `private key pk-1`, `another wallet`, `another private key` or undefined (no signing target involved). */
  readonly target?: string;
  /** A concrete activity that is decided differently. */
  readonly witness: SimulatedActivity;
  readonly before: string;
  readonly after: string;
  /** The evaluator decides the witness as claimed on both sides (a change that does not is no row: the verdict is "not proved"). */
  readonly confirmed: boolean;
}

/** A change only users the organization does not have could make: a note, not a row. */
export interface OutsiderNote {
  readonly direction: "gains" | "loses";
  readonly kinds: readonly string[];
  /** Why no user of the organization can (more approvers than it has, or tags none of its users has). */
  readonly note: string;
  readonly witness: SimulatedActivity;
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
  /** Whether the principals are the organization's users (else any user with any tags: symbolic). */
  readonly symbolic: boolean;
  /** Changes only users the organization does not have could make (with users only). */
  readonly outsiders: readonly OutsiderNote[];
  /** Policies of the after side (added or changed) that match an exact version: they stop applying when the service moves the kind to a new one. */
  readonly migrations: readonly VersionMigration[];
  readonly userCount: number;
  readonly typeCount: number;
  /** True when the search stopped at `maxChanges`. */
  readonly truncated: boolean;
}

export interface DiffOptions {
  /**
   * The organization's users: when given, they are the principals (submitters and approvers,
   * with their own tags); a change only other users could make is a note, not a row. Without
   * them the principals are symbolic (any user with any tags).
   */
  readonly users?: readonly DiffUser[];
  /** Ids of users that stand in slots of their own (a `can` question's principal). */
  readonly distinguishedUsers?: readonly string[];
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

/** The request space and both sides' decisions, shared by the diff and the other properties. */
export interface Proof {
  readonly z: Z3Context;
  readonly space: RequestSpace;
  readonly typeClasses: readonly (readonly TypeSlot[])[];
  readonly typeCount: number;
  readonly wallets: readonly string[];
  readonly privateKeys: readonly string[];
  readonly notProved: OpaqueClause[];
  /** Why a search over users the organization does not have is not complete (with users only). */
  readonly outsidersBound?: string;
  /** A decision formula (allowed, not root-only) of a policy set over the space. */
  decision(policies: readonly PolicyRecord[]): Z3Bool;
  /** Per-policy applies/error formulas of a policy set. */
  policyFormulas(policies: readonly PolicyRecord[]): { policy: PolicyRecord; applies: Z3Bool; err: Z3Bool }[];
  /** Per policy of a set: its time and condition hold without error (what the request, not the approvers, decides of it). */
  requestFacts(policies: readonly PolicyRecord[]): Z3Bool[];
  /** The constraints every request meets (call after all decisions are built). */
  wellFormed(): Z3Bool;
  /** A model's values of the space, read at once: what the two readers below take. */
  values(model: Z3Model): ModelValues;
  /** A witness activity from a model's values (no call into Z3). */
  witness(values: ModelValues): SimulatedActivity;
  /** The type class index and signing target cell of a model, with a label, and a formula that blocks it. */
  cell(values: ModelValues): { formula: Z3Bool; t: number; targetLabel?: string };
}

/** The activity-type classes of a question: the type universe of its policies, grouped by what they can tell apart. */
export interface TypeClasses {
  readonly classes: readonly (readonly TypeSlot[])[];
  /** Activity types in the universe (every class's members). */
  readonly typeCount: number;
}

/** The type classes of `policySets` (all sets a question compares), with `literals` (a kind, a target id) told apart too. */
export function typeClassesOf(policySets: readonly (readonly PolicyRecord[])[], literals: readonly string[] = []): TypeClasses {
  const found = collectLiterals(policySets.flat(), literals);
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

/** Adds to `into` each clause of `more` it does not hold yet (the groups of a question report the same clause once). */
export function addNotProved(into: OpaqueClause[], more: readonly OpaqueClause[]): void {
  for (const clause of more) if (!into.some((n) => n.clause === clause.clause && n.reason === clause.reason)) into.push(clause);
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
  const found = collectLiterals(policySets.flat(), literals);
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
  const found = collectLiterals(policies, literals);
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
  const literals = collectLiterals(all, options.literals);
  const universe = only ?? typeClassesOf(policySets, options.literals);
  const typeClasses = universe.classes;
  const notProved: OpaqueClause[] = [];
  // Generic approvers: the largest bound any type class needs, capped.
  const cap = options.maxGenericApprovers ?? 12;
  // With the organization's users, the other users (generic slots, ids no user has) only feed the
  // outsiders' note: a bound not met there leaves the rows exact.
  const members = options.users !== undefined;
  const bounds: OpaqueClause[] = [];
  let needed = 1;
  for (const group of typeClasses) {
    const bound = genericSlotsNeeded(all, group[0]!.type);
    if (bound === undefined) {
      bounds.push({ clause: "approvers", reason: "an approver count is compared with something other than a number: no bound on the approvers to consider" });
      needed = cap;
      break;
    }
    needed = Math.max(needed, bound);
  }
  if (needed > cap) {
    bounds.push({ clause: "approvers", reason: `a change may need ${needed} kinds of approvers no policy names; ${cap} were considered` });
    needed = cap;
  }
  if (!members) notProved.push(...bounds);
  const profiles = members ? profilesOf(options.users!, literals.strings, new Set(options.distinguishedUsers ?? [])) : [];
  const memberIds = new Set(profiles.flat().map((u) => u.id));
  const namedIds = [...literals.userIds].filter((id) => !memberIds.has(id)).sort();
  const space = new RequestSpace(z, typeClasses.map((group) => group[0]!), namedIds, needed, { profiles, literals: literals.strings });
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
    ...(members && bounds.length > 0 ? { outsidersBound: bounds.map((b) => b.reason).join("; ") } : {}),
    decision,
    policyFormulas,
    requestFacts: (policies) =>
      policies.map((policy) => {
        const parts = (["condition", "time"] as const).map((kind) => encoder.expression(kind, policy[kind]));
        return z.And(...parts.map((p) => p.v), z.Not(z.Or(...parts.map((p) => p.err))));
      }),
    wellFormed: () => {
      const formula = space.wellFormed();
      for (const [path, sorts] of space.dynSorts) if (sorts.size > 1) notProved.push({ clause: path, reason: `read as ${[...sorts].join(" and ")}: one value of undocumented shape, modelled apart` });
      for (const clause of space.opaque.values()) notProved.push(clause);
      return formula;
    },
    values: (model) => space.valuesOf(model),
    witness: (values) => witnessOf(space, values, nowMs),
    cell: (values) => cellOf(space, values, wallets, privateKeys, options.names),
  };
}

/** The type class and signing target of a model, as a formula that blocks it. */
function cellOf(space: RequestSpace, values: ModelValues, wallets: readonly string[], keys: readonly string[], names: Readonly<Record<string, string>> = {}): { formula: Z3Bool; t: number; targetLabel?: string } {
  const z = space.z;
  const num = (e: object) => values.int(e);
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
export async function diffPolicies(before: readonly PolicyRecord[], after: readonly PolicyRecord[], options: DiffOptions = {}): Promise<AccessDiff> {
  // The groups need no solver: they are worked out while Z3's WebAssembly compiles in the background.
  await solverStarting();
  const relevance = relevanceGroups([before, after], options.literals);
  // The solver's objects of the whole diff are freed when it ends (the result is plain data).
  return withSolver(() => searchChanges(before, after, relevance, options));
}

async function searchChanges(
  before: readonly PolicyRecord[],
  after: readonly PolicyRecord[],
  { groups, typeCount }: ReturnType<typeof relevanceGroups>,
  options: DiffOptions,
): Promise<AccessDiff> {
  const symbolic = options.users === undefined;
  const orgUsers = (options.users ?? []).filter((u) => !u.root);
  const labels = new UserLabels(orgUsers);
  const changes: AccessChange[] = [];
  const outsiders: OutsiderNote[] = [];
  const notProved: OpaqueClause[] = [];
  const maxChanges = options.maxChanges ?? 500;
  let truncated = false;
  let replayFailures = 0;
  const outOfReach = new Set<string>();
  let unnamedSubmitters = 0;
  const invalid = new Set<string>();
  // A witness replays as the service decides it: submitted by its first approver, the others voting in turn.
  const replayOnce = (activity: SimulatedActivity, direction: "gains" | "loses") => {
    const [b, a] = [simulateVotes(before, activity), simulateVotes(after, activity)];
    const [allowedB, allowedA] = [b.outcome === "OUTCOME_ALLOW", a.outcome === "OUTCOME_ALLOW"];
    return { b, a, confirmed: direction === "gains" ? !allowedB && allowedA : allowedB && !allowedA, activity };
  };
  // Whether no order of the other approvers, after the submitter, decides the witness `direction` (a
  // bounded count of orders: more approvers than that answer "not known", false).
  const noOrderChanges = (activity: SimulatedActivity, direction: "gains" | "loses") => {
    const [submitter, ...others] = activity.approvers ?? [];
    if (submitter === undefined || others.length > MAX_ORDERED_APPROVERS) return false;
    return orders(others).every((order) => !replayOnce({ ...activity, approvers: [submitter, ...order] }, direction).confirmed);
  };
  // The solver reasons on the set of approvers; the service on their votes in order: an order in
  // which fewer votes already decide alike shows no change, so each approver is tried first.
  const replay = (activity: SimulatedActivity, direction: "gains" | "loses") => {
    const first = replayOnce(activity, direction);
    const approvers = activity.approvers ?? [];
    for (let k = 1; !first.confirmed && k < approvers.length; k++) {
      const reordered = replayOnce({ ...activity, approvers: [approvers[k]!, ...approvers.filter((_, i) => i !== k)] }, direction);
      if (reordered.confirmed) return reordered;
    }
    return first;
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
    const facts = [...proof.requestFacts(relevantBefore), ...proof.requestFacts(relevantAfter)];
    const wellFormed = proof.wellFormed();
    // One solver per group (each check has a fixed cost): a model is a change, blocked by its
    // type class, target, direction, whether the submitter acts alone and (with the
    // organization's users) the profiles of the users it was found to apply to; unsat ends the group.
    const gains = z.And(z.Not(allowedBefore), allowedAfter);
    const loses = z.And(allowedBefore, z.Not(allowedAfter));
    const alone = space.alone();
    const slotOf = new Map<string, number>();
    space.slots.forEach((slot, j) => slot.members?.forEach((u) => slotOf.set(u.id, j)));
    const solver = newSolver(z);
    solver.add(wellFormed, z.Or(gains, loses));
    // A scope from the start makes every check use Z3's incremental solver. Without it the first
    // check runs the one-shot solver (preprocessing the whole question) and the second, after the
    // first blocking clause, takes the question in again into the incremental one: the group's
    // questions then cost about twice as much. The answers are the same (sat, unsat or unknown).
    solver.push();
    // Rows speak of the organization's users only.
    solver.add(space.insiders());
    const found: Z3Bool[] = [];
    // Per cell (type class, target, direction, alone or not): the users its rows name.
    const namedByCell = new Map<string, Set<string>>();
    // The next question's verdict, unless the rows have reached the limit (then the search stops, truncated).
    const ask = (): CheckSatResult | undefined => {
      if (changes.length < maxChanges) return checkNow(solver);
      truncated = true;
      return undefined;
    };
    // The verdict of the question as it stands (undefined once the search stops).
    let next = ask();
    let ended = false;
    while (next !== undefined) {
      const verdict = next;
      next = undefined;
      if (verdict === "unknown") {
        proof.notProved.push({ clause: "(search)", reason: "the solver gave up" });
        break;
      }
      if (verdict !== "sat") {
        ended = true;
        break;
      }
      const model = solver.model();
      const direction = modelHolds(model, gains) ? "gains" : "loses";
      const how = modelHolds(model, alone) ? "alone" : "with approvers";
      const values = proof.values(model);
      const cell = proof.cell(values);
      const submitter = Number(values.int(space.s));
      // What decides the submitter's votes in every order: the approvers of each profile and which policies' requests hold.
      const sameVotes = z.And(
        space.s.eq(submitter),
        ...space.slots.map((slot) => slot.n.eq(Number(values.int(slot.n)))),
        ...facts.map((fact) => (modelHolds(model, fact) ? fact : z.Not(fact))),
      );
      model.release();
      // The witness replays against the whole sets: this also checks that the policies left out could not apply.
      const original = proof.witness(values);
      const first = replay(original, direction);
      const witness = first.activity;
      // The organization's users for whom the same activity, submitted by them (with the witness's approvers), changes too.
      const users = symbolic ? [] : labels.replaying(witness, how, direction, relevantBefore, relevantAfter);
      // Profiles whose every user the row names: the search goes on for the others.
      const named = new Set(users.map((u) => u.id));
      const covered = new Set(space.slots.flatMap((slot, j) => (slot.members?.every((u) => named.has(u.id)) ? [j] : [])));
      // The solver reasons on the set of approvers, the service on votes in turn: when the row does
      // not name the solver's submitter, its change showed only with another approver submitting
      // first. When no order of the others, after the submitter, shows it either, only requests
      // with the same approvers and the same policies holding are ruled out for that submitter
      // (they are decided alike in every order); the search goes on for its other changes.
      let orderBlock: Z3Bool = z.Bool.val(false);
      // Such a change repeats a row of its cell unless it names a user none of them names.
      const rowKey = `${cell.t}\u0000${cell.targetLabel ?? ""}\u0000${direction}\u0000${how}`;
      const namedInCell = namedByCell.get(rowKey) ?? namedByCell.set(rowKey, new Set()).get(rowKey)!;
      let repeats = false;
      if (!symbolic && first.confirmed && !covered.has(submitter)) {
        if (noOrderChanges(original, direction)) {
          orderBlock = sameVotes;
          repeats = users.every((u) => namedInCell.has(u.id));
        } else {
          unnamedSubmitters++;
          covered.add(submitter);
        }
      } else covered.add(submitter);
      const where = z.And(cell.formula, direction === "gains" ? gains : loses, how === "alone" ? alone : z.Not(alone));
      found.push(where);
      solver.add(z.Not(symbolic ? where : z.And(where, z.Or(orderBlock, ...[...covered].map((j) => space.s.eq(j))))));
      const problem = witnessProblem(witness);
      if (problem !== undefined) invalid.add(problem);
      if (!first.confirmed && payloadOutOfReach(witness.type)) outOfReach.add(activityKind(witness.type));
      else if (!first.confirmed) replayFailures++;
      // A row is a request a client could submit, decided as claimed: anything else is "not proved".
      if (!first.confirmed || problem !== undefined || repeats) {
        next = ask();
        continue;
      }
      changes.push({
        direction,
        how,
        users: users.map((u) => ({ id: u.id, name: nameOf(u) })),
        who: symbolic ? describeUser(witness.approvers![0]!, new Set(space.namedIds), options.names) : users.map(nameOf).join(", "),
        kinds: [...new Set(proof.typeClasses[cell.t]!.map((slot) => slot.kind))],
        ...(cell.targetLabel ? { target: cell.targetLabel } : {}),
        witness,
        before: first.b.outcome,
        after: first.a.outcome,
        confirmed: true,
      });
      for (const u of users) namedInCell.add(u.id);
      next = ask();
    }
    // With the organization's users: is there a change, in a cell no row covers, that only users it does not have could make?
    if (!symbolic && ended && !truncated) {
      solver.pop();
      if (found.length > 0) solver.add(z.Not(z.Or(...found)));
      const verdict = checkNow(solver);
      if (verdict === "sat") {
        const model = solver.model();
        const direction = modelHolds(model, gains) ? "gains" : "loses";
        const values = proof.values(model);
        const cell = proof.cell(values);
        model.release();
        const witness = proof.witness(values);
        outsiders.push({
          direction,
          kinds: [...new Set(proof.typeClasses[cell.t]!.map((slot) => slot.kind))],
          note: `only users the organization does not have could make this change (${outsiderWhy(witness, orgUsers)}): no user of the organization ${direction === "gains" ? "gains" : "loses"} it`,
          witness,
        });
      }
    }
    solver.release();
    addNotProved(notProved, proof.notProved);
  }
  if (replayFailures > 0) notProved.push({ clause: "(witnesses)", reason: `${replayFailures} change${replayFailures === 1 ? "" : "s"} found by the solver did not replay as the service decides (submission, then votes in turn): not reported, and the diff is not proved` });
  if (outOfReach.size > 0) notProved.push({ clause: "(witnesses)", reason: `changes on ${[...outOfReach].sort().join(", ")} did not replay with a request keyform can build (the chain keywords they may need come from a payload whose request fields are not documented, or that the emulator does not decode): not reported, and the diff is not proved` });
  if (unnamedSubmitters > 0) notProved.push({ clause: "(witnesses)", reason: `${unnamedSubmitters} change${unnamedSubmitters === 1 ? "" : "s"} found by the solver showed for its submitter only in an order of votes the row does not list: that submitter's search was not completed, and the diff is not proved` });
  for (const problem of invalid) notProved.push({ clause: "(witnesses)", reason: `a witness is not a request a client could submit: ${problem}` });
  const namedIds = collectLiterals([...before, ...after]).userIds.size;
  const unchanged = new Set(before.map(encodingKey));
  return {
    proved: notProved.length === 0 && !truncated,
    changes,
    notProved,
    principals: symbolic
      ? `symbolic: any user with any tags (${namedIds} named by id, any other user with any tags as submitter or approver, any number of each); give the organization's users (--users, or read from the organization) to name them`
      : `the organization's ${orgUsers.length} users (root quorum members left out), with their own tags, as submitters and approvers`,
    symbolic,
    outsiders,
    migrations: versionMigrations(after.filter((p) => !unchanged.has(encodingKey(p)))),
    userCount: orgUsers.length,
    typeCount,
    truncated,
  };
}

/** Other approvers up to this many are tried in every order (5! = 120 replays). */
const MAX_ORDERED_APPROVERS = 5;

/** Every order of `items`. */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((item, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

/** Why a witness's users are not the organization's: more approvers than it has, or a user it does not have. */
function outsiderWhy(witness: SimulatedActivity, users: readonly DiffUser[]): string {
  const approvers = witness.approvers ?? [];
  const known = new Map(users.map((u) => [u.id, u]));
  if (approvers.length > users.length) return `${approvers.length} approvers where it has ${users.length} users`;
  const stranger = approvers.find((a) => !known.has(a.id));
  const tags = stranger?.tags?.length ? ` tagged ${stranger.tags.join(", ")}` : "";
  return stranger ? `a user${tags} it does not have` : "users it does not have";
}

/** "a user tagged tag-sec" for a made-up witness user. */
function describeUser(user: SimulatedUser, named: ReadonlySet<string>, names: Readonly<Record<string, string>> = {}): string {
  if (named.has(user.id)) return names[user.id] ?? user.id;
  const tags = (user.tags ?? []).map((t) => names[t] ?? t);
  return tags.length > 0 ? `any user tagged ${tags.join(", ")}` : "any user";
}
