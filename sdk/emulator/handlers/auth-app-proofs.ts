/**
 * @module emulator/handlers/auth-app-proofs
 * App Proofs of activities (spec 4.1 `generateAppProofs`, 2.1 `appProofs`). An activity
 * submitted with `generateAppProofs: true` gets one `APP_PROOF_TYPE_POLICY_OUTCOME` proof whose
 * `decisionContextDigest` is the activity fingerprint, signed by a fresh ephemeral P-256 key
 * (`createAppProof`). The proofs are stored with the activity, so a byte-identical
 * resubmission answers with the same proofs.
 */
import { createAppProof, policyOutcomePayload, type AppProof } from "keyform/crypto";
import type { Db } from "../store";
import { authStoreOf } from "../store/auth-store";

/** What a proof needs of the activity. */
export interface ProvableActivity {
  readonly id: string;
  readonly org_id: string;
  readonly fingerprint: string;
  readonly created_ms: number;
}

/**
 * Makes and stores the App Proofs of an activity. Call it inside the activity's transaction.
 * @returns the proofs
 */
export function recordAppProofs(db: Db, activity: ProvableActivity): AppProof[] {
  const proofs = [
    createAppProof(
      policyOutcomePayload({
        organizationId: activity.org_id,
        decisionContextDigest: activity.fingerprint,
        activityId: activity.id,
        timestampMs: activity.created_ms,
      }),
    ),
  ];
  authStoreOf(db).saveAppProofs(activity.id, JSON.stringify(proofs));
  return proofs;
}

/** `view` with the activity's stored `appProofs`, if it has any. */
export function withAppProofs<T extends { id: string }>(db: Db, view: T): T & { appProofs?: AppProof[] } {
  const json = authStoreOf(db).appProofsJson(view.id);
  return json === undefined ? view : { ...view, appProofs: JSON.parse(json) as AppProof[] };
}
