/**
 * @module emulator/wallets/encoding
 * Small encoding primitives the address formats share: HASH160, Base58Check (Bitcoin and
 * Ripple alphabets).
 */
import { ripemd160 } from "@noble/hashes/legacy";
import { sha256 } from "@noble/hashes/sha2";
import { concatBytes } from "@noble/hashes/utils";
import { base58, base58xrp } from "@scure/base";

/** RIPEMD-160(SHA-256(data)), Bitcoin's HASH160. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}

/** Double SHA-256. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/**
 * Base58Check: version bytes, payload, then the first 4 bytes of SHA-256d of both.
 * @param alphabet `bitcoin` (also Tron, Dogecoin) or `ripple` (XRP Ledger)
 */
export function base58check(version: Uint8Array, payload: Uint8Array, alphabet: "bitcoin" | "ripple" = "bitcoin"): string {
  const body = concatBytes(version, payload);
  const full = concatBytes(body, sha256d(body).slice(0, 4));
  return alphabet === "ripple" ? base58xrp.encode(full) : base58.encode(full);
}
