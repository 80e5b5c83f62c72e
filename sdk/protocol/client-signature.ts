/**
 * @module protocol/client-signature
 * The spec's `clientSignature` object (spec 2.1), scheme `CLIENT_SIGNATURE_SCHEME_API_P256`:
 * proof that the holder of a P-256 key approved a message (sign-up, OTP login at the proxy).
 *
 * Encoding convention: the spec does not fix it, so it is the same as an `X-Stamp` P-256
 * stamp: ECDSA P-256 over SHA-256 of the message's UTF-8 bytes, signature as ASN.1 DER in
 * lowercase hex, public key as compressed SEC1 in lowercase hex. Verification accepts high
 * and low S and compressed or uncompressed public keys, like stamp verification.
 */
import { p256 } from "@noble/curves/p256";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils";
import type { ClientSignature } from "../wire/shared";
import { parsePrivateKey, publicKeyBytes } from "./keys";

export type { ClientSignature } from "../wire/shared";

/** The only scheme the spec defines for `clientSignature`. */
export const CLIENT_SIGNATURE_SCHEME = "CLIENT_SIGNATURE_SCHEME_API_P256" as const;

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * Signs `message` with a P-256 private key and returns a complete `clientSignature` object.
 * @param message the exact string the server will check (e.g. the verification token's
 *   expected message); signed as UTF-8
 * @param privateKeyHex 32-byte P-256 scalar, 64 hex characters
 * @throws {TypeError} naming `privateKeyHex` if the key is malformed (the key is never printed)
 */
export function signClientMessage(message: string, privateKeyHex: string): ClientSignature {
  if (typeof message !== "string") throw new TypeError("message must be a string");
  const privateKey = parsePrivateKey(privateKeyHex, "API_KEY_CURVE_P256", "privateKeyHex");
  // Hash here and pass prehash: false, so the message is hashed exactly once.
  const signature = p256.sign(sha256(utf8ToBytes(message)), privateKey, { prehash: false, lowS: true });
  return {
    publicKey: bytesToHex(publicKeyBytes(privateKey, "API_KEY_CURVE_P256")),
    scheme: CLIENT_SIGNATURE_SCHEME,
    message,
    signature: signature.toDERHex(),
  };
}

/**
 * Checks a `clientSignature`: the scheme is `CLIENT_SIGNATURE_SCHEME_API_P256` and
 * `signature` verifies over `message` with `publicKey`. Returns `false` for anything
 * malformed (wrong scheme, bad hex, not a point, not DER) rather than throwing, so callers
 * can answer with their own field-naming error.
 */
export function verifyClientSignature(sig: ClientSignature): boolean {
  if (typeof sig !== "object" || sig === null) return false;
  const { publicKey, scheme, message, signature } = sig;
  if (scheme !== CLIENT_SIGNATURE_SCHEME || typeof message !== "string") return false;
  if (typeof publicKey !== "string" || !HEX.test(publicKey)) return false;
  if (typeof signature !== "string" || !HEX.test(signature) || signature.length > 144) return false;
  try {
    return p256.verify(hexToBytes(signature), sha256(utf8ToBytes(message)), hexToBytes(publicKey), {
      prehash: false,
      lowS: false,
      format: "der",
    });
  } catch {
    return false;
  }
}
