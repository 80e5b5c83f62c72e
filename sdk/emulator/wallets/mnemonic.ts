/**
 * @module emulator/wallets/mnemonic
 * BIP-39 mnemonics: generation of new English phrases and phrase-to-seed conversion.
 */
import * as bip39 from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { WalletDerivationError } from "./errors";

/** Word counts BIP-39 defines; each maps to 32 bits of entropy per 3 words. */
export const MNEMONIC_LENGTHS = [12, 15, 18, 21, 24] as const;
export type MnemonicLength = (typeof MNEMONIC_LENGTHS)[number];

/**
 * Generates a new English BIP-39 mnemonic from the system CSPRNG.
 * @param mnemonicLength number of words: 12, 15, 18, 21 or 24 (default 12)
 * @throws RangeError naming `mnemonicLength` for any other value
 */
export function generateMnemonic(mnemonicLength: number = 12): string {
  if (!(MNEMONIC_LENGTHS as readonly number[]).includes(mnemonicLength)) {
    throw new RangeError(
      `mnemonicLength must be one of ${MNEMONIC_LENGTHS.join(", ")}; got ${String(mnemonicLength)}`,
    );
  }
  return bip39.generateMnemonic(wordlist, (mnemonicLength / 3) * 32);
}

/** Collapses runs of whitespace so a phrase pasted with extra spaces still validates. */
export function normalizeMnemonic(mnemonic: string): string {
  return mnemonic.trim().split(/\s+/u).join(" ");
}

/** True when `mnemonic` is a checksum-valid English BIP-39 phrase of a supported length. */
export function isValidMnemonic(mnemonic: string): boolean {
  return bip39.validateMnemonic(normalizeMnemonic(mnemonic), wordlist);
}

/**
 * Converts a BIP-39 mnemonic (and optional passphrase) to its 64-byte seed (PBKDF2-SHA512,
 * 2048 rounds, as BIP-39 specifies).
 * @throws WalletDerivationError (field `mnemonic`) when the phrase is not a valid English
 *   BIP-39 mnemonic; the message never repeats the phrase
 */
export function mnemonicToSeed(mnemonic: string, passphrase = ""): Uint8Array {
  if (typeof mnemonic !== "string" || !isValidMnemonic(mnemonic)) {
    throw new WalletDerivationError(
      "mnemonic",
      "mnemonic is not a valid English BIP-39 phrase (12, 15, 18, 21 or 24 words with a correct checksum)",
    );
  }
  return bip39.mnemonicToSeedSync(normalizeMnemonic(mnemonic), passphrase);
}
