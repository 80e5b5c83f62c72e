/**
 * @module emulator/store/private-keys
 * Standalone private keys: the sealed key (`secret-box.ts`), its public key, its addresses
 * (one row each in `private_key_addresses`, so an on-chain address finds its key) and the
 * exported / imported flags.
 */
import type { Db } from "./database";

/** Schema versions of the private-keys module. Never edit a released step. */
export const PRIVATE_KEY_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE private_keys (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    curve TEXT NOT NULL,
    public_key TEXT NOT NULL,
    private_key_sealed TEXT NOT NULL,
    tags_json TEXT NOT NULL DEFAULT '[]',
    exported INTEGER NOT NULL DEFAULT 0,
    imported INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX private_keys_name ON private_keys(org_id, name);

  CREATE TABLE private_key_addresses (
    private_key_id TEXT NOT NULL REFERENCES private_keys(id) ON DELETE CASCADE,
    org_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    format TEXT NOT NULL,
    address TEXT NOT NULL,
    PRIMARY KEY (private_key_id, position)
  );
  CREATE INDEX private_key_addresses_address ON private_key_addresses(org_id, address);
  `,
];

export interface PrivateKeyRow {
  id: string;
  org_id: string;
  name: string;
  curve: string;
  public_key: string;
  private_key_sealed: string;
  tags_json: string;
  exported: number;
  imported: number;
  created_ms: number;
  updated_ms: number;
}

export interface PrivateKeyAddressRow {
  private_key_id: string;
  org_id: string;
  position: number;
  format: string;
  address: string;
}

/** Reads and writes the private key tables. */
export class PrivateKeyStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], PrivateKeyRow>("SELECT * FROM private_keys WHERE org_id = ? AND id = ?"),
      byName: db.prepare<[string, string], PrivateKeyRow>("SELECT * FROM private_keys WHERE org_id = ? AND name = ?"),
      list: db.prepare<[string], PrivateKeyRow>("SELECT * FROM private_keys WHERE org_id = ? ORDER BY created_ms, rowid"),
      insert: db.prepare(
        "INSERT INTO private_keys (id, org_id, name, curve, public_key, private_key_sealed, tags_json, exported, imported, created_ms, updated_ms) VALUES (@id, @org_id, @name, @curve, @public_key, @private_key_sealed, @tags_json, @exported, @imported, @created_ms, @updated_ms)",
      ),
      insertAddress: db.prepare(
        "INSERT INTO private_key_addresses (private_key_id, org_id, position, format, address) VALUES (@private_key_id, @org_id, @position, @format, @address)",
      ),
      addresses: db.prepare<[string], PrivateKeyAddressRow>("SELECT * FROM private_key_addresses WHERE private_key_id = ? ORDER BY position"),
      byAddress: db.prepare<[{ org: string; address: string }], PrivateKeyAddressRow>(
        // Hex addresses (0x…) may arrive checksummed or lower-case; others are case-sensitive.
        "SELECT * FROM private_key_addresses WHERE org_id = @org AND (address = @address OR (address LIKE '0x%' AND lower(address) = lower(@address))) ORDER BY rowid LIMIT 1",
      ),
      markExported: db.prepare("UPDATE private_keys SET exported = 1, updated_ms = ? WHERE id = ?"),
      setTags: db.prepare("UPDATE private_keys SET tags_json = ?, updated_ms = ? WHERE id = ?"),
      deleteAddresses: db.prepare("DELETE FROM private_key_addresses WHERE private_key_id = ?"),
      delete: db.prepare("DELETE FROM private_keys WHERE id = ?"),
    };
  }

  get(orgId: string, id: string): PrivateKeyRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  getByName(orgId: string, name: string): PrivateKeyRow | undefined {
    return this.s.byName.get(orgId, name);
  }

  /** Private keys of an organization, oldest first. */
  list(orgId: string): PrivateKeyRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: PrivateKeyRow, addresses: readonly { format: string; address: string }[]): void {
    this.s.insert.run(row);
    addresses.forEach((a, position) => this.s.insertAddress.run({ private_key_id: row.id, org_id: row.org_id, position, ...a }));
  }

  addresses(id: string): PrivateKeyAddressRow[] {
    return this.s.addresses.all(id);
  }

  /** The address row of a private key with this address (hex compared case-insensitively). */
  findByAddress(orgId: string, address: string): PrivateKeyAddressRow | undefined {
    return this.s.byAddress.get({ org: orgId, address });
  }

  markExported(id: string, nowMs: number): void {
    this.s.markExported.run(nowMs, id);
  }

  /** Replaces the private key tag ids a key carries. */
  setTags(id: string, tagIds: readonly string[], nowMs: number): void {
    this.s.setTags.run(JSON.stringify(tagIds), nowMs, id);
  }

  delete(id: string): void {
    this.s.deleteAddresses.run(id);
    this.s.delete.run(id);
  }
}

const stores = new WeakMap<Db, PrivateKeyStore>();

/** The private key store of a connection (statements prepared once per connection). */
export function privateKeyStoreOf(db: Db): PrivateKeyStore {
  let store = stores.get(db);
  if (!store) {
    store = new PrivateKeyStore(db);
    stores.set(db, store);
  }
  return store;
}
