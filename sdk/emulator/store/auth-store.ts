/**
 * @module emulator/store/auth-store
 * Tables of the authentication area (module `auth`): one-time codes and their outbox,
 * verification tokens (consumed once by otp_login_v2), the public keys of WebAuthn
 * credentials registered at sign-up, and the App Proofs of activities.
 *
 * The OTP outbox keeps codes in clear text: it is the emulator's stand-in for e-mail and SMS,
 * readable by tests and developers through `GET /_keyform/otp-outbox`.
 */
import type { Db } from "./database";
import type { AuthenticatorRow, UserRow } from "./users";

/** Schema versions of the `auth` module (index 0 = version 1). Never edit a released step. */
export const AUTH_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE auth_otps (
    id TEXT PRIMARY KEY,
    otp_type TEXT NOT NULL,
    contact TEXT NOT NULL,
    code TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    used_ms INTEGER
  );
  CREATE INDEX auth_otps_by_contact ON auth_otps(lower(contact), created_ms);

  CREATE TABLE auth_verification_tokens (
    id TEXT PRIMARY KEY,
    otp_id TEXT NOT NULL,
    otp_type TEXT NOT NULL,
    contact TEXT NOT NULL,
    public_key TEXT,
    expires_ms INTEGER NOT NULL,
    consumed_ms INTEGER
  );

  CREATE TABLE auth_webauthn_credentials (
    authenticator_id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL,
    user_id TEXT NOT NULL,
    credential_id TEXT NOT NULL,
    public_key TEXT NOT NULL,
    created_ms INTEGER NOT NULL
  );
  CREATE INDEX auth_webauthn_by_credential ON auth_webauthn_credentials(credential_id);

  CREATE TABLE auth_app_proofs (
    activity_id TEXT PRIMARY KEY,
    proofs_json TEXT NOT NULL
  );
  `,
];

export interface OtpRow {
  id: string;
  /** `OTP_TYPE_EMAIL` or `OTP_TYPE_SMS`. */
  otp_type: string;
  contact: string;
  /** The code sent (clear text: this is the outbox). */
  code: string;
  created_ms: number;
  expires_ms: number;
  /** When otp_verify or otp_auth consumed it; null while unused. */
  used_ms: number | null;
}

export interface VerificationTokenRow {
  id: string;
  otp_id: string;
  otp_type: string;
  contact: string;
  public_key: string | null;
  expires_ms: number;
  consumed_ms: number | null;
}

export interface WebAuthnCredentialRow {
  authenticator_id: string;
  org_id: string;
  user_id: string;
  /** base64url without padding. */
  credential_id: string;
  /** Compressed P-256 public key, hex. */
  public_key: string;
  created_ms: number;
}

/** Reads and writes the auth module's tables. */
export class AuthStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertOtp: db.prepare(
        "INSERT INTO auth_otps (id, otp_type, contact, code, created_ms, expires_ms, used_ms) VALUES (@id, @otp_type, @contact, @code, @created_ms, @expires_ms, @used_ms)",
      ),
      otp: db.prepare<[string], OtpRow>("SELECT * FROM auth_otps WHERE id = ?"),
      useOtp: db.prepare("UPDATE auth_otps SET used_ms = ? WHERE id = ? AND used_ms IS NULL"),
      outboxAll: db.prepare<[number], OtpRow>("SELECT * FROM auth_otps ORDER BY created_ms DESC, rowid DESC LIMIT ?"),
      outboxFor: db.prepare<[string, number], OtpRow>(
        "SELECT * FROM auth_otps WHERE lower(contact) = lower(?) ORDER BY created_ms DESC, rowid DESC LIMIT ?",
      ),
      insertToken: db.prepare(
        "INSERT INTO auth_verification_tokens (id, otp_id, otp_type, contact, public_key, expires_ms, consumed_ms) VALUES (@id, @otp_id, @otp_type, @contact, @public_key, @expires_ms, @consumed_ms)",
      ),
      token: db.prepare<[string], VerificationTokenRow>("SELECT * FROM auth_verification_tokens WHERE id = ?"),
      consumeToken: db.prepare("UPDATE auth_verification_tokens SET consumed_ms = ? WHERE id = ? AND consumed_ms IS NULL"),
      insertCredential: db.prepare(
        "INSERT INTO auth_webauthn_credentials (authenticator_id, org_id, user_id, credential_id, public_key, created_ms) VALUES (@authenticator_id, @org_id, @user_id, @credential_id, @public_key, @created_ms)",
      ),
      credentials: db.prepare<[string], WebAuthnCredentialRow>(
        // The authenticator may have been deleted with its user; only live ones count.
        "SELECT c.* FROM auth_webauthn_credentials c JOIN authenticators a ON a.id = c.authenticator_id WHERE c.credential_id = ? ORDER BY c.created_ms",
      ),
      usersByEmail: db.prepare<[string, string, string], UserRow>(
        "SELECT u.* FROM users u JOIN organizations o ON o.id = u.org_id WHERE (o.id = ? OR o.parent_id = ?) AND lower(u.email) = lower(?) ORDER BY u.created_ms, u.id",
      ),
      usersByPhone: db.prepare<[string, string, string], UserRow>(
        "SELECT u.* FROM users u JOIN organizations o ON o.id = u.org_id WHERE (o.id = ? OR o.parent_id = ?) AND u.phone_number = ? ORDER BY u.created_ms, u.id",
      ),
      authenticatorsByCredentialId: db.prepare<[string, string], AuthenticatorRow>(
        "SELECT * FROM authenticators WHERE credential_id IN (?, ?) ORDER BY created_ms, id",
      ),
      insertProofs: db.prepare("INSERT OR REPLACE INTO auth_app_proofs (activity_id, proofs_json) VALUES (?, ?)"),
      proofs: db.prepare<[string], { proofs_json: string }>("SELECT proofs_json FROM auth_app_proofs WHERE activity_id = ?"),
    };
  }

  insertOtp(row: OtpRow): void {
    this.s.insertOtp.run(row);
  }

  otp(id: string): OtpRow | undefined {
    return this.s.otp.get(id);
  }

  /** Marks an OTP used; false if it already was. */
  useOtp(id: string, nowMs: number): boolean {
    return this.s.useOtp.run(nowMs, id).changes === 1;
  }

  /** The newest sent codes, optionally only those to `contact` (case-insensitive). */
  outbox(contact: string | undefined, limit: number): OtpRow[] {
    return contact === undefined ? this.s.outboxAll.all(limit) : this.s.outboxFor.all(contact, limit);
  }

  insertToken(row: VerificationTokenRow): void {
    this.s.insertToken.run(row);
  }

  token(id: string): VerificationTokenRow | undefined {
    return this.s.token.get(id);
  }

  /** Marks a verification token consumed; false if it already was. */
  consumeToken(id: string, nowMs: number): boolean {
    return this.s.consumeToken.run(nowMs, id).changes === 1;
  }

  insertCredential(row: WebAuthnCredentialRow): void {
    this.s.insertCredential.run(row);
  }

  /** Live credentials with this id (base64url, no padding), oldest first. */
  credentials(credentialId: string): WebAuthnCredentialRow[] {
    return this.s.credentials.all(credentialId);
  }

  /**
   * Users of `orgId` and of its sub-organizations whose e-mail (case-insensitive) or phone
   * number is `contact`, oldest first.
   */
  usersByContact(orgId: string, kind: "email" | "phone", contact: string): UserRow[] {
    return (kind === "email" ? this.s.usersByEmail : this.s.usersByPhone).all(orgId, orgId, contact);
  }

  /** Authenticators of any organization whose stored credential id is one of the two forms given. */
  authenticatorsByCredentialId(a: string, b: string): AuthenticatorRow[] {
    return this.s.authenticatorsByCredentialId.all(a, b);
  }

  saveAppProofs(activityId: string, proofsJson: string): void {
    this.s.insertProofs.run(activityId, proofsJson);
  }

  appProofsJson(activityId: string): string | undefined {
    return this.s.proofs.get(activityId)?.proofs_json;
  }
}

const stores = new WeakMap<Db, AuthStore>();

/**
 * The auth store of a connection (statements prepared once per connection).
 * The `auth` module's migrations must have run on `db`.
 */
export function authStoreOf(db: Db): AuthStore {
  let store = stores.get(db);
  if (!store) {
    store = new AuthStore(db);
    stores.set(db, store);
  }
  return store;
}
