/**
 * @module emulator/store/secret-box
 * Encryption at rest for the secrets the emulator keeps (wallet mnemonics, private keys).
 *
 * AES-256-GCM under a key derived (HKDF-SHA256) from the emulator's signing key, which lives
 * in the same data directory: this does not protect against someone holding the whole data
 * directory, but it keeps secrets out of plain-text SQL dumps, `sqlite3` sessions and backups
 * of the database file alone. Stored form: `v1:` + base64(iv ‖ tag ‖ ciphertext).
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { SignerKey } from "../handlers/types";

const INFO = "keyform emulator secrets v1";
const keys = new WeakMap<SignerKey, Buffer>();

function keyFor(signer: SignerKey): Buffer {
  let key = keys.get(signer);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", Buffer.from(signer.privateKey, "hex"), Buffer.alloc(0), INFO, 32));
    keys.set(signer, key);
  }
  return key;
}

/** Encrypts `plaintext` for storage. */
export function sealSecret(signer: SignerKey, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyFor(signer), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

/**
 * Decrypts a value written by {@link sealSecret}.
 * @throws Error (without the secret) when the value is corrupt or sealed under another key
 */
export function openSecret(signer: SignerKey, sealed: string): string {
  if (!sealed.startsWith("v1:")) throw new Error("stored secret has an unknown format");
  const raw = Buffer.from(sealed.slice(3), "base64");
  const decipher = createDecipheriv("aes-256-gcm", keyFor(signer), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  try {
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("stored secret does not decrypt under this data directory's signing key");
  }
}
