/**
 * @module emulator/handlers/auth-otp
 * One-time codes (spec 4.2, 4.4 `otp_auth`, 5.5):
 *
 * - `otp_init` "sends" a 6-digit code to an e-mail address or phone number: the code lands in
 *   the local outbox (`GET /_keyform/otp-outbox?contact=…`) and in an info log line. A code
 *   is valid for {@link OTP_TTL_MS} and works once.
 * - `otp_verify` exchanges the code for a signed verification token (valid
 *   {@link VERIFICATION_TOKEN_TTL_MS}) that binds the client's public key.
 * - `otp_login_v2` exchanges the token (once) plus a client signature made with the bound key
 *   for a session: the session key becomes a `CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256`
 *   credential of the user, valid {@link SESSION_TTL_SECONDS}, that stamps main-API requests.
 * - `otp_auth` (activity) exchanges the code for a new API key of the user
 *   (`CREDENTIAL_TYPE_OTP_AUTH_KEY_P256`), delivered as an HPKE credential bundle.
 *
 * Not modelled: attempt limits (a refused code is a rolled-back request, so nothing counts
 * the failures), rate limits, e-mail customisation.
 */
import { randomInt, timingSafeEqual } from "node:crypto";
import { CryptoError, encryptCredentialBundle, generateP256KeyPair, parsePublicKey } from "keyform/crypto";
import { alreadyExists, invalidArgument, notFound, permissionDenied, unauthenticated } from "../errors";
import type { Store, UserRow } from "../store";
import { authStoreOf, type OtpRow } from "../store/auth-store";
import { validatePublicKey } from "./api-keys";
import { authProxyConfig, clientSignatureValid, contactKind, sameContact, signedUsage } from "./auth-common";
import { issueSession, issueVerificationToken, readVerificationToken } from "./auth-tokens";
import { newId } from "./common";
import type { BaseContext, HandlerOf } from "./types";

/** How long a sent code can be used. */
export const OTP_TTL_MS = 5 * 60 * 1000;
/** How long a verification token from otp_verify is accepted. */
export const VERIFICATION_TOKEN_TTL_MS = 10 * 60 * 1000;
/** Lifetime of a login session key (the service's default session length). */
export const SESSION_TTL_SECONDS = 900;
/** Spec 8: default `expirationSeconds` of an otp_auth key (15 minutes). */
export const OTP_AUTH_KEY_TTL_SECONDS = "900";

const SESSION_CREDENTIAL = "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256";
const OTP_AUTH_CREDENTIAL = "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256";
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const E164 = /^\+[1-9]\d{1,14}$/;

/** A fresh 6-digit numeric code. */
function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

/** The OTP `otpId` if `code` is its code and it is unused and unexpired. @throws 404/400 */
function requireUsableOtp(store: Store, otpId: string, code: string, nowMs: number): OtpRow {
  const row = authStoreOf(store.db).otp(otpId);
  if (!row) throw notFound(`otpId: no OTP with id ${otpId}`);
  if (row.used_ms !== null) throw invalidArgument(`otpId: OTP ${otpId} was already used; request a new code with otp_init`);
  if (nowMs >= row.expires_ms) {
    throw invalidArgument(`otpId: OTP ${otpId} expired at ${new Date(row.expires_ms).toISOString()}; request a new code with otp_init`);
  }
  const given = Buffer.from(code.trim(), "utf8");
  const expected = Buffer.from(row.code, "utf8");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidArgument("otpCode: invalid OTP code");
  return row;
}

/** The user of `orgId` whose e-mail or phone is the OTP's contact. */
function userOfContact(store: Store, orgId: string, otpType: string, contact: string): UserRow | undefined {
  const kind = contactKind(otpType);
  return store.users.list(orgId).find((u) => sameContact(kind, kind === "email" ? u.email : u.phone_number, contact));
}

export const otpInit: HandlerOf<"otpInit"> = (ctx, p) => {
  const contact = p.contact.trim();
  if (p.otpType === "OTP_TYPE_EMAIL" && !EMAIL.test(contact)) throw invalidArgument("contact: not an e-mail address");
  if (p.otpType === "OTP_TYPE_SMS" && !E164.test(contact)) throw invalidArgument("contact: must be an E.164 phone number such as +14155550123");
  const row: OtpRow = {
    id: newId(),
    otp_type: p.otpType,
    contact,
    code: newCode(),
    created_ms: ctx.nowMs,
    expires_ms: ctx.nowMs + OTP_TTL_MS,
    used_ms: null,
  };
  authStoreOf(ctx.db).insertOtp(row);
  // The emulator's stand-in for e-mail and SMS delivery: the code is what a developer needs.
  ctx.log.info(
    { otpId: row.id, otpType: row.otp_type, contact, code: row.code, expiresAt: new Date(row.expires_ms).toISOString() },
    "OTP sent to the local outbox (GET /_keyform/otp-outbox)",
  );
  return { otpId: row.id };
};

export const otpVerify: HandlerOf<"otpVerify"> = (ctx, p) => {
  if (p.publicKey !== undefined) {
    try {
      parsePublicKey(p.publicKey, true, "publicKey");
    } catch {
      throw invalidArgument("publicKey: not a P-256 public key (compressed or uncompressed hex)");
    }
  }
  const otp = requireUsableOtp(ctx.store, p.otpId, p.otpCode, ctx.nowMs);
  authStoreOf(ctx.db).useOtp(otp.id, ctx.nowMs);
  const id = newId();
  const expiresMs = ctx.nowMs + VERIFICATION_TOKEN_TTL_MS;
  authStoreOf(ctx.db).insertToken({
    id,
    otp_id: otp.id,
    otp_type: otp.otp_type,
    contact: otp.contact,
    public_key: p.publicKey ?? null,
    expires_ms: expiresMs,
    consumed_ms: null,
  });
  const verificationToken = issueVerificationToken(
    {
      id,
      verification_type: otp.otp_type,
      contact: otp.contact,
      ...(p.publicKey !== undefined ? { public_key: p.publicKey } : {}),
      organization_id: authProxyConfig(ctx.store).parentOrganizationId,
      exp: String(expiresMs),
    },
    ctx.signer,
  );
  return { verificationToken };
};

type LoginRequest = Parameters<HandlerOf<"otpLoginV2">>[1];

/** The client signature must be made with the token's key over (token id, session key). */
function checkLoginSignature(p: LoginRequest, tokenId: string, boundKey: string | undefined): void {
  if (boundKey === undefined) {
    throw unauthenticated("verificationToken: binds no public key; pass publicKey to otp_verify to log in with otp_login_v2");
  }
  if (p.clientSignature.publicKey.toLowerCase() !== boundKey.toLowerCase()) {
    throw unauthenticated("clientSignature.publicKey: does not equal the public key bound in the verification token");
  }
  if (!clientSignatureValid(p.clientSignature)) {
    throw unauthenticated("clientSignature: the signature does not verify over the message with the public key");
  }
  const usage = signedUsage(p.clientSignature.message);
  const login = (usage?.login ?? usage?.loginV2) as { publicKey?: unknown } | undefined;
  if (usage?.tokenId !== tokenId) throw unauthenticated("clientSignature.message: must name the verification token's id (tokenId)");
  if (usage.type !== undefined && usage.type !== "USAGE_TYPE_LOGIN") {
    throw unauthenticated(`clientSignature.message: usage type ${JSON.stringify(usage.type)} is not USAGE_TYPE_LOGIN`);
  }
  if (typeof login?.publicKey !== "string" || login.publicKey.toLowerCase() !== p.publicKey.toLowerCase()) {
    throw unauthenticated("clientSignature.message: must name the session publicKey of the request (login.publicKey)");
  }
}

/** The user the token's contact belongs to: in `organizationId`, or found among the sub-organizations. */
function loginUser(ctx: BaseContext, p: LoginRequest, otpType: string, contact: string): UserRow {
  const { parentOrganizationId } = authProxyConfig(ctx.store);
  if (p.organizationId !== undefined) {
    const org = ctx.store.organizations.get(p.organizationId);
    if (!org) throw notFound(`organizationId: no organization found with id ${p.organizationId}`);
    if (org.id !== parentOrganizationId && org.parent_id !== parentOrganizationId) {
      throw permissionDenied(`organizationId: ${p.organizationId} is not served by this auth proxy configuration`);
    }
    const user = userOfContact(ctx.store, org.id, otpType, contact);
    if (!user) throw notFound(`organizationId: organization ${org.id} has no user with contact ${contact}`);
    return user;
  }
  const [user] = authStoreOf(ctx.db).usersByContact(parentOrganizationId, contactKind(otpType), contact);
  if (!user) throw notFound(`verificationToken: no organization has a user with contact ${contact}; sign up first`);
  return user;
}

export const otpLoginV2: HandlerOf<"otpLoginV2"> = (ctx, p) => {
  const claims = readVerificationToken(p.verificationToken, ctx.signer, ctx.nowMs);
  const auth = authStoreOf(ctx.db);
  const row = auth.token(claims.id);
  if (!row) throw unauthenticated("verificationToken: unknown token");
  if (row.consumed_ms !== null) throw unauthenticated("verificationToken: already used for a login; verify a new OTP");
  checkLoginSignature(p, claims.id, claims.public_key);
  validatePublicKey(p.publicKey, "API_KEY_CURVE_P256", "publicKey");
  const user = loginUser(ctx, p, claims.verification_type, claims.contact);
  auth.consumeToken(claims.id, ctx.nowMs);

  const keys = ctx.store.apiKeys.listForUser(user.org_id, user.id);
  if (p.invalidateExisting === true) {
    for (const key of keys) if (key.credential_type === SESSION_CREDENTIAL) ctx.store.apiKeys.delete(key.id);
  }
  const same = ctx.store.apiKeys.findInOrg(user.org_id, p.publicKey);
  if (same) {
    // Logging in again with the same session key renews that session.
    if (same.user_id !== user.id || same.credential_type !== SESSION_CREDENTIAL) {
      throw alreadyExists("publicKey: already registered in the organization as another credential");
    }
    ctx.store.apiKeys.delete(same.id);
  }
  const apiKeyId = newId();
  ctx.store.apiKeys.insert({
    id: apiKeyId,
    org_id: user.org_id,
    user_id: user.id,
    name: `Login session ${new Date(ctx.nowMs).toISOString()} ${apiKeyId.slice(0, 8)}`,
    public_key: p.publicKey,
    credential_type: SESSION_CREDENTIAL,
    expiration_seconds: String(SESSION_TTL_SECONDS),
    created_ms: ctx.nowMs,
    updated_ms: ctx.nowMs,
  });
  // The key stops stamping at createdAt.seconds + expirationSeconds; the session says the same.
  const expiresAtMs = Math.floor(ctx.nowMs / 1000) * 1000 + SESSION_TTL_SECONDS * 1000;
  ctx.log.info({ organizationId: user.org_id, userId: user.id, apiKeyId }, "otp_login_v2 opened a session");
  return { session: issueSession({ publicKey: p.publicKey, userId: user.id, organizationId: user.org_id, expiresAtMs }, ctx.signer) };
};

export const otpAuth: HandlerOf<"otpAuth"> = (ctx, p) => {
  const otp = requireUsableOtp(ctx.store, p.otpId, p.otpCode, ctx.nowMs);
  const user = userOfContact(ctx.store, ctx.organizationId, otp.otp_type, otp.contact);
  if (!user) throw notFound(`otpId: the code was sent to ${otp.contact}, who is not a user of organization ${ctx.organizationId}`);
  const name = p.apiKeyName ?? `OTP Auth - ${new Date(ctx.nowMs).toISOString()}`;
  if (name === "") throw invalidArgument("apiKeyName: must not be empty");

  const pair = generateP256KeyPair();
  let credentialBundle: string;
  try {
    credentialBundle = encryptCredentialBundle(pair.privateKey, p.targetPublicKey);
  } catch (error) {
    if (error instanceof CryptoError || error instanceof TypeError) {
      throw invalidArgument("targetPublicKey: not a P-256 public key (compressed or uncompressed hex)");
    }
    throw error;
  }
  authStoreOf(ctx.db).useOtp(otp.id, ctx.nowMs);
  if (p.invalidateExisting === true) {
    for (const key of ctx.store.apiKeys.listForUser(ctx.organizationId, user.id)) {
      if (key.credential_type === OTP_AUTH_CREDENTIAL) ctx.store.apiKeys.delete(key.id);
    }
  }
  if (ctx.store.apiKeys.findByName(user.id, name)) {
    throw alreadyExists(`apiKeyName: the user already has an API key named ${JSON.stringify(name)}`);
  }
  const apiKeyId = newId();
  ctx.store.apiKeys.insert({
    id: apiKeyId,
    org_id: ctx.organizationId,
    user_id: user.id,
    name,
    public_key: pair.publicKey,
    credential_type: OTP_AUTH_CREDENTIAL,
    expiration_seconds: p.expirationSeconds ?? OTP_AUTH_KEY_TTL_SECONDS,
    created_ms: ctx.nowMs,
    updated_ms: ctx.nowMs,
  });
  return { userId: user.id, apiKeyId, credentialBundle };
};

/** One message of the OTP outbox. */
export interface OutboxMessage {
  otpId: string;
  otpType: string;
  contact: string;
  code: string;
  /** ISO 8601. */
  sentAt: string;
  expiresAt: string;
  used: boolean;
}

/**
 * The newest sent codes (newest first), for `GET /_keyform/otp-outbox?contact=…&limit=…`.
 * @throws EmulatorError 400 naming `limit` if it is not 1..500
 */
export function otpOutbox(store: Store, query: { contact?: string; limit?: string }): { messages: OutboxMessage[] } {
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw invalidArgument("limit: must be a whole number from 1 to 500");
  const contact = query.contact === undefined || query.contact === "" ? undefined : query.contact.trim();
  return {
    messages: authStoreOf(store.db)
      .outbox(contact, limit)
      .map((r) => ({
        otpId: r.id,
        otpType: r.otp_type,
        contact: r.contact,
        code: r.code,
        sentAt: new Date(r.created_ms).toISOString(),
        expiresAt: new Date(r.expires_ms).toISOString(),
        used: r.used_ms !== null,
      })),
  };
}
