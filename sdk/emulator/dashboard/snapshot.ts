/**
 * @module emulator/dashboard/snapshot
 * What the dashboard shows of an organization, read straight from the emulator's store in one
 * read transaction: its objects (as the main API's views show them) and its activity feed,
 * each activity with the policies' evaluations and, for one that waits or was refused, why.
 * Nothing here writes.
 */
import { walletAccountView, walletView } from "../handlers/wallets";
import { privateKeyView } from "../handlers/private-keys";
import { activityView, apiKeyView, invitationView, policyView, smartContractInterfaceView, tagView, userView } from "../handlers/views";
import type { QueryContext } from "../handlers/types";
import { approvingVoters, CONSENSUS_NEEDED, heldByPolicy, rootQuorumOf } from "../consensus";
import { gateApproval } from "../policy-gate";
import type { PolicyDenial } from "../dispatch";
import type { ActivityRow, Store } from "../store";
import { policyEvaluationStoreOf } from "../store/policy-evaluations";
import { signingSummary } from "./signing";
import { nameDirectory, referencesIn } from "./names";
import { countingVoters } from "./voters";
import { activitySubmitterStoreOf } from "../store/activity-submitters";
import { privateKeyStoreOf } from "../store/private-keys";
import { walletStoreOf } from "../store/wallets";

/** An organization in the picker. */
export interface OrganizationSummary {
  readonly id: string;
  readonly name: string;
  readonly parentId: string | null;
}

/** Every organization of the data directory, root organizations first. */
export function organizations(store: Store): OrganizationSummary[] {
  return store.db
    .prepare<[], { id: string; name: string; parent_id: string | null }>("SELECT id, name, parent_id FROM organizations ORDER BY parent_id IS NOT NULL, created_ms, id")
    .all()
    .map((row) => ({ id: row.id, name: row.name, parentId: row.parent_id }));
}

/**
 * The organization's objects. Secrets stay out: wallets without their mnemonic, keys as public
 * keys and addresses, exactly what the main API's reads return.
 * @returns undefined for an unknown organization
 */
export function objectsOf(store: Store, organizationId: string) {
  const org = store.organizations.get(organizationId);
  if (!org) return undefined;
  return store.db.transaction(() => {
    // The views take a query context; the dashboard reads as no one (nothing checks the caller).
    const ctx = { db: store.db, store, organizationId } as unknown as QueryContext;
    const wallets = walletStoreOf(store.db);
    const tags = store.tags.listAll(organizationId).map(tagView);
    const names = nameDirectory(store, organizationId);
    return {
      organization: { id: org.id, name: org.name, parentId: org.parent_id, rootQuorum: rootQuorumOf(store, organizationId) },
      users: store.users.list(organizationId).map((row) => userView(store, row)),
      userTags: tags.filter((tag) => tag.tagType === "TAG_TYPE_USER"),
      privateKeyTags: tags.filter((tag) => tag.tagType === "TAG_TYPE_PRIVATE_KEY"),
      // The users, tags, wallets and keys a policy names by id, for the page to show their names.
      policies: store.policies.list(organizationId).map((row) => ({
        ...policyView(row),
        references: [...new Map([...referencesIn(row.condition, names), ...referencesIn(row.consensus, names)].map((r) => [r.id, r])).values()],
      })),
      apiKeys: store.apiKeys.listForOrg(organizationId).map((row) => ({ userId: row.user_id, ...apiKeyView(row) })),
      wallets: wallets.listWallets(organizationId).map((row) => ({
        ...walletView(row),
        accounts: wallets.accountsOfWallet(row.id).map((account) => walletAccountView(account, row)),
      })),
      privateKeys: privateKeyStoreOf(store.db)
        .list(organizationId)
        .map((row) => privateKeyView(ctx, row)),
      invitations: store.invitations.list(organizationId).map(invitationView),
      smartContractInterfaces: store.smartContractInterfaces.list(organizationId).map(smartContractInterfaceView),
    };
  })();
}

/** One policy's outcome on an activity, with the policy's name as it is now. */
interface EvaluationLine {
  readonly policyId: string;
  readonly policyName: string;
  readonly outcome: string;
  /** Why (recomputed evaluations and denials carry the evaluator's reason; stored ones an error at most). */
  readonly reason?: string;
}

/** Who may still vote on a waiting activity, and how many approvals it needs. */
interface Waiting {
  /** `root quorum` or `policy consensus`. */
  readonly heldBy: string;
  readonly reason: string;
  readonly approvals: number;
  readonly threshold?: number;
  /**
   * Users the dashboard may vote as: quorum members who have not voted or, for a policy's
   * consensus, the users who have not voted and whose approval the consensus can count.
   */
  readonly voters: readonly { id: string; name: string }[];
  /** The policies evaluated now, with the approvals so far. */
  readonly now: readonly EvaluationLine[];
}

const MAX_FEED = 200;

/** Votes are never decided by policies. */
const VOTE_TYPES: ReadonlySet<string> = new Set(["ACTIVITY_TYPE_APPROVE_ACTIVITY", "ACTIVITY_TYPE_REJECT_ACTIVITY"]);

/** The activity feed, newest first: the newest recorded activities, every waiting one, and the denials kept in memory. */
export function feedOf(store: Store, organizationId: string, denials: readonly PolicyDenial[], nowMs: number) {
  if (!store.organizations.get(organizationId)) return undefined;
  return store.db.transaction(() => {
    const policyNames = new Map(store.policies.list(organizationId).map((p) => [p.id, p.name]));
    const nameOf = (id: string) => policyNames.get(id) ?? "(deleted policy)";
    const org = store.organizations.get(organizationId);
    // A voter belongs to the organization or, for a sub-organization, its parent.
    const userName = (id: string) => (store.users.get(organizationId, id) ?? (org?.parent_id ? store.users.get(org.parent_id, id) : undefined))?.name ?? id;
    const evaluations = policyEvaluationStoreOf(store.db);
    // The newest activities, and every one still waiting, however old: those need a vote.
    const recent = store.activities.list(organizationId, { limit: MAX_FEED });
    const waiting = store.activities.list(organizationId, { statuses: [CONSENSUS_NEEDED], limit: MAX_FEED });
    const rows = [...recent, ...waiting.filter((row) => !recent.some((r) => r.id === row.id))];
    const activities = rows.map((row) => {
      const view = activityView(row, store);
      const recorded = evaluations.ofActivity(organizationId, row.id).map((e) => ({
        voteId: e.vote_id,
        atMs: e.created_ms,
        policies: (JSON.parse(e.evaluations_json) as { policyId: string; outcome: string; error?: string }[]).map(
          (p): EvaluationLine => ({ policyId: p.policyId, policyName: nameOf(p.policyId), outcome: p.outcome, ...(p.error ? { reason: p.error } : {}) }),
        ),
      }));
      return {
        kind: "activity" as const,
        id: row.id,
        type: row.type,
        status: row.status,
        fingerprint: row.fingerprint,
        createdMs: row.created_ms,
        updatedMs: row.updated_ms,
        submittedBy: submitterOf(store, row, userName),
        intent: view.intent,
        signing: signingSummary(store.db, organizationId, row.type, Object.values(view.intent)[0] as Record<string, unknown> | undefined),
        result: view.result,
        failure: view.failure,
        votes: store.consensus.votes(row.id).map((v) => ({ userId: v.user_id, userName: userName(v.user_id), selection: v.selection, atMs: v.created_ms })),
        evaluations: recorded,
        waiting: row.status === CONSENSUS_NEEDED ? waitingOf(store, row, nowMs, nameOf) : undefined,
        votesOn: VOTE_TYPES.has(row.type) ? voteTargetOf(store, view.intent) : undefined,
        // No evaluation recorded: a vote (never gated) or an activity of the root quorum acting alone.
        notEvaluated: recorded.length > 0 || row.status === CONSENSUS_NEEDED ? undefined : VOTE_TYPES.has(row.type) ? "vote" : "root quorum",
      };
    });
    const denied = denials
      .filter((d) => d.organizationId === organizationId)
      .map((d) => ({
        kind: "denial" as const,
        type: d.type,
        status: "DENIED_BY_POLICY",
        createdMs: d.atMs,
        submittedBy: { id: d.userId, name: userName(d.userId) },
        reason: d.decision.reason,
        evaluations: [
          {
            voteId: "",
            atMs: d.atMs,
            policies: d.decision.evaluations.map((e): EvaluationLine => ({ policyId: e.policyId, policyName: e.policyName, outcome: e.outcome, reason: e.reason })),
          },
        ],
      }));
    return [...activities, ...denied].sort((a, b) => b.createdMs - a.createdMs);
  })();
}

/** The activity a vote names (by fingerprint), if it still exists. */
function voteTargetOf(store: Store, intent: Record<string, unknown>): { id: string; type: string } | undefined {
  const parameters = Object.values(intent)[0] as { fingerprint?: unknown } | undefined;
  const target = typeof parameters?.fingerprint === "string" ? store.activities.findByFingerprint(parameters.fingerprint) : undefined;
  return target ? { id: target.id, type: target.type } : undefined;
}

/**
 * Who submitted an activity: as recorded with it; for one recorded before submitters were, the
 * submitter of one that waited for consensus (its first vote is the submission); else unknown.
 */
function submitterOf(store: Store, row: ActivityRow, nameOf: (userId: string) => string) {
  const pending = store.consensus.pending(row.id);
  const userId =
    activitySubmitterStoreOf(store.db).get(row.id)?.user_id ??
    (pending ? (JSON.parse(pending.caller_json) as { userId: string }).userId : store.consensus.votes(row.id)[0]?.user_id);
  return userId === undefined ? undefined : { id: userId, name: nameOf(userId) };
}

/**
 * Why a CONSENSUS_NEEDED activity waits. The policies are evaluated again with the approvals so
 * far (the evaluator's reasons, as an approval would see them now).
 */
function waitingOf(store: Store, row: ActivityRow, nowMs: number, nameOf: (id: string) => string): Waiting {
  const voted = new Set(store.consensus.votes(row.id).map((v) => v.user_id));
  const approvals = approvingVoters(store, row.id);
  const userName = (id: string) => store.users.get(row.org_id, id)?.name ?? id;
  const usersOf = (ids: readonly string[]) => ids.filter((id) => !voted.has(id)).map((id) => ({ id, name: userName(id) }));
  const pending = store.consensus.pending(row.id);
  const parameters = pending ? (JSON.parse(pending.parameters_json) as unknown) : null;
  const decision = gateApproval({ db: store.db, store, organizationId: row.org_id, nowMs }, row.type, parameters, approvals);
  const now: EvaluationLine[] = decision.evaluations.map((e) => ({ policyId: e.policyId, policyName: nameOf(e.policyId), outcome: e.outcome, reason: e.reason }));
  if (heldByPolicy(store, row)) {
    const waitingOn = now.filter((e) => e.outcome === "OUTCOME_REQUIRES_CONSENSUS").map((e) => `${e.policyName}: ${e.reason}`);
    // Every user who has not voted yet, with the key a dashboard vote records (its first, as the vote does).
    const candidates = store.users
      .list(row.org_id)
      .filter((u) => !voted.has(u.id))
      .map((u) => ({ userId: u.id, publicKey: store.apiKeys.listForUser(row.org_id, u.id)[0]?.public_key ?? "" }));
    return {
      heldBy: "policy consensus",
      reason: waitingOn.length > 0 ? `an ALLOW policy's consensus does not hold yet (${waitingOn.join("; ")})` : decision.reason,
      approvals: approvals.length,
      voters: usersOf(countingVoters({ db: store.db, store, organizationId: row.org_id, nowMs }, row.id, row.type, parameters, approvals, candidates)),
      now,
    };
  }
  const quorum = rootQuorumOf(store, row.org_id);
  return {
    heldBy: "root quorum",
    reason: `the root quorum needs ${quorum.threshold} approvals; ${approvals.length} so far (${approvals.map((a) => userName(a.userId)).join(", ")}), and no policy allowed the submitter to act alone`,
    approvals: approvals.length,
    threshold: quorum.threshold,
    voters: usersOf(quorum.userIds),
    now,
  };
}
