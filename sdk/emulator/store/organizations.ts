/**
 * @module emulator/store/organizations
 * Organizations; a sub-organization names its parent.
 */
import type { Db } from "./database";

export interface OrganizationRow {
  id: string;
  name: string;
  parent_id: string | null;
  /** `{threshold, userIds}` of the root quorum. */
  root_quorum_json: string;
  created_ms: number;
}

/** Reads and writes the `organizations` table. */
export class OrganizationStore {
  private readonly byId;
  private readonly insertStmt;

  constructor(db: Db) {
    this.byId = db.prepare<[string], OrganizationRow>("SELECT * FROM organizations WHERE id = ?");
    this.insertStmt = db.prepare("INSERT INTO organizations (id, name, parent_id, root_quorum_json, created_ms) VALUES (@id, @name, @parent_id, @root_quorum_json, @created_ms)");
  }

  get(id: string): OrganizationRow | undefined {
    return this.byId.get(id);
  }

  insert(row: OrganizationRow): void {
    this.insertStmt.run(row);
  }
}
