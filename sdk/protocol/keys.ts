/**
 * @module protocol/keys
 * API key pairs for the three API key curves (spec 2.11) and the names that go with each
 * curve: the credential type stored on the server and the `X-Stamp` scheme.
 *
 * Encodings (docs/service-facts.md#11-api-key-stamp-x-stamp, #12-other-api-key-curves-and-schemes), all lowercase hex:
 * - P-256 and SECP256K1: private key = the 32-byte scalar; public key = compressed SEC1
 *   point (33 bytes, `02`/`03` prefix, 66 hex characters).
 * - ED25519: private key = the 32-byte seed (RFC 8032); public key = the 32-byte encoded
 *   point (64 hex characters).
 */
import { createECDH } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import type { ApiKeyCurve, CredentialType, StampScheme } from "../wire/enums";

/** The curve used when none is given, as in the official clients. */
export const DEFAULT_API_KEY_CURVE: ApiKeyCurve = "API_KEY_CURVE_P256";

/** A freshly generated API key pair, hex-encoded as described in the module comment. */
export interface ApiKeyPair {
  /** Private key hex (64 characters). Secret: never log it. */
  readonly privateKey: string;
  /** Public key hex: compressed SEC1 (66 characters) or ed25519 (64 characters). */
  readonly publicKey: string;
  readonly curve: ApiKeyCurve;
}

const SCHEME_BY_CURVE: Readonly<Record<ApiKeyCurve, StampScheme>> = {
  API_KEY_CURVE_P256: "SIGNATURE_SCHEME_TK_API_P256",
  API_KEY_CURVE_SECP256K1: "SIGNATURE_SCHEME_TK_API_SECP256K1",
  API_KEY_CURVE_ED25519: "SIGNATURE_SCHEME_TK_API_ED25519",
};

const CREDENTIAL_TYPE_BY_CURVE: Readonly<Record<ApiKeyCurve, CredentialType>> = {
  API_KEY_CURVE_P256: "CREDENTIAL_TYPE_API_KEY_P256",
  API_KEY_CURVE_SECP256K1: "CREDENTIAL_TYPE_API_KEY_SECP256K1",
  API_KEY_CURVE_ED25519: "CREDENTIAL_TYPE_API_KEY_ED25519",
};

/** Length in bytes of an encoded public key, per curve. */
export const PUBLIC_KEY_BYTES: Readonly<Record<ApiKeyCurve, number>> = {
  API_KEY_CURVE_P256: 33,
  API_KEY_CURVE_SECP256K1: 33,
  API_KEY_CURVE_ED25519: 32,
};

const HEX_64 = /^[0-9a-fA-F]{64}$/;

/** Throws a `TypeError` for a curve outside the `ApiKeyCurve` enum. */
function assertCurve(curve: unknown, field: string): asserts curve is ApiKeyCurve {
  if (typeof curve !== "string" || !Object.prototype.hasOwnProperty.call(SCHEME_BY_CURVE, curve)) {
    throw new TypeError(
      `${field} must be one of ${Object.keys(SCHEME_BY_CURVE).join(", ")}, got ${JSON.stringify(curve)}`,
    );
  }
}

/**
 * The `X-Stamp` scheme for a curve (`API_KEY_CURVE_P256` → `SIGNATURE_SCHEME_TK_API_P256`).
 * @throws {TypeError} if `curve` is not an API key curve
 */
export function schemeForCurve(curve: ApiKeyCurve): StampScheme {
  assertCurve(curve, "curve");
  return SCHEME_BY_CURVE[curve];
}

/**
 * The API key curve a stamp scheme signs with, or `undefined` for a scheme that is not an
 * API key scheme (including `SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191`, a wallet scheme).
 */
export function curveForScheme(scheme: string): ApiKeyCurve | undefined {
  switch (scheme) {
    case "SIGNATURE_SCHEME_TK_API_P256":
      return "API_KEY_CURVE_P256";
    case "SIGNATURE_SCHEME_TK_API_SECP256K1":
      return "API_KEY_CURVE_SECP256K1";
    case "SIGNATURE_SCHEME_TK_API_ED25519":
      return "API_KEY_CURVE_ED25519";
    default:
      return undefined;
  }
}

/**
 * The credential type the server records for an API key on `curve`
 * (`API_KEY_CURVE_SECP256K1` → `CREDENTIAL_TYPE_API_KEY_SECP256K1`).
 * @throws {TypeError} if `curve` is not an API key curve
 */
export function credentialTypeForCurve(curve: ApiKeyCurve): CredentialType {
  assertCurve(curve, "curve");
  return CREDENTIAL_TYPE_BY_CURVE[curve];
}

/**
 * Decodes and range-checks a private key. Internal to the client: the stamper passes its own
 * field name so that errors point at `apiPrivateKey`.
 *
 * The message names `field` and the expected form, never the key itself.
 * @throws {TypeError} if the key is not 64 hex characters or not a valid scalar/seed
 */
export function parsePrivateKey(privateKeyHex: unknown, curve: ApiKeyCurve, field: string): Uint8Array {
  if (typeof privateKeyHex !== "string" || !HEX_64.test(privateKeyHex)) {
    throw new TypeError(`${field} must be a 32-byte private key as 64 hex characters`);
  }
  const bytes = hexToBytes(privateKeyHex);
  // Every 32-byte string is a valid ed25519 seed; ECDSA scalars must lie in [1, n-1].
  if (curve === "API_KEY_CURVE_P256" && !p256.utils.isValidSecretKey(bytes)) {
    throw new TypeError(`${field} is not a valid P-256 private key (must be in [1, n-1])`);
  }
  if (curve === "API_KEY_CURVE_SECP256K1" && !secp256k1.utils.isValidSecretKey(bytes)) {
    throw new TypeError(`${field} is not a valid secp256k1 private key (must be in [1, n-1])`);
  }
  return bytes;
}

/** Public key bytes for already-validated private key bytes. */
export function publicKeyBytes(privateKey: Uint8Array, curve: ApiKeyCurve): Uint8Array {
  return curve === "API_KEY_CURVE_ED25519" ? ed25519.getPublicKey(privateKey) : ecdsaPublicKey(privateKey, curve, true);
}

/** OpenSSL's names of the ECDSA API key curves. */
const OPENSSL_CURVE = { API_KEY_CURVE_P256: "prime256v1", API_KEY_CURVE_SECP256K1: "secp256k1" } as const;

/**
 * The SEC1 public point (compressed: 33 bytes; else 65) of an already-validated ECDSA private
 * key. Computed by `node:crypto` when this Node.js build has the curve: the pure-JS curves build
 * their precomputed tables on first use, about 120 ms that every provider process would pay
 * before its first request. Falls back to the pure-JS curve otherwise.
 */
export function ecdsaPublicKey(privateKey: Uint8Array, curve: Exclude<ApiKeyCurve, "API_KEY_CURVE_ED25519">, compressed: boolean): Uint8Array {
  try {
    const ecdh = createECDH(OPENSSL_CURVE[curve]);
    ecdh.setPrivateKey(privateKey);
    return new Uint8Array(ecdh.getPublicKey(null, compressed ? "compressed" : "uncompressed"));
  } catch {
    return (curve === "API_KEY_CURVE_P256" ? p256 : secp256k1).getPublicKey(privateKey, compressed);
  }
}

/**
 * Derives the public key (lowercase hex, encoding per curve) from a private key.
 * @param privateKeyHex 64 hex characters (either case)
 * @param curve defaults to `API_KEY_CURVE_P256`
 * @throws {TypeError} naming `privateKeyHex` if the key is malformed or out of range (the
 *   message never contains the key), or naming `curve` if the curve is unknown
 */
export function publicKeyFromPrivateKey(privateKeyHex: string, curve: ApiKeyCurve = DEFAULT_API_KEY_CURVE): string {
  assertCurve(curve, "curve");
  return bytesToHex(publicKeyBytes(parsePrivateKey(privateKeyHex, curve, "privateKeyHex"), curve));
}

/**
 * Generates an API key pair on `curve` from the platform CSPRNG.
 * @param curve defaults to `API_KEY_CURVE_P256`
 * @throws {TypeError} if `curve` is not an API key curve
 */
export function generateApiKeyPair(curve: ApiKeyCurve = DEFAULT_API_KEY_CURVE): ApiKeyPair {
  assertCurve(curve, "curve");
  let privateKey: Uint8Array;
  switch (curve) {
    case "API_KEY_CURVE_P256":
      privateKey = p256.utils.randomSecretKey();
      break;
    case "API_KEY_CURVE_SECP256K1":
      privateKey = secp256k1.utils.randomSecretKey();
      break;
    case "API_KEY_CURVE_ED25519":
      privateKey = ed25519.utils.randomSecretKey();
      break;
  }
  return { privateKey: bytesToHex(privateKey), publicKey: bytesToHex(publicKeyBytes(privateKey, curve)), curve };
}
