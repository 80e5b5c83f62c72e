/**
 * @module emulator/handlers/views
 * Stored rows → wire objects (docs/service-facts.md#shared-object-shapes). One function per record type, shared by
 * every handler that returns that record.
 */
import type { Activity, Vote } from "keyform/wire/activity";
import { aaguidText, readStoredRegistration } from "./stored-attestation";
import type { ApiKey } from "keyform/wire/operations/api-keys";
import type { Invitation } from "keyform/wire/operations/invitations";
import type { Policy } from "keyform/wire/operations/policies";
import type { SmartContractInterface } from "keyform/wire/operations/smart-contract-interfaces";
import type { Tag } from "keyform/wire/operations/user-tags";
import type { User } from "keyform/wire/operations/users";
import {
  timestampOf,
  type ActivityRow,
  type ApiKeyRow,
  type InvitationRow,
  type PolicyRow,
  type SmartContractInterfaceRow,
  type Store,
  type TagRow,
  type UserRow,
  type VoteRow,
} from "../store";

export function apiKeyView(row: ApiKeyRow): ApiKey {
  const view: ApiKey = {
    credential: { publicKey: row.public_key, type: row.credential_type as ApiKey["credential"]["type"] },
    apiKeyId: row.id,
    apiKeyName: row.name,
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
  };
  if (row.expiration_seconds !== null) view.expirationSeconds = row.expiration_seconds;
  return view;
}

/** A user with its API keys, authenticators, OAuth providers and tag ids. */
export function userView(store: Store, row: UserRow): User {
  const view: User = {
    userId: row.id,
    userName: row.name,
    authenticators: store.users.authenticators(row.id).map((a) => {
      const attestation = JSON.parse(a.attestation_json) as { transports?: User["authenticators"][number]["transports"] };
      const registration = readStoredRegistration(a.attestation_json);
      return {
        transports: attestation.transports ?? [],
        attestationType: registration?.fmt ?? "none",
        aaguid: registration ? aaguidText(registration.aaguid) : "00000000-0000-0000-0000-000000000000",
        credentialId: a.credential_id,
        model: "",
        credential: {
          // An attestation that does not decode (accepted by create_users, which does not
          // require one that does) has no key to show; its credential id stands in for it.
          publicKey: registration?.publicKey ?? a.credential_id,
          type: "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR",
        },
        authenticatorId: a.id,
        authenticatorName: a.name,
        createdAt: timestampOf(a.created_ms),
        updatedAt: timestampOf(a.updated_ms),
      };
    }),
    apiKeys: store.apiKeys.listForUser(row.org_id, row.id).map(apiKeyView),
    userTags: store.users.tagIds(row.id),
    oauthProviders: store.users.oauthProviders(row.id).map((p) => ({
      providerId: p.id,
      providerName: p.name,
      issuer: p.issuer,
      audience: p.audience,
      subject: p.subject,
      createdAt: timestampOf(p.created_ms),
      updatedAt: timestampOf(p.updated_ms),
    })),
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
    mfaPolicies: [],
  };
  if (row.email !== null) view.userEmail = row.email;
  if (row.phone_number !== null) view.userPhoneNumber = row.phone_number;
  return view;
}

export function tagView(row: TagRow): Tag {
  return {
    tagId: row.id,
    tagName: row.name,
    tagType: row.tag_type as Tag["tagType"],
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
  };
}

export function policyView(row: PolicyRow): Policy {
  return {
    policyId: row.id,
    policyName: row.name,
    effect: row.effect as Policy["effect"],
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
    notes: row.notes,
    consensus: row.consensus ?? "",
    condition: row.condition ?? "",
    ...(row.time !== null && row.time !== undefined && row.time !== "" ? { time: row.time } : {}),
  };
}

/** docs/service-facts.md#34-invitations: the e-mail field is `receiverEmail` here. */
export function invitationView(row: InvitationRow): Invitation {
  return {
    invitationId: row.id,
    receiverUserName: row.receiver_user_name,
    receiverEmail: row.receiver_email,
    receiverUserTags: JSON.parse(row.receiver_user_tags_json) as string[],
    accessType: row.access_type as Invitation["accessType"],
    status: row.status as Invitation["status"],
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
    senderUserId: row.sender_user_id,
  };
}

export function smartContractInterfaceView(row: SmartContractInterfaceRow): SmartContractInterface {
  return {
    organizationId: row.org_id,
    smartContractInterfaceId: row.id,
    smartContractAddress: row.address,
    smartContractInterface: row.interface_text,
    type: row.type,
    label: row.label,
    notes: row.notes,
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
  };
}

/** Activity timestamps are strings of epoch milliseconds (wire `Activity`). */
/**
 * An activity with its votes. `canApprove`/`canReject` are true while it waits for the root
 * quorum (CONSENSUS_NEEDED); the emulator does not tailor them to the reader.
 */
export function activityView(row: ActivityRow, store: Store): Activity {
  const view: Activity = {
    id: row.id,
    organizationId: row.org_id,
    status: row.status as Activity["status"],
    type: row.type,
    intent: JSON.parse(row.intent_json) as Record<string, unknown>,
    result: JSON.parse(row.result_json) as Record<string, unknown>,
    votes: store.consensus.votes(row.id).map((vote) => voteView(store, row.org_id, vote)),
    fingerprint: row.fingerprint,
    canApprove: row.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    canReject: row.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED",
    createdAt: String(row.created_ms),
    updatedAt: String(row.updated_ms),
  };
  if (row.failure_json) view.failure = JSON.parse(row.failure_json) as NonNullable<Activity["failure"]>;
  return view;
}

/** docs/service-facts.md#2-request-and-response-envelope `v1Vote`; `user` is the voter as it is now (omitted once the user is deleted). */
export function voteView(store: Store, orgId: string, row: VoteRow): Vote {
  const vote: Vote = {
    id: row.id,
    userId: row.user_id,
    activityId: row.activity_id,
    selection: row.selection as Vote["selection"],
    message: row.message,
    publicKey: row.public_key,
    signature: row.signature,
    scheme: row.scheme,
    createdAt: timestampOf(row.created_ms),
  };
  const org = store.organizations.get(orgId);
  // A voter belongs to the activity's organization or, for a sub-organization, its parent.
  const user = store.users.get(orgId, row.user_id) ?? (org?.parent_id ? store.users.get(org.parent_id, row.user_id) : undefined);
  if (user) vote.user = userView(store, user);
  return vote;
}
