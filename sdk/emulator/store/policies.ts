/**
 * @module emulator/store/policies
 * Policies. The emulator stores them but does not evaluate them (every authenticated user
 * of an organization may run every activity).
 */
import type { Db } from "./database";

/** Schema versions of the policies module's additions to the core table. Never edit a released step. */
export const POLICY_MIGRATIONS: readonly string[] = [
  /* v1: the `time` field of create_policy V3 and update_policy V2. */ `
  ALTER TABLE policies ADD COLUMN time TEXT;
  `,
];

export interface PolicyRow {
  id: string;
  org_id: string;
  name: string;
  effect: string;
  condition: string | null;
  consensus: string | null;
  notes: string;
  /** The policy's `time` field, as given (null when unset). */
  time: string | null;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `policies` table. */
export class PolicyStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], PolicyRow>("SELECT * FROM policies WHERE org_id = ? AND id = ?"),
      byName: db.prepare<[string, string], PolicyRow>("SELECT * FROM policies WHERE org_id = ? AND name = ?"),
      list: db.prepare<[string], PolicyRow>("SELECT * FROM policies WHERE org_id = ? ORDER BY created_ms, id"),
      insert: db.prepare(
        "INSERT INTO policies (id, org_id, name, effect, condition, consensus, notes, time, created_ms, updated_ms) VALUES (@id, @org_id, @name, @effect, @condition, @consensus, @notes, @time, @created_ms, @updated_ms)",
      ),
      update: db.prepare(
        "UPDATE policies SET name = @name, effect = @effect, condition = @condition, consensus = @consensus, notes = @notes, time = @time, updated_ms = @updated_ms WHERE id = @id",
      ),
      delete: db.prepare("DELETE FROM policies WHERE id = ?"),
    };
  }

  get(orgId: string, id: string): PolicyRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  getByName(orgId: string, name: string): PolicyRow | undefined {
    return this.s.byName.get(orgId, name);
  }

  list(orgId: string): PolicyRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: PolicyRow): void {
    this.s.insert.run(row);
  }

  update(row: PolicyRow): void {
    this.s.update.run(row);
  }

  delete(id: string): void {
    this.s.delete.run(id);
  }
}
