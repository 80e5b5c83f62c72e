/**
 * @module emulator/wallets/bitcoin
 * Bitcoin output addresses for one compressed secp256k1 key: P2PKH, P2SH (nested P2WPKH),
 * P2WPKH, P2WSH (a single-key `<pubkey> OP_CHECKSIG` witness script) and P2TR (BIP-86
 * key-path only: the internal key tweaked with an empty script tree). Also Dogecoin P2PKH.
 */
import { schnorr, secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { concatBytes } from "@noble/hashes/utils";
import { bech32, bech32m } from "@scure/base";
import { base58check, hash160 } from "./encoding";

export type BitcoinNetwork = "MAINNET" | "TESTNET" | "SIGNET" | "REGTEST";
export type BitcoinScript = "P2PKH" | "P2SH" | "P2WPKH" | "P2WSH" | "P2TR";

interface NetworkParams {
  pubKeyHash: number;
  scriptHash: number;
  hrp: string;
}

// Signet shares testnet's encodings (BIP-325); regtest only differs in its bech32 HRP.
const NETWORKS: Record<BitcoinNetwork, NetworkParams> = {
  MAINNET: { pubKeyHash: 0x00, scriptHash: 0x05, hrp: "bc" },
  TESTNET: { pubKeyHash: 0x6f, scriptHash: 0xc4, hrp: "tb" },
  SIGNET: { pubKeyHash: 0x6f, scriptHash: 0xc4, hrp: "tb" },
  REGTEST: { pubKeyHash: 0x6f, scriptHash: 0xc4, hrp: "bcrt" },
};

const OP_0 = 0x00;
const OP_CHECKSIG = 0xac;

function segwitAddress(hrp: string, version: 0 | 1, program: Uint8Array): string {
  const words = [version, ...bech32.toWords(program)];
  return version === 0 ? bech32.encode(hrp, words) : bech32m.encode(hrp, words);
}

/**
 * BIP-86 output key: Q = P + H_TapTweak(x(P))·G with P the even-Y lift of the internal key.
 * @returns the 32-byte x-only output key
 */
export function taprootOutputKey(compressedPublicKey: Uint8Array): Uint8Array {
  const internal = compressedPublicKey.slice(1);
  const P = schnorr.utils.lift_x(schnorr.utils.bytesToNumberBE(internal));
  const tweak = schnorr.utils.bytesToNumberBE(schnorr.utils.taggedHash("TapTweak", internal));
  const Q = P.add(secp256k1.Point.BASE.multiply(tweak));
  return schnorr.utils.pointToBytes(Q);
}

/**
 * The address of `script` on `network` for a compressed secp256k1 public key.
 * @param compressedPublicKey 33-byte SEC1 key
 */
export function bitcoinAddress(compressedPublicKey: Uint8Array, network: BitcoinNetwork, script: BitcoinScript): string {
  const params = NETWORKS[network];
  switch (script) {
    case "P2PKH":
      return base58check(Uint8Array.of(params.pubKeyHash), hash160(compressedPublicKey));
    case "P2SH": {
      // Nested SegWit (BIP-49): the redeem script is the P2WPKH witness program.
      const redeemScript = concatBytes(Uint8Array.of(OP_0, 20), hash160(compressedPublicKey));
      return base58check(Uint8Array.of(params.scriptHash), hash160(redeemScript));
    }
    case "P2WPKH":
      return segwitAddress(params.hrp, 0, hash160(compressedPublicKey));
    case "P2WSH": {
      const witnessScript = concatBytes(Uint8Array.of(compressedPublicKey.length), compressedPublicKey, Uint8Array.of(OP_CHECKSIG));
      return segwitAddress(params.hrp, 0, sha256(witnessScript));
    }
    case "P2TR":
      return segwitAddress(params.hrp, 1, taprootOutputKey(compressedPublicKey));
  }
}

/** Dogecoin P2PKH (version 0x1e "D…" on mainnet, 0x71 "n…" on testnet). */
export function dogecoinAddress(compressedPublicKey: Uint8Array, network: "MAINNET" | "TESTNET"): string {
  return base58check(Uint8Array.of(network === "MAINNET" ? 0x1e : 0x71), hash160(compressedPublicKey));
}
