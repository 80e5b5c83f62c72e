/**
 * @module emulator/wallets/derive
 * One wallet account from a wallet's secret and the account parameters of spec 2.3:
 * curve, path format, path and address format.
 */
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";
import type { AddressFormat, Curve, PathFormat } from "keyform/wire/enums";
import { WalletDerivationError } from "./errors";
import { addressFormatSpec, encodeAddress } from "./formats";
import { assertDerivable, deriveHdKey } from "./hd";
import { mnemonicToSeed } from "./mnemonic";
import { parseDerivationPath } from "./path";

/** Account parameters plus the wallet secret: a mnemonic (with optional passphrase) or a seed. */
export type DeriveAccountInput = {
  curve: Curve;
  pathFormat: PathFormat;
  path: string;
  addressFormat: AddressFormat;
} & (
  | { mnemonic: string; passphrase?: string; seed?: undefined }
  | { seed: Uint8Array | string; mnemonic?: undefined; passphrase?: undefined }
);

/** A derived wallet account. */
export interface DerivedAccount {
  /** Public key hex: compressed SEC1 (33 bytes) for secp256k1/P-256, 32 bytes for ed25519. */
  publicKey: string;
  /** The address in the requested format. */
  address: string;
  /**
   * Private key hex (32 bytes), for export bundles only. It is a non-enumerable property, so
   * `JSON.stringify`, loggers and object spreads leave it out; read it explicitly.
   */
  readonly privateKey: string;
  /** CAIP-2 namespace of the address format, when it has one (see `formats.ts`). */
  caip2Prefix?: string;
}

function seedBytes(seed: Uint8Array | string): Uint8Array {
  if (seed instanceof Uint8Array) return seed;
  if (typeof seed === "string" && /^(?:[0-9a-fA-F]{2})+$/u.test(seed)) return hexToBytes(seed);
  throw new WalletDerivationError("seed", "seed must be bytes or an even-length hex string");
}

/**
 * Derives the key at `path` on `curve` and encodes its address in `addressFormat`.
 *
 * Checks run in request order of cheapness: the format must exist and fit the curve, the path
 * format must be `PATH_FORMAT_BIP32`, the path must parse (and be fully hardened on ed25519),
 * and only then is the seed computed.
 * @throws WalletDerivationError with `field` set to `addressFormat` (unknown, or not fitting
 *   the curve: the message names `addressFormat` and `curve`), `curve`, `pathFormat`, `path`,
 *   `mnemonic` or `seed`. Messages never contain secret material.
 */
export function deriveAccount(input: DeriveAccountInput): DerivedAccount {
  const { curve, pathFormat, path, addressFormat } = input;
  if (!["CURVE_SECP256K1", "CURVE_ED25519", "CURVE_P256"].includes(curve)) {
    throw new WalletDerivationError(
      "curve",
      `curve must be CURVE_SECP256K1, CURVE_ED25519 or CURVE_P256; got ${JSON.stringify(curve)}`,
    );
  }
  const spec = addressFormatSpec(addressFormat);
  if (!spec.curves.includes(curve)) {
    throw new WalletDerivationError(
      "addressFormat",
      `addressFormat ${addressFormat} does not fit curve ${curve}; it needs curve ${spec.curves.join(" or ")}`,
    );
  }
  if (pathFormat !== "PATH_FORMAT_BIP32") {
    throw new WalletDerivationError("pathFormat", `pathFormat must be PATH_FORMAT_BIP32; got ${JSON.stringify(pathFormat)}`);
  }
  const indexes = parseDerivationPath(path);
  // Reject a non-hardened ed25519 path before the (slow) PBKDF2 seed computation.
  assertDerivable(curve, indexes);
  if ((input.mnemonic === undefined) === (input.seed === undefined)) {
    throw new WalletDerivationError("mnemonic", "exactly one of mnemonic or seed must be given");
  }
  const seed = input.mnemonic !== undefined ? mnemonicToSeed(input.mnemonic, input.passphrase ?? "") : seedBytes(input.seed);
  const key = deriveHdKey(seed, curve, indexes);
  const account: DerivedAccount = {
    publicKey: bytesToHex(key.publicKey),
    address: encodeAddress(key.publicKey, curve, addressFormat),
    ...(spec.caip2Prefix !== undefined ? { caip2Prefix: spec.caip2Prefix } : {}),
  } as DerivedAccount;
  Object.defineProperty(account, "privateKey", { value: bytesToHex(key.privateKey), enumerable: false, writable: false });
  return account;
}
