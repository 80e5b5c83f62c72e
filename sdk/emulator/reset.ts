/**
 * @module emulator/reset
 * Resets a data directory's contents to what a first start gives, while the emulator runs: every
 * row of every table goes, except the emulator's own settings (`meta`: the bootstrap key, the
 * signing key, the auth proxy config id) and the schema versions; then `seed` writes the root
 * organization again (same ids and bootstrap key, so `bootstrap.json` and every client built
 * from it keep working) and whatever the start applied (IP allowlists, fixtures).
 *
 * One transaction: a reset that fails (a fixtures file gone) changes nothing. The pipeline is
 * synchronous, so no request runs half before and half after it.
 */
import type { Db } from "./store";

/** Tables a reset keeps. */
const KEPT_TABLES: ReadonlySet<string> = new Set(["meta", "module_migrations"]);

/** What a reset removed: rows per table (tables that were empty are left out). */
export type ResetSummary = Record<string, number>;

/** Empties the data tables and runs `seed`, in one transaction. */
export function resetData(db: Db, seed: () => void): ResetSummary {
  return db.transaction((): ResetSummary => {
    // Rows reference each other across modules; the checks run once, at commit, when all are gone.
    db.pragma("defer_foreign_keys = ON");
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((row) => row.name)
      .filter((name) => !KEPT_TABLES.has(name));
    const removed: ResetSummary = {};
    for (const table of tables) {
      // Names come from sqlite_master, quoted as identifiers.
      const changes = db.prepare(`DELETE FROM "${table.replaceAll('"', '""')}"`).run().changes;
      if (changes > 0) removed[table] = changes;
    }
    seed();
    return removed;
  })();
}
