/**
 * @module emulator/consensus
 * Consensus from the organization's root quorum (fact sheet 4): the only source of consensus
 * the emulator models (there is no policy engine).
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
 * - `reject_activity {fingerprint}` by a quorum member makes the target REJECTED at once.
 * - Votes themselves never wait for consensus; a submitter outside the quorum acts directly.
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

/** Whether an activity of `caller` on `organizationId` must wait for the root quorum. */
export function requiresConsensus(store: Store, organizationId: string, caller: Caller): boolean {
  const quorum = rootQuorumOf(store, organizationId);
  return quorum.threshold > 1 && quorum.userIds.includes(caller.userId);
}

/** What a vote records of the request that cast it (fact sheet 2 `v1Vote`). */
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

/** Records a vote of `caller` on `activityId`. */
export function recordVote(
  store: Store,
  activityId: string,
  caller: Caller,
  selection: "VOTE_SELECTION_APPROVED" | "VOTE_SELECTION_REJECTED",
  evidence: VoteEvidence,
  nowMs: number,
): void {
  store.consensus.insertVote({
    id: randomUUID(),
    activity_id: activityId,
    user_id: caller.userId,
    selection,
    message: evidence.message,
    public_key: evidence.publicKey,
    signature: evidence.signature,
    scheme: evidence.scheme,
    created_ms: nowMs,
  });
}

/**
 * Finds the activity a vote names and checks that `ctx.caller` may vote on it now.
 * @throws 404 code 5 (no such activity in the organization), 400 code 9 (not awaiting
 *   consensus, or the user already voted), 403 code 7 (the voter is not in the root quorum)
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
  if (!quorum.userIds.includes(ctx.caller.userId)) {
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
