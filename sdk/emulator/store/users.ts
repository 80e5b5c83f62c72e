/**
 * @module emulator/store/users
 * Users, their tag memberships (`user_tags`), authenticators and OAuth providers.
 */
import type { Db } from "./database";

export interface UserRow {
  id: string;
  org_id: string;
  name: string;
  email: string | null;
  phone_number: string | null;
  created_ms: number;
  updated_ms: number;
}

export interface AuthenticatorRow {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  credential_id: string;
  attestation_json: string;
  created_ms: number;
  updated_ms: number;
}

export interface OauthProviderRow {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  issuer: string;
  audience: string;
  subject: string;
  created_ms: number;
  updated_ms: number;
}

/** Reads and writes users and what hangs off them. */
export class UserStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string, string], UserRow>("SELECT * FROM users WHERE org_id = ? AND id = ?"),
      byName: db.prepare<[string, string], UserRow>("SELECT * FROM users WHERE org_id = ? AND name = ?"),
      list: db.prepare<[string], UserRow>("SELECT * FROM users WHERE org_id = ? ORDER BY created_ms, id"),
      insert: db.prepare(
        "INSERT INTO users (id, org_id, name, email, phone_number, created_ms, updated_ms) VALUES (@id, @org_id, @name, @email, @phone_number, @created_ms, @updated_ms)",
      ),
      update: db.prepare(
        "UPDATE users SET name = @name, email = @email, phone_number = @phone_number, updated_ms = @updated_ms WHERE id = @id",
      ),
      tagsOf: db.prepare<[string], { tag_id: string }>(
        "SELECT ut.tag_id FROM user_tags ut JOIN tags t ON t.id = ut.tag_id WHERE ut.user_id = ? ORDER BY t.created_ms, t.id",
      ),
      membersOf: db.prepare<[string], { user_id: string }>(
        "SELECT ut.user_id FROM user_tags ut JOIN users u ON u.id = ut.user_id WHERE ut.tag_id = ? ORDER BY u.created_ms, u.id",
      ),
      addTag: db.prepare("INSERT OR IGNORE INTO user_tags (user_id, tag_id) VALUES (?, ?)"),
      removeTag: db.prepare("DELETE FROM user_tags WHERE user_id = ? AND tag_id = ?"),
      clearTags: db.prepare("DELETE FROM user_tags WHERE user_id = ?"),
      authenticators: db.prepare<[string], AuthenticatorRow>("SELECT * FROM authenticators WHERE user_id = ? ORDER BY created_ms, id"),
      insertAuthenticator: db.prepare(
        "INSERT INTO authenticators (id, org_id, user_id, name, credential_id, attestation_json, created_ms, updated_ms) VALUES (@id, @org_id, @user_id, @name, @credential_id, @attestation_json, @created_ms, @updated_ms)",
      ),
      oauthProviders: db.prepare<[string], OauthProviderRow>("SELECT * FROM oauth_providers WHERE user_id = ? ORDER BY created_ms, id"),
      deleteUser: [
        db.prepare("DELETE FROM user_tags WHERE user_id = ?"),
        db.prepare("DELETE FROM api_keys WHERE user_id = ?"),
        db.prepare("DELETE FROM authenticators WHERE user_id = ?"),
        db.prepare("DELETE FROM oauth_providers WHERE user_id = ?"),
        db.prepare("DELETE FROM users WHERE id = ?"),
      ],
      insertOauthProvider: db.prepare(
        "INSERT INTO oauth_providers (id, org_id, user_id, name, issuer, audience, subject, created_ms, updated_ms) VALUES (@id, @org_id, @user_id, @name, @issuer, @audience, @subject, @created_ms, @updated_ms)",
      ),
    };
  }

  get(orgId: string, id: string): UserRow | undefined {
    return this.s.byId.get(orgId, id);
  }

  getByName(orgId: string, name: string): UserRow | undefined {
    return this.s.byName.get(orgId, name);
  }

  list(orgId: string): UserRow[] {
    return this.s.list.all(orgId);
  }

  insert(row: UserRow): void {
    this.s.insert.run(row);
  }

  update(row: UserRow): void {
    this.s.update.run(row);
  }

  /** Deletes a user with its API keys, authenticators, OAuth providers and tag memberships. */
  delete(id: string): void {
    for (const stmt of this.s.deleteUser) stmt.run(id);
  }

  /** Tag ids of a user, oldest tag first. */
  tagIds(userId: string): string[] {
    return this.s.tagsOf.all(userId).map((r) => r.tag_id);
  }

  /** User ids holding a tag, oldest user first. */
  memberIds(tagId: string): string[] {
    return this.s.membersOf.all(tagId).map((r) => r.user_id);
  }

  addTag(userId: string, tagId: string): void {
    this.s.addTag.run(userId, tagId);
  }

  removeTag(userId: string, tagId: string): void {
    this.s.removeTag.run(userId, tagId);
  }

  /** Replaces the whole tag set of a user. */
  setTags(userId: string, tagIds: readonly string[]): void {
    this.s.clearTags.run(userId);
    for (const tagId of tagIds) this.s.addTag.run(userId, tagId);
  }

  authenticators(userId: string): AuthenticatorRow[] {
    return this.s.authenticators.all(userId);
  }

  insertAuthenticator(row: AuthenticatorRow): void {
    this.s.insertAuthenticator.run(row);
  }

  oauthProviders(userId: string): OauthProviderRow[] {
    return this.s.oauthProviders.all(userId);
  }

  insertOauthProvider(row: OauthProviderRow): void {
    this.s.insertOauthProvider.run(row);
  }
}
