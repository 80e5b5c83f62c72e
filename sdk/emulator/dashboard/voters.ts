/**
 * @module emulator/dashboard/voters
 * Whose vote counts on an activity held by an ALLOW policy's consensus: the users the consensus
 * can count. A user counts when, together with the approvals so far and some of the other users
 * who may still vote, their approval turns the decision into ALLOW (they are pivotal for some
 * set of voters). Anyone else's approval would be recorded and change nothing, so the
 * dashboard does not offer it.
 *
 * The sets tried are the growing prefixes of the other users in two orders (users with the
 * same tags as the one tried last, then first): that finds the pivot of count thresholds
 * (`approvers.count() >= n`, a filtered count) and of conjunctions over tags
 * (`approvers.any(tag a) && approvers.any(tag b)`), with n² decisions per user at most.
 * The policies are evaluated by the emulator's own engine on the activity's stored request.
 */
import { activityKind } from "keyform/policy/activity";
import { decide } from "keyform/policy/engine";
import { evaluationInput, policiesOf, type GateContext, type Voter } from "../policy-gate";

/** Ids of `candidates` (users who have not voted) whose approval can make the activity run. */
export function countingVoters(ctx: GateContext, type: string, parameters: unknown, approvals: readonly Voter[], candidates: readonly Voter[]): string[] {
  const policies = policiesOf(ctx.store, ctx.organizationId);
  const kind = activityKind(type);
  // One evaluation input for everyone; each trial keeps the approvers and credentials of its set.
  const all = evaluationInput(ctx, type, parameters, [...approvals, ...candidates]);
  const approvers = all.keywords.approvers as readonly { tags: readonly string[] }[];
  const credentials = all.keywords.credentials as readonly unknown[];
  const allows = (indices: readonly number[]) =>
    decide(policies, kind, {
      nowMs: all.nowMs,
      keywords: { ...all.keywords, approvers: indices.map((i) => approvers[i]), credentials: indices.map((i) => credentials[i]) },
    }).outcome === "OUTCOME_ALLOW";
  const base = approvals.map((_v, i) => i);
  const others = candidates.map((_v, i) => approvals.length + i);
  const tagsOf = (i: number) => [...approvers[i]!.tags].sort().join(",");
  const pivotal = (u: number, order: readonly number[]) => {
    const chosen = [...base];
    for (let k = 0; k <= order.length; k++) {
      if (k > 0) chosen.push(order[k - 1]!);
      if (allows(chosen)) return false; // already allowed without u: more voters will not make u count
      if (allows([...chosen, u])) return true;
    }
    return false;
  };
  return candidates
    .filter((_voter, c) => {
      const u = approvals.length + c;
      const rest = others.filter((i) => i !== u);
      const alike = (i: number) => tagsOf(i) === tagsOf(u);
      const alikeLast = [...rest.filter((i) => !alike(i)), ...rest.filter(alike)];
      const alikeFirst = [...rest.filter(alike), ...rest.filter((i) => !alike(i))];
      return pivotal(u, alikeLast) || pivotal(u, alikeFirst);
    })
    .map((voter) => voter.userId);
}
