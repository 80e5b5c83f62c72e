/**
 * @module crypto/p256
 * P-256 helpers shared by the crypto modules: key generation, public-key normalisation
 * (SEC1 compressed 33 bytes / uncompressed 65 bytes), ECDSA-SHA256 signing and verification
 * with DER or raw `r||s` signatures. ECDSA here never normalises S (the service and the
 * official clients accept high S), so verification accepts both halves.
 */
import { p256 } from "@noble/curves/nist";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, hexToBytes } from "./encoding";
import { CryptoError } from "./errors";

/** A P-256 key pair, all hex: 32-byte scalar, compressed and uncompressed SEC1 points. */
export interface P256KeyPair {
  privateKey: string;
  publicKey: string;
  publicKeyUncompressed: string;
}

/** Makes a fresh P-256 key pair from the platform CSPRNG. */
export function generateP256KeyPair(): P256KeyPair {
  const secret = p256.utils.randomPrivateKey();
  return {
    privateKey: bytesToHex(secret),
    publicKey: bytesToHex(p256.getPublicKey(secret, true)),
    publicKeyUncompressed: bytesToHex(p256.getPublicKey(secret, false)),
  };
}

/**
 * Decodes and range-checks a 32-byte P-256 private key given as hex.
 * @throws {TypeError} if not a string
 * @throws {CryptoError} if not 32 bytes of hex in [1, n-1] (the message never shows the key)
 */
export function parsePrivateKey(privateKeyHex: string, field = "privateKeyHex"): Uint8Array {
  if (typeof privateKeyHex !== "string") throw new TypeError(`${field} must be a hex string`);
  let bytes: Uint8Array;
  try {
    bytes = hexToBytes(privateKeyHex, field);
  } catch {
    throw new CryptoError(`${field} must be 32 bytes of hex`, field);
  }
  if (bytes.length !== 32 || !p256.utils.isValidPrivateKey(bytes)) {
    throw new CryptoError(`${field} must be a 32-byte P-256 private key`, field);
  }
  return bytes;
}

/**
 * Decodes a P-256 public key (hex, compressed or uncompressed SEC1) and checks it is on the
 * curve.
 * @param compressed output form: 33 bytes when true, 65 bytes when false
 * @throws {TypeError} if `publicKey` is neither a string nor bytes
 * @throws {CryptoError} if it is not a valid P-256 point
 */
export function parsePublicKey(
  publicKey: string | Uint8Array,
  compressed: boolean,
  field = "publicKey",
): Uint8Array {
  const bytes = typeof publicKey === "string" ? hexToBytes(publicKey, field) : publicKey;
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${field} must be a hex string or bytes`);
  try {
    return p256.ProjectivePoint.fromHex(bytes).toRawBytes(compressed);
  } catch {
    throw new CryptoError(`${field} is not a valid P-256 public key (SEC1, 33 or 65 bytes)`, field);
  }
}

/** Public key of a private key. @throws {CryptoError} on an invalid private key */
export function publicKeyOf(privateKeyHex: string, compressed: boolean, field = "privateKeyHex"): Uint8Array {
  return p256.getPublicKey(parsePrivateKey(privateKeyHex, field), compressed);
}

/** ECDH: the 32-byte x coordinate of `secret * publicKey` (the DH output of RFC 9180 §7.1.1). */
export function ecdhX(secret: Uint8Array, publicKey: Uint8Array): Uint8Array {
  return p256.getSharedSecret(secret, publicKey, true).slice(1);
}

/** Signature encodings this layer speaks. */
export type SignatureEncoding = "der" | "raw";

/**
 * ECDSA P-256 over SHA-256(`message`).
 * @param encoding `der` (ASN.1) or `raw` (64-byte r||s)
 */
export function signSha256(message: Uint8Array, secret: Uint8Array, encoding: SignatureEncoding): Uint8Array {
  return signDigest(sha256(message), secret, encoding);
}

/** ECDSA P-256 over a 32-byte digest given as is (no further hashing). */
export function signDigest(digest: Uint8Array, secret: Uint8Array, encoding: SignatureEncoding): Uint8Array {
  const sig = p256.sign(digest, secret, { prehash: false, lowS: false });
  return encoding === "der" ? sig.toDERRawBytes() : sig.toCompactRawBytes();
}

/**
 * Verifies an ECDSA P-256 signature over a 32-byte digest. Returns false (never throws) for a
 * malformed signature or key, so untrusted data cannot crash the caller.
 */
export function verifyDigest(
  signature: Uint8Array,
  digest: Uint8Array,
  publicKey: Uint8Array,
  encoding: SignatureEncoding,
): boolean {
  try {
    if (encoding === "raw" && signature.length !== 64) return false;
    return p256.verify(signature, digest, publicKey, {
      prehash: false,
      lowS: false,
      format: encoding === "der" ? "der" : "compact",
    });
  } catch {
    return false;
  }
}

/** Verifies an ECDSA P-256 signature over SHA-256(`message`); false on any malformed input. */
export function verifySha256(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
  encoding: SignatureEncoding,
): boolean {
  return verifyDigest(signature, sha256(message), publicKey, encoding);
}
