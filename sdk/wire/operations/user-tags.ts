/**
 * @module wire/operations/user-tags
 * User tags (spec 4.4 create_user_tag / delete_user_tags; docs/service-facts.md#31-user-tags for update and list).
 * A tag record has no member list: membership lives in each user's `userTags`.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { TagType } from "../enums";
import { Id, opt, Timestamp } from "../shared";

/** docs/service-facts.md#shared-object-shapes `datav1Tag`. */
export const Tag = z.object({
  tagId: Id,
  tagName: z.string(),
  tagType: TagType,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Tag = z.infer<typeof Tag>;

export const createUserTag = defineActivity("create_user_tag", {
  type: "ACTIVITY_TYPE_CREATE_USER_TAG",
  intentKey: "createUserTagIntent",
  resultKey: "createUserTagResult",
  parameters: z.object({ userTagName: Id, userIds: z.array(Id) }),
  result: z.object({ userTagId: Id, userIds: z.array(z.string()) }),
});

export const updateUserTag = defineActivity("update_user_tag", {
  type: "ACTIVITY_TYPE_UPDATE_USER_TAG",
  intentKey: "updateUserTagIntent",
  resultKey: "updateUserTagResult",
  parameters: z.object({
    userTagId: Id,
    newUserTagName: opt(z.string().min(1, "must not be empty")),
    addUserIds: z.array(Id),
    removeUserIds: z.array(Id),
  }),
  result: z.object({ userTagId: Id }),
});

export const deleteUserTags = defineActivity("delete_user_tags", {
  type: "ACTIVITY_TYPE_DELETE_USER_TAGS",
  intentKey: "deleteUserTagsIntent",
  resultKey: "deleteUserTagsResult",
  parameters: z.object({ userTagIds: z.array(Id).min(1, "must name at least one tag") }),
  result: z.object({ userTagIds: z.array(z.string()), userIds: z.array(z.string()) }),
});

export const listUserTags = defineQuery("list_user_tags", {
  request: z.object({ organizationId: Id }),
  response: z.object({ userTags: z.array(Tag) }),
});

export const userTagOperations = { createUserTag, updateUserTag, deleteUserTags, listUserTags };
