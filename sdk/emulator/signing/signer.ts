/**
 * @module emulator/signing/signer
 * The key a signing request names in `signWith` (docs: "a Wallet account address, Private Key
 * address, or Private Key identifier"): a wallet account's key, derived again from the wallet's
 * mnemonic, or a private key's, opened from its sealed form. The private key is held only for
 * the request and never logged.
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { hexToBytes } from "@noble/hashes/utils";
import type { Curve } from "keyform/wire/enums";
import { ethereumAddressOf } from "keyform/policy/transactions/ethereum";
import { notFound } from "../errors";
import type { QueryContext } from "../handlers/types";
import { privateKeyStoreOf, type PrivateKeyRow } from "../store/private-keys";
import { openSecret } from "../store/secret-box";
import { walletSeed, walletStoreOf, type WalletAccountRow } from "../store/wallets";
import { deriveAccount } from "../wallets";

/** Where a signing key lives, without its secret: what policies and errors may see. */
export interface SignerRef {
  readonly curve: Curve;
  /** Compressed SEC1 (secp256k1, P-256) or 32-byte ed25519 public key, hex. */
  readonly publicKey: string;
  /** The address `signWith` named, when it named one. */
  readonly address?: string;
  readonly account?: WalletAccountRow;
  readonly privateKey?: PrivateKeyRow;
}

/** Finds the key `signWith` names in the organization, if any. */
export function findSigner(ctx: Pick<QueryContext, "db" | "organizationId">, signWith: string): SignerRef | undefined {
  const account = walletStoreOf(ctx.db).findByAddress(ctx.organizationId, signWith)[0];
  if (account) return { curve: account.curve, publicKey: account.public_key, address: account.address, account };
  const keys = privateKeyStoreOf(ctx.db);
  const byAddress = keys.findByAddress(ctx.organizationId, signWith);
  const key = keys.get(ctx.organizationId, byAddress?.private_key_id ?? signWith);
  if (!key) return undefined;
  return { curve: key.curve as Curve, publicKey: key.public_key, ...(byAddress ? { address: byAddress.address } : {}), privateKey: key };
}

/**
 * The signer `signWith` names.
 * @throws EmulatorError 404 naming `signWith` when the organization has no such account or key
 */
export function requireSigner(ctx: Pick<QueryContext, "db" | "organizationId">, signWith: string): SignerRef {
  const signer = findSigner(ctx, signWith);
  if (!signer) throw notFound(`signWith: no wallet account or private key with address or id ${signWith} in organization ${ctx.organizationId}`);
  return signer;
}

/** The Ethereum address of a secp256k1 signer (lowercase), or '' for other curves. */
export function ethereumAddressOfSigner(signer: Pick<SignerRef, "curve" | "publicKey">): string {
  if (signer.curve !== "CURVE_SECP256K1") return "";
  return ethereumAddressOf(secp256k1.ProjectivePoint.fromHex(signer.publicKey).toRawBytes(false));
}

/** A wallet account's private key, derived again from its wallet's mnemonic (account keys are never stored). */
export function walletAccountSecret(ctx: Pick<QueryContext, "db" | "organizationId" | "signer">, account: WalletAccountRow): Uint8Array {
  const wallet = walletStoreOf(ctx.db).getWallet(ctx.organizationId, account.wallet_id)!;
  const derived = deriveAccount({
    curve: account.curve,
    pathFormat: account.path_format,
    path: account.path,
    addressFormat: account.address_format,
    seed: walletSeed(ctx, wallet),
  });
  return hexToBytes(derived.privateKey);
}

/** The signer's private key bytes: derived again for a wallet account, opened for a private key. */
export function signerSecret(ctx: Pick<QueryContext, "db" | "organizationId" | "signer">, signer: SignerRef): Uint8Array {
  return signer.account ? walletAccountSecret(ctx, signer.account) : hexToBytes(openSecret(ctx.signer, signer.privateKey!.private_key_sealed));
}
