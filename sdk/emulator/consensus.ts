/**
 * @module emulator/consensus
 * Consensus (docs/service-facts.md#4-activity-lifecycle), from the organization's root quorum or from the consensus
 * expression of an ALLOW policy (`policy-gate.ts` decides which applies).
 *
 * - When the root quorum's threshold is above 1 and the submitter is a quorum member, an
 *   activity is recorded as `ACTIVITY_STATUS_CONSENSUS_NEEDED` with the submitter's approval as
 *   its first vote. Its validated request is kept; nothing is applied. The handler is first run
 *   once and rolled back, so a request that would be refused now (missing id, duplicate name)
 *   is refused at submission with the usual HTTP error and records nothing.
 * - `approve_activity {fingerprint}` by another quorum member adds a vote. When the approvals
 *   reach the threshold, the stored request runs through the same handler, in the approval's
 *   transaction, with the submitter as caller and the target's id and fingerprint: the effects
 *   are those of a direct run. The target becomes COMPLETED with its result, or FAILED with
 *   `failure {code, message, details}` when the handler refuses it by then.
 * - An activity held by a policy's consensus (its submitter is not a root-quorum member) may be
 *   approved or rejected by any user of the organization; each approval runs the policies again
 *   with every approver so far (the consensus expression decides whose approvals count).
 * - `reject_activity {fingerprint}` by an allowed voter makes the target REJECTED at once.
 * - Votes themselves never wait for consensus.
 */
import { randomUUID } from "node:crypto";
import { base64urlnopad } from "@scure/base";
import { failedPrecondition, notFound, permissionDenied } from "./errors";
import type { ActivityContext, Caller } from "./handlers/types";
import type { ActivityRow, Store } from "./store";

export const CONSENSUS_NEEDED = "ACTIVITY_STATUS_CONSENSUS_NEEDED";

/** Registry names of the vote operations, which are never gated themselves. */
export const VOTE_OPERATIONS: ReadonlySet<string> = new Set(["approveActivity", "rejectActivity"]);

/** `{threshold, userIds}` of a root quorum. */
export interface Quorum {
  readonly threshold: number;
  readonly userIds: readonly string[];
}

/** The organization's root quorum (threshold 1, no members when the organization is unknown). */
export function rootQuorumOf(store: Store, organizationId: string): Quorum {
  const org = store.organizations.get(organizationId);
  if (!org) return { threshold: 1, userIds: [] };
  return JSON.parse(org.root_quorum_json) as Quorum;
}

/** Whether a CONSENSUS_NEEDED activity waits for a policy's consensus rather than the root quorum's. */
export function heldByPolicy(store: Store, target: ActivityRow): boolean {
  const pending = store.consensus.pending(target.id);
  if (!pending) return false;
  const submitter = JSON.parse(pending.caller_json) as Caller;
  return !rootQuorumOf(store, target.org_id).userIds.includes(submitter.userId);
}

/** The users (and the keys they signed with) who approved an activity so far, submitter first. */
export function approvingVoters(store: Store, activityId: string): { userId: string; publicKey: string }[] {
  return store.consensus
    .votes(activityId)
    .filter((vote) => vote.selection === "VOTE_SELECTION_APPROVED")
    .map((vote) => ({ userId: vote.user_id, publicKey: vote.public_key }));
}

/** What a vote records of the request that cast it (docs/service-facts.md#2-request-and-response-envelope `v1Vote`). */
export interface VoteEvidence {
  /** The exact request body, as signed. */
  readonly message: string;
  readonly publicKey: string;
  readonly signature: string;
  readonly scheme: string;
}

/**
 * Reads the signature and scheme of the request's stamp (already verified by `auth.ts`).
 * A passkey assertion records its signature with the scheme `SIGNATURE_SCHEME_WEBAUTHN`.
 */
export function voteEvidence(headers: Readonly<Record<string, string | string[] | undefined>>, raw: Uint8Array, caller: Caller): VoteEvidence {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const message = new TextDecoder().decode(raw);
  const parse = (text: string): Record<string, unknown> => {
    try {
      const value = JSON.parse(text) as unknown;
      return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  };
  const stamp = first(headers["x-stamp"]);
  if (stamp !== undefined) {
    let fields: Record<string, unknown> = {};
    try {
      fields = parse(new TextDecoder().decode(base64urlnopad.decode(stamp.replace(/={1,2}$/, ""))));
    } catch {
      // Unreachable after authentication; the vote then records no signature.
    }
    return {
      message,
      publicKey: caller.publicKey,
      signature: typeof fields.signature === "string" ? fields.signature : "",
      scheme: typeof fields.scheme === "string" ? fields.scheme : "",
    };
  }
  const webAuthn = parse(first(headers["x-stamp-webauthn"]) ?? "");
  return {
    message,
    publicKey: caller.publicKey,
    signature: typeof webAuthn.signature === "string" ? webAuthn.signature : "",
    scheme: "SIGNATURE_SCHEME_WEBAUTHN",
  };
}

/** Records a vote of `caller` on `activityId`; returns the vote's id. */
export function recordVote(
  store: Store,
  activityId: string,
  caller: Caller,
  selection: "VOTE_SELECTION_APPROVED" | "VOTE_SELECTION_REJECTED",
  evidence: VoteEvidence,
  nowMs: number,
): string {
  const id = randomUUID();
  store.consensus.insertVote({
    id,
    activity_id: activityId,
    user_id: caller.userId,
    selection,
    message: evidence.message,
    public_key: evidence.publicKey,
    signature: evidence.signature,
    scheme: evidence.scheme,
    created_ms: nowMs,
  });
  return id;
}

/**
 * Finds the activity a vote names and checks that `ctx.caller` may vote on it now.
 * @throws 404 code 5 (no such activity in the organization), 400 code 9 (not awaiting
 *   consensus, or the user already voted), 403 code 7 (the voter is not in the root quorum, or
 *   for a policy-held activity not a user of the organization)
 */
export function voteTarget(ctx: ActivityContext, fingerprint: string): ActivityRow {
  const target = ctx.store.activities.findByFingerprint(fingerprint);
  if (!target || target.org_id !== ctx.organizationId) {
    throw notFound(`fingerprint: no activity with fingerprint ${fingerprint} in organization ${ctx.organizationId}`);
  }
  if (target.status !== CONSENSUS_NEEDED) {
    throw failedPrecondition(`fingerprint: activity ${target.id} is ${target.status}, not awaiting consensus`);
  }
  const quorum = rootQuorumOf(ctx.store, target.org_id);
  if (heldByPolicy(ctx.store, target)) {
    if (ctx.caller.organizationId !== target.org_id) {
      throw permissionDenied(`fingerprint: user ${ctx.caller.userId} is not a user of organization ${target.org_id}`);
    }
  } else if (!quorum.userIds.includes(ctx.caller.userId)) {
    throw permissionDenied(`fingerprint: user ${ctx.caller.userId} is not a member of the root quorum of organization ${target.org_id}`);
  }
  if (ctx.store.consensus.votes(target.id).some((vote) => vote.user_id === ctx.caller.userId)) {
    throw failedPrecondition(`fingerprint: user ${ctx.caller.userId} already voted on activity ${target.id}`);
  }
  return target;
}

/** Approvals recorded for an activity. */
export function approvalCount(store: Store, activityId: string): number {
  return store.consensus.votes(activityId).filter((vote) => vote.selection === "VOTE_SELECTION_APPROVED").length;
}
