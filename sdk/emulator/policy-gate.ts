/**
 * @module emulator/policy-gate
 * Runs the organization's policies (sdk/policy) on every activity submitted by a user who is
 * not acting as the root quorum (reference "Evaluation"):
 *
 * - a user of the root quorum whose threshold is 1, or a root user of the parent organization,
 *   acts as the root quorum: policies are bypassed and nothing is recorded;
 * - a root-quorum member of a quorum above 1 runs at once when a policy ALLOWs it (a policy may
 *   let a single root user act alone); otherwise the activity waits for the root quorum;
 * - anyone else: an applicable DENY or no applicable ALLOW → 403 code 7 (nothing is recorded);
 *   an ALLOW → the activity runs; an ALLOW whose consensus is not met yet → CONSENSUS_NEEDED,
 *   and each approval runs the policies again with the approvers so far.
 *
 * Users may change their own credentials (API keys, authenticators, OAuth providers, sessions)
 * without a policy, unless a DENY applies. Every decision's per-policy outcomes are stored for
 * get_policy_evaluations, an erroring policy with its error. The evaluator's undocumented choices
 * keep their defaults (`DEFAULT_DECISION_SETTINGS`: an erroring policy, DENY or ALLOW, counts as
 * no match; a DENY applies once its consensus holds).
 */
import { randomUUID } from "node:crypto";
import { activityFacts, activityKind } from "keyform/policy/activity";
import { keywordsFor } from "keyform/policy/catalog";
import { decide, type Decision, type PolicyRecord } from "keyform/policy/engine";
import type { EvaluationInput } from "keyform/policy/evaluate";
import { payloadKeywords } from "keyform/policy/transactions/index";
import { rootQuorumOf } from "./consensus";
import { EmulatorError, GrpcCode } from "./errors";
import type { Caller } from "./handlers/types";
import type { Db, PolicyRow, Store } from "./store";
import { policyEvaluationStoreOf } from "./store/policy-evaluations";
import { ethereumAddressOfSigner, findSigner } from "./signing/signer";
import { privateKeyStoreOf } from "./store/private-keys";
import { contractInterfaceLookup } from "./store/smart-contracts";
import { walletStoreOf } from "./store/wallets";

/** How a caller stands towards an organization's root quorum. */
export type RootStanding = "quorum" | "member" | "none";

/**
 * "quorum": the caller alone is the root quorum (member of a threshold-1 quorum, or a root user
 * of the parent organization); "member": one member of a larger quorum; "none": not root.
 */
export function rootStanding(store: Store, organizationId: string, caller: Pick<Caller, "userId" | "organizationId">): RootStanding {
  if (caller.organizationId !== organizationId) {
    return rootQuorumOf(store, caller.organizationId).userIds.includes(caller.userId) ? "quorum" : "none";
  }
  const quorum = rootQuorumOf(store, organizationId);
  if (!quorum.userIds.includes(caller.userId)) return "none";
  return quorum.threshold <= 1 ? "quorum" : "member";
}

/** What to do with a submitted activity. */
export type Gate =
  | { readonly action: "run"; readonly decision?: Decision }
  | { readonly action: "await-root-quorum"; readonly decision: Decision }
  | { readonly action: "await-approvals"; readonly decision: Decision };

/** Someone whose request counts as an approval: the submitter or a voter. */
export interface Voter {
  readonly userId: string;
  readonly publicKey: string;
}

/** What the gate reads of the request and the store. */
export interface GateContext {
  readonly db: Db;
  readonly store: Store;
  readonly organizationId: string;
  readonly nowMs: number;
}

/** Kinds by which users change their own credentials, allowed without a policy. */
const OWN_CREDENTIAL_KINDS = new Set([
  "CREATE_API_KEYS",
  "DELETE_API_KEYS",
  "CREATE_AUTHENTICATORS",
  "DELETE_AUTHENTICATORS",
  "CREATE_OAUTH_PROVIDERS",
  "DELETE_OAUTH_PROVIDERS",
  "STAMP_LOGIN",
  "OTP_LOGIN",
  "OAUTH_LOGIN",
  "CREATE_READ_ONLY_SESSION",
  "CREATE_READ_WRITE_SESSION",
]);

function changesOwnCredentials(kind: string, parameters: unknown, caller: Caller): boolean {
  if (!OWN_CREDENTIAL_KINDS.has(kind)) return false;
  const userId = (parameters as { userId?: unknown } | null)?.userId;
  return userId === undefined || userId === caller.userId;
}

/** The org's policies as the engine reads them (the gate's and the dashboard's one reading of the store). */
export function policiesOf(store: Store, organizationId: string): PolicyRecord[] {
  return store.policies.list(organizationId).map((row: PolicyRow) => ({
    policyId: row.id,
    policyName: row.name,
    effect: row.effect,
    condition: row.condition,
    consensus: row.consensus,
    time: row.time,
  }));
}

function userOf(store: Store, organizationId: string, userId: string) {
  const org = store.organizations.get(organizationId);
  for (const id of [organizationId, ...(org?.parent_id ? [org.parent_id] : [])]) {
    const user = store.users.get(id, userId);
    if (user) return user;
  }
  return undefined;
}

/** The signing target a request names: `signWith` (address or key id), `walletId`, `privateKeyId`, `address`; the wallets of `walletIds` (`wallets`). */
function signingTarget(ctx: GateContext, parameters: Record<string, unknown>): Record<string, unknown> {
  const wallets = walletStoreOf(ctx.db);
  const keys = privateKeyStoreOf(ctx.db);
  const org = ctx.organizationId;
  const out: Record<string, unknown> = {};
  const walletOf = (id: string) => {
    const wallet = wallets.getWallet(org, id);
    return wallet ? { id: wallet.id, imported: wallet.imported === 1, exported: wallet.exported === 1, label: wallet.name } : undefined;
  };
  const walletView = (id: string) => {
    const wallet = walletOf(id);
    if (wallet) out.wallet = wallet;
  };
  const keyView = (id: string) => {
    const key = keys.get(org, id);
    if (key) {
      out.private_key = {
        id: key.id,
        tags: JSON.parse(key.tags_json) as string[],
        imported: key.imported === 1,
        exported: key.exported === 1,
        label: key.name,
      };
    }
  };
  for (const field of ["signWith", "address"]) {
    const value = parameters[field];
    if (typeof value !== "string") continue;
    const account = wallets.findByAddress(org, value)[0];
    if (account) {
      out.wallet_account = { address: account.address };
      walletView(account.wallet_id);
    } else {
      keyView(keys.findByAddress(org, value)?.private_key_id ?? value);
    }
  }
  if (typeof parameters.walletId === "string") walletView(parameters.walletId);
  if (typeof parameters.privateKeyId === "string") keyView(parameters.privateKeyId);
  if (Array.isArray(parameters.walletIds)) {
    out.wallets = parameters.walletIds.filter((id): id is string => typeof id === "string").flatMap((id) => walletOf(id) ?? []);
  }
  return out;
}

/** The keywords of one request: the activity, its approvers and their credentials, its signing target. */
export function evaluationInput(ctx: GateContext, type: string, parameters: unknown, voters: readonly Voter[]): EvaluationInput {
  const approvers = [];
  const credentials = [];
  for (const voter of voters) {
    const user = userOf(ctx.store, ctx.organizationId, voter.userId);
    approvers.push({ id: voter.userId, tags: ctx.store.users.tagIds(voter.userId), email: user?.email ?? "", alias: user?.name ?? "" });
    const key = ctx.store.apiKeys.findAnywhere(voter.publicKey);
    credentials.push(
      key
        ? { id: key.id, user_id: key.user_id, type: key.credential_type, credential_id: key.id, public_key: key.public_key }
        : { id: "", user_id: voter.userId, type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR", credential_id: "", public_key: voter.publicKey },
    );
  }
  const params = (typeof parameters === "object" && parameters !== null ? parameters : {}) as Record<string, unknown>;
  const signer = typeof params.signWith === "string" ? findSigner(ctx, params.signWith) : undefined;
  const chain = payloadKeywords(type, parameters, signer ? ethereumAddressOfSigner(signer) : "", contractInterfaceLookup(ctx.db, ctx.organizationId));
  return {
    keywords: { activity: activityFacts(type, parameters), approvers, credentials, ...keywordsFor(type, { ...signingTarget(ctx, params), ...chain }) },
    nowMs: ctx.nowMs,
  };
}

/** Decides a submission by `caller` (votes are never gated). */
export function gateSubmission(ctx: GateContext, type: string, parameters: unknown, caller: Caller): Gate {
  const standing = rootStanding(ctx.store, ctx.organizationId, caller);
  if (standing === "quorum") return { action: "run" };
  const kind = activityKind(type);
  const decision = decide(policiesOf(ctx.store, ctx.organizationId), kind, evaluationInput(ctx, type, parameters, [caller]), {
    implicitlyAllowed: standing === "none" && changesOwnCredentials(kind, parameters, caller),
  });
  if (decision.outcome === "OUTCOME_ALLOW") return { action: "run", decision };
  if (standing === "member") return { action: "await-root-quorum", decision };
  if (decision.outcome === "OUTCOME_REQUIRES_CONSENSUS") return { action: "await-approvals", decision };
  throw policyDenied(decision);
}

/** Decides a policy-held activity again with everyone who approved it so far. */
export function gateApproval(ctx: GateContext, type: string, parameters: unknown, approvals: readonly Voter[]): Decision {
  return decide(policiesOf(ctx.store, ctx.organizationId), activityKind(type), evaluationInput(ctx, type, parameters, approvals));
}

/** One policy's outcome as get_policy_evaluations and a refusal show it; an erroring policy carries its error (it counted as no match). */
function evaluationOnWire(e: Decision["evaluations"][number]): { policyId: string; outcome: string; error?: string } {
  return e.outcome === "OUTCOME_ERROR" ? { policyId: e.policyId, outcome: e.outcome, error: e.reason } : { policyId: e.policyId, outcome: e.outcome };
}

/** Stores a decision's per-policy outcomes for get_policy_evaluations. */
export function recordEvaluation(ctx: GateContext, activityId: string, voteId: string, decision: Decision): void {
  policyEvaluationStoreOf(ctx.db).insert({
    id: randomUUID(),
    activity_id: activityId,
    org_id: ctx.organizationId,
    vote_id: voteId,
    evaluations_json: JSON.stringify(decision.evaluations.map(evaluationOnWire)),
    created_ms: ctx.nowMs,
  });
}

/** The service's refusal body (docs/service-facts.md#5-errors): code 7 with a PolicyEnginePermissionError detail. */
export class PolicyDeniedError extends EmulatorError {
  constructor(readonly decision: Decision) {
    super(GrpcCode.PERMISSION_DENIED, `You don't have sufficient permissions to take this action: ${decision.reason}`);
  }

  override toBody(): { code: number; message: string; details: unknown[] } {
    const explicit = this.decision.outcome === "OUTCOME_DENY_EXPLICIT";
    return {
      code: this.code,
      message: this.message,
      details: [
        {
          "@type": "type.googleapis.com/errors.v1.PolicyEnginePermissionError",
          message: explicit ? "A policy evaluated to outcome: Deny" : "No policies evaluated to outcome: Allow",
          policyEvaluations: this.decision.evaluations.map(evaluationOnWire),
        },
      ],
    };
  }
}

/** 403 code 7 for a denied decision. */
export function policyDenied(decision: Decision): PolicyDeniedError {
  return new PolicyDeniedError(decision);
}
