/**
 * @module emulator/store/history
 * EVM transaction history (spec 2.8): one row per (address, chain, transaction) as seen
 * from that address. Rows come from what the emulator executed (Earn withdrawals) and from a
 * fixtures file loaded at start (`source = 'fixture'`, replaced at every start).
 *
 * Order is most recent first: block time descending, then insertion order descending, which
 * is stable across pages.
 */
import type { EthTransaction } from "keyform/wire/operations/history";
import type { Db } from "./database";

/** Schema versions of the history module. Never edit a released step. */
export const HISTORY_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE eth_history (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    org_id TEXT,
    address_lc TEXT NOT NULL,
    caip2 TEXT NOT NULL,
    block_ms INTEGER NOT NULL,
    source TEXT NOT NULL,
    tx_json TEXT NOT NULL
  );
  CREATE INDEX eth_history_page ON eth_history(address_lc, caip2, block_ms, seq);
  `,
];

export interface HistoryRow {
  seq: number;
  /** The organization that executed it; null for fixtures (shown to whoever owns the address). */
  org_id: string | null;
  address_lc: string;
  caip2: string;
  block_ms: number;
  source: "executed" | "fixture";
  tx_json: string;
}

/** A position in the history order. */
export interface HistoryKey {
  blockMs: number;
  seq: number;
}

/** Wire record as stored: the spec's fields, with the operator details under the wire key. */
export type StoredTransaction = Omit<EthTransaction, "operator"> & { turnkey?: EthTransaction["operator"] };

/** Reads and writes the `eth_history` table. */
export class HistoryStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      insert: db.prepare(
        "INSERT INTO eth_history (org_id, address_lc, caip2, block_ms, source, tx_json) VALUES (@org_id, @address_lc, @caip2, @block_ms, @source, @tx_json)",
      ),
      clearFixtures: db.prepare("DELETE FROM eth_history WHERE source = 'fixture'"),
    };
  }

  /** Records `tx` in the history of `address` on `caip2`. */
  insert(orgId: string | null, address: string, caip2: string, blockMs: number, source: HistoryRow["source"], tx: StoredTransaction): void {
    this.s.insert.run({ org_id: orgId, address_lc: address.toLowerCase(), caip2, block_ms: blockMs, source, tx_json: JSON.stringify(tx) });
  }

  /** Removes every fixture row (before loading the fixtures file again). */
  clearFixtures(): void {
    this.s.clearFixtures.run();
  }

  /**
   * Up to `limit` rows of `address` on `caip2` visible to `orgId`, most recent first.
   * `olderThan` pages towards older rows; `newerThan` (alone) returns the `limit` rows just
   * newer than the key, still most recent first.
   */
  page(orgId: string, address: string, caip2: string, limit: number, olderThan?: HistoryKey, newerThan?: HistoryKey): HistoryRow[] {
    const where = ["address_lc = ?", "caip2 = ?", "(org_id IS NULL OR org_id = ?)"];
    const args: (string | number)[] = [address.toLowerCase(), caip2, orgId];
    if (olderThan) {
      where.push("(block_ms < ? OR (block_ms = ? AND seq < ?))");
      args.push(olderThan.blockMs, olderThan.blockMs, olderThan.seq);
    }
    if (newerThan) {
      where.push("(block_ms > ? OR (block_ms = ? AND seq > ?))");
      args.push(newerThan.blockMs, newerThan.blockMs, newerThan.seq);
    }
    const ascending = newerThan !== undefined && olderThan === undefined;
    const order = ascending ? "block_ms ASC, seq ASC" : "block_ms DESC, seq DESC";
    const rows = this.db
      .prepare<(string | number)[], HistoryRow>(`SELECT * FROM eth_history WHERE ${where.join(" AND ")} ORDER BY ${order} LIMIT ?`)
      .all(...args, limit);
    return ascending ? rows.reverse() : rows;
  }

  /** Whether any row visible to `orgId` lies strictly older (`dir = "older"`) or newer than `key`. */
  exists(orgId: string, address: string, caip2: string, key: HistoryKey, dir: "older" | "newer"): boolean {
    const cmp = dir === "older" ? "(block_ms < ? OR (block_ms = ? AND seq < ?))" : "(block_ms > ? OR (block_ms = ? AND seq > ?))";
    const row = this.db
      .prepare(`SELECT 1 FROM eth_history WHERE address_lc = ? AND caip2 = ? AND (org_id IS NULL OR org_id = ?) AND ${cmp} LIMIT 1`)
      .get(address.toLowerCase(), caip2, orgId, key.blockMs, key.blockMs, key.seq);
    return row !== undefined;
  }
}

const stores = new WeakMap<Db, HistoryStore>();

/** The history store of a connection. */
export function historyStoreOf(db: Db): HistoryStore {
  let store = stores.get(db);
  if (!store) {
    store = new HistoryStore(db);
    stores.set(db, store);
  }
  return store;
}
