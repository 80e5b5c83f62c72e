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
  private readonly setQuorumStmt;

  constructor(db: Db) {
    this.byId = db.prepare<[string], OrganizationRow>("SELECT * FROM organizations WHERE id = ?");
    this.setQuorumStmt = db.prepare<[string, string]>("UPDATE organizations SET root_quorum_json = ? WHERE id = ?");
    this.insertStmt = db.prepare("INSERT INTO organizations (id, name, parent_id, root_quorum_json, created_ms) VALUES (@id, @name, @parent_id, @root_quorum_json, @created_ms)");
  }

  get(id: string): OrganizationRow | undefined {
    return this.byId.get(id);
  }

  /** Replaces the root quorum. */
  setRootQuorum(id: string, quorum: { threshold: number; userIds: readonly string[] }): void {
    this.setQuorumStmt.run(JSON.stringify({ threshold: quorum.threshold, userIds: quorum.userIds }), id);
  }

  insert(row: OrganizationRow): void {
    this.insertStmt.run(row);
  }
}
