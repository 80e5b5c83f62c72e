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
 *   policy-management activity it had before.
 */
import type { PolicyRecord } from "../engine";
import { simulate, type SimulatedActivity } from "../simulate";
import { buildProof, type DiffUser, type Proof } from "./diff";
import type { OpaqueClause, Z3Bool, Z3Int } from "./encode";

type Model = Parameters<Proof["witness"]>[0];

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
      if ("tag" in principal) return z.And(space.s.eq(j), space.boolVar(`tag:${j}\u0000${principal.tag}`));
      const user = principal.user;
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
 * given) under `policies`, alone and with approvers.
 */
export async function canQuery(policies: readonly PolicyRecord[], principal: Principal, kind: string, target?: string): Promise<CanResult> {
  const proof = await buildProof([policies], { literals: [kind, ...(target !== undefined ? [target] : [])] });
  const { z, space } = proof;
  const allowed = proof.decision(policies);
  const who = submitterIs(proof, principal);
  const wellFormed = proof.wellFormed();
  const ofKind = space.typesWhere((slot) => slot.kind === kind);
  let targeted: Z3Bool = z.Bool.val(true);
  if (target !== undefined) {
    space.strings.addLiteral("str:wallet.id", space.code(target));
    space.strings.addLiteral("str:private_key.id", space.code(target));
    targeted = z.Or(z.And(space.target.eq(1), space.strVar("str:wallet.id").eq(space.code(target))), z.And(space.target.eq(2), space.strVar("str:private_key.id").eq(space.code(target))));
  }
  const answers: CanAnswer[] = [];
  for (const how of ["alone", "with approvers"] as const) {
    const solver = new z.Solver();
    solver.add(wellFormed, allowed, who, ofKind, targeted, how === "alone" ? space.alone() : z.Bool.val(true));
    const verdict = await solver.check();
    if (verdict === "sat") {
      const witness = proof.witness(solver.model() as unknown as Model);
      const replayed = simulate(policies, witness).outcome === "OUTCOME_ALLOW";
      answers.push({ how, allowed: replayed, witness, proved: replayed });
    } else answers.push({ how, allowed: false, proved: verdict === "unsat" });
  }
  const notProved = [...proof.notProved];
  return { answers: answers.map((a) => ({ ...a, proved: a.proved && notProved.length === 0 })), notProved };
}

/** A finding about one policy. */
export interface PolicyFinding {
  readonly policyId: string;
  readonly policyName: string;
  readonly property: "may-error" | "never-errors" | "redundant" | "deny-blocks-nothing";
  /** A replayed witness where one exists (where the policy errors; a request the DENY blocks is absent for deny-blocks-nothing). */
  readonly witness?: SimulatedActivity;
  /** The finding holds for every request (not only for the witness). */
  readonly proved: boolean;
}

/** Per policy: may it error (with a witness), is an ALLOW redundant, does a DENY block nothing. */
export async function policyFindings(policies: readonly PolicyRecord[]): Promise<{ findings: PolicyFinding[]; notProved: readonly OpaqueClause[] }> {
  const proof = await buildProof([policies]);
  const { z, space } = proof;
  const formulas = proof.policyFormulas(policies);
  const all = proof.decision(policies);
  const without = policies.map((_, i) => proof.decision(policies.filter((__, k) => k !== i)));
  const wellFormed = proof.wellFormed();
  const exact = () => proof.notProved.length === 0;
  const findings: PolicyFinding[] = [];
  const sat = async (...parts: Z3Bool[]) => {
    const solver = new z.Solver();
    solver.add(wellFormed, ...parts);
    const verdict = await solver.check();
    return { verdict, model: verdict === "sat" ? (solver.model() as unknown as Model) : undefined };
  };
  for (const [i, f] of formulas.entries()) {
    const base = { policyId: f.policy.policyId, policyName: f.policy.policyName ?? f.policy.policyId };
    const errs = await sat(f.err, z.Not(space.rootOnly()));
    if (errs.model) {
      const witness = proof.witness(errs.model);
      const replayed = simulate([f.policy], witness).evaluations[0]?.outcome === "OUTCOME_ERROR";
      findings.push({ ...base, property: "may-error", witness, proved: replayed });
    } else findings.push({ ...base, property: "never-errors", proved: errs.verdict === "unsat" && exact() });
    if (f.policy.effect === "EFFECT_ALLOW") {
      const differs = await sat(all, z.Not(without[i]!));
      if (differs.verdict === "unsat") findings.push({ ...base, property: "redundant", proved: exact() });
    } else {
      const blocks = await sat(f.applies, without[i]!);
      if (blocks.verdict === "unsat") findings.push({ ...base, property: "deny-blocks-nothing", proved: exact() });
    }
  }
  return { findings, notProved: proof.notProved };
}

/** Policy-management activities a break-glass tag must keep. */
export const POLICY_MANAGEMENT_KINDS = ["CREATE_POLICY", "CREATE_POLICIES", "UPDATE_POLICY", "DELETE_POLICY", "DELETE_POLICIES"];

export interface LockoutResult {
  /** Kinds the break-glass tag could run before (alone or with approvers of any kind) and cannot after. */
  readonly lost: readonly string[];
  readonly proved: boolean;
  readonly notProved: readonly OpaqueClause[];
  /** Why the root quorum cannot be locked out by a policy change. */
  readonly rootQuorum: string;
}

/** Whether a change keeps a break-glass tag's policy-management access (and the root quorum's, which policies cannot touch). */
export async function lockoutCheck(before: readonly PolicyRecord[], after: readonly PolicyRecord[], breakGlassTag: string | undefined, kinds = POLICY_MANAGEMENT_KINDS): Promise<LockoutResult> {
  const rootQuorum = "the root quorum bypasses policies: no policy change can stop it from changing the root quorum or the policies";
  if (breakGlassTag === undefined) return { lost: [], proved: true, notProved: [], rootQuorum };
  const lost: string[] = [];
  const notProved: OpaqueClause[] = [];
  let proved = true;
  for (const kind of kinds) {
    const [b, a] = [await canQuery(before, { tag: breakGlassTag }, kind), await canQuery(after, { tag: breakGlassTag }, kind)];
    const had = b.answers.some((x) => x.allowed);
    const has = a.answers.some((x) => x.allowed);
    if (had && !has) lost.push(kind);
    if (!has && !a.answers.every((x) => x.proved)) proved = false;
    notProved.push(...a.notProved);
  }
  return { lost, proved: proved && notProved.length === 0, notProved, rootQuorum };
}
