/**
 * @module policy/smt/consistency
 * One truth per run: the break-glass verdict of `policy diff --break-glass` is read together with
 * the diff's table, and the findings of `policy prove` with the evaluator and `can`, so they
 * never say different things.
 *
 * - A loss row on a recovery kind that names a member of the break-glass tag (or, with symbolic
 *   principals, whose submitter carries the tag) is a loss of recovery access, even where the tag
 *   keeps the kind in another form: the verdict lists it.
 * - A kind the check says the tag lost (some member could run it before, none can after) must
 *   show in a proved table as a loss row naming a member: with the organization's users the
 *   table is complete per user, so its absence is a contradiction, and the command fails.
 */
import { activityKind } from "../activity";
import type { PolicyRecord } from "../engine";
import { simulate, simulateVotes, type SimulatedActivity } from "../simulate";
import type { AccessDiff, DiffUser } from "./diff";
import { canQuery, type LockoutResult, type PolicyFindings } from "./properties";

export interface BreakGlassVerdict {
  /** Recovery kinds the tag loses: the check's and the table's. */
  readonly lost: readonly string[];
  /** Kinds the table shows lost for a member while the check found the kind kept in another form. */
  readonly partly: readonly string[];
  /** Contradictions between the check and the table (the command fails on any). */
  readonly contradictions: readonly string[];
}

/** The break-glass verdict of one run, from the lockout check and the diff's rows (see the module comment). */
export function breakGlassVerdict(diff: AccessDiff, lockout: LockoutResult, tag: string, kinds: readonly string[], members: ReadonlySet<string>): BreakGlassVerdict {
  const recovery = new Set(kinds);
  const fromRows = new Set<string>();
  for (const change of diff.changes) {
    if (change.direction !== "loses") continue;
    const concerned = diff.symbolic ? (change.witness.approvers?.[0]?.tags ?? []).includes(tag) : change.users.some((u) => members.has(u.id));
    if (!concerned) continue;
    for (const kind of change.kinds) if (recovery.has(kind)) fromRows.add(kind);
  }
  const partly = [...fromRows].filter((kind) => !lockout.lost.includes(kind)).sort();
  const contradictions: string[] = [];
  if (!diff.symbolic && diff.proved && !diff.truncated) {
    for (const kind of lockout.lost) {
      if (!fromRows.has(kind)) contradictions.push(`the break-glass check finds ${tag} losing ${kind}, but the proved table has no loss of ${kind} for any of its members`);
    }
  }
  return { lost: [...new Set([...lockout.lost, ...fromRows])].sort(), partly, contradictions };
}

/**
 * Contradictions inside one `policy prove` run, read against the evaluator and `can` (the
 * command fails on any):
 *
 * - a may-error witness on which `simulate` does not show the policy erroring;
 * - a policy proved never to error that errors on a request of the run;
 * - a policy proved redundant (an ALLOW) or to block nothing (a DENY) whose removal changes the
 *   service's decision on a request of the run;
 * - a request the run shows allowed (an ALLOW that matters) whose submitter `can` proves unable
 *   to run that kind.
 */
export async function proveContradictions(policies: readonly PolicyRecord[], result: PolicyFindings, users?: readonly DiffUser[]): Promise<string[]> {
  const out: string[] = [];
  const byId = new Map(policies.map((p) => [p.policyId, p]));
  const witnesses = [...result.findings.flatMap((f) => (f.witness ? [f.witness] : [])), ...result.matters.map((m) => m.witness)];
  const outcomeOf = (policy: PolicyRecord, witness: SimulatedActivity) => simulate(policies, witness).evaluations.find((e) => e.policyId === policy.policyId)?.outcome;
  const allowed = (set: readonly PolicyRecord[], witness: SimulatedActivity) => simulateVotes(set, witness).outcome === "OUTCOME_ALLOW";
  for (const finding of result.findings) {
    const policy = byId.get(finding.policyId);
    if (policy === undefined) continue;
    const name = JSON.stringify(finding.policyName);
    if (finding.property === "may-error" && finding.witness && outcomeOf(policy, finding.witness) !== "OUTCOME_ERROR") {
      out.push(`${name} may error, but simulate of its witness (${finding.witness.type}) does not show it erroring`);
    }
    if (!finding.proved) continue;
    if (finding.property === "never-errors") {
      const erring = witnesses.find((w) => outcomeOf(policy, w) === "OUTCOME_ERROR");
      if (erring) out.push(`${name} is proved never to error, but errors in simulate on a request of this run (${erring.type})`);
    }
    if (finding.property === "redundant" || finding.property === "deny-blocks-nothing") {
      const others = policies.filter((p) => p !== policy);
      const changed = witnesses.find((w) => allowed(policies, w) !== allowed(others, w));
      if (changed) out.push(`${name} is proved ${finding.property === "redundant" ? "redundant" : "to block nothing"}, but removing it changes simulate's decision on a request of this run (${changed.type})`);
    }
  }
  // `can` of each submitter the run shows allowed (alone, or with the votes it took), once per user, kind and way.
  const asked = new Set<string>();
  const known = new Map((users ?? []).map((u) => [u.id, u]));
  for (const { policyId, witness } of result.matters) {
    if (byId.get(policyId)?.effect !== "EFFECT_ALLOW") continue;
    const submitter = witness.approvers?.[0];
    const decided = simulateVotes(policies, witness);
    if (submitter === undefined || decided.outcome !== "OUTCOME_ALLOW") continue;
    const kind = activityKind(witness.type);
    const how = decided.votes <= 1 ? "alone" : "with approvers";
    const key = `${submitter.id}\u0000${kind}\u0000${how}`;
    if (asked.has(key)) continue;
    asked.add(key);
    // An organization's user is asked about as the organization has it; another as the witness shows it.
    const user = known.get(submitter.id) ?? { id: submitter.id, tags: submitter.tags ?? [], email: submitter.email ?? "", alias: submitter.alias ?? "" };
    const answer = (await canQuery(policies, { user }, kind, undefined, users)).answers.find((a) => a.how === how);
    if (answer !== undefined && !answer.allowed && answer.proved) {
      out.push(`a request of this run by ${submitter.id} is allowed ${how} in simulate (${witness.type}), but can proves ${submitter.id} unable to run ${kind} ${how}`);
    }
  }
  return out;
}
