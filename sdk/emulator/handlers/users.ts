/**
 * @module emulator/handlers/users
 * Users (docs/service-facts.md#37-users). User names are unique per organization; `userTags` are tag ids of
 * the organization's user tags.
 */
import { alreadyExists, failedPrecondition } from "../errors";
import { insertApiKeys } from "./api-keys";
import { newId, requireName, requireDistinct, requireUser, requireUserTag } from "./common";
import type { ActivityContext, EmulatorModule } from "./types";
import { insertOauthProviders } from "./oauth-providers";
import { userView } from "./views";

function requireFreeUserName(ctx: ActivityContext, name: string, field: string, exceptUserId?: string): void {
  requireName(name, field);
  const existing = ctx.store.users.getByName(ctx.organizationId, name);
  if (existing && existing.id !== exceptUserId) {
    throw alreadyExists(`${field}: a user named ${JSON.stringify(name)} already exists`);
  }
}

export const usersModule: EmulatorModule = {
  name: "users",
  setup: () => ({
    createUsers(ctx, p) {
      const names = new Set<string>();
      return {
        userIds: p.users.map((u, i) => {
          const at = `users[${i}]`;
          if (names.has(u.userName)) throw alreadyExists(`${at}.userName: ${JSON.stringify(u.userName)} is listed twice`);
          names.add(u.userName);
          requireFreeUserName(ctx, u.userName, `${at}.userName`);
          requireDistinct(u.userTags, `${at}.userTags`);
          u.userTags.forEach((tagId, j) => requireUserTag(ctx, tagId, `${at}.userTags[${j}]`));
          const id = newId();
          ctx.store.users.insert({
            id,
            org_id: ctx.organizationId,
            name: u.userName,
            email: u.userEmail ?? null,
            phone_number: u.userPhoneNumber ?? null,
            created_ms: ctx.nowMs,
            updated_ms: ctx.nowMs,
          });
          ctx.store.users.setTags(id, u.userTags);
          insertApiKeys(ctx, id, u.apiKeys, `${at}.apiKeys`);
          u.authenticators.forEach((a) => {
            ctx.store.users.insertAuthenticator({
              id: newId(),
              org_id: ctx.organizationId,
              user_id: id,
              name: a.authenticatorName,
              credential_id: a.attestation.credentialId,
              attestation_json: JSON.stringify(a.attestation),
              created_ms: ctx.nowMs,
              updated_ms: ctx.nowMs,
            });
          });
          insertOauthProviders(ctx, { organizationId: ctx.organizationId, userId: id }, u.oauthProviders, `${at}.oauthProviders`);
          return id;
        }),
      };
    },

    deleteUsers(ctx, p) {
      requireDistinct(p.userIds, "userIds");
      p.userIds.forEach((id, i) => requireUser(ctx, id, `userIds[${i}]`));
      const org = ctx.store.organizations.get(ctx.organizationId);
      const quorum = org ? (JSON.parse(org.root_quorum_json) as { userIds: string[] }).userIds : [];
      p.userIds.forEach((id, i) => {
        // Deleting a root quorum member would leave the organization without its approvers.
        if (quorum.includes(id)) throw failedPrecondition(`userIds[${i}]: user ${id} is a member of the root quorum`);
      });
      for (const id of p.userIds) ctx.store.users.delete(id);
      return { userIds: p.userIds };
    },

    updateUser(ctx, p) {
      const user = requireUser(ctx, p.userId, "userId");
      if (p.userName !== undefined) requireFreeUserName(ctx, p.userName, "userName", user.id);
      if (p.userTagIds !== undefined) {
        requireDistinct(p.userTagIds, "userTagIds");
        p.userTagIds.forEach((tagId, i) => requireUserTag(ctx, tagId, `userTagIds[${i}]`));
        ctx.store.users.setTags(user.id, p.userTagIds);
      }
      ctx.store.users.update({
        ...user,
        name: p.userName ?? user.name,
        email: p.userEmail !== undefined ? p.userEmail : user.email,
        phone_number: p.userPhoneNumber ?? user.phone_number,
        updated_ms: ctx.nowMs,
      });
      return { userId: user.id };
    },

    updateUserName(ctx, p) {
      const user = requireUser(ctx, p.userId, "userId");
      requireFreeUserName(ctx, p.userName, "userName", user.id);
      ctx.store.users.update({ ...user, name: p.userName, updated_ms: ctx.nowMs });
      return { userId: user.id };
    },

    getUser(ctx, req) {
      return { user: userView(ctx.store, requireUser(ctx, req.userId, "userId")) };
    },

    listUsers(ctx) {
      return { users: ctx.store.users.list(ctx.organizationId).map((u) => userView(ctx.store, u)) };
    },
  }),
};
