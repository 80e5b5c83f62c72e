/**
 * @module emulator/store/invitations
 * Invitations; they are only readable through get_organization (docs/service-facts.md#34-invitations).
 */
import type { Db } from "./database";

export interface InvitationRow {
  id: string;
  org_id: string;
  receiver_user_name: string;
  receiver_email: string;
  receiver_user_tags_json: string;
  access_type: string;
  sender_user_id: string;
  status: string;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `invitations` table. */
export class InvitationStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], InvitationRow>("SELECT * FROM invitations WHERE org_id = ? AND id = ?"),
      list: db.prepare<[string], InvitationRow>("SELECT * FROM invitations WHERE org_id = ? ORDER BY created_ms, id"),
      insert: db.prepare(
        "INSERT INTO invitations (id, org_id, receiver_user_name, receiver_email, receiver_user_tags_json, access_type, sender_user_id, status, created_ms, updated_ms) VALUES (@id, @org_id, @receiver_user_name, @receiver_email, @receiver_user_tags_json, @access_type, @sender_user_id, @status, @created_ms, @updated_ms)",
      ),
      delete: db.prepare("DELETE FROM invitations WHERE id = ?"),
    };
  }

  get(orgId: string, id: string): InvitationRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  list(orgId: string): InvitationRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: InvitationRow): void {
    this.s.insert.run(row);
  }

  delete(id: string): void {
    this.s.delete.run(id);
  }
}
