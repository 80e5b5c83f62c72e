/**
 * @module crypto/hpke
 * HPKE (RFC 9180) base mode as the service uses it for credential and export bundles:
 *
 * - suite: DHKEM(P-256, HKDF-SHA256) (0x0010), HKDF-SHA256 (0x0001), AES-256-GCM (0x0002);
 * - `info` = the ASCII bytes of `"turnkey_hpke"`;
 * - AEAD additional data = encapsulated key (65-byte uncompressed) || recipient public key
 *   (65-byte uncompressed), the service's own choice on top of RFC 9180;
 * - one message per context (sequence number 0, so the nonce is the base nonce);
 * - ciphertext = AES-GCM output with the 16-byte tag appended.
 *
 * These are the values `@turnkey/crypto` hard-codes (its `AES_KEY_INFO`/`IV_INFO` constants
 * are the key-schedule contexts derived from that `info`), so bundles made here decrypt with
 * the official client functions and the other way round.
 *
 * Written here rather than with `@hpke/core`, whose WebCrypto API is asynchronous while bundles
 * are made inside the emulator's synchronous transactions (README.md, "Dependencies").
 */
import { createCipheriv, createDecipheriv } from "node:crypto";
import { p256 } from "@noble/curves/nist";
import { expand, extract } from "@noble/hashes/hkdf";
import { sha256 } from "@noble/hashes/sha2";
import { concatBytes, utf8 } from "./encoding";
import { CryptoError } from "./errors";
import { ecdhX, parsePrivateKey, parsePublicKey } from "./p256";

/** The HPKE `info` string of the service. */
export const HPKE_INFO = "turnkey_hpke";

const KEM_SUITE_ID = concatBytes(utf8("KEM"), new Uint8Array([0x00, 0x10]));
const HPKE_SUITE_ID = concatBytes(utf8("HPKE"), new Uint8Array([0x00, 0x10, 0x00, 0x01, 0x00, 0x02]));
const MODE_BASE = 0x00;
const NK = 32; // AES-256 key
const NN = 12; // GCM nonce
const TAG_LENGTH = 16;

function i2osp2(n: number): Uint8Array {
  return new Uint8Array([(n >> 8) & 0xff, n & 0xff]);
}

/** RFC 9180 §4: LabeledExtract. */
function labeledExtract(suiteId: Uint8Array, salt: Uint8Array, label: string, ikm: Uint8Array): Uint8Array {
  return extract(sha256, concatBytes(utf8("HPKE-v1"), suiteId, utf8(label), ikm), salt);
}

/** RFC 9180 §4: LabeledExpand. */
function labeledExpand(suiteId: Uint8Array, prk: Uint8Array, label: string, info: Uint8Array, length: number): Uint8Array {
  return expand(sha256, prk, concatBytes(i2osp2(length), utf8("HPKE-v1"), suiteId, utf8(label), info), length);
}

/** RFC 9180 §4.1: ExtractAndExpand of DHKEM. */
function kemSharedSecret(dh: Uint8Array, enc: Uint8Array, pkR: Uint8Array): Uint8Array {
  const eaePrk = labeledExtract(KEM_SUITE_ID, new Uint8Array(0), "eae_prk", dh);
  return labeledExpand(KEM_SUITE_ID, eaePrk, "shared_secret", concatBytes(enc, pkR), 32);
}

/** RFC 9180 §5.1: KeySchedule for mode_base (no PSK); returns the AEAD key and base nonce. */
function keySchedule(sharedSecret: Uint8Array): { key: Uint8Array; nonce: Uint8Array } {
  const empty = new Uint8Array(0);
  const pskIdHash = labeledExtract(HPKE_SUITE_ID, empty, "psk_id_hash", empty);
  const infoHash = labeledExtract(HPKE_SUITE_ID, empty, "info_hash", utf8(HPKE_INFO));
  const context = concatBytes(new Uint8Array([MODE_BASE]), pskIdHash, infoHash);
  const secret = labeledExtract(HPKE_SUITE_ID, sharedSecret, "secret", empty);
  return {
    key: labeledExpand(HPKE_SUITE_ID, secret, "key", context, NK),
    nonce: labeledExpand(HPKE_SUITE_ID, secret, "base_nonce", context, NN),
  };
}

/** Parameters of {@link hpkeEncrypt}. */
export interface HpkeEncryptParams {
  /** The bytes to encrypt. */
  plaintext: Uint8Array;
  /** Recipient P-256 public key, hex, compressed (33 bytes) or uncompressed (65 bytes). */
  targetPublicKeyHex: string;
}

/** Output of {@link hpkeEncrypt}. */
export interface HpkeSealed {
  /** The encapsulated (ephemeral sender) public key, 65-byte uncompressed SEC1. */
  encappedPublicKey: Uint8Array;
  /** AES-256-GCM ciphertext with the 16-byte tag appended. */
  ciphertext: Uint8Array;
}

/**
 * Encrypts `plaintext` to a P-256 public key with a fresh ephemeral key (HPKE base mode,
 * single-shot).
 * @throws {TypeError} if `plaintext` is not a Uint8Array or the key is not a string
 * @throws {CryptoError} if `targetPublicKeyHex` is not a valid P-256 public key
 */
export function hpkeEncrypt(params: HpkeEncryptParams): HpkeSealed {
  const { plaintext, targetPublicKeyHex } = params;
  if (!(plaintext instanceof Uint8Array)) throw new TypeError("plaintext must be a Uint8Array");
  if (typeof targetPublicKeyHex !== "string") throw new TypeError("targetPublicKeyHex must be a hex string");
  const pkR = parsePublicKey(targetPublicKeyHex, false, "targetPublicKeyHex");
  const skE = p256.utils.randomPrivateKey();
  const enc = p256.getPublicKey(skE, false);
  const { key, nonce } = keySchedule(kemSharedSecret(ecdhX(skE, pkR), enc, pkR));
  const cipher = createCipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_LENGTH });
  cipher.setAAD(concatBytes(enc, pkR));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { encappedPublicKey: enc, ciphertext: new Uint8Array(body) };
}

/** Parameters of {@link hpkeDecrypt}. */
export interface HpkeDecryptParams {
  /** AES-256-GCM ciphertext with the 16-byte tag appended. */
  ciphertext: Uint8Array;
  /** The sender's encapsulated public key: bytes or hex, compressed or uncompressed. */
  encappedPublicKey: Uint8Array | string;
  /** Recipient private key, 32-byte hex. */
  privateKeyHex: string;
}

/**
 * Decrypts and authenticates an HPKE base-mode message.
 * @returns the plaintext
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} if a key is malformed or the ciphertext does not authenticate
 *   (wrong recipient key, tampered ciphertext or encapsulated key)
 */
export function hpkeDecrypt(params: HpkeDecryptParams): Uint8Array {
  const { ciphertext, encappedPublicKey, privateKeyHex } = params;
  if (!(ciphertext instanceof Uint8Array)) throw new TypeError("ciphertext must be a Uint8Array");
  const skR = parsePrivateKey(privateKeyHex, "privateKeyHex");
  const enc = parsePublicKey(encappedPublicKey, false, "encappedPublicKey");
  if (ciphertext.length < TAG_LENGTH) {
    throw new CryptoError(`ciphertext is too short (${ciphertext.length} bytes, the tag alone is 16)`, "ciphertext");
  }
  const pkR = p256.getPublicKey(skR, false);
  const { key, nonce } = keySchedule(kemSharedSecret(ecdhX(skR, enc), enc, pkR));
  const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_LENGTH });
  decipher.setAAD(concatBytes(enc, pkR));
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_LENGTH));
  try {
    const body = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - TAG_LENGTH)), decipher.final()]);
    return new Uint8Array(body);
  } catch {
    throw new CryptoError("HPKE decryption failed: the ciphertext does not authenticate under this key", "ciphertext");
  }
}
