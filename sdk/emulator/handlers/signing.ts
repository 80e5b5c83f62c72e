/**
 * @module emulator/handlers/signing
 * The signing activities and the wallet export: sign_raw_payload (V2), sign_raw_payloads,
 * sign_transaction (V2; Ethereum legacy / EIP-2930 / EIP-1559 and Solana) and export_wallet
 * (the official types `v1SignRawPayloadIntentV2`, `v1SignRawPayloadsIntent`,
 * `v1SignTransactionIntentV2`, `v1ExportWalletIntent`).
 *
 * Signatures are real: the key of the wallet account (derived again from the wallet's mnemonic)
 * or of the private key that `signWith` names, on its curve. Policies see the decoded payload
 * through the gate (`policy-gate.ts`), before any of this runs.
 */
import { base58 } from "@scure/base";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils";
import {
  decodeEthereumTransaction,
  ethereumSigningHash,
  serializeSignedEthereumTransaction,
  TransactionDecodeError,
  type EthereumTransaction,
} from "keyform/policy/transactions/ethereum";
import { decodeSolanaTransaction, withSolanaSignature, type SolanaTransaction } from "keyform/policy/transactions/solana";
import type { HashFunction, PayloadEncoding } from "keyform/wire/operations/signing";
import { EmulatorError, GrpcCode, invalidArgument, notFound } from "../errors";
import { signingInput, signWithCurve } from "../signing/sign";
import { requireSigner, signerSecret, type SignerRef } from "../signing/signer";
import { openSecret } from "../store/secret-box";
import { walletStoreOf } from "../store/wallets";
import { exportBundleFor } from "./common";
import type { EmulatorModule, QueryContext } from "./types";

function signPayloads(ctx: QueryContext, signWith: string, payloads: readonly string[], encoding: PayloadEncoding, hashFunction: HashFunction, field: (i: number) => string) {
  const signer = requireSigner(ctx, signWith);
  // Every payload is checked before the key is opened, so a bad one costs no derivation.
  const inputs = payloads.map((payload, i) => signingInput(signer.curve, payload, encoding, hashFunction, field(i)));
  const secret = signerSecret(ctx, signer);
  return inputs.map((input) => {
    const { r, s, v } = signWithCurve(signer.curve, secret, input);
    return { r, s, v };
  });
}

function decoded<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    if (error instanceof TransactionDecodeError) throw invalidArgument(`unsignedTransaction: ${error.message}`);
    throw error;
  }
}

function requireCurve(signer: SignerRef, curve: SignerRef["curve"], chain: string): void {
  if (signer.curve !== curve) throw invalidArgument(`signWith: a ${chain} transaction needs a ${curve} key; this one is ${signer.curve}`);
}

function signEthereum(ctx: QueryContext, signer: SignerRef, tx: EthereumTransaction): string {
  requireCurve(signer, "CURVE_SECP256K1", "TRANSACTION_TYPE_ETHEREUM");
  const signature = signWithCurve(signer.curve, signerSecret(ctx, signer), ethereumSigningHash(tx));
  return bytesToHex(serializeSignedEthereumTransaction(tx, { r: BigInt(`0x${signature.r}`), s: BigInt(`0x${signature.s}`), yParity: signature.yParity }));
}

function signSolana(ctx: QueryContext, signer: SignerRef, tx: SolanaTransaction): string {
  requireCurve(signer, "CURVE_ED25519", "TRANSACTION_TYPE_SOLANA");
  const address = base58.encode(hexToBytes(signer.publicKey));
  if (!tx.accountKeys.slice(0, tx.requiredSignatures).includes(address)) {
    throw invalidArgument(`signWith: ${address} is not one of the transaction's required signers`);
  }
  const signature = signWithCurve(signer.curve, signerSecret(ctx, signer), tx.message);
  return bytesToHex(withSolanaSignature(tx, address, hexToBytes(signature.r + signature.s)));
}

export const signingModule: EmulatorModule = {
  name: "signing",
  setup: () => ({
    signRawPayload(ctx, p) {
      return signPayloads(ctx, p.signWith, [p.payload], p.encoding, p.hashFunction, () => "payload")[0]!;
    },

    signRawPayloads(ctx, p) {
      return { signatures: signPayloads(ctx, p.signWith, p.payloads, p.encoding, p.hashFunction, (i) => `payloads[${i}]`) };
    },

    signTransaction(ctx, p) {
      const signer = requireSigner(ctx, p.signWith);
      switch (p.type) {
        case "TRANSACTION_TYPE_ETHEREUM":
          return { signedTransaction: signEthereum(ctx, signer, decoded(() => decodeEthereumTransaction(p.unsignedTransaction))) };
        case "TRANSACTION_TYPE_SOLANA":
          return { signedTransaction: signSolana(ctx, signer, decoded(() => decodeSolanaTransaction(p.unsignedTransaction))) };
        default:
          throw new EmulatorError(GrpcCode.UNIMPLEMENTED, `type: ${p.type} transactions are not signed by the emulator yet (TRANSACTION_TYPE_ETHEREUM and TRANSACTION_TYPE_SOLANA are)`);
      }
    },

    exportWallet(ctx, p) {
      const store = walletStoreOf(ctx.db);
      const wallet = store.getWallet(ctx.organizationId, p.walletId);
      if (!wallet) throw notFound(`walletId: no wallet with id ${p.walletId} in organization ${ctx.organizationId}`);
      if (p.language !== undefined && p.language !== "MNEMONIC_LANGUAGE_ENGLISH") {
        throw invalidArgument(`language: the emulator keeps English mnemonics only; got ${p.language}`);
      }
      const exportBundle = exportBundleFor(ctx, utf8ToBytes(openSecret(ctx.signer, wallet.mnemonic_sealed)), p.targetPublicKey);
      store.markExported(wallet.id, ctx.nowMs);
      return { walletId: wallet.id, exportBundle };
    },
  }),
};
