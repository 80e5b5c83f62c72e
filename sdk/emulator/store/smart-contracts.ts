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
      ethereumByAddress: db.prepare<[string, string], SmartContractInterfaceRow>(
        "SELECT * FROM smart_contract_interfaces WHERE org_id = ? AND type = 'ETHEREUM' AND lower(address) = lower(?) ORDER BY created_ms, id LIMIT 1",
      ),
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

  /**
   * The Ethereum interface uploaded for a contract address. Ethereum addresses match in any case
   * (docs, smart-contract-interfaces: "case insensitive with Ethereum"); of interfaces whose
   * addresses differ only in case, the oldest.
   */
  findEthereum(orgId: string, address: string): SmartContractInterfaceRow | undefined {
    return this.s.ethereumByAddress.get(orgId, address);
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

const stores = new WeakMap<Db, SmartContractInterfaceStore>();

/** The interface store of a database (one per database, its statements prepared once). */
export function smartContractInterfaceStoreOf(db: Db): SmartContractInterfaceStore {
  let store = stores.get(db);
  if (!store) {
    store = new SmartContractInterfaceStore(db);
    stores.set(db, store);
  }
  return store;
}

/**
 * The interface lookup of an organization's signing keywords: the ABI or IDL text uploaded for a
 * contract address (Ethereum, any case) or a program id (Solana, exact: the docs say Solana
 * addresses are case sensitive).
 */
export function contractInterfaceLookup(db: Db, orgId: string): (type: "ETHEREUM" | "SOLANA", address: string) => string | undefined {
  const store = smartContractInterfaceStoreOf(db);
  return (type, address) => (type === "ETHEREUM" ? store.findEthereum(orgId, address) : store.findByAddress(orgId, address, type))?.interface_text;
}
