/**
 * @module emulator/wallets
 * HD wallet key derivation and address encoding for the emulator's wallet accounts.
 */
export { WalletDerivationError, type WalletField } from "./errors";
export { generateMnemonic, isValidMnemonic, mnemonicToSeed, normalizeMnemonic, MNEMONIC_LENGTHS, type MnemonicLength } from "./mnemonic";
export { parseDerivationPath, HARDENED_OFFSET } from "./path";
export { assertDerivable, deriveHdKey, type HdKey } from "./hd";
export { encodeAddress, addressFormatSpec, caip2PrefixFor, curvesFor, type AddressFormatSpec } from "./formats";
export { deriveAccount, type DeriveAccountInput, type DerivedAccount } from "./derive";
export { defaultAccount, DEFAULT_ACCOUNTS, type AccountParams } from "./defaults";
export { tonRawAddress, tonWalletAddress, type TonWalletVersion } from "./ton";
