/**
 * @module wire/operations/private-key-tags
 * Private key tags (`v1CreatePrivateKeyTagIntent`, `v1UpdatePrivateKeyTagIntent`,
 * `v1DeletePrivateKeyTagsIntent`, `list_private_key_tags`). Like user tags, a tag record has no
 * member list: membership is each private key's `privateKeyTags`.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { Id, opt } from "../shared";
import { Tag } from "./user-tags";

export const createPrivateKeyTag = defineActivity("create_private_key_tag", {
  type: "ACTIVITY_TYPE_CREATE_PRIVATE_KEY_TAG",
  intentKey: "createPrivateKeyTagIntent",
  resultKey: "createPrivateKeyTagResult",
  parameters: z.object({ privateKeyTagName: Id, privateKeyIds: z.array(Id) }),
  result: z.object({ privateKeyTagId: Id, privateKeyIds: z.array(z.string()) }),
});

export const updatePrivateKeyTag = defineActivity("update_private_key_tag", {
  type: "ACTIVITY_TYPE_UPDATE_PRIVATE_KEY_TAG",
  intentKey: "updatePrivateKeyTagIntent",
  resultKey: "updatePrivateKeyTagResult",
  parameters: z.object({
    privateKeyTagId: Id,
    newPrivateKeyTagName: opt(z.string().min(1, "must not be empty")),
    addPrivateKeyIds: z.array(Id),
    removePrivateKeyIds: z.array(Id),
  }),
  result: z.object({ privateKeyTagId: Id }),
});

export const deletePrivateKeyTags = defineActivity("delete_private_key_tags", {
  type: "ACTIVITY_TYPE_DELETE_PRIVATE_KEY_TAGS",
  intentKey: "deletePrivateKeyTagsIntent",
  resultKey: "deletePrivateKeyTagsResult",
  parameters: z.object({ privateKeyTagIds: z.array(Id).min(1, "must name at least one tag") }),
  result: z.object({ privateKeyTagIds: z.array(z.string()), privateKeyIds: z.array(z.string()) }),
});

export const listPrivateKeyTags = defineQuery("list_private_key_tags", {
  request: z.object({ organizationId: Id }),
  response: z.object({ privateKeyTags: z.array(Tag) }),
});

export const privateKeyTagOperations = { createPrivateKeyTag, updatePrivateKeyTag, deletePrivateKeyTags, listPrivateKeyTags };
