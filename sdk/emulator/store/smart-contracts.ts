/**
 * @module emulator/store/smart-contracts
 * Smart contract interfaces (ABI / IDL text stored exactly as given).
 */
import type { Db } from "./database";

export interface SmartContractInterfaceRow {
  id: string;
  org_id: string;
  address: string;
  interface_text: string;
  /** Short form, `ETHEREUM` or `SOLANA` (spec 2.7). */
  type: string;
  label: string;
  notes: string;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `smart_contract_interfaces` table. */
export class SmartContractInterfaceStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], SmartContractInterfaceRow>("SELECT * FROM smart_contract_interfaces WHERE org_id = ? AND id = ?"),
      byAddress: db.prepare<[string, string, string], SmartContractInterfaceRow>(
        "SELECT * FROM smart_contract_interfaces WHERE org_id = ? AND address = ? AND type = ?",
      ),
      list: db.prepare<[string], SmartContractInterfaceRow>("SELECT * FROM smart_contract_interfaces WHERE org_id = ? ORDER BY created_ms, id"),
      insert: db.prepare(
        "INSERT INTO smart_contract_interfaces (id, org_id, address, interface_text, type, label, notes, created_ms, updated_ms) VALUES (@id, @org_id, @address, @interface_text, @type, @label, @notes, @created_ms, @updated_ms)",
      ),
      delete: db.prepare("DELETE FROM smart_contract_interfaces WHERE id = ?"),
    };
  }

  get(orgId: string, id: string): SmartContractInterfaceRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  findByAddress(orgId: string, address: string, type: string): SmartContractInterfaceRow | undefined {
    return this.s.byAddress.get(orgId, address, type);
  }

  list(orgId: string): SmartContractInterfaceRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: SmartContractInterfaceRow): void {
    this.s.insert.run(row);
  }

  delete(id: string): void {
    this.s.delete.run(id);
  }
}
