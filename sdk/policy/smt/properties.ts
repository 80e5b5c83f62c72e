/**
 * @module policy/smt/properties
 * Properties of one policy set beyond a diff, each answered by the solver over the same request
 * space (any user, any tags and approvers, every version of every activity type) and each "yes"
 * with a witness replayed through the evaluator:
 *
 * - `can`: may a user (or any user with a tag) run an activity kind, alone or with approvers,
 *   optionally on a named wallet or private key;
 * - per policy: whether it can error (and on what), whether an ALLOW is redundant (removing it
 *   changes no decision), whether a DENY blocks nothing (no request it applies to would be
 *   allowed without it);
 * - lockout: the root quorum bypasses policies, so no policy change can stop it from changing
 *   the root quorum or the policies; a declared break-glass tag must keep, after a change, every
 *   recovery activity it had before (policy, tag, user and credential management: see
 *   `BREAK_GLASS_KINDS`).
 */
import type { PolicyRecord } from "../engine";
import { simulate, simulateVotes, type SimulatedActivity } from "../simulate";
import { addNotProved, buildProof, classesAmong, relevanceGroups, type DiffUser, type Proof } from "./diff";
import { checkNow, newSolver, withSolver } from "./runtime";
import type { OpaqueClause, Z3Bool, Z3Int } from "./encode";

/** Who a `can` question is about. */
export type Principal = { readonly user: DiffUser } | { readonly tag: string };

export interface CanAnswer {
  readonly how: "alone" | "with approvers";
  /** A replayed witness when the answer is yes. */
  readonly witness?: SimulatedActivity;
  readonly allowed: boolean;
  /** "no" holds for every request (only meaningful when allowed is false). */
  readonly proved: boolean;
}

export interface CanResult {
  readonly answers: readonly CanAnswer[];
  readonly notProved: readonly OpaqueClause[];
}

/** The submitter is `principal`: a user (id, tags, email, alias as given) or any user carrying a tag. Call before `wellFormed`. */
export function submitterIs(proof: Proof, principal: Principal): Z3Bool {
  const { z, space } = proof;
  // The principal's strings join the classes of users' strings, so a user slot may take them.
  const is = (v: Z3Int, key: string, text: string | undefined) => {
    if (!text) return z.Bool.val(true);
    space.strings.addLiteral(key, space.code(text));
    return v.eq(space.code(text));
  };
  const tagsRead = (j: number) => [...space.variables().keys()].map((k) => new RegExp(`^b:tag:${j}\u0000(.*)$`, "s").exec(k)?.[1]).filter((t): t is string => t !== undefined);
  return z.Or(
    ...space.slots.map((slot, j) => {
      if ("tag" in principal) return z.And(space.s.eq(j), space.tagOf(j, principal.tag));
      const user = principal.user;
      // An organization's user is its own slot (a distinguished user); other profiles are not them.
      if (slot.members !== undefined) return slot.members.length === 1 && slot.members[0]!.id === user.id ? space.s.eq(j) : z.Bool.val(false);
      if (space.hasMembers) return z.Bool.val(false);
      if (slot.named !== undefined && slot.named !== user.id) return z.Bool.val(false);
      if (slot.named === undefined && space.namedIds.includes(user.id)) return z.Bool.val(false);
      const parts: Z3Bool[] = [space.s.eq(j), is(slot.email, "user.email", user.email), is(slot.alias, "user.alias", user.alias)];
      if (slot.named === undefined) parts.push(slot.n.eq(1), is(slot.id, "user.id", user.id));
      for (const tag of tagsRead(j)) parts.push(space.boolVar(`tag:${j}\u0000${tag}`).eq(z.Bool.val((user.tags ?? []).includes(tag))));
      return z.And(...parts);
    }),
  );
}

/**
 * Whether `principal` may run activities of `kind` (on `target`, a wallet or private key id, when
 * given) under `policies`, alone and with approvers. Asked per group of the kind's types that the
 * same policies may apply to, each over those policies only.
 */
export function canQuery(policies: readonly PolicyRecord[], principal: Principal, kind: string, target?: string, users?: readonly DiffUser[]): Promise<CanResult> {
  return withSolver(() => askCan(policies, principal, kind, target, users));
}

async function askCan(policies: readonly PolicyRecord[], principal: Principal, kind: string, target?: string, users?: readonly DiffUser[]): Promise<CanResult> {
  const literals = [kind, ...(target !== undefined ? [target] : [])];
  const { groups, typeCount } = relevanceGroups([policies], literals);
  const notProved: OpaqueClause[] = [];
  const found = new Map<CanAnswer["how"], { witness?: SimulatedActivity; allowed: boolean; undecided: boolean }>([
    ["alone", { allowed: false, undecided: false }],
    ["with approvers", { allowed: false, undecided: false }],
  ]);
  for (const group of groups) {
    const types = group.types.filter((slot) => slot.kind === kind);
    if (types.length === 0) continue;
    const relevant = group.policySets[0]!;
    // Without an ALLOW that may apply, nothing of these types is allowed (the root quorum is not a principal here).
    if (!relevant.some((p) => p.effect === "EFFECT_ALLOW")) continue;
    // With the organization's users, they alone submit and approve (the principal stands in a slot of its own).
    const options = users !== undefined ? { literals, users, distinguishedUsers: "user" in principal ? [principal.user.id] : [] } : { literals };
    const proof = await buildProof([relevant], options, { classes: classesAmong(types, relevant, literals), typeCount });
    const { z, space } = proof;
    const allowed = proof.decision(relevant);
    const who = submitterIs(proof, principal);
    const wellFormed = proof.wellFormed();
    let targeted: Z3Bool = z.Bool.val(true);
    if (target !== undefined) {
      space.strings.addLiteral("str:wallet.id", space.code(target));
      space.strings.addLiteral("str:private_key.id", space.code(target));
      targeted = z.Or(z.And(space.target.eq(1), space.strVar("str:wallet.id").eq(space.code(target))), z.And(space.target.eq(2), space.strVar("str:private_key.id").eq(space.code(target))));
    }
    for (const how of ["alone", "with approvers"] as const) {
      const answer = found.get(how)!;
      if (answer.allowed) continue;
      const solver = newSolver(z);
      solver.add(wellFormed, allowed, who, targeted, space.insiders(), how === "alone" ? space.alone() : z.Bool.val(true));
      const verdict = checkNow(solver);
      if (verdict === "sat") {
        const model = solver.model();
        const modelled = proof.witness(proof.values(model));
        model.release();
        // Allowed as the service decides it: the principal submits, the others vote in turn (any of them may vote first after the principal).
        const approvers = modelled.approvers ?? [];
        const orders = [approvers, ...approvers.slice(1).map((_, k) => [approvers[0]!, approvers[k + 1]!, ...approvers.slice(1).filter((__, i) => i !== k)])];
        const allowedOrder = orders.map((order) => ({ ...modelled, approvers: order })).find((w) => simulateVotes(policies, w).outcome === "OUTCOME_ALLOW");
        // Only the votes cast until it is allowed (a later one is never cast): `simulate` of the witness allows it too.
        const witness = allowedOrder && { ...allowedOrder, approvers: allowedOrder.approvers.slice(0, simulateVotes(policies, allowedOrder).votes) };
        if (witness) found.set(how, { witness, allowed: true, undecided: false });
        else answer.undecided = true;
      } else if (verdict === "unknown") answer.undecided = true;
      solver.release();
    }
    addNotProved(notProved, proof.notProved);
  }
  const answers: CanAnswer[] = [...found].map(([how, a]) => ({ how, allowed: a.allowed, ...(a.witness ? { witness: a.witness } : {}), proved: a.allowed || (!a.undecided && notProved.length === 0) }));
  return { answers, notProved };
}

/** A finding about one policy. */
export interface PolicyFinding {
  readonly policyId: string;
  readonly policyName: string;
  readonly property: "may-error" | "never-errors" | "redundant" | "deny-blocks-nothing";
  /** A replayed witness where one exists (where the policy errors; a request the DENY blocks is absent for deny-blocks-nothing). */
  readonly witness?: SimulatedActivity;
  /** may-error: every activity kind on which the policy errors for some request, each with a witness that replayed. */
  readonly kinds?: readonly string[];
  /** may-error: kinds where the solver found an error the evaluator did not confirm (so not proved). */
  readonly unconfirmedKinds?: readonly string[];
  /** The finding holds for every request (not only for the witness); for may-error, the list of kinds is complete. */
  readonly proved: boolean;
}

/**
 * Per policy: the activity kinds on which it may error (each with a replayed witness), whether
 * an ALLOW is redundant, whether a DENY blocks nothing. Asked per group of activity types the
 * same policies may apply to (a policy that cannot apply to a type neither errors there nor
 * takes part in its decisions), so each check is small.
 */
export function policyFindings(policies: readonly PolicyRecord[], users?: readonly DiffUser[]): Promise<PolicyFindings> {
  return withSolver(() => findingsOf(policies, users));
}

/** The result of {@link policyFindings}. */
export interface PolicyFindings {
  readonly findings: PolicyFinding[];
  readonly notProved: readonly OpaqueClause[];
  /**
   * Requests of the run that show a policy matters (an ALLOW without which the request is not
   * allowed, a DENY without which it is), each replayed as the service decides it: what the
   * run's other verdicts are checked against.
   */
  readonly matters: readonly { readonly policyId: string; readonly witness: SimulatedActivity }[];
}

async function findingsOf(policies: readonly PolicyRecord[], users?: readonly DiffUser[]): Promise<PolicyFindings> {
  const { groups, typeCount } = relevanceGroups([policies]);
  const notProved: OpaqueClause[] = [];
  const matters: { policyId: string; witness: SimulatedActivity }[] = [];
  const state = policies.map(() => ({ kinds: new Set<string>(), unconfirmed: new Set<string>(), witness: undefined as SimulatedActivity | undefined, errUndecided: false, changes: false, changesUndecided: false }));
  for (const group of groups) {
    const relevant = group.policySets[0]!;
    if (relevant.length === 0) continue;
    // With the organization's users, they alone submit and approve: every witness names them, with their own tags.
    const proof = await buildProof([relevant], users !== undefined ? { users } : {}, { classes: classesAmong(group.types, relevant), typeCount });
    const { z, space } = proof;
    const formulas = proof.policyFormulas(relevant);
    const all = proof.decision(relevant);
    const without = relevant.map((_, i) => proof.decision(relevant.filter((__, k) => k !== i)));
    const wellFormed = z.And(proof.wellFormed(), users !== undefined ? space.insiders() : z.Bool.val(true));
    const check = async (...parts: Z3Bool[]) => {
      const one = newSolver(z);
      one.add(wellFormed, ...parts);
      const verdict = checkNow(one);
      const witness = verdict === "sat" ? readWitness(proof, one.model()) : undefined;
      one.release();
      return { verdict, witness };
    };
    for (const [i, f] of formulas.entries()) {
      const at = state[policies.indexOf(f.policy)]!;
      // Every type class where the policy errors: a model names one class, which is then ruled out.
      const solver = newSolver(z);
      solver.add(wellFormed, f.err, z.Not(space.rootOnly()));
      for (;;) {
        const verdict = checkNow(solver);
        if (verdict === "unknown") at.errUndecided = true;
        if (verdict !== "sat") break;
        const found = solver.model();
        const values = proof.values(found);
        const cell = proof.cell(values);
        const witness = proof.witness(values);
        found.release();
        const kinds = [...new Set(proof.typeClasses[cell.t]!.map((slot) => slot.kind))];
        const replayed = simulate([f.policy], witness).evaluations[0]?.outcome === "OUTCOME_ERROR";
        for (const kind of kinds) (replayed ? at.kinds : at.unconfirmed).add(kind);
        if (replayed) at.witness ??= witness;
        solver.add(space.t.neq(cell.t));
      }
      solver.release();
      // An ALLOW matters where removing it changes a decision; a DENY where it applies to a request allowed without it.
      const found = f.policy.effect === "EFFECT_ALLOW" ? await check(all, z.Not(without[i]!)) : await check(f.applies, without[i]!);
      if (found.verdict === "sat") at.changes = true;
      if (found.verdict === "unknown") at.changesUndecided = true;
      // The request that shows it, when it replays as the service decides it (submission, then votes in turn).
      const others = policies.filter((p) => p !== f.policy);
      if (found.witness && allowedAsService(f.policy.effect === "EFFECT_ALLOW" ? policies : others, found.witness) && !allowedAsService(f.policy.effect === "EFFECT_ALLOW" ? others : policies, found.witness)) {
        matters.push({ policyId: f.policy.policyId, witness: found.witness });
      }
    }
    addNotProved(notProved, proof.notProved);
  }
  const exact = notProved.length === 0;
  const findings: PolicyFinding[] = [];
  policies.forEach((policy, i) => {
    const at = state[i]!;
    const base = { policyId: policy.policyId, policyName: policy.policyName ?? policy.policyId };
    if (at.kinds.size > 0 || at.unconfirmed.size > 0) {
      findings.push({
        ...base,
        property: "may-error",
        ...(at.witness ? { witness: at.witness } : {}),
        kinds: [...at.kinds].sort(),
        ...(at.unconfirmed.size > 0 ? { unconfirmedKinds: [...at.unconfirmed].sort() } : {}),
        proved: at.unconfirmed.size === 0 && !at.errUndecided && exact,
      });
    } else findings.push({ ...base, property: "never-errors", proved: !at.errUndecided && exact });
    if (!at.changes) findings.push({ ...base, property: policy.effect === "EFFECT_ALLOW" ? "redundant" : "deny-blocks-nothing", proved: !at.changesUndecided && exact });
  });
  return { findings, notProved, matters };
}

/** A witness from a solver's model (read at once; the model is released). */
function readWitness(proof: Proof, model: Parameters<Proof["values"]>[0] & { release(): void }): SimulatedActivity {
  const witness = proof.witness(proof.values(model));
  model.release();
  return witness;
}

/** Allowed as the service decides it: the first approver submits, the others vote in turn (any of them may vote first after the submitter). */
function allowedAsService(policies: readonly PolicyRecord[], activity: SimulatedActivity): boolean {
  const approvers = activity.approvers ?? [];
  const orders = [approvers, ...approvers.slice(1).map((_, k) => [approvers[0]!, approvers[k + 1]!, ...approvers.slice(1).filter((__, i) => i !== k)])];
  return orders.some((order) => simulateVotes(policies, { ...activity, approvers: order }).outcome === "OUTCOME_ALLOW");
}

/** Policy-management activities. */
export const POLICY_MANAGEMENT_KINDS = ["CREATE_POLICY", "CREATE_POLICIES", "UPDATE_POLICY", "DELETE_POLICY", "DELETE_POLICIES"];

/**
 * What a break-glass tag needs to restore access after a bad change, and so must keep: change
 * the policies, put a user in a tag (the break-glass tag included) or make a tag, add a user, and
 * give a user credentials to act with. Other access it may have (signing, wallets) is the
 * diff's business: narrowing it is not a lockout. The root quorum's own kinds are out of scope
 * (only the root quorum runs them, and no policy can stop it).
 */
export const BREAK_GLASS_KINDS = [...POLICY_MANAGEMENT_KINDS, "CREATE_USER_TAG", "UPDATE_USER_TAG", "CREATE_USERS", "UPDATE_USER", "CREATE_API_KEYS", "CREATE_AUTHENTICATORS"];

export interface LockoutResult {
  /** Kinds the break-glass tag could run before (alone or with approvers of any kind) and cannot after. */
  readonly lost: readonly string[];
  readonly proved: boolean;
  readonly notProved: readonly OpaqueClause[];
  /** Why the root quorum cannot be locked out by a policy change. */
  readonly rootQuorum: string;
}

/** Whether a change keeps a break-glass tag's recovery access ({@link BREAK_GLASS_KINDS}) (and the root quorum's, which policies cannot touch). */
export async function lockoutCheck(before: readonly PolicyRecord[], after: readonly PolicyRecord[], breakGlassTag: string | undefined, kinds = BREAK_GLASS_KINDS, users?: readonly DiffUser[]): Promise<LockoutResult> {
  const rootQuorum = "the root quorum bypasses policies: no policy change can stop it from changing the root quorum or the policies";
  if (breakGlassTag === undefined) return { lost: [], proved: true, notProved: [], rootQuorum };
  const lost: string[] = [];
  const notProved: OpaqueClause[] = [];
  let proved = true;
  for (const kind of kinds) {
    const [b, a] = [await canQuery(before, { tag: breakGlassTag }, kind, undefined, users), await canQuery(after, { tag: breakGlassTag }, kind, undefined, users)];
    const had = b.answers.some((x) => x.allowed);
    const has = a.answers.some((x) => x.allowed);
    if (had && !has) lost.push(kind);
    if (!has && !a.answers.every((x) => x.proved)) proved = false;
    notProved.push(...a.notProved);
  }
  return { lost, proved: proved && notProved.length === 0, notProved, rootQuorum };
}
