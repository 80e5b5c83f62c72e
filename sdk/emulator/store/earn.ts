/**
 * @module emulator/store/earn
 * Earn wrappers deployed by an organization, with their deposit switch.
 */
import type { Db } from "./database";

export interface EarnWrapperRow {
  wrapper_address: string;
  org_id: string;
  vault_address: string;
  chain_caip2: string;
  client_fee_bps: number;
  client_fee_wallet: string;
  splitter_address: string;
  deploy_request_id: string;
  /** 0 or 1 (SQLite has no boolean). */
  deposits_disabled: number;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `earn_wrappers` table. */
export class EarnStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byAddress: db.prepare<[string, string], EarnWrapperRow>("SELECT * FROM earn_wrappers WHERE org_id = ? AND wrapper_address = ?"),
      byDeployRequest: db.prepare<[string, string], EarnWrapperRow>(
        "SELECT * FROM earn_wrappers WHERE org_id = ? AND deploy_request_id = ?",
      ),
      list: db.prepare<[string], EarnWrapperRow>("SELECT * FROM earn_wrappers WHERE org_id = ? ORDER BY created_ms, wrapper_address"),
      insert: db.prepare(
        "INSERT INTO earn_wrappers (wrapper_address, org_id, vault_address, chain_caip2, client_fee_bps, client_fee_wallet, splitter_address, deploy_request_id, deposits_disabled, created_ms, updated_ms) VALUES (@wrapper_address, @org_id, @vault_address, @chain_caip2, @client_fee_bps, @client_fee_wallet, @splitter_address, @deploy_request_id, @deposits_disabled, @created_ms, @updated_ms)",
      ),
      setDepositsDisabled: db.prepare(
        "UPDATE earn_wrappers SET deposits_disabled = ?, updated_ms = ? WHERE org_id = ? AND wrapper_address = ?",
      ),
    };
  }

  /** Addresses are compared in lowercase: callers may send checksummed addresses. */
  get(orgId: string, wrapperAddress: string): EarnWrapperRow | undefined {
    return this.s.byAddress.get(orgId, wrapperAddress.toLowerCase());
  }

  getByDeployRequest(orgId: string, deployRequestId: string): EarnWrapperRow | undefined {
    return this.s.byDeployRequest.get(orgId, deployRequestId);
  }

  list(orgId: string): EarnWrapperRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: EarnWrapperRow): void {
    this.s.insert.run({ ...row, wrapper_address: row.wrapper_address.toLowerCase() });
  }

  setDepositsDisabled(orgId: string, wrapperAddress: string, disabled: boolean, nowMs: number): void {
    this.s.setDepositsDisabled.run(disabled ? 1 : 0, nowMs, orgId, wrapperAddress.toLowerCase());
  }
}
