/**
 * @module resources/runtime/policy-lockout
 * No self-lockout by policy: when a plan declares or changes Policy resources, every activity
 * kind the rest of the plan submits as the deploying user (`needed-activities.ts`) must still be
 * allowed to that user, alone (keyform signs with one key and approves nothing), under the
 * policy set the plan leaves: the organization's policies, with the ones this plan declares in
 * place of their earlier versions. The solver (`sdk/policy/smt`) answers for every request of
 * the kind (any parameters, credentials, time), and each answer it gives is replayed through the
 * evaluator:
 *
 * - every request allowed (no counterexample): safe;
 * - no request allowed: the plan fails, naming the policies, the kind, the resources that need
 *   it and the user;
 * - some allowed and some not, or the solver cannot encode a clause: "not proved", and the plan
 *   fails closed with the counterexample or the clause.
 *
 * A user who alone is the root quorum (a member of a threshold-1 quorum, today and in the plan)
 * bypasses policies: nothing is checked. Activities by which a user changes their own API keys
 * are allowed without a policy and are not counted. `keyform:allowLockout` turns the check off
 * for a deliberate hand-over.
 *
 * The census is built as the engine checks resources, in the program's order: each check
 * decides with the policies checked so far, a Policy's check for every kind needed so far. So
 * an ALLOW the plan adds must come before the resources that need it, or the preview fails
 * closed. Values unknown at preview (a condition naming a user created by the same plan) are
 * decided when `up` checks the resource again with them known.
 */
import type { PolicyRecord } from "../../policy/engine";
import { simulate, type SimulatedActivity } from "../../policy/simulate";
import { buildProof } from "../../policy/smt/diff";
import { submitterIs } from "../../policy/smt/properties";
import { newSolver } from "../../policy/smt/runtime";
import type { CheckFailure } from "./check";
import type { Session } from "./client";
import { deployingUser, OPT_OUT, rootQuorumToday, type DeployingUser } from "./lockout";
import { lockoutCensusOf } from "./lockout-census";
import { nameOfUrn } from "./plan-census";
import { before } from "./shared-reads";
import type { Settings } from "./settings";
import { containsUnknown } from "./values";

/** What the solver says about one kind for one user under one policy set. */
export type AccessVerdict =
  | { readonly verdict: "always" }
  | { readonly verdict: "never" }
  | { readonly verdict: "not proved"; readonly why: string; readonly counterexample?: SimulatedActivity };

function describeWitness(w: SimulatedActivity): string {
  const parts = [w.type];
  if (w.parameters !== undefined) parts.push(`parameters ${JSON.stringify(w.parameters)}`);
  if (w.credentials !== undefined) parts.push(`credentials ${JSON.stringify(w.credentials)}`);
  if (w.now !== undefined) parts.push(`at ${String(w.now)}`);
  return parts.join(", ");
}

/**
 * Whether `policies` allow `user`, alone, every request of `kind`, none, or some (not proved).
 * "always" and "never" hold for every request; any counterexample the solver finds is replayed
 * through the evaluator before it is believed.
 */
export async function accessFor(policies: readonly PolicyRecord[], user: DeployingUser, kind: string): Promise<AccessVerdict> {
  const proof = await buildProof([policies], { literals: [kind] });
  const { z, space } = proof;
  const allowed = proof.decision(policies);
  const who = submitterIs(proof, { user: { id: user.userId, alias: user.userName, email: user.userEmail ?? "", tags: user.userTags } });
  const base = [proof.wellFormed(), who, space.typesWhere((slot) => slot.kind === kind), space.alone()];
  const exact = () => proof.notProved.length === 0;
  const opaque = () => proof.notProved.map((n) => `${n.clause} (${n.reason})`).join("; ");

  const refused = newSolver(z);
  refused.add(...base, z.Not(allowed));
  const refusal = await refused.check();
  if (refusal === "unsat") return exact() ? { verdict: "always" } : { verdict: "not proved", why: `the solver cannot encode ${opaque()}` };
  let counterexample: SimulatedActivity | undefined;
  if (refusal === "sat") {
    const model = refused.model();
    const witness = proof.witness(proof.values(model));
    model.release();
    if (simulate(policies, witness).outcome !== "OUTCOME_ALLOW") counterexample = witness;
  }

  const granted = newSolver(z);
  granted.add(...base, allowed);
  const grant = await granted.check();
  if (grant === "unsat" && exact()) return { verdict: "never" };
  if (counterexample !== undefined) return { verdict: "not proved", why: `some requests of it are denied, e.g. ${describeWitness(counterexample)}`, counterexample };
  return { verdict: "not proved", why: exact() ? `the solver answered ${refusal}` : `the solver cannot encode ${opaque()}` };
}

/** A Policy resource of the plan. */
interface PlannedPolicy {
  readonly name: string;
  readonly inputs: Record<string, unknown>;
  readonly olds: Record<string, unknown>;
  /** Created, or changed in one of its expressions or effect. */
  readonly changed: boolean;
}

/** The census kept for this check, per organization (`lockout-census.ts`). */
function censusOf(session: Session) {
  const { plannedPolicies, neededActivities, plannedQuorums, accessVerdicts } = lockoutCensusOf<AccessVerdict>(session.context);
  const org = session.organizationId;
  const of = <V>(map: Map<string, Map<string, V>>): Map<string, V> => {
    let inner = map.get(org);
    if (inner === undefined) {
      inner = new Map();
      map.set(org, inner);
    }
    return inner;
  };
  return { policies: of(plannedPolicies) as Map<string, PlannedPolicy>, needs: of(neededActivities) as Map<string, Set<string>>, quorum: of(plannedQuorums), accessVerdicts };
}

/** One resource's part in the policy census. */
export interface PlannedAccess {
  readonly kind: string;
  readonly urn: string;
  readonly inputs: Record<string, unknown>;
  readonly olds: Record<string, unknown>;
  /** The activity kinds this resource's step submits. */
  readonly kinds: readonly string[];
  /** Whether the plan creates or changes it (a Policy whose effect or expressions change counts). */
  readonly changed: boolean;
  /** The property a failure is reported on. */
  readonly property: string;
}

const POLICY_FIELDS = ["effect", "condition", "consensus", "time"] as const;

/** The policies the plan leaves: today's, with each planned one in place of its earlier version; undefined while a planned one is unknown. */
async function resultingPolicies(session: Session, planned: ReadonlyMap<string, PlannedPolicy>): Promise<PolicyRecord[] | undefined> {
  const policies = await before.policies(session);
  const replaced = new Set<string>();
  const declared: PolicyRecord[] = [];
  for (const [urn, p] of planned) {
    if (POLICY_FIELDS.some((f) => containsUnknown(p.inputs[f])) || containsUnknown(p.inputs.policyName)) return undefined;
    for (const source of [p.olds, p.inputs]) {
      if (typeof source.policyName === "string") replaced.add(`name:${source.policyName}`);
      if (typeof source.importId === "string") replaced.add(`id:${source.importId}`);
    }
    declared.push({
      policyId: `planned:${nameOfUrn(urn)}`,
      policyName: p.inputs.policyName as string,
      effect: p.inputs.effect as string,
      condition: (p.inputs.condition as string | undefined) ?? null,
      consensus: (p.inputs.consensus as string | undefined) ?? null,
      time: (p.inputs.time as string | undefined) ?? null,
    });
  }
  const kept = policies
    .filter((p) => !replaced.has(`name:${p.policyName}`) && !replaced.has(`id:${p.policyId}`))
    .map((p) => ({ policyId: p.policyId, policyName: p.policyName, effect: p.effect, condition: p.condition || null, consensus: p.consensus || null, time: (p as { time?: string }).time || null }));
  return [...kept, ...declared];
}

/** Whether the user alone is the root quorum today and after the plan (then policies do not apply to it); undefined while the planned quorum is unknown. */
async function bypassesPolicies(session: Session, user: DeployingUser, plannedQuorum: Record<string, unknown> | undefined): Promise<boolean | undefined> {
  const actsAlone = (q: { threshold?: unknown; userIds?: unknown } | undefined) =>
    q !== undefined && Array.isArray(q.userIds) && q.userIds.includes(user.userId) && typeof q.threshold === "number" && q.threshold <= 1;
  if (!actsAlone(await rootQuorumToday(session))) return false;
  if (plannedQuorum === undefined) return true;
  if (containsUnknown(plannedQuorum.userIds) || containsUnknown(plannedQuorum.threshold)) return undefined;
  return actsAlone(plannedQuorum);
}

/** Kinds by which users change their own API keys: allowed without a policy (unless a DENY applies, which this check does not count). */
const OWN_CREDENTIAL_KINDS = new Set(["CREATE_API_KEYS", "DELETE_API_KEYS"]);

/**
 * Adds one checked resource to the policy census and returns why the deploying user could not
 * run what the plan needs under the plan's policies (none with `allowLockout`).
 */
export async function policyLockoutFailures(session: Session, planned: PlannedAccess, settings: Settings): Promise<CheckFailure[]> {
  if (settings.allowLockout) return [];
  const census = censusOf(session);
  const name = nameOfUrn(planned.urn);
  // The user is read only when it matters (an API key's owner, or a decision to make), so a plan
  // that changes no policy costs no request here.
  const owner = planned.kinds.some((k) => OWN_CREDENTIAL_KINDS.has(k)) ? await deployingUser(session) : undefined;
  const own = (kind: string) => OWN_CREDENTIAL_KINDS.has(kind) && owner !== undefined && planned.inputs.userId === owner.userId;
  const label = `${planned.kind} ${JSON.stringify(name)}`;
  for (const needs of census.needs.values()) needs.delete(label);
  for (const kind of planned.kinds) {
    if (own(kind)) continue;
    let needers = census.needs.get(kind);
    if (needers === undefined) census.needs.set(kind, (needers = new Set()));
    needers.add(label);
  }
  if (planned.kind === "Policy") census.policies.set(planned.urn, { name, inputs: planned.inputs, olds: planned.olds, changed: planned.changed });
  if (planned.kind === "RootQuorum") census.quorum.set("declared", planned.inputs);

  const changedPolicies = [...census.policies.values()].filter((p) => p.changed);
  if (changedPolicies.length === 0) return [];
  // A changed Policy answers for every kind some resource still needs; any other resource for its own.
  const needed = [...census.needs].filter(([, needers]) => needers.size > 0).map(([kind]) => kind);
  const kinds = planned.kind === "Policy" && planned.changed ? needed : planned.kinds.filter((k) => census.needs.get(k)?.has(label));
  if (kinds.length === 0) return [];
  const user = await deployingUser(session);
  if (user === undefined) {
    return [{ property: planned.property, reason: `not proved that the deploying API key keeps the activities this plan needs under its policies: the user it belongs to is not visible to it; ${OPT_OUT}` }];
  }
  const bypass = await bypassesPolicies(session, user, census.quorum.get("declared") as Record<string, unknown> | undefined);
  if (bypass !== false) return [];
  const policies = await resultingPolicies(session, census.policies);
  if (policies === undefined) return [];

  const setKey = JSON.stringify([user.userId, policies.map((p) => [p.effect, p.condition, p.consensus, p.time])]);
  const who = `user ${JSON.stringify(user.userName)} (${user.userId}), whom the deploying API key belongs to`;
  const policyNames = changedPolicies.map((p) => `Policy ${JSON.stringify(p.name)}`).join(", ");
  const failures: CheckFailure[] = [];
  for (const kind of kinds.sort()) {
    const key = `${session.organizationId}|${kind}|${setKey}`;
    let verdict = census.accessVerdicts.get(key);
    if (verdict === undefined) {
      verdict = accessFor(policies, user, kind);
      verdict.catch(() => census.accessVerdicts.delete(key));
      census.accessVerdicts.set(key, verdict);
    }
    const answer = await verdict;
    if (answer.verdict === "always") continue;
    const needers = [...(census.needs.get(kind) ?? [])].sort().join(", ");
    const reason =
      answer.verdict === "never"
        ? `with the policies this plan declares or changes (${policyNames}), ${who}, may not run ${kind}, which ${needers} of this plan needs: it would lock keyform out of what it deploys in organization ${session.organizationId} (proved for every request)`
        : `not proved that ${who}, may still run ${kind}, which ${needers} of this plan needs, with the policies this plan declares or changes (${policyNames}): ${answer.why}`;
    failures.push({ property: planned.property, reason: `${reason}. Declare an ALLOW for it before the resources that need it, or ${OPT_OUT}` });
  }
  return failures;
}
