/**
 * @module emulator/handlers/auth-tokens
 * The two signed tokens of the OTP flow, issued and checked with the emulator's signing key
 * (`signerPublicKey` in bootstrap.json, so clients can verify them):
 *
 * - verification token (otp_verify → signup_v2 / otp_login_v2): standard ES256 JWS, claims
 *   `id`, `verification_type`, `contact`, `public_key` (when one was bound), `organization_id`
 *   (the auth proxy's parent organization), `exp` (epoch ms, string);
 * - session (otp_login_v2): claims `exp` (epoch s), `public_key`, `session_type`, `user_id`,
 *   `organization_id`, in the service's double-SHA-256 session scheme.
 */
import {
  signSessionToken,
  signToken,
  signVerificationToken,
  TokenError,
  verifyToken,
  type VerificationTokenClaims,
} from "keyform/crypto";
import { unauthenticated } from "../errors";
import type { SignerKey } from "./types";

/** Claims of a verification token as the emulator reads them (`public_key` may be absent). */
export type VerificationClaims = Omit<VerificationTokenClaims, "public_key"> & { public_key?: string };

/** Signs a verification token; without a bound key the `public_key` claim is left out. */
export function issueVerificationToken(claims: VerificationClaims, signer: SignerKey): string {
  if (claims.public_key !== undefined) return signVerificationToken(claims as VerificationTokenClaims, signer.privateKey);
  const { id, verification_type, contact, organization_id, exp } = claims;
  return signToken({ id, verification_type, contact, organization_id, exp }, signer.privateKey, { digest: "sha256" });
}

/**
 * Verifies a verification token made by this emulator.
 * @throws EmulatorError 401 code 16 naming `field` (malformed, forged or expired)
 */
export function readVerificationToken(token: string, signer: SignerKey, nowMs: number, field = "verificationToken"): VerificationClaims {
  let claims: Record<string, unknown>;
  try {
    claims = verifyToken(token, signer.publicKey, { digest: "sha256", nowMs });
  } catch (error) {
    const why = error instanceof TokenError ? error.message : "not a verification token";
    throw unauthenticated(`${field}: ${why}`);
  }
  for (const name of ["id", "verification_type", "contact", "organization_id", "exp"]) {
    if (typeof claims[name] !== "string" || claims[name] === "") throw unauthenticated(`${field}: claim ${name} is missing`);
  }
  if (claims.public_key !== undefined && typeof claims.public_key !== "string") {
    throw unauthenticated(`${field}: claim public_key is not a string`);
  }
  return claims as unknown as VerificationClaims;
}

/** Signs a read-write session for `publicKey`. */
export function issueSession(
  input: { publicKey: string; userId: string; organizationId: string; expiresAtMs: number },
  signer: SignerKey,
): string {
  return signSessionToken(
    {
      exp: Math.floor(input.expiresAtMs / 1000),
      public_key: input.publicKey,
      session_type: "SESSION_TYPE_READ_WRITE",
      user_id: input.userId,
      organization_id: input.organizationId,
    },
    signer.privateKey,
  );
}
