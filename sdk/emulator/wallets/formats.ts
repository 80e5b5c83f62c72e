/**
 * @module emulator/wallets/formats
 * The address formats of spec 2.9: which curves each accepts, its CAIP-2 namespace and its
 * encoder.
 *
 * | format | curves | caip2Prefix |
 * |---|---|---|
 * | UNCOMPRESSED | secp256k1, P-256 | — |
 * | COMPRESSED | secp256k1, P-256, ed25519 | — |
 * | ETHEREUM | secp256k1 | eip155 |
 * | SOLANA | ed25519 | solana |
 * | COSMOS | secp256k1 | cosmos |
 * | SEI | secp256k1 | cosmos (Sei's Cosmos side is `cosmos:pacific-1`) |
 * | TRON | secp256k1 | tron |
 * | SUI | ed25519, secp256k1, P-256 | sui |
 * | APTOS | ed25519 | aptos |
 * | XLM | ed25519 | stellar |
 * | XRP | secp256k1, ed25519 | xrpl |
 * | DOGE_MAINNET / DOGE_TESTNET | secp256k1 | bip122 |
 * | TON_V3R2 / V4R2 / V5R1 | ed25519 | ton |
 * | SPARK_MAINNET / SPARK_REGTEST | secp256k1 | — (no CAIP-2 namespace is registered for Spark) |
 * | BITCOIN_<NETWORK>_<SCRIPT> (20) | secp256k1 | bip122 |
 */
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import { ADDRESS_FORMATS, type AddressFormat, type Curve } from "keyform/wire/enums";
import { bitcoinAddress, dogecoinAddress, type BitcoinNetwork, type BitcoinScript } from "./bitcoin";
import {
  aptosAddress,
  cosmosAddress,
  ethereumAddress,
  solanaAddress,
  sparkAddress,
  stellarAddress,
  SUI_FLAGS,
  suiAddress,
  tronAddress,
  xrpAddress,
} from "./chains";
import { WalletDerivationError } from "./errors";
import { tonWalletAddress } from "./ton";

/** How one address format is produced. */
export interface AddressFormatSpec {
  /** Curves whose keys the format can encode. */
  curves: readonly Curve[];
  /** CAIP-2 namespace of the chains the format serves, when there is one. */
  caip2Prefix?: string;
  /** Encodes a public key (compressed SEC1, or 32-byte ed25519) of one of `curves`. */
  encode(publicKey: Uint8Array, curve: Curve): string;
}

const SECP = ["CURVE_SECP256K1"] as const;
const ED = ["CURVE_ED25519"] as const;

function uncompressed(publicKey: Uint8Array, curve: Curve): Uint8Array {
  return (curve === "CURVE_P256" ? p256 : secp256k1).Point.fromHex(publicKey).toRawBytes(false);
}

const SUI_FLAG_BY_CURVE: Record<Curve, number> = {
  CURVE_ED25519: SUI_FLAGS.ed25519,
  CURVE_SECP256K1: SUI_FLAGS.secp256k1,
  CURVE_P256: SUI_FLAGS.secp256r1,
};

const BASE_FORMATS: Record<string, AddressFormatSpec> = {
  ADDRESS_FORMAT_UNCOMPRESSED: {
    curves: ["CURVE_SECP256K1", "CURVE_P256"],
    encode: (key, curve) => bytesToHex(uncompressed(key, curve)),
  },
  ADDRESS_FORMAT_COMPRESSED: {
    curves: ["CURVE_SECP256K1", "CURVE_P256", "CURVE_ED25519"],
    encode: (key) => bytesToHex(key),
  },
  ADDRESS_FORMAT_ETHEREUM: { curves: SECP, caip2Prefix: "eip155", encode: (key) => ethereumAddress(key) },
  ADDRESS_FORMAT_SOLANA: { curves: ED, caip2Prefix: "solana", encode: (key) => solanaAddress(key) },
  ADDRESS_FORMAT_COSMOS: { curves: SECP, caip2Prefix: "cosmos", encode: (key) => cosmosAddress(key, "cosmos") },
  ADDRESS_FORMAT_SEI: { curves: SECP, caip2Prefix: "cosmos", encode: (key) => cosmosAddress(key, "sei") },
  ADDRESS_FORMAT_TRON: { curves: SECP, caip2Prefix: "tron", encode: (key) => tronAddress(key) },
  ADDRESS_FORMAT_SUI: {
    curves: ["CURVE_ED25519", "CURVE_SECP256K1", "CURVE_P256"],
    caip2Prefix: "sui",
    encode: (key, curve) => suiAddress(key, SUI_FLAG_BY_CURVE[curve]),
  },
  ADDRESS_FORMAT_APTOS: { curves: ED, caip2Prefix: "aptos", encode: (key) => aptosAddress(key) },
  ADDRESS_FORMAT_XLM: { curves: ED, caip2Prefix: "stellar", encode: (key) => stellarAddress(key) },
  ADDRESS_FORMAT_XRP: {
    curves: ["CURVE_SECP256K1", "CURVE_ED25519"],
    caip2Prefix: "xrpl",
    encode: (key, curve) => xrpAddress(key, curve === "CURVE_ED25519" ? "ed25519" : "secp256k1"),
  },
  ADDRESS_FORMAT_DOGE_MAINNET: { curves: SECP, caip2Prefix: "bip122", encode: (key) => dogecoinAddress(key, "MAINNET") },
  ADDRESS_FORMAT_DOGE_TESTNET: { curves: SECP, caip2Prefix: "bip122", encode: (key) => dogecoinAddress(key, "TESTNET") },
  ADDRESS_FORMAT_TON_V3R2: { curves: ED, caip2Prefix: "ton", encode: (key) => tonWalletAddress(key, "V3R2") },
  ADDRESS_FORMAT_TON_V4R2: { curves: ED, caip2Prefix: "ton", encode: (key) => tonWalletAddress(key, "V4R2") },
  ADDRESS_FORMAT_TON_V5R1: { curves: ED, caip2Prefix: "ton", encode: (key) => tonWalletAddress(key, "V5R1") },
  ADDRESS_FORMAT_SPARK_MAINNET: { curves: SECP, encode: (key) => sparkAddress(key, "MAINNET") },
  ADDRESS_FORMAT_SPARK_REGTEST: { curves: SECP, encode: (key) => sparkAddress(key, "REGTEST") },
};

function bitcoinSpec(format: string): AddressFormatSpec | undefined {
  const match = /^ADDRESS_FORMAT_BITCOIN_(MAINNET|TESTNET|SIGNET|REGTEST)_(P2PKH|P2SH|P2WPKH|P2WSH|P2TR)$/u.exec(format);
  if (!match) return undefined;
  const network = match[1] as BitcoinNetwork;
  const script = match[2] as BitcoinScript;
  return { curves: SECP, caip2Prefix: "bip122", encode: (key) => bitcoinAddress(key, network, script) };
}

/**
 * The spec of `addressFormat`.
 * @throws WalletDerivationError (field `addressFormat`) for a value outside spec 2.9
 */
export function addressFormatSpec(addressFormat: string): AddressFormatSpec {
  const spec = BASE_FORMATS[addressFormat] ?? bitcoinSpec(addressFormat);
  if (!spec || !(ADDRESS_FORMATS as readonly string[]).includes(addressFormat)) {
    throw new WalletDerivationError("addressFormat", `addressFormat ${JSON.stringify(addressFormat)} is not a known address format`);
  }
  return spec;
}

/** Curves `addressFormat` accepts. @throws WalletDerivationError (field `addressFormat`) */
export function curvesFor(addressFormat: AddressFormat): readonly Curve[] {
  return addressFormatSpec(addressFormat).curves;
}

/**
 * Encodes `publicKey` (compressed SEC1, or 32-byte ed25519) of `curve` as `addressFormat`.
 * @throws WalletDerivationError field `addressFormat` for an unknown format or one that does
 *   not fit the curve (the message names both `addressFormat` and `curve`); field `publicKey`
 *   when the key is not a valid point of the curve
 */
export function encodeAddress(publicKey: Uint8Array, curve: Curve, addressFormat: AddressFormat): string {
  const spec = addressFormatSpec(addressFormat);
  if (!spec.curves.includes(curve)) {
    throw new WalletDerivationError(
      "addressFormat",
      `addressFormat ${addressFormat} does not fit curve ${curve}; it needs curve ${spec.curves.join(" or ")}`,
    );
  }
  assertPublicKey(publicKey, curve);
  return spec.encode(publicKey, curve);
}

/** CAIP-2 namespace of `addressFormat`, if it has one. */
export function caip2PrefixFor(addressFormat: AddressFormat): string | undefined {
  return addressFormatSpec(addressFormat).caip2Prefix;
}

function assertPublicKey(publicKey: Uint8Array, curve: Curve): void {
  try {
    if (curve === "CURVE_ED25519") {
      if (publicKey.length !== 32) throw new Error("length");
    } else {
      if (publicKey.length !== 33) throw new Error("length");
      (curve === "CURVE_P256" ? p256 : secp256k1).Point.fromHex(publicKey).assertValidity();
    }
  } catch {
    const expected = curve === "CURVE_ED25519" ? "a 32-byte ed25519 key" : "a 33-byte compressed point";
    throw new WalletDerivationError("publicKey", `publicKey is not ${expected} on ${curve}`);
  }
}
