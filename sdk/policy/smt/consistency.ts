/**
 * @module policy/smt/consistency
 * One truth per run: the break-glass verdict of `policy diff --break-glass` is read together with
 * the diff's table, so the two never say different things.
 *
 * - A loss row on a recovery kind that names a member of the break-glass tag (or, with symbolic
 *   principals, whose submitter carries the tag) is a loss of recovery access, even where the tag
 *   keeps the kind in another form: the verdict lists it.
 * - A kind the check says the tag lost (some member could run it before, none can after) must
 *   show in a proved table as a loss row naming a member: with the organization's users the
 *   table is complete per user, so its absence is a contradiction, and the command fails.
 */
import type { AccessDiff } from "./diff";
import type { LockoutResult } from "./properties";

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
