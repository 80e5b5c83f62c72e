/**
 * @module wire/operations/invitations
 * Invitations (spec 4.4 create_invitations / delete_invitation). There is no list or get
 * endpoint: invitations appear only in `get_organization` (docs/service-facts.md#34-invitations).
 */
import { z } from "zod";
import { defineActivity } from "../define";
import { AccessType, InvitationStatus } from "../enums";
import { Id, Timestamp } from "../shared";

/**
 * docs/service-facts.md#34-invitations / `v1Invitation`: an invitation as `get_organization` shows it. The e-mail
 * field is `receiverEmail` here, not `receiverUserEmail` as in the create parameters.
 */
export const Invitation = z.object({
  invitationId: z.string(),
  receiverUserName: z.string(),
  receiverEmail: z.string(),
  receiverUserTags: z.array(z.string()),
  accessType: AccessType,
  status: InvitationStatus,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  senderUserId: z.string(),
});
export type Invitation = z.infer<typeof Invitation>;

/** Spec 4.4 create_invitations: one invitation (`v1InvitationParams`). */
export const InvitationParams = z.object({
  receiverUserName: Id,
  receiverUserEmail: Id,
  /** Tag IDs given to the user on acceptance; may be empty. */
  receiverUserTags: z.array(Id),
  accessType: AccessType,
  senderUserId: Id,
});
export type InvitationParams = z.infer<typeof InvitationParams>;

export const createInvitations = defineActivity("create_invitations", {
  type: "ACTIVITY_TYPE_CREATE_INVITATIONS",
  intentKey: "createInvitationsIntent",
  resultKey: "createInvitationsResult",
  parameters: z.object({ invitations: z.array(InvitationParams).min(1, "must hold at least one invitation") }),
  result: z.object({ invitationIds: z.array(z.string()) }),
});

export const deleteInvitation = defineActivity("delete_invitation", {
  type: "ACTIVITY_TYPE_DELETE_INVITATION",
  intentKey: "deleteInvitationIntent",
  resultKey: "deleteInvitationResult",
  parameters: z.object({ invitationId: Id }),
  result: z.object({ invitationId: z.string() }),
});

export const invitationOperations = { createInvitations, deleteInvitation };
