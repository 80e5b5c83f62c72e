import { describe, expect, it } from "vitest";
import {
  PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY,
  verifyOtpVerificationToken,
  verifySessionJwtSignature,
} from "@turnkey/crypto";
import {
  TokenError,
  parseSessionToken,
  signSessionToken,
  signToken,
  signVerificationToken,
  verifySessionToken,
  verifyToken,
  verifyVerificationToken,
} from "../../sdk/crypto/session-token";
import { generateP256KeyPair } from "../../sdk/crypto/p256";

const signer = generateP256KeyPair();
const client = generateP256KeyPair();
const nowSeconds = Math.floor(Date.now() / 1000);

const session = {
  exp: nowSeconds + 900,
  public_key: client.publicKey,
  session_type: "SESSION_TYPE_READ_WRITE",
  user_id: "user-1",
  organization_id: "org-1",
};
const verification = {
  id: "vt-1",
  exp: String(Date.now() + 600_000),
  verification_type: "OTP_TYPE_EMAIL",
  contact: "a@example.com",
  public_key: client.publicKey,
  organization_id: "org-1",
};

function reason(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof TokenError) return error.reason;
    throw error;
  }
  return undefined;
}

describe("tokens", () => {
  it("sessions verify here and with the official session verifier, and parse for clients", async () => {
    const token = signSessionToken(session, signer.privateKey);
    expect(token.split(".")[0]).toBe("eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9");
    expect(verifySessionToken(token, signer.publicKey)).toEqual(session);
    expect(verifyToken(token, signer.publicKeyUncompressed)).toEqual(session);
    expect(await verifySessionJwtSignature(token, signer.publicKeyUncompressed)).toBe(true);
    expect(await verifySessionJwtSignature(token, generateP256KeyPair().publicKeyUncompressed)).toBe(false);
    expect(parseSessionToken(token)).toEqual({
      sessionType: "SESSION_TYPE_READ_WRITE",
      userId: "user-1",
      organizationId: "org-1",
      expiry: session.exp,
      publicKey: client.publicKey,
      token,
    });
  });

  it("verify a real session issued by the service (known-answer vector)", () => {
    // Published in the official client's tests; signed by the production notarizer key.
    const jwt =
      "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9." +
      "eyJleHAiOjE3NDg4NzY4MzcsInB1YmxpY19rZXkiOiIwMzk5ZmUyYWNlNjIwOGFmMGFkZjg0OGY0NGJjNDgyMTBiNTk0YjdlNjllY2Q5MWVjOTY4ZmQ3NWIzYmI0NDgzMzYiLCJzZXNzaW9uX3R5cGUiOiJTRVNTSU9OX1RZUEVfUkVBRF9XUklURSIsInVzZXJfaWQiOiI2OTEyYjgxOS1mNGRmLTQwZjQtYTE5Mi0yMGVlNDMwOTA5NzQiLCJvcmdhbml6YXRpb25faWQiOiJjNzVlY2IwNy1jODRhLTRkZDUtOTMyYy01MzlkZmFmYzY4NjQifQ." +
      "y6LPW1jlTwc9jFcvCwKJoKfleL_vHnGUr5tRVdMFUCnHvDspSPZ3DWK85tf1znCCBFQ6MYaFOl-1FLb0KcFxqQ";
    const claims = verifySessionToken(jwt, PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY, { nowMs: 1748876837_000 - 1 });
    expect(claims.session_type).toBe("SESSION_TYPE_READ_WRITE");
    expect(reason(() => verifySessionToken(jwt, PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY))).toBe("expired");
    // The session scheme hashes twice: as a plain ES256 token it does not verify.
    expect(reason(() => verifyToken(jwt, PRODUCTION_NOTARIZER_SIGN_PUBLIC_KEY, { digest: "sha256", nowMs: 0 }))).toBe("signature");
    expect(parseSessionToken(jwt).userId).toBe("6912b819-f4df-40f4-a192-20ee43090974");
  });

  it("verification tokens verify here and with the official verifier", async () => {
    const token = signVerificationToken(verification, signer.privateKey);
    expect(verifyVerificationToken(token, signer.publicKey)).toEqual(verification);
    expect(await verifyOtpVerificationToken(token, signer.publicKeyUncompressed)).toEqual(verification);
    await expect(verifyOtpVerificationToken(token, generateP256KeyPair().publicKeyUncompressed)).rejects.toThrow(/signature/);
  });

  it("expire: seconds for numeric exp, milliseconds for string exp", async () => {
    const expiredSession = signSessionToken({ ...session, exp: nowSeconds - 1 }, signer.privateKey);
    expect(reason(() => verifySessionToken(expiredSession, signer.publicKey))).toBe("expired");
    expect(verifySessionToken(expiredSession, signer.publicKey, { nowMs: (nowSeconds - 2) * 1000 }).exp).toBe(nowSeconds - 1);

    const expiredVerification = signVerificationToken({ ...verification, exp: String(Date.now() - 1) }, signer.privateKey);
    expect(reason(() => verifyVerificationToken(expiredVerification, signer.publicKey))).toBe("expired");
    await expect(verifyOtpVerificationToken(expiredVerification, signer.publicKeyUncompressed)).rejects.toThrow(/expired/);

    const noExp = signToken({ sub: "x" }, signer.privateKey);
    expect(reason(() => verifyToken(noExp, signer.publicKey))).toBe("malformed");
  });

  it("refuse tampered claims, signatures, headers and other signers", () => {
    const token = signSessionToken(session, signer.privateKey);
    const [h, c, s] = token.split(".") as [string, string, string];
    const forgedClaims = Buffer.from(JSON.stringify({ ...session, user_id: "root" })).toString("base64url");
    expect(reason(() => verifyToken(`${h}.${forgedClaims}.${s}`, signer.publicKey))).toBe("signature");

    const sig = Buffer.from(s, "base64url");
    for (const index of [0, 31, 32, 63]) {
      const bad = Buffer.from(sig);
      bad[index] = (bad[index] as number) ^ 0x01;
      expect(reason(() => verifyToken(`${h}.${c}.${bad.toString("base64url")}`, signer.publicKey)), `byte ${index}`).toBe("signature");
    }
    const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    expect(reason(() => verifyToken(`${none}.${c}.${s}`, signer.publicKey))).toBe("malformed");
    expect(reason(() => verifyToken(token, generateP256KeyPair().publicKey))).toBe("signature");
    expect(reason(() => verifyToken("a.b", signer.publicKey))).toBe("malformed");
    // Each kind is pinned to its digest.
    expect(reason(() => verifyVerificationToken(token, signer.publicKey))).toBe("signature");
    expect(() => parseSessionToken(signVerificationToken(verification, signer.privateKey))).toThrow(/session_type/);
  });
});
