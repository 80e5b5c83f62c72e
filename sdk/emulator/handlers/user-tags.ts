/**
 * @module emulator/handlers/user-tags
 * User tags (docs/service-facts.md#31-user-tags). Names are unique per organization; membership is each user's
 * `userTags`.
 */
import { alreadyExists } from "../errors";
import { newId, requireName, requireDistinct, requireUser, requireUserTag } from "./common";
import type { EmulatorModule } from "./types";
import { tagView } from "./views";

const USER_TAG = "TAG_TYPE_USER";

export const userTagsModule: EmulatorModule = {
  name: "user-tags",
  setup: () => ({
    createUserTag(ctx, p) {
      requireName(p.userTagName, "userTagName");
      if (ctx.store.tags.getByName(ctx.organizationId, USER_TAG, p.userTagName)) {
        throw alreadyExists(`userTagName: a user tag named ${JSON.stringify(p.userTagName)} already exists`);
      }
      requireDistinct(p.userIds, "userIds");
      p.userIds.forEach((userId, i) => requireUser(ctx, userId, `userIds[${i}]`));
      const id = newId();
      ctx.store.tags.insert({
        id,
        org_id: ctx.organizationId,
        name: p.userTagName,
        tag_type: USER_TAG,
        created_ms: ctx.nowMs,
        updated_ms: ctx.nowMs,
      });
      for (const userId of p.userIds) ctx.store.users.addTag(userId, id);
      return { userTagId: id, userIds: p.userIds };
    },

    updateUserTag(ctx, p) {
      const tag = requireUserTag(ctx, p.userTagId, "userTagId");
      p.addUserIds.forEach((userId, i) => requireUser(ctx, userId, `addUserIds[${i}]`));
      p.removeUserIds.forEach((userId, i) => requireUser(ctx, userId, `removeUserIds[${i}]`));
      if (p.newUserTagName !== undefined) requireName(p.newUserTagName, "newUserTagName");
      if (p.newUserTagName !== undefined && p.newUserTagName !== tag.name) {
        if (ctx.store.tags.getByName(ctx.organizationId, USER_TAG, p.newUserTagName)) {
          throw alreadyExists(`newUserTagName: a user tag named ${JSON.stringify(p.newUserTagName)} already exists`);
        }
        ctx.store.tags.rename(tag.id, p.newUserTagName, ctx.nowMs);
      } else {
        ctx.store.tags.touch(tag.id, ctx.nowMs);
      }
      for (const userId of p.removeUserIds) ctx.store.users.removeTag(userId, tag.id);
      for (const userId of p.addUserIds) ctx.store.users.addTag(userId, tag.id);
      return { userTagId: tag.id };
    },

    deleteUserTags(ctx, p) {
      requireDistinct(p.userTagIds, "userTagIds");
      const tags = p.userTagIds.map((id, i) => requireUserTag(ctx, id, `userTagIds[${i}]`));
      const affected = new Set<string>();
      for (const tag of tags) {
        for (const userId of ctx.store.users.memberIds(tag.id)) affected.add(userId);
        ctx.store.tags.delete(tag.id);
      }
      return { userTagIds: tags.map((t) => t.id), userIds: [...affected] };
    },

    listUserTags(ctx) {
      return { userTags: ctx.store.tags.list(ctx.organizationId, USER_TAG).map(tagView) };
    },
  }),
};
