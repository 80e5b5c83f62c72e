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
 * (`approvers.any(tag a) && approvers.any(tag b)`), with n² decisions per user at most. Users
 * no policy names and who share tags and credential type are interchangeable for the policies:
 * one of them is tried for all.
 * The policies are evaluated by the emulator's own engine on the activity's stored request.
 */
import { activityKind } from "keyform/policy/activity";
import { decide, type PolicyRecord } from "keyform/policy/engine";
import type { EvaluationInput } from "keyform/policy/evaluate";
import { evaluationInput, policiesOf, type GateContext, type Voter } from "../policy-gate";

/** Answers kept per data directory. */
const KEPT_ANSWERS = 200;

/** The last answer per activity, with what it was computed from (the feed is read every 2 s). */
const lastAnswers = new WeakMap<object, Map<string, { key: string; voters: string[] }>>();

/**
 * Ids of `candidates` (users who have not voted) whose approval can make the activity run.
 * Reused while the policies, the voters and their tags, names and credentials are unchanged.
 */
export function countingVoters(ctx: GateContext, activityId: string, type: string, parameters: unknown, approvals: readonly Voter[], candidates: readonly Voter[]): string[] {
  const policies = policiesOf(ctx.store, ctx.organizationId);
  // One evaluation input for everyone; each trial keeps the approvers and credentials of its set.
  const all = evaluationInput(ctx, type, parameters, [...approvals, ...candidates]);
  // A policy that reads the time may decide otherwise a moment later: never reused then.
  const readsTime = policies.some((p) => p.time || /\btime\./.test(`${p.condition ?? ""} ${p.consensus ?? ""}`));
  const key = JSON.stringify([policies, all.keywords.approvers, all.keywords.credentials, approvals.length]);
  let answers = lastAnswers.get(ctx.db);
  if (!answers) lastAnswers.set(ctx.db, (answers = new Map()));
  const last = answers.get(activityId);
  if (!readsTime && last && last.key === key) return last.voters;
  const voters = pivotalVoters(policies, activityKind(type), all, approvals, candidates);
  // Settled activities are never asked about again: a bound keeps their answers from piling up.
  if (answers.size >= KEPT_ANSWERS) answers.clear();
  answers.set(activityId, { key, voters });
  return voters;
}

function pivotalVoters(policies: readonly PolicyRecord[], kind: string, all: EvaluationInput, approvals: readonly Voter[], candidates: readonly Voter[]): string[] {
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
  // Users no policy names (by id, e-mail or name) differ only by their tags and credential: one
  // of each such class is tried, and the answer holds for the class.
  const texts = policies.map((p) => `${p.condition ?? ""}\n${p.consensus ?? ""}`).join("\n");
  const user = approvers as readonly { id: string; email: string; alias: string; tags: readonly string[] }[];
  // Policies name users in string literals.
  const named = (i: number) => [user[i]!.id, user[i]!.email, user[i]!.alias].some((x) => x !== "" && (texts.includes(`'${x}'`) || texts.includes(`"${x}"`)));
  const classOf = (i: number) => (named(i) ? `user ${user[i]!.id}` : `${tagsOf(i)} ${JSON.stringify((credentials[i] as { type?: string }).type ?? "")}`);
  const decided = new Map<string, boolean>();
  return candidates
    .filter((_voter, c) => {
      const u = approvals.length + c;
      const cls = classOf(u);
      const known = decided.get(cls);
      if (known !== undefined) return known;
      const rest = others.filter((i) => i !== u);
      const alike = (i: number) => tagsOf(i) === tagsOf(u);
      const alikeLast = [...rest.filter((i) => !alike(i)), ...rest.filter(alike)];
      const alikeFirst = [...rest.filter(alike), ...rest.filter((i) => !alike(i))];
      const counts = pivotal(u, alikeLast) || pivotal(u, alikeFirst);
      decided.set(cls, counts);
      return counts;
    })
    .map((voter) => voter.userId);
}
