/**
 * @module wire/operations/signing
 * The signing activities and the wallet export (the official types `v1SignRawPayloadIntentV2`,
 * `v1SignRawPayloadsIntent`, `v1SignTransactionIntentV2`, `v1ExportWalletIntent` and their
 * results; docs `api-reference/activities/sign-raw-payload`, `sign-raw-payloads`,
 * `sign-transaction`, `export-wallet`).
 */
import { z } from "zod";
import { defineActivity } from "../define";
import { Id, opt } from "../shared";

/** `v1PayloadEncoding`: how the `payload` string becomes bytes. */
export const PayloadEncoding = z.enum([
  "PAYLOAD_ENCODING_HEXADECIMAL",
  "PAYLOAD_ENCODING_TEXT_UTF8",
  "PAYLOAD_ENCODING_EIP712",
  "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
]);
export type PayloadEncoding = z.infer<typeof PayloadEncoding>;

/** `v1HashFunction`: the hash applied to the payload bytes before signing (NOT_APPLICABLE for ed25519). */
export const HashFunction = z.enum(["HASH_FUNCTION_NO_OP", "HASH_FUNCTION_SHA256", "HASH_FUNCTION_KECCAK256", "HASH_FUNCTION_NOT_APPLICABLE"]);
export type HashFunction = z.infer<typeof HashFunction>;

/** `v1TransactionType`: the chain of an unsigned transaction. */
export const TransactionType = z.enum([
  "TRANSACTION_TYPE_ETHEREUM",
  "TRANSACTION_TYPE_SOLANA",
  "TRANSACTION_TYPE_TRON",
  "TRANSACTION_TYPE_BITCOIN",
  "TRANSACTION_TYPE_TEMPO",
]);
export type TransactionType = z.infer<typeof TransactionType>;

/** `v1MnemonicLanguage`: the language of an exported mnemonic (default English). */
export const MnemonicLanguage = z.enum([
  "MNEMONIC_LANGUAGE_ENGLISH",
  "MNEMONIC_LANGUAGE_SIMPLIFIED_CHINESE",
  "MNEMONIC_LANGUAGE_TRADITIONAL_CHINESE",
  "MNEMONIC_LANGUAGE_CZECH",
  "MNEMONIC_LANGUAGE_FRENCH",
  "MNEMONIC_LANGUAGE_ITALIAN",
  "MNEMONIC_LANGUAGE_JAPANESE",
  "MNEMONIC_LANGUAGE_KOREAN",
  "MNEMONIC_LANGUAGE_SPANISH",
]);

/**
 * `v1SignRawPayloadResult`: hex `r` and `s` (32 bytes each, no `0x`) and the recovery id `v`
 * (`00` or `01`); for ed25519 the two halves of the 64-byte signature and `v` `00`.
 */
export const RawSignature = z.object({ r: z.string(), s: z.string(), v: z.string() });
export type RawSignature = z.infer<typeof RawSignature>;

/** What every signing request names: a wallet account address, a private key address, or a private key id. */
const SignWith = Id;

export const signRawPayload = defineActivity("sign_raw_payload", {
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  intentKey: "signRawPayloadIntentV2",
  resultKey: "signRawPayloadResult",
  parameters: z.object({ signWith: SignWith, payload: z.string(), encoding: PayloadEncoding, hashFunction: HashFunction }),
  result: RawSignature,
});

export const signRawPayloads = defineActivity("sign_raw_payloads", {
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
  intentKey: "signRawPayloadsIntent",
  resultKey: "signRawPayloadsResult",
  parameters: z.object({
    signWith: SignWith,
    payloads: z.array(z.string()).min(1, "must hold at least one payload"),
    encoding: PayloadEncoding,
    hashFunction: HashFunction,
  }),
  result: z.object({ signatures: opt(z.array(RawSignature)) }),
});

export const signTransaction = defineActivity("sign_transaction", {
  type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  intentKey: "signTransactionIntentV2",
  resultKey: "signTransactionResult",
  parameters: z.object({
    signWith: SignWith,
    /** Hex of the unsigned transaction (an RLP / typed-envelope payload for Ethereum, a serialized message or transaction for Solana). */
    unsignedTransaction: Id,
    type: TransactionType,
  }),
  result: z.object({ signedTransaction: z.string() }),
});

export const exportWallet = defineActivity("export_wallet", {
  type: "ACTIVITY_TYPE_EXPORT_WALLET",
  intentKey: "exportWalletIntent",
  resultKey: "exportWalletResult",
  parameters: z.object({ walletId: Id, targetPublicKey: Id, language: opt(MnemonicLanguage) }),
  result: z.object({
    walletId: z.string(),
    /** The mnemonic, encrypted to the target public key. */
    exportBundle: z.string(),
  }),
});

export const signingOperations = { signRawPayload, signRawPayloads, signTransaction, exportWallet };
