/**
 * @module crypto/encoding
 * Byte encodings used across the crypto layer: strict hex, base64url (padding optional on
 * input, never emitted), UTF-8 and concatenation. Every decoder names the field it reads so
 * that an error points at the offending argument.
 */
import { CryptoError } from "./errors";

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Decodes a hex string (even length, no `0x` prefix, either case).
 * @param hex the hex text
 * @param field name of the argument, used in the error message
 * @throws {TypeError} if `hex` is not a string
 * @throws {CryptoError} if `hex` is not valid hex
 */
export function hexToBytes(hex: string, field = "hex"): Uint8Array {
  if (typeof hex !== "string") throw new TypeError(`${field} must be a hex string`);
  if (!HEX_RE.test(hex)) throw new CryptoError(`${field} is not valid hex (even length, 0-9a-f)`, field);
  return new Uint8Array(Buffer.from(hex, "hex"));
}

/** Encodes bytes as lowercase hex. */
export function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** Encodes bytes as base64url without padding (RFC 4648 §5). */
export function base64UrlEncode(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url");
}

const B64URL_RE = /^[A-Za-z0-9_-]*={0,2}$/;

/**
 * Decodes base64url text; trailing `=` padding is accepted, the standard alphabet (`+/`) is not.
 * @throws {TypeError} if `text` is not a string
 * @throws {CryptoError} if `text` is not base64url
 */
export function base64UrlDecode(text: string, field = "base64url"): Uint8Array {
  if (typeof text !== "string") throw new TypeError(`${field} must be a base64url string`);
  const unpadded = text.replace(/=+$/, "");
  // A length of 1 mod 4 cannot come from any byte string.
  if (!B64URL_RE.test(text) || unpadded.length % 4 === 1) {
    throw new CryptoError(`${field} is not valid base64url`, field);
  }
  return new Uint8Array(Buffer.from(unpadded, "base64url"));
}

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/**
 * Decodes UTF-8, rejecting invalid sequences.
 * @throws {CryptoError} if `bytes` is not valid UTF-8
 */
export function fromUtf8(bytes: Uint8Array, field = "utf8"): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new CryptoError(`${field} is not valid UTF-8`, field);
  }
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Constant-time comparison of two byte arrays (length is not secret). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}
