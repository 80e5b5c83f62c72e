/**
 * @module emulator/store/tags
 * Tags (user tags and private key tags). A tag has no member list of its own: membership is
 * the `user_tags` table, exposed as each user's `userTags` (docs/service-facts.md#shared-object-shapes).
 */
import type { Db } from "./database";

export interface TagRow {
  id: string;
  org_id: string;
  name: string;
  tag_type: string;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `tags` table. */
export class TagStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], TagRow>("SELECT * FROM tags WHERE org_id = ? AND id = ?"),
      byName: db.prepare<[string, string, string], TagRow>("SELECT * FROM tags WHERE org_id = ? AND tag_type = ? AND name = ?"),
      list: db.prepare<[string, string], TagRow>("SELECT * FROM tags WHERE org_id = ? AND tag_type = ? ORDER BY created_ms, id"),
      listAll: db.prepare<[string], TagRow>("SELECT * FROM tags WHERE org_id = ? ORDER BY created_ms, id"),
      insert: db.prepare(
        "INSERT INTO tags (id, org_id, name, tag_type, created_ms, updated_ms) VALUES (@id, @org_id, @name, @tag_type, @created_ms, @updated_ms)",
      ),
      rename: db.prepare("UPDATE tags SET name = ?, updated_ms = ? WHERE id = ?"),
      touch: db.prepare("UPDATE tags SET updated_ms = ? WHERE id = ?"),
      delete: db.prepare("DELETE FROM tags WHERE id = ?"),
      deleteMemberships: db.prepare("DELETE FROM user_tags WHERE tag_id = ?"),
    };
  }

  get(orgId: string, id: string): TagRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  getByName(orgId: string, tagType: string, name: string): TagRow | undefined {
    return this.s.byName.get(orgId, tagType, name);
  }

  /** Tags of one type, oldest first. */
  list(orgId: string, tagType: string): TagRow[] {
    return this.s.list.all(orgId, tagType);
  }

  /** Tags of every type, oldest first. */
  listAll(orgId: string): TagRow[] {
    return this.s.listAll.all(orgId);
  }

  insert(row: TagRow): void {
    this.s.insert.run(row);
  }

  rename(id: string, name: string, nowMs: number): void {
    this.s.rename.run(name, nowMs, id);
  }

  touch(id: string, nowMs: number): void {
    this.s.touch.run(nowMs, id);
  }

  /** Deletes a tag and every membership in it. */
  delete(id: string): void {
    this.s.deleteMemberships.run(id);
    this.s.delete.run(id);
  }
}
