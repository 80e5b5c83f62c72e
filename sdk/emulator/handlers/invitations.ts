/**
 * @module emulator/handlers/invitations
 * Invitations (docs/service-facts.md#34-invitations). Created in status `INVITATION_STATUS_CREATED`; deleting one
 * removes it (it no longer appears in get_organization). Acceptance is not emulated.
 */
import { notFound } from "../errors";
import { newId, requireDistinct, requireUser, requireUserTag } from "./common";
import type { EmulatorModule } from "./types";

export const invitationsModule: EmulatorModule = {
  name: "invitations",
  setup: () => ({
    createInvitations(ctx, p) {
      return {
        invitationIds: p.invitations.map((inv, i) => {
          const at = `invitations[${i}]`;
          requireUser(ctx, inv.senderUserId, `${at}.senderUserId`);
          requireDistinct(inv.receiverUserTags, `${at}.receiverUserTags`);
          inv.receiverUserTags.forEach((tagId, j) => requireUserTag(ctx, tagId, `${at}.receiverUserTags[${j}]`));
          const id = newId();
          ctx.store.invitations.insert({
            id,
            org_id: ctx.organizationId,
            receiver_user_name: inv.receiverUserName,
            receiver_email: inv.receiverUserEmail,
            receiver_user_tags_json: JSON.stringify(inv.receiverUserTags),
            access_type: inv.accessType,
            sender_user_id: inv.senderUserId,
            status: "INVITATION_STATUS_CREATED",
            created_ms: ctx.nowMs,
            updated_ms: ctx.nowMs,
          });
          return id;
        }),
      };
    },

    deleteInvitation(ctx, p) {
      const invitation = ctx.store.invitations.get(ctx.organizationId, p.invitationId);
      if (!invitation) throw notFound(`invitationId: no invitation with id ${p.invitationId} in organization ${ctx.organizationId}`);
      ctx.store.invitations.delete(invitation.id);
      return { invitationId: invitation.id };
    },
  }),
};
