/**
 * @module emulator/store/database
 * Opens the emulator's SQLite file and brings its schema up to date.
 *
 * Durability: `journal_mode=WAL` with `synchronous=FULL` fsyncs the write-ahead log at every
 * commit, so a response is only sent for data that is on disk; a `kill -9` at any moment
 * loses at most a transaction whose response was never sent.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import Database from "better-sqlite3";
import { CORE_MIGRATIONS } from "./migrations";

/** The better-sqlite3 connection type every store module works with. */
export type Db = Database.Database;

/** A schema extension owned by an emulator module (wallets, auth flows, webhooks …). */
export interface ModuleMigrations {
  /** Unique module name; its version is tracked in `module_migrations`. */
  readonly module: string;
  /** SQL of each version, in order; index 0 is version 1. Never edit a released step. */
  readonly steps: readonly string[];
}

/** File name of the database inside the data directory. */
export const DATABASE_FILE = "keyform.db";

/**
 * Opens (creating if needed) `<dataDir>/keyform.db` and applies the missing migrations.
 * @throws Error if the file is newer than this code (its `user_version` is unknown).
 */
export function openDatabase(dataDir: string, modules: readonly ModuleMigrations[] = []): Db {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DATABASE_FILE);
  // The database holds private keys (the bootstrap key, the signing key): create it owner-only.
  // SQLite gives the -wal and -shm files the same permissions.
  fs.closeSync(fs.openSync(file, "a", 0o600));
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    migrateCore(db);
    for (const module of modules) migrateModule(db, module);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function migrateCore(db: Db): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > CORE_MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this emulator (${CORE_MIGRATIONS.length}); upgrade keyform`,
    );
  }
  for (let version = current + 1; version <= CORE_MIGRATIONS.length; version++) {
    const step = CORE_MIGRATIONS[version - 1] as string;
    db.transaction(() => {
      db.exec(step);
      // user_version cannot be bound as a parameter; `version` is an integer we control.
      db.pragma(`user_version = ${version}`);
    })();
  }
}

function migrateModule(db: Db, module: ModuleMigrations): void {
  const row = db.prepare("SELECT version FROM module_migrations WHERE module = ?").get(module.module) as
    | { version: number }
    | undefined;
  const current = row?.version ?? 0;
  if (current > module.steps.length) {
    throw new Error(`schema of module ${module.module} is at version ${current}, newer than this emulator`);
  }
  for (let version = current + 1; version <= module.steps.length; version++) {
    db.transaction(() => {
      db.exec(module.steps[version - 1] as string);
      db.prepare(
        "INSERT INTO module_migrations (module, version) VALUES (?, ?) ON CONFLICT(module) DO UPDATE SET version = excluded.version",
      ).run(module.module, version);
    })();
  }
}
