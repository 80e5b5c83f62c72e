/**
 * @module emulator/store/earn-withdrawals
 * Earn withdrawals the emulator executed (earn_withdraw), for get_earn_withdraw_status.
 */
import type { Db } from "./database";

/** Schema versions of the earn-withdrawals module. Never edit a released step. */
export const EARN_WITHDRAWAL_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE earn_withdrawals (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    wrapper_address TEXT NOT NULL,
    sign_with TEXT NOT NULL,
    chain_caip2 TEXT NOT NULL,
    sponsored INTEGER NOT NULL,
    amount_value TEXT NOT NULL,
    tx_hash TEXT NOT NULL,
    status TEXT NOT NULL,
    activity_fingerprint TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  `,
];

export interface EarnWithdrawalRow {
  id: string;
  org_id: string;
  wrapper_address: string;
  sign_with: string;
  chain_caip2: string;
  sponsored: number;
  amount_value: string;
  tx_hash: string;
  status: "PENDING" | "COMPLETED" | "FAILED";
  activity_fingerprint: string;
  created_ms: number;
}

/** Reads and writes the `earn_withdrawals` table. */
export class EarnWithdrawalStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], EarnWithdrawalRow>("SELECT * FROM earn_withdrawals WHERE org_id = ? AND id = ?"),
      insert: db.prepare(
        "INSERT INTO earn_withdrawals (id, org_id, wrapper_address, sign_with, chain_caip2, sponsored, amount_value, tx_hash, status, activity_fingerprint, created_ms) VALUES (@id, @org_id, @wrapper_address, @sign_with, @chain_caip2, @sponsored, @amount_value, @tx_hash, @status, @activity_fingerprint, @created_ms)",
      ),
    };
  }

  get(orgId: string, id: string): EarnWithdrawalRow | undefined {
    return this.s.get.get(orgId, id);
  }

  insert(row: EarnWithdrawalRow): void {
    this.s.insert.run(row);
  }
}

const stores = new WeakMap<Db, EarnWithdrawalStore>();

/** The withdrawal store of a connection. */
export function earnWithdrawalStoreOf(db: Db): EarnWithdrawalStore {
  let store = stores.get(db);
  if (!store) {
    store = new EarnWithdrawalStore(db);
    stores.set(db, store);
  }
  return store;
}
