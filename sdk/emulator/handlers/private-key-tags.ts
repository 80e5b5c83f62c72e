/**
 * @module emulator/handlers/private-key-tags
 * Private key tags: create_private_key_tag, update_private_key_tag, delete_private_key_tags and
 * list_private_key_tags. Names are unique per organization and tag type; membership is each
 * private key's `privateKeyTags` (as with user tags and `userTags`).
 */
import type { TagRow } from "../store";
import { alreadyExists, notFound } from "../errors";
import { privateKeyStoreOf, type PrivateKeyRow } from "../store/private-keys";
import { newId, requireDistinct } from "./common";
import type { EmulatorModule, QueryContext } from "./types";
import { tagView } from "./views";

const PRIVATE_KEY_TAG = "TAG_TYPE_PRIVATE_KEY";

function requirePrivateKeyTag(ctx: QueryContext, tagId: string, field: string): TagRow {
  const tag = ctx.store.tags.get(ctx.organizationId, tagId);
  if (!tag || tag.tag_type !== PRIVATE_KEY_TAG) {
    throw notFound(`${field}: no private key tag with id ${tagId} in organization ${ctx.organizationId}`);
  }
  return tag;
}

function requirePrivateKey(ctx: QueryContext, id: string, field: string): PrivateKeyRow {
  const row = privateKeyStoreOf(ctx.db).get(ctx.organizationId, id);
  if (!row) throw notFound(`${field}: no private key with id ${id} in organization ${ctx.organizationId}`);
  return row;
}

function requireFreeName(ctx: QueryContext, name: string, field: string): void {
  if (ctx.store.tags.getByName(ctx.organizationId, PRIVATE_KEY_TAG, name)) {
    throw alreadyExists(`${field}: a private key tag named ${JSON.stringify(name)} already exists`);
  }
}

/** Adds or removes `tagId` on a key's tag list. */
function retag(ctx: QueryContext & { nowMs: number }, key: PrivateKeyRow, tagId: string, present: boolean): void {
  const tags = (JSON.parse(key.tags_json) as string[]).filter((t) => t !== tagId);
  if (present) tags.push(tagId);
  privateKeyStoreOf(ctx.db).setTags(key.id, tags, ctx.nowMs);
}

export const privateKeyTagsModule: EmulatorModule = {
  name: "private-key-tags",
  setup: () => ({
    createPrivateKeyTag(ctx, p) {
      requireFreeName(ctx, p.privateKeyTagName, "privateKeyTagName");
      requireDistinct(p.privateKeyIds, "privateKeyIds");
      const keys = p.privateKeyIds.map((id, i) => requirePrivateKey(ctx, id, `privateKeyIds[${i}]`));
      const id = newId();
      ctx.store.tags.insert({ id, org_id: ctx.organizationId, name: p.privateKeyTagName, tag_type: PRIVATE_KEY_TAG, created_ms: ctx.nowMs, updated_ms: ctx.nowMs });
      for (const key of keys) retag(ctx, key, id, true);
      return { privateKeyTagId: id, privateKeyIds: p.privateKeyIds };
    },

    updatePrivateKeyTag(ctx, p) {
      const tag = requirePrivateKeyTag(ctx, p.privateKeyTagId, "privateKeyTagId");
      const added = p.addPrivateKeyIds.map((id, i) => requirePrivateKey(ctx, id, `addPrivateKeyIds[${i}]`));
      const removed = p.removePrivateKeyIds.map((id, i) => requirePrivateKey(ctx, id, `removePrivateKeyIds[${i}]`));
      if (p.newPrivateKeyTagName !== undefined && p.newPrivateKeyTagName !== tag.name) {
        requireFreeName(ctx, p.newPrivateKeyTagName, "newPrivateKeyTagName");
        ctx.store.tags.rename(tag.id, p.newPrivateKeyTagName, ctx.nowMs);
      } else {
        ctx.store.tags.touch(tag.id, ctx.nowMs);
      }
      // Re-read each key: one may be listed in both lists, and the last write must see the first.
      for (const key of removed) retag(ctx, requirePrivateKey(ctx, key.id, "removePrivateKeyIds"), tag.id, false);
      for (const key of added) retag(ctx, requirePrivateKey(ctx, key.id, "addPrivateKeyIds"), tag.id, true);
      return { privateKeyTagId: tag.id };
    },

    deletePrivateKeyTags(ctx, p) {
      requireDistinct(p.privateKeyTagIds, "privateKeyTagIds");
      const tags = p.privateKeyTagIds.map((id, i) => requirePrivateKeyTag(ctx, id, `privateKeyTagIds[${i}]`));
      const affected = new Set<string>();
      const store = privateKeyStoreOf(ctx.db);
      for (const tag of tags) {
        for (const key of store.list(ctx.organizationId)) {
          if ((JSON.parse(key.tags_json) as string[]).includes(tag.id)) {
            retag(ctx, key, tag.id, false);
            affected.add(key.id);
          }
        }
        ctx.store.tags.delete(tag.id);
      }
      return { privateKeyTagIds: tags.map((t) => t.id), privateKeyIds: [...affected] };
    },

    listPrivateKeyTags(ctx) {
      return { privateKeyTags: ctx.store.tags.list(ctx.organizationId, PRIVATE_KEY_TAG).map(tagView) };
    },
  }),
};
