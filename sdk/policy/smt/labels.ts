/**
 * @module policy/smt/labels
 * Which users of the organization a change of the access diff applies to: the witness activity
 * submitted by each user (with the witness's approvers after them) is replayed through the
 * evaluator on both sides, with as few evaluations as give the same answer.
 *
 * Two reductions, each exact for the allowed-or-not answer the label needs:
 *
 * - Only the policies whose time and condition hold for the witness are replayed. Time and
 *   condition cannot read the approvers (`approvers` and `credentials` are consensus keywords: a
 *   condition or time that names them does not compile, so it errors for every user), and the
 *   users' replays differ from the witness only in the approvers. A policy whose time or
 *   condition is false or errors on the witness therefore does not apply for any user, and a
 *   policy that does not apply changes no decision's allowed-or-not (any applicable DENY refuses,
 *   else any applicable ALLOW allows; an erroring policy is no match).
 * - Users are grouped: users whose id, email and alias appear in none of those policies and not
 *   in the witness are told apart by the evaluator only through their tags and how their own
 *   strings compare with one another (any other comparison of a user's strings is with a literal
 *   or a request value), so users alike in those answer alike, and one of them is replayed.
 */
import type { PolicyRecord } from "../engine";
import { simulate, simulateVotes, type SimulatedActivity, type SimulatedUser } from "../simulate";
import type { DiffUser } from "./diff";
import { collectLiterals } from "./universe";
import type { MemberUser } from "./encode";

/** The name a change lists a user by. */
export const nameOf = (u: DiffUser) => u.alias || u.email || u.id;

/**
 * The key of the users a policy set cannot tell `u` apart from: `u` alone when a policy (or the
 * witness) names its id, email or alias; else every user with the same tags whose own strings
 * compare with one another (and with "") alike.
 */
export function profileKey(u: DiffUser, named: (text: string) => boolean): string {
  const [email, alias] = [u.email ?? "", u.alias ?? ""];
  const own = [u.id, email, alias].some((text) => text !== "" && named(text));
  const shape = [u.id === email, u.id === alias, email === alias, email === "", alias === ""].map(Number).join("");
  return own ? `user\u0000${u.id}` : `tags\u0000${shape}\u0000${[...(u.tags ?? [])].sort().join("\u0000")}`;
}

/** The organization's users (root quorum members left out) in profiles of users alike for policies naming `literals`; users of `first` stand first and alone. */
export function profilesOf(users: readonly DiffUser[], literals: ReadonlySet<string>, first: ReadonlySet<string> = new Set()): MemberUser[][] {
  const groups = new Map<string, MemberUser[]>();
  for (const u of users) {
    if (u.root) continue;
    const key = first.has(u.id) ? `user\u0000${u.id}` : profileKey(u, (text) => literals.has(text));
    const member: MemberUser = { id: u.id, tags: [...(u.tags ?? [])], email: u.email ?? "", alias: u.alias ?? "" };
    const group = groups.get(key);
    if (group) group.push(member);
    else groups.set(key, [member]);
  }
  return [...groups.values()];
}

export class UserLabels {
  constructor(private readonly users: readonly DiffUser[]) {}

  /**
   * The users for whom the witness, submitted by them (with the same approvals: in the
   * submitter's place, or first when they already approve), goes `direction` between the policy
   * sets: refused under `before` and allowed under `after` ("gains"), or the reverse.
   */
  replaying(
    witness: SimulatedActivity,
    how: "alone" | "with approvers",
    direction: "gains" | "loses",
    before: readonly PolicyRecord[],
    after: readonly PolicyRecord[],
  ): DiffUser[] {
    const [heldBefore, heldAfter] = [conditionHolding(before, witness), conditionHolding(after, witness)];
    const [refusing, allowing] = direction === "gains" ? [heldBefore, heldAfter] : [heldAfter, heldBefore];
    // As the service decides: the user submits, the others vote in turn.
    const allowed = (policies: readonly PolicyRecord[], activity: SimulatedActivity) => simulateVotes(policies, activity).outcome === "OUTCOME_ALLOW";
    // The side that must allow first: most users stop there.
    const changes = (activity: SimulatedActivity) => allowed(allowing, activity) && !allowed(refusing, activity);
    const told = collectLiterals([...heldBefore, ...heldAfter]).strings;
    const inWitness = new Set<string>();
    collectStrings(witness, inWitness);
    const answers = new Map<string, boolean>();
    return this.users
      .filter((u) => {
        const key = profileKey(u, (text) => told.has(text) || inWitness.has(text));
        let answer = answers.get(key);
        if (answer === undefined) {
          // The same approvals with `u` submitting: `u` first when it already approves, else in the submitter's place.
          const given = witness.approvers ?? [];
          const others = given.some((o) => o.id === u.id) ? given.filter((o) => o.id !== u.id) : given.slice(1);
          const approvers: SimulatedUser[] = [{ id: u.id, tags: u.tags ?? [], email: u.email ?? "", alias: u.alias ?? "" }, ...(how === "alone" ? [] : others)];
          answers.set(key, (answer = changes({ ...witness, approvers })));
        }
        return answer;
      });
  }
}

/**
 * The policies of `policies` whose time and condition hold, without error, for `witness`: each is
 * evaluated with its consensus left out, so it applies exactly when they do.
 */
function conditionHolding(policies: readonly PolicyRecord[], witness: SimulatedActivity): PolicyRecord[] {
  if (policies.length === 0) return [];
  const evaluations = simulate(
    policies.map((p) => ({ ...p, consensus: "" })),
    witness,
  ).evaluations;
  // A root-quorum-only type evaluates no policy: no user is allowed on either side.
  return policies.filter((_, i) => {
    const outcome = evaluations[i]?.outcome;
    return outcome === "OUTCOME_ALLOW" || outcome === "OUTCOME_DENY_EXPLICIT";
  });
}

/** Every string inside a value (keys and values). */
function collectStrings(value: unknown, into: Set<string>): void {
  if (typeof value === "string") into.add(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, into);
  else if (value && typeof value === "object")
    for (const [key, item] of Object.entries(value)) {
      into.add(key);
      collectStrings(item, into);
    }
}
