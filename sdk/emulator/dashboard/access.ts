/**
 * @module emulator/dashboard/access
 * The access matrix of an organization: for each user and activity kind, whether the user may
 * submit it, computed by the policy prover (`diffPolicies` of `keyform/policy`) as the access
 * the organization's policies give over no policies at all, so every cell is either proved
 * (a refusal is an unsatisfiable search; an allowance has a witness activity the evaluator
 * replays) or marked "not proved" with the prover's reason.
 *
 * Outside the prover's model, shown as such: the root quorum (it bypasses policies), and the
 * changes users may make to their own credentials without a policy.
 */
import { policiesOf } from "../policy-gate";
import { activityCatalog, diffPolicies, ROOT_QUORUM_ONLY_KINDS, simulate, type AccessChange, type AccessDiff, type PolicyRecord } from "keyform/policy";
import { nameDirectory, withNames, type NamedReference } from "./names";
import { rootQuorumOf } from "../consensus";
import type { Store } from "../store";

/**
 * A cell: `refused` (proved), `alone` (proved by a replayed witness), `with approvers` (allowed
 * only with other users' approvals), `root quorum` (the user alone is the root quorum),
 * `not proved` (a witness the evaluator did not confirm, or a search cut short).
 */
export type AccessCell = "refused" | "alone" | "with approvers" | "root quorum" | "not proved";

export interface AccessMatrix {
  readonly users: readonly { id: string; name: string; standing: "root quorum" | "quorum member" | "user" }[];
  /** Activity kinds, catalog order. */
  readonly kinds: readonly string[];
  /** `cells[userIndex][kindIndex]`. */
  readonly cells: readonly (readonly AccessCell[])[];
  /** Per cell key `userIndex,kindIndex`: the signing targets a cell is limited to, or the prover's caveat. */
  readonly notes: Readonly<Record<string, string>>;
  /**
   * Per cell key: what allows it, from the prover's witness replayed by the evaluator: the
   * ALLOW policies by name and, for approvals, the consensus they need (names for ids) and who
   * approved in the witness; for the root quorum, the quorum.
   */
  readonly reasons: Readonly<Record<string, string>>;
  /** Clauses of the policies outside the proved fragment. */
  readonly notProved: readonly string[];
  readonly truncated: boolean;
  readonly policyCount: number;
  readonly computedMs: number;
}

/** Kinds of the activity catalog, in catalog order, without repeats (several versions share a kind). */
function catalogKinds(): string[] {
  return [...new Set([...activityCatalog().values()].map((entry) => entry.kind))];
}

/** Computes the matrix; reuses the last result while policies, users and the root quorum are unchanged. */
export class AccessMatrixCache {
  private readonly last = new Map<string, { key: string; matrix: Promise<AccessMatrix> }>();

  matrixOf(store: Store, organizationId: string): Promise<AccessMatrix> | undefined {
    if (!store.organizations.get(organizationId)) return undefined;
    const policies: PolicyRecord[] = policiesOf(store, organizationId);
    const users = store.users.list(organizationId).map((row) => ({ id: row.id, name: row.name, email: row.email ?? "", tags: store.users.tagIds(row.id) }));
    const quorum = rootQuorumOf(store, organizationId);
    const names = nameDirectory(store, organizationId);
    const key = JSON.stringify([policies, users, quorum, [...names.values()]]);
    const cached = this.last.get(organizationId);
    if (cached && cached.key === key) return cached.matrix;
    const matrix = computeMatrix(policies, users, quorum, names);
    // A failed computation is not kept: the next request tries again.
    matrix.catch(() => this.last.delete(organizationId));
    this.last.set(organizationId, { key, matrix });
    return matrix;
  }
}

async function computeMatrix(
  policies: readonly PolicyRecord[],
  users: readonly { id: string; name: string; email: string; tags: readonly string[] }[],
  quorum: { threshold: number; userIds: readonly string[] },
  names: ReadonlyMap<string, NamedReference>,
): Promise<AccessMatrix> {
  const started = Date.now();
  const kinds = catalogKinds();
  const kindIndex = new Map(kinds.map((kind, i) => [kind, i]));
  const standingOf = (id: string) => (!quorum.userIds.includes(id) ? "user" : quorum.threshold <= 1 ? "root quorum" : "quorum member");
  const rows = users.map((u) => ({ id: u.id, name: u.name, standing: standingOf(u.id) as AccessMatrix["users"][number]["standing"] }));
  // Without users the prover makes some up, so with none there is nothing to ask it; without an
  // ALLOW policy nothing is allowed (the decision rule needs one), no search needed.
  const diff: AccessDiff | undefined =
    users.length === 0 || !policies.some((p) => p.effect === "EFFECT_ALLOW")
      ? undefined
      : await diffPolicies([], policies, { users: users.map((u) => ({ id: u.id, tags: u.tags, email: u.email, alias: u.name })) });
  // "Refused" is a claim for every request: only a proved diff makes it; otherwise a kind with no
  // replayed witness is "not proved" (the clauses the prover could not encode are listed).
  const unproved = diff !== undefined && (diff.truncated || !diff.proved);
  const cells: AccessCell[][] = rows.map(() => kinds.map((): AccessCell => (unproved ? "not proved" : "refused")));
  const notes: Record<string, string> = {};
  const reasons = new Map<string, Set<string>>();
  const rank: Record<AccessCell, number> = { refused: 0, "not proved": 1, "with approvers": 2, alone: 3, "root quorum": 4 };
  // The diff names users by id (their names beside).
  const userIndex = new Map(users.map((u, i) => [u.id, i]));
  for (const change of diff?.changes ?? []) {
    if (change.direction !== "gains") continue;
    const value: AccessCell = !change.confirmed ? "not proved" : change.how === "alone" ? "alone" : "with approvers";
    const why = change.confirmed ? allowedBecause(policies, change, names) : undefined;
    for (const user of change.users) {
      const u = userIndex.get(user.id);
      if (u === undefined) continue;
      for (const kind of change.kinds) {
        const k = kindIndex.get(kind);
        if (k === undefined) continue;
        const cell = `${u},${k}`;
        const note = !change.confirmed
          ? "the witness relies on a clause outside the proved fragment"
          : change.target
            ? `only for ${change.target}`
            : "";
        // A cell limited to some signing targets lists them; an unrestricted allowance clears the list.
        if (rank[value] > rank[cells[u]![k]!]) {
          cells[u]![k] = value;
          if (note) notes[cell] = note;
          else delete notes[cell];
          reasons.set(cell, new Set(why ? [why] : []));
        } else if (value === cells[u]![k]) {
          if (note && notes[cell]) notes[cell] = `${notes[cell]}; ${note}`;
          if (why) reasons.get(cell)?.add(why);
        }
      }
    }
  }
  rows.forEach((row, u) => {
    if (row.standing !== "root quorum") return;
    // The root quorum bypasses policies; a root-quorum-only kind is its alone.
    kinds.forEach((_kind, k) => {
      cells[u]![k] = "root quorum";
      delete notes[`${u},${k}`];
      reasons.set(`${u},${k}`, new Set(["the user alone is the root quorum: policies are bypassed"]));
    });
  });
  rows.forEach((row, u) => {
    if (row.standing !== "quorum member") return;
    kinds.forEach((kind, k) => {
      // With the quorum's approvals a member can do anything, whatever the policies say.
      if (cells[u]![k] === "refused" || cells[u]![k] === "not proved" || ROOT_QUORUM_ONLY_KINDS.has(kind)) {
        cells[u]![k] = "with approvers";
        notes[`${u},${k}`] = `waits for the root quorum (${quorum.threshold} approvals)`;
        const members = quorum.userIds.map((id) => names.get(id)?.name ?? id).join(", ");
        reasons.set(`${u},${k}`, new Set([`needs the root quorum: ${quorum.threshold} approvals of ${members}`]));
      }
    });
  });
  return {
    users: rows,
    kinds,
    cells,
    notes,
    reasons: Object.fromEntries([...reasons].filter(([, why]) => why.size > 0).map(([cell, why]) => [cell, [...why].join("; ")])),
    notProved: (diff?.notProved ?? []).map((opaque) => `${opaque.clause} (${opaque.reason})`),
    truncated: diff?.truncated ?? false,
    policyCount: policies.length,
    computedMs: Date.now() - started,
  };
}

/**
 * What allows a change's witness: the policies the evaluator finds ALLOW on it, by name; with
 * approvers, each one's consensus (names for ids) and the approvers of the witness.
 */
function allowedBecause(policies: readonly PolicyRecord[], change: AccessChange, names: ReadonlyMap<string, NamedReference>): string | undefined {
  let allowing;
  try {
    allowing = simulate(policies, change.witness).evaluations.filter((e) => e.outcome === "OUTCOME_ALLOW");
  } catch {
    return undefined; // a witness the simulator cannot read: the cell keeps its verdict, without a reason
  }
  if (allowing.length === 0) return undefined;
  if (change.how === "alone") return `allowed by ${allowing.map((e) => `policy "${e.policyName}"`).join(", ")}`;
  const approvers = (change.witness.approvers ?? []).slice(1).map((a) => names.get(a.id)?.name ?? a.id);
  const needs = allowing.map((e) => {
    const consensus = policies.find((p) => p.policyId === e.policyId)?.consensus;
    return `policy "${e.policyName}"${consensus ? ` (consensus: ${withNames(consensus, names)})` : ""}`;
  });
  return `needs approvals under ${needs.join(", ")}${approvers.length ? `; for example approved by ${approvers.join(", ")}` : ""}`;
}
