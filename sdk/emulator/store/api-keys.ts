/**
 * @module emulator/store/api-keys
 * API keys: the credentials `X-Stamp` headers are checked against.
 */
import type { Db } from "./database";

export interface ApiKeyRow {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  public_key: string;
  credential_type: string;
  /** Validity window in seconds (uint64 string); null for a key that never expires. */
  expiration_seconds: string | null;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes the `api_keys` table. */
export class ApiKeyStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], ApiKeyRow>("SELECT * FROM api_keys WHERE org_id = ? AND id = ?"),
      byUser: db.prepare<[string, string], ApiKeyRow>("SELECT * FROM api_keys WHERE org_id = ? AND user_id = ? ORDER BY created_ms, id"),
      byOrg: db.prepare<[string], ApiKeyRow>("SELECT * FROM api_keys WHERE org_id = ? ORDER BY created_ms, id"),
      byPublicKeyInOrg: db.prepare<[string, string], ApiKeyRow>(
        "SELECT * FROM api_keys WHERE org_id = ? AND lower(public_key) = lower(?) LIMIT 1",
      ),
      anyByPublicKey: db.prepare<[string], ApiKeyRow>("SELECT * FROM api_keys WHERE lower(public_key) = lower(?) LIMIT 1"),
      byUserAndName: db.prepare<[string, string], ApiKeyRow>("SELECT * FROM api_keys WHERE user_id = ? AND name = ?"),
      insert: db.prepare(
        "INSERT INTO api_keys (id, org_id, user_id, name, public_key, credential_type, expiration_seconds, created_ms, updated_ms) VALUES (@id, @org_id, @user_id, @name, @public_key, @credential_type, @expiration_seconds, @created_ms, @updated_ms)",
      ),
      delete: db.prepare("DELETE FROM api_keys WHERE id = ?"),
    };
  }

  get(orgId: string, id: string): ApiKeyRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  listForUser(orgId: string, userId: string): ApiKeyRow[] {
    return this.s.byUser.all(orgId, userId);
  }

  listForOrg(orgId: string): ApiKeyRow[] {
    return this.s.byOrg.all(orgId);
  }

  /** The key with this public key (any hex case) in one organization. */
  findInOrg(orgId: string, publicKey: string): ApiKeyRow | undefined {
    return this.s.byPublicKeyInOrg.get(orgId, publicKey);
  }

  /** Any key with this public key, in any organization (to tell "unknown" from "elsewhere"). */
  findAnywhere(publicKey: string): ApiKeyRow | undefined {
    return this.s.anyByPublicKey.get(publicKey);
  }

  findByName(userId: string, name: string): ApiKeyRow | undefined {
    return this.s.byUserAndName.get(userId, name);
  }

  insert(row: ApiKeyRow): void {
    this.s.insert.run(row);
  }

  delete(id: string): void {
    this.s.delete.run(id);
  }
}

/** Epoch ms at which a key stops being accepted, or undefined if it never expires. */
export function apiKeyExpiresAtMs(row: Pick<ApiKeyRow, "created_ms" | "expiration_seconds">): number | undefined {
  if (row.expiration_seconds === null) return undefined;
  // The service counts from createdAt.seconds (docs/service-facts.md#shared-object-shapes `v1ApiKey`).
  return Math.floor(row.created_ms / 1000) * 1000 + Number(row.expiration_seconds) * 1000;
}
