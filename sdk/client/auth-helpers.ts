/**
 * @module client/auth-helpers
 * Helpers for the end-user authentication flows (spec 4.2, 4.4 `otp_auth`, 5):
 *
 * - turn an `otp_auth` credential bundle into a usable {@link ApiKeyStamper};
 * - read a verification token or a session without verifying it (the client got it over TLS;
 *   the server is the one that checks signatures);
 * - build the `clientSignature` of `otp_login_v2` and `signup_v2` in the message format of the
 *   official clients: `{"login":{"publicKey":…},"tokenId":…,"type":"USAGE_TYPE_LOGIN"}` and
 *   `{"signupV2":{…},"tokenId":…,"type":"USAGE_TYPE_SIGNUP"}`, signed with the key bound in
 *   the verification token;
 * - check App Proofs offline ({@link verifyAppProof}).
 *
 * @example
 * const { verificationToken } = await proxy.otpVerify({ otpId, otpCode, publicKey: loginKey.publicKey });
 * const session = generateApiKeyPair();
 * const { session: token } = await proxy.otpLoginV2({
 *   verificationToken,
 *   publicKey: session.publicKey,
 *   clientSignature: otpLoginClientSignature({ verificationToken, sessionPublicKey: session.publicKey, privateKeyHex: loginKey.privateKey }),
 * });
 * const { organizationId } = parseSession(token);
 * const client = new KeyformClient({ baseUrl, organizationId, stamper: sessionStamper(session.privateKey) });
 */
import { decryptCredentialBundle } from "../crypto/bundles";
import { base64UrlDecode, fromUtf8 } from "../crypto/encoding";
import { parseSessionToken, type ParsedSession } from "../crypto/session-token";
import type { ParamsOf } from "../wire/registry";
import { ApiKeyStamper } from "../protocol/api-key-stamper";
import { signClientMessage, type ClientSignature } from "../protocol/client-signature";
import { publicKeyFromPrivateKey } from "../protocol/keys";

export { verifyAppProof, APP_PROOF_SCHEME, type AppProof, type AppProofPayload } from "../crypto/app-proofs";
export type { ParsedSession } from "../crypto/session-token";

/** The claims of a verification token (`otp_verify` result), read without verification. */
export interface VerificationTokenInfo {
  /** Token id; the client signature of otp_login_v2 names it. */
  id: string;
  /** `OTP_TYPE_EMAIL` or `OTP_TYPE_SMS`. */
  verificationType: string;
  contact: string;
  /** The public key bound at otp_verify, if any (compressed or uncompressed P-256 hex). */
  publicKey?: string;
  organizationId: string;
  /** Epoch milliseconds. */
  expiresAtMs: number;
}

/**
 * Reads a verification token's claims. Does not check its signature.
 * @throws {TypeError} if `token` is not a three-part token with the expected claims
 */
export function decodeVerificationToken(token: string): VerificationTokenInfo {
  if (typeof token !== "string") throw new TypeError("verificationToken must be a string");
  const parts = token.split(".");
  let claims: Record<string, unknown>;
  try {
    if (parts.length !== 3) throw new Error();
    claims = JSON.parse(fromUtf8(base64UrlDecode(parts[1] as string))) as Record<string, unknown>;
  } catch {
    throw new TypeError("verificationToken is not a signed token (header.claims.signature)");
  }
  const text = (name: string): string => {
    const value = claims[name];
    if (typeof value !== "string" || value === "") throw new TypeError(`verificationToken claim ${name} is missing`);
    return value;
  };
  const exp = claims.exp;
  const expiresAtMs = typeof exp === "number" ? exp * 1000 : Number(exp);
  if (!Number.isFinite(expiresAtMs)) throw new TypeError("verificationToken claim exp is missing");
  return {
    id: text("id"),
    verificationType: text("verification_type"),
    contact: text("contact"),
    ...(typeof claims.public_key === "string" && claims.public_key !== "" ? { publicKey: claims.public_key } : {}),
    organizationId: text("organization_id"),
    expiresAtMs,
  };
}

/**
 * Reads a session (`otp_login_v2` result `session`): type, user, organization, expiry (epoch
 * seconds) and public key. Does not check its signature.
 * @throws {TokenError} if it is not a session token
 */
export function parseSession(session: string): ParsedSession {
  return parseSessionToken(session);
}

/** The message of otp_login_v2's client signature (official client format). */
export function otpLoginMessage(verificationToken: string, sessionPublicKey: string): string {
  const { id } = decodeVerificationToken(verificationToken);
  return JSON.stringify({ login: { publicKey: sessionPublicKey }, tokenId: id, type: "USAGE_TYPE_LOGIN" });
}

function requireBoundKey(verificationToken: string, privateKeyHex: string): void {
  const bound = decodeVerificationToken(verificationToken).publicKey;
  if (bound === undefined) throw new TypeError("verificationToken binds no public key; pass publicKey to otp_verify");
  const own = publicKeyFromPrivateKey(privateKeyHex, "API_KEY_CURVE_P256");
  if (bound.toLowerCase() !== own.toLowerCase()) {
    throw new TypeError("privateKeyHex is not the key bound in the verification token");
  }
}

/**
 * The `clientSignature` of `otp_login_v2`: signed with the key bound at otp_verify, over the
 * token id and the new session public key.
 * @param params.privateKeyHex the private key behind the `publicKey` given to otp_verify
 * @throws {TypeError} if the token binds no key or another key (the key is never printed)
 */
export function otpLoginClientSignature(params: { verificationToken: string; sessionPublicKey: string; privateKeyHex: string }): ClientSignature {
  requireBoundKey(params.verificationToken, params.privateKeyHex);
  return signClientMessage(otpLoginMessage(params.verificationToken, params.sessionPublicKey), params.privateKeyHex);
}

/**
 * The `clientSignature` of `signup_v2` when the verification token binds a key: over the
 * token id and the root user's parameters (`signupV2`: e-mail/phone, API keys, authenticators,
 * OAuth providers, as in the body).
 * @throws {TypeError} if the token binds no key or another key
 */
export function signupClientSignature(params: {
  verificationToken: string;
  body: Omit<ParamsOf<"signupV2">, "clientSignature">;
  privateKeyHex: string;
}): ClientSignature {
  requireBoundKey(params.verificationToken, params.privateKeyHex);
  const { body } = params;
  const signupV2: Record<string, unknown> = {
    apiKeys: body.apiKeys,
    authenticators: body.authenticators,
    oauthProviders: body.oauthProviders,
  };
  if (body.userEmail) signupV2.email = body.userEmail;
  if (body.userPhoneNumber) signupV2.phoneNumber = body.userPhoneNumber;
  const message = JSON.stringify({ signupV2, tokenId: decodeVerificationToken(params.verificationToken).id, type: "USAGE_TYPE_SIGNUP" });
  return signClientMessage(message, params.privateKeyHex);
}

/** The API key an `otp_auth` credential bundle delivers. */
export interface DeliveredApiKey {
  /** Secret, hex. Never log it. */
  apiPrivateKey: string;
  /** Compressed P-256 public key, hex (the key registered on the server). */
  apiPublicKey: string;
}

/**
 * Decrypts an `otp_auth` (or e-mail auth) credential bundle with the private key behind the
 * `targetPublicKey` the activity was given.
 * @throws {CryptoError} if the bundle is malformed or was encrypted to another key
 */
export function decryptCredentialBundleToApiKey(credentialBundle: string, targetPrivateKeyHex: string): DeliveredApiKey {
  const apiPrivateKey = decryptCredentialBundle(credentialBundle, targetPrivateKeyHex);
  return { apiPrivateKey, apiPublicKey: publicKeyFromPrivateKey(apiPrivateKey, "API_KEY_CURVE_P256") };
}

/**
 * A stamper for the API key a credential bundle delivers, ready for `new KeyformClient({ stamper })`.
 * @throws {CryptoError} as {@link decryptCredentialBundleToApiKey}
 */
export function stamperFromCredentialBundle(credentialBundle: string, targetPrivateKeyHex: string): ApiKeyStamper {
  return new ApiKeyStamper(decryptCredentialBundleToApiKey(credentialBundle, targetPrivateKeyHex));
}

/** A stamper for a login session key (the private key behind otp_login_v2's `publicKey`). */
export function sessionStamper(sessionPrivateKeyHex: string): ApiKeyStamper {
  return new ApiKeyStamper({
    apiPrivateKey: sessionPrivateKeyHex,
    apiPublicKey: publicKeyFromPrivateKey(sessionPrivateKeyHex, "API_KEY_CURVE_P256"),
  });
}
