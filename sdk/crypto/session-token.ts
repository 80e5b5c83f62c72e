/**
 * @module crypto/session-token
 * Signed tokens of the OTP flow, as compact JWS texts `base64url(header).base64url(claims).
 * base64url(signature)` with header `{"alg":"ES256","typ":"JWT"}` and a 64-byte raw `r||s`
 * ECDSA P-256 signature. Two kinds, each in the format the official client verifies:
 *
 * - **Verification token** (from `otp_verify`, consumed by `otp_login_v2`): a standard ES256
 *   JWS (signature over SHA-256 of `header.claims`); claims `id`, `verification_type`
 *   (`OTP_TYPE_EMAIL` / `OTP_TYPE_SMS`), `contact`, `public_key`, `organization_id`, and
 *   `exp` as a decimal string of epoch **milliseconds**. `@turnkey/crypto`
 *   `verifyOtpVerificationToken(token, signerPublicKey)` accepts it.
 * - **Session** (from `otp_login_v2`): claims `exp` (number, epoch **seconds**),
 *   `public_key`, `session_type` (`SESSION_TYPE_READ_WRITE` / `SESSION_TYPE_READ_ONLY`),
 *   `user_id`, `organization_id`; signed over SHA-256(SHA-256(`header.claims`)), the
 *   service's session scheme, which `verifySessionJwtSignature(token, signerPublicKey)`
 *   accepts.
 *
 * Expiry convention of {@link verifyToken}: a numeric `exp` is seconds, a string `exp` is
 * milliseconds (the two official formats above).
 */
import { sha256 } from "@noble/hashes/sha2";
import { base64UrlDecode, base64UrlEncode, fromUtf8, utf8 } from "./encoding";
import { CryptoError } from "./errors";
import { parsePrivateKey, parsePublicKey, signDigest, verifyDigest } from "./p256";

/** How the signing input is hashed: once (standard ES256) or twice (session tokens). */
export type TokenDigest = "sha256" | "double-sha256";

/** Why a token was refused. */
export type TokenErrorReason = "malformed" | "signature" | "expired";

/** A token that is malformed, not signed by the expected key, or expired. */
export class TokenError extends CryptoError {
  readonly reason: TokenErrorReason;

  constructor(message: string, reason: TokenErrorReason, field = "token") {
    super(message, field);
    this.name = "TokenError";
    this.reason = reason;
  }
}

const HEADER_B64 = base64UrlEncode(utf8(JSON.stringify({ alg: "ES256", typ: "JWT" })));

/** Claims of a session (`otp_login_v2` result `session`). */
export interface SessionTokenClaims {
  /** Epoch seconds. */
  exp: number;
  /** The session's public key, compressed P-256 hex. */
  public_key: string;
  /** `SESSION_TYPE_READ_WRITE` or `SESSION_TYPE_READ_ONLY`. */
  session_type: string;
  user_id: string;
  organization_id: string;
}

/** Claims of a verification token (`otp_verify` result `verificationToken`). */
export interface VerificationTokenClaims {
  /** Unique token id (the server consumes each once). */
  id: string;
  /** Epoch milliseconds as a decimal string. */
  exp: string;
  /** `OTP_TYPE_EMAIL` or `OTP_TYPE_SMS`. */
  verification_type: string;
  /** The verified email address or phone number. */
  contact: string;
  /** The client key bound to the token; `otp_login_v2`'s clientSignature must use it. */
  public_key: string;
  /** The organization the contact belongs to. */
  organization_id: string;
}

/** A session as a client sees it (camelCase, like the official `Session` type). */
export interface ParsedSession {
  sessionType: string;
  userId: string;
  organizationId: string;
  /** Epoch seconds. */
  expiry: number;
  publicKey: string;
  token: string;
}

function digestOf(signingInput: string, digest: TokenDigest): Uint8Array {
  const once = sha256(utf8(signingInput));
  return digest === "sha256" ? once : sha256(once);
}

/** Options of {@link signToken}. */
export interface SignTokenOptions {
  /** Default `sha256` (standard ES256). */
  digest?: TokenDigest;
}

/**
 * Signs claims into a compact token. Claims keep their insertion order.
 * @throws {TypeError} if `claims` is not a plain object
 * @throws {CryptoError} if the private key is malformed
 */
export function signToken(claims: object, signerPrivateKeyHex: string, options: SignTokenOptions = {}): string {
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) {
    throw new TypeError("claims must be an object");
  }
  const secret = parsePrivateKey(signerPrivateKeyHex, "signerPrivateKeyHex");
  const signingInput = `${HEADER_B64}.${base64UrlEncode(utf8(JSON.stringify(claims)))}`;
  const signature = signDigest(digestOf(signingInput, options.digest ?? "sha256"), secret, "raw");
  return `${signingInput}.${base64UrlEncode(signature)}`;
}

interface DecodedToken {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signingInput: string;
  signature: Uint8Array;
}

function decodeToken(token: string): DecodedToken {
  if (typeof token !== "string") throw new TypeError("token must be a string");
  const parts = token.split(".");
  if (parts.length !== 3) throw new TokenError("token must have three dot-separated parts", "malformed");
  const [h, c, s] = parts as [string, string, string];
  const json = (part: string, name: string): Record<string, unknown> => {
    let value: unknown;
    try {
      value = JSON.parse(fromUtf8(base64UrlDecode(part, `token.${name}`), `token.${name}`));
    } catch {
      throw new TokenError(`token ${name} is not base64url JSON`, "malformed", `token.${name}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new TokenError(`token ${name} is not a JSON object`, "malformed", `token.${name}`);
    }
    return value as Record<string, unknown>;
  };
  let signature: Uint8Array;
  try {
    signature = base64UrlDecode(s, "token.signature");
  } catch {
    throw new TokenError("token signature is not base64url", "malformed", "token.signature");
  }
  return { header: json(h, "header"), claims: json(c, "claims"), signingInput: `${h}.${c}`, signature };
}

/**
 * Reads `exp` as epoch milliseconds: a number is seconds, a decimal string is milliseconds.
 * @throws {TokenError} (`malformed`) if `exp` is missing or neither form
 */
export function tokenExpiryMs(claims: Record<string, unknown>): number {
  const exp = claims.exp;
  if (typeof exp === "number" && Number.isFinite(exp)) return exp * 1000;
  if (typeof exp === "string" && /^\d{1,16}$/.test(exp)) return Number(exp);
  throw new TokenError("token claims.exp must be epoch seconds (number) or epoch milliseconds (string)", "malformed", "token.claims.exp");
}

/** Options of {@link verifyToken}. */
export interface VerifyTokenOptions {
  /** Accept only this digest; default either (each token kind uses one, see the module doc). */
  digest?: TokenDigest;
  /** The current time in epoch ms; default `Date.now()`. */
  nowMs?: number;
}

/**
 * Verifies a token's header, signature and expiry and returns its claims.
 * @param signerPublicKeyHex the signing key, hex, compressed or uncompressed
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} if `signerPublicKeyHex` is malformed
 * @throws {TokenError} with `reason` `malformed`, `signature` or `expired`
 */
export function verifyToken(token: string, signerPublicKeyHex: string, options: VerifyTokenOptions = {}): Record<string, unknown> {
  const publicKey = parsePublicKey(signerPublicKeyHex, false, "signerPublicKeyHex");
  const decoded = decodeToken(token);
  if (decoded.header.alg !== "ES256") {
    throw new TokenError(`token header.alg must be "ES256", got ${JSON.stringify(decoded.header.alg)}`, "malformed", "token.header.alg");
  }
  const digests: TokenDigest[] = options.digest ? [options.digest] : ["sha256", "double-sha256"];
  const valid = digests.some((d) => verifyDigest(decoded.signature, digestOf(decoded.signingInput, d), publicKey, "raw"));
  if (!valid) throw new TokenError("token signature does not verify with the signer key", "signature", "token.signature");
  if (tokenExpiryMs(decoded.claims) <= (options.nowMs ?? Date.now())) {
    throw new TokenError("token has expired", "expired", "token.claims.exp");
  }
  return decoded.claims;
}

function requireStrings<K extends string>(claims: Record<string, unknown>, names: readonly K[]): void {
  for (const name of names) {
    if (typeof claims[name] !== "string" || claims[name] === "") {
      throw new TokenError(`token claims.${name} is missing or not a string`, "malformed", `token.claims.${name}`);
    }
  }
}

/**
 * Signs a session (double-SHA-256 scheme). Claims are written in the service's order.
 * @throws {CryptoError} if the private key is malformed
 */
export function signSessionToken(claims: SessionTokenClaims, signerPrivateKeyHex: string): string {
  const { exp, public_key, session_type, user_id, organization_id } = claims;
  return signToken({ exp, public_key, session_type, user_id, organization_id }, signerPrivateKeyHex, {
    digest: "double-sha256",
  });
}

/**
 * Verifies a session and checks its claims.
 * @throws {TokenError} as {@link verifyToken}, or `malformed` if a session claim is missing
 */
export function verifySessionToken(token: string, signerPublicKeyHex: string, options: Omit<VerifyTokenOptions, "digest"> = {}): SessionTokenClaims {
  const claims = verifyToken(token, signerPublicKeyHex, { ...options, digest: "double-sha256" });
  requireStrings(claims, ["public_key", "session_type", "user_id", "organization_id"]);
  if (typeof claims.exp !== "number") throw new TokenError("session claims.exp must be a number", "malformed", "token.claims.exp");
  return claims as unknown as SessionTokenClaims;
}

/**
 * Signs a verification token (standard ES256). Claims are written in a fixed order.
 * @throws {CryptoError} if the private key is malformed
 */
export function signVerificationToken(claims: VerificationTokenClaims, signerPrivateKeyHex: string): string {
  const { id, verification_type, contact, public_key, organization_id, exp } = claims;
  return signToken({ id, verification_type, contact, public_key, organization_id, exp }, signerPrivateKeyHex, {
    digest: "sha256",
  });
}

/**
 * Verifies a verification token and checks its claims.
 * @throws {TokenError} as {@link verifyToken}, or `malformed` if a claim is missing
 */
export function verifyVerificationToken(token: string, signerPublicKeyHex: string, options: Omit<VerifyTokenOptions, "digest"> = {}): VerificationTokenClaims {
  const claims = verifyToken(token, signerPublicKeyHex, { ...options, digest: "sha256" });
  requireStrings(claims, ["id", "verification_type", "contact", "public_key", "organization_id", "exp"]);
  return claims as unknown as VerificationTokenClaims;
}

/**
 * Reads a session's claims without checking its signature or expiry (for clients, which
 * trust the TLS channel the session came from).
 * @throws {TypeError} if `token` is not a string
 * @throws {TokenError} (`malformed`) if it is not a token with the session claims
 */
export function parseSessionToken(token: string): ParsedSession {
  const { claims } = decodeToken(token);
  requireStrings(claims, ["public_key", "session_type", "user_id", "organization_id"]);
  if (typeof claims.exp !== "number" || !Number.isFinite(claims.exp)) {
    throw new TokenError("session claims.exp must be a number", "malformed", "token.claims.exp");
  }
  return {
    sessionType: claims.session_type as string,
    userId: claims.user_id as string,
    organizationId: claims.organization_id as string,
    expiry: claims.exp,
    publicKey: claims.public_key as string,
    token,
  };
}
