/**
 * @module emulator/wallets/chains
 * Address encoders of the non-Bitcoin chains. Each takes the public key as `deriveHdKey`
 * returns it (compressed SEC1 for secp256k1/P-256, 32 bytes for ed25519).
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { blake2b } from "@noble/hashes/blake2b";
import { sha3_256, keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils";
import { base32, base58, bech32, bech32m } from "@scure/base";
import { base58check, hash160 } from "./encoding";

/** Uncompressed SEC1 form (65 bytes) of a compressed secp256k1 key. */
function uncompressedSecp256k1(compressed: Uint8Array): Uint8Array {
  return secp256k1.Point.fromHex(compressed).toRawBytes(false);
}

/** The 20-byte Ethereum account (last 20 bytes of Keccak-256 of X||Y). */
function ethereumAccount(compressed: Uint8Array): Uint8Array {
  return keccak_256(uncompressedSecp256k1(compressed).slice(1)).slice(-20);
}

/** EIP-55 mixed-case checksum encoding of a 20-byte account. */
export function toChecksumAddress(account: Uint8Array): string {
  const lower = bytesToHex(account);
  const hash = bytesToHex(keccak_256(utf8ToBytes(lower)));
  let out = "0x";
  for (let i = 0; i < lower.length; i++) {
    const char = lower[i] as string;
    out += parseInt(hash[i] as string, 16) >= 8 ? char.toUpperCase() : char;
  }
  return out;
}

/** Ethereum (EIP-55). */
export function ethereumAddress(compressed: Uint8Array): string {
  return toChecksumAddress(ethereumAccount(compressed));
}

/** Tron: Base58Check of 0x41 || Ethereum-style account. */
export function tronAddress(compressed: Uint8Array): string {
  return base58check(Uint8Array.of(0x41), ethereumAccount(compressed));
}

/** Cosmos SDK account address: bech32(hrp, HASH160(compressed key)); `cosmos`, `sei`, ... */
export function cosmosAddress(compressed: Uint8Array, hrp: string): string {
  return bech32.encode(hrp, bech32.toWords(hash160(compressed)));
}

/** Solana: base58 of the 32-byte ed25519 key. */
export function solanaAddress(publicKey: Uint8Array): string {
  return base58.encode(publicKey);
}

/** Sui signature-scheme flags (blake2b-256 of flag || public key). */
export const SUI_FLAGS = { ed25519: 0x00, secp256k1: 0x01, secp256r1: 0x02 } as const;

/** Sui: 0x + hex(BLAKE2b-256(flag || public key)). */
export function suiAddress(publicKey: Uint8Array, flag: number): string {
  return `0x${bytesToHex(blake2b(concatBytes(Uint8Array.of(flag), publicKey), { dkLen: 32 }))}`;
}

/** Aptos single-signer ed25519 authentication key: 0x + hex(SHA3-256(public key || 0x00)). */
export function aptosAddress(publicKey: Uint8Array): string {
  return `0x${bytesToHex(sha3_256(concatBytes(publicKey, Uint8Array.of(0x00))))}`;
}

/** CRC16-XModem (poly 0x1021, init 0), as Stellar's StrKey uses. */
function crc16xmodem(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** Stellar StrKey account id (`G…`): base32(version 6<<3 || key || CRC16 little-endian). */
export function stellarAddress(publicKey: Uint8Array): string {
  const body = concatBytes(Uint8Array.of(6 << 3), publicKey);
  const crc = crc16xmodem(body);
  // 35 bytes encode to exactly 56 base32 characters: no padding appears.
  return base32.encode(concatBytes(body, Uint8Array.of(crc & 0xff, crc >> 8)));
}

/**
 * XRP Ledger classic address: Base58Check (Ripple alphabet) of 0x00 || HASH160(key), where an
 * ed25519 key is prefixed with 0xED as the ledger does.
 */
export function xrpAddress(publicKey: Uint8Array, scheme: "secp256k1" | "ed25519"): string {
  const key = scheme === "ed25519" ? concatBytes(Uint8Array.of(0xed), publicKey) : publicKey;
  return base58check(Uint8Array.of(0x00), hash160(key), "ripple");
}

/**
 * Spark address: bech32m over the protobuf `SparkAddress { bytes identity_public_key = 1; }`
 * (tag 0x0a, length 0x21, the 33-byte compressed key), HRP `sp` (mainnet) or `sprt` (regtest).
 */
export function sparkAddress(compressed: Uint8Array, network: "MAINNET" | "REGTEST"): string {
  const payload = concatBytes(Uint8Array.of(0x0a, compressed.length), compressed);
  // Spark's SDK encodes with a 200-character limit; these addresses are 65–67 characters.
  return bech32m.encode(network === "MAINNET" ? "sp" : "sprt", bech32m.toWords(payload), 200);
}
