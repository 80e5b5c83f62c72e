/**
 * @module emulator/store/session-profiles
 * Session profiles (spec 2.6). There is no update or delete.
 */
import type { Db } from "./database";

/** Schema versions of the session-profiles module. Never edit a released step. */
export const SESSION_PROFILE_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE session_profiles (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    scope TEXT NOT NULL,
    expiration_seconds TEXT,
    notes TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX session_profiles_name ON session_profiles(org_id, name);
  `,
];

export interface SessionProfileRow {
  id: string;
  org_id: string;
  name: string;
  scope: string;
  expiration_seconds: string | null;
  notes: string | null;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `session_profiles` table. */
export class SessionProfileStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], SessionProfileRow>("SELECT * FROM session_profiles WHERE org_id = ? AND id = ?"),
      byName: db.prepare<[string, string], SessionProfileRow>("SELECT * FROM session_profiles WHERE org_id = ? AND name = ?"),
      list: db.prepare<[string], SessionProfileRow>("SELECT * FROM session_profiles WHERE org_id = ? ORDER BY created_ms, rowid"),
      insert: db.prepare(
        "INSERT INTO session_profiles (id, org_id, name, scope, expiration_seconds, notes, created_ms, updated_ms) VALUES (@id, @org_id, @name, @scope, @expiration_seconds, @notes, @created_ms, @updated_ms)",
      ),
    };
  }

  get(orgId: string, id: string): SessionProfileRow | undefined {
    return this.s.get.get(orgId, id);
  }

  getByName(orgId: string, name: string): SessionProfileRow | undefined {
    return this.s.byName.get(orgId, name);
  }

  list(orgId: string): SessionProfileRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: SessionProfileRow): void {
    this.s.insert.run(row);
  }
}

const stores = new WeakMap<Db, SessionProfileStore>();

/** The session profile store of a connection. */
export function sessionProfileStoreOf(db: Db): SessionProfileStore {
  let store = stores.get(db);
  if (!store) {
    store = new SessionProfileStore(db);
    stores.set(db, store);
  }
  return store;
}
