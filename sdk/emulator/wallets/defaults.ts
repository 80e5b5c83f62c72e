/**
 * @module emulator/wallets/defaults
 * Default account parameters per address format, used when a caller asks for "default
 * accounts". They follow the defaults the service's own SDK helpers publish
 * (`DEFAULT_<CHAIN>_ACCOUNTS` / `defaultXAccountAtIndex`), including their choices that differ
 * from BIP-44 habits (P2SH on m/44', Tron on m/44'/195'/i', hardened Sei and XRP tails,
 * Spark on the BIP-86 paths). Where those helpers define none:
 * - TON v5r1 uses the v3r2/v4r2 path m/44'/607'/i'/0'/0';
 * - COMPRESSED and UNCOMPRESSED (raw public keys, no chain) use secp256k1 on the Ethereum
 *   path m/44'/60'/i'/0/0, so the key matches the wallet's default Ethereum account.
 */
import { ADDRESS_FORMATS, type AddressFormat, type Curve, type PathFormat } from "keyform/wire/enums";
import { WalletDerivationError } from "./errors";

/** Parameters of one wallet account, as create_wallet accepts them. */
export interface AccountParams {
  curve: Curve;
  pathFormat: PathFormat;
  path: string;
  addressFormat: AddressFormat;
}

// Each template has `{i}` where the account index goes (the third path level).
const SECP = "CURVE_SECP256K1";
const ED = "CURVE_ED25519";
const BITCOIN_PATHS = { P2PKH: 44, P2SH: 44, P2WPKH: 84, P2TR: 86 } as const;

function template(format: AddressFormat): { curve: Curve; path: string } {
  const bitcoin = /^ADDRESS_FORMAT_BITCOIN_(MAINNET|TESTNET|SIGNET|REGTEST)_(P2PKH|P2SH|P2WPKH|P2WSH|P2TR)$/u.exec(format);
  if (bitcoin) {
    const coin = bitcoin[1] === "MAINNET" ? 0 : 1;
    const script = bitcoin[2] as keyof typeof BITCOIN_PATHS | "P2WSH";
    // P2WSH follows BIP-48's script type 2' (native SegWit).
    const path = script === "P2WSH" ? `m/48'/${coin}'/{i}'/2'/0/0` : `m/${BITCOIN_PATHS[script]}'/${coin}'/{i}'/0/0`;
    return { curve: SECP, path };
  }
  switch (format) {
    case "ADDRESS_FORMAT_UNCOMPRESSED":
    case "ADDRESS_FORMAT_COMPRESSED":
    case "ADDRESS_FORMAT_ETHEREUM":
      return { curve: SECP, path: "m/44'/60'/{i}'/0/0" };
    case "ADDRESS_FORMAT_COSMOS":
      return { curve: SECP, path: "m/44'/118'/{i}'/0/0" };
    case "ADDRESS_FORMAT_SEI":
      return { curve: SECP, path: "m/44'/118'/{i}'/0'/0'" };
    case "ADDRESS_FORMAT_TRON":
      return { curve: SECP, path: "m/44'/195'/{i}'" };
    case "ADDRESS_FORMAT_DOGE_MAINNET":
    case "ADDRESS_FORMAT_DOGE_TESTNET":
      return { curve: SECP, path: "m/44'/3'/{i}'/0/0" };
    case "ADDRESS_FORMAT_XRP":
      return { curve: SECP, path: "m/44'/144'/{i}'/0'/0'" };
    case "ADDRESS_FORMAT_SPARK_MAINNET":
      return { curve: SECP, path: "m/86'/0'/{i}'/0/0" };
    case "ADDRESS_FORMAT_SPARK_REGTEST":
      return { curve: SECP, path: "m/86'/1'/{i}'/0/0" };
    case "ADDRESS_FORMAT_SOLANA":
      return { curve: ED, path: "m/44'/501'/{i}'/0'" };
    case "ADDRESS_FORMAT_SUI":
      return { curve: ED, path: "m/44'/784'/{i}'/0'/0'" };
    case "ADDRESS_FORMAT_APTOS":
      return { curve: ED, path: "m/44'/637'/{i}'/0'/0'" };
    case "ADDRESS_FORMAT_XLM":
      return { curve: ED, path: "m/44'/148'/{i}'" };
    case "ADDRESS_FORMAT_TON_V3R2":
    case "ADDRESS_FORMAT_TON_V4R2":
    case "ADDRESS_FORMAT_TON_V5R1":
      return { curve: ED, path: "m/44'/607'/{i}'/0'/0'" };
    default:
      throw new WalletDerivationError("addressFormat", `addressFormat ${JSON.stringify(format)} is not a known address format`);
  }
}

/**
 * Default account parameters of `addressFormat` at account index `index` (the third path
 * level, hardened).
 * @throws WalletDerivationError field `addressFormat` for an unknown format; RangeError for an
 *   index outside 0..2^31-1
 */
export function defaultAccount(addressFormat: AddressFormat, index = 0): AccountParams {
  if (!Number.isInteger(index) || index < 0 || index > 0x7fff_ffff) {
    throw new RangeError(`index must be an integer from 0 to 2147483647; got ${String(index)}`);
  }
  const { curve, path } = template(addressFormat);
  return { curve, pathFormat: "PATH_FORMAT_BIP32", path: path.replace("{i}", String(index)), addressFormat };
}

/** Default account parameters (index 0) of every address format of spec 2.9. */
export const DEFAULT_ACCOUNTS: Readonly<Record<AddressFormat, AccountParams>> = Object.fromEntries(
  ADDRESS_FORMATS.map((format) => [format, defaultAccount(format)]),
) as Record<AddressFormat, AccountParams>;
