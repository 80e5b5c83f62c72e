/**
 * @module emulator/store/meta
 * Small key/value settings of one emulator data directory (bootstrap ids, signing key).
 */
import type { Db } from "./database";

/** Reads and writes the `meta` table. */
export class MetaStore {
  private readonly getStmt;
  private readonly setStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?");
    this.setStmt = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  }

  /** The value stored under `key`, if any. */
  get(key: string): string | undefined {
    return this.getStmt.get(key)?.value;
  }

  /** Stores `value` under `key`, replacing any earlier value. */
  set(key: string, value: string): void {
    this.setStmt.run(key, value);
  }
}
