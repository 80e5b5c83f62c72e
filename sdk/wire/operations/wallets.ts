/**
 * @module wire/operations/wallets
 * HD wallets and their accounts (spec 2.3, 4.3 list_wallet_accounts, 4.4
 * export_wallet_account; the `v1Wallet*` types for create and get).
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { AddressFormat, Curve, PathFormat } from "../enums";
import { Id, opt, optId, PaginationOptions, Timestamp } from "../shared";

/** Spec 8: the mnemonic lengths a new wallet accepts. */
export const MNEMONIC_LENGTHS = [12, 15, 18, 21, 24] as const;

/** Spec 4.2 wallet.mnemonicLength: one of 12, 15, 18, 21, 24 words. */
export const MnemonicLength = z
  .number()
  .int("must be a whole number")
  .refine((v) => (MNEMONIC_LENGTHS as readonly number[]).includes(v), "must be one of 12, 15, 18, 21, 24");

/** Spec 2.3 walletDetails / `v1Wallet`: a wallet record. */
export const Wallet = z.object({
  walletId: z.string(),
  walletName: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  /** True once the wallet has been exported. */
  exported: z.boolean(),
  /** True when the wallet was imported rather than generated. */
  imported: z.boolean(),
});
export type Wallet = z.infer<typeof Wallet>;

/** Spec 2.3: a wallet account. */
export const WalletAccount = z.object({
  walletAccountId: z.string(),
  organizationId: z.string(),
  walletId: z.string(),
  curve: Curve,
  pathFormat: PathFormat,
  path: z.string(),
  addressFormat: AddressFormat,
  address: z.string(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  publicKey: opt(z.string()),
  /** Present when `includeWalletDetails` was set. */
  walletDetails: opt(Wallet),
  name: opt(z.string()),
  /** CAIP-2 namespace shared by the chains the account supports, e.g. `eip155`. */
  caip2Prefix: opt(z.string()),
});
export type WalletAccount = z.infer<typeof WalletAccount>;

/** Spec 4.2 wallet.accounts item / `v1WalletAccountParams`. */
export const WalletAccountParams = z.object({
  curve: Curve,
  pathFormat: PathFormat,
  path: Id,
  addressFormat: AddressFormat,
  name: opt(z.string()),
});
export type WalletAccountParams = z.infer<typeof WalletAccountParams>;

/** Spec 4.2 wallet / `v1CreateWalletIntent`: a wallet to create. */
export const WalletParams = z.object({
  walletName: Id,
  /** May be empty. */
  accounts: z.array(WalletAccountParams),
  /** Default 12. */
  mnemonicLength: opt(MnemonicLength),
});
export type WalletParams = z.infer<typeof WalletParams>;

/** Spec 4.2 signup_v2 response wallet / `v1CreateWalletResult`. */
export const WalletResult = z.object({ walletId: z.string(), addresses: z.array(z.string()) });
export type WalletResult = z.infer<typeof WalletResult>;

export const createWallet = defineActivity("create_wallet", {
  type: "ACTIVITY_TYPE_CREATE_WALLET",
  intentKey: "createWalletIntent",
  resultKey: "createWalletResult",
  parameters: WalletParams,
  result: WalletResult,
});

export const createWalletAccounts = defineActivity("create_wallet_accounts", {
  type: "ACTIVITY_TYPE_CREATE_WALLET_ACCOUNTS",
  intentKey: "createWalletAccountsIntent",
  resultKey: "createWalletAccountsResult",
  parameters: z.object({
    walletId: Id,
    accounts: z.array(WalletAccountParams).min(1, "must hold at least one account"),
    persist: opt(z.boolean()),
  }),
  result: z.object({ addresses: z.array(z.string()) }),
});

export const getWallets = defineQuery("get_wallets", {
  request: z.object({ organizationId: Id }),
  response: z.object({ wallets: z.array(Wallet) }),
});

export const getWallet = defineQuery("get_wallet", {
  request: z.object({ organizationId: Id, walletId: Id }),
  response: z.object({ wallet: Wallet }),
});

export const listWalletAccounts = defineQuery("list_wallet_accounts", {
  request: z.object({
    organizationId: Id,
    /** When omitted, the accounts of the whole organization. */
    walletId: optId(),
    /** Default false. */
    includeWalletDetails: opt(z.boolean()),
    paginationOptions: opt(PaginationOptions),
  }),
  response: z.object({ accounts: z.array(WalletAccount) }),
  pageItems: "accounts",
});

export const exportWalletAccount = defineActivity("export_wallet_account", {
  type: "ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT",
  intentKey: "exportWalletAccountIntent",
  resultKey: "exportWalletAccountResult",
  parameters: z.object({
    /** Identifies the wallet account. */
    address: Id,
    /** Client public key the export bundle is encrypted to. */
    targetPublicKey: Id,
  }),
  result: z.object({
    address: z.string(),
    /** The private key, encrypted to the target public key. */
    exportBundle: z.string(),
  }),
});

/** docs/service-facts.md#8-wallets-private-keys-and-other-operations (`v1UpdateWalletIntent`): renames a wallet, the only change it allows. */
export const updateWallet = defineActivity("update_wallet", {
  type: "ACTIVITY_TYPE_UPDATE_WALLET",
  intentKey: "updateWalletIntent",
  resultKey: "updateWalletResult",
  parameters: z.object({ walletId: Id, walletName: opt(Id) }),
  result: z.object({ walletId: z.string() }),
});

/**
 * docs/service-facts.md#8-wallets-private-keys-and-other-operations (`v1DeleteWalletsIntent`): a wallet that was never exported is deleted
 * only with `deleteWithoutExport: true`.
 */
export const deleteWallets = defineActivity("delete_wallets", {
  type: "ACTIVITY_TYPE_DELETE_WALLETS",
  intentKey: "deleteWalletsIntent",
  resultKey: "deleteWalletsResult",
  parameters: z.object({
    walletIds: z.array(Id).min(1, "must name at least one wallet"),
    deleteWithoutExport: opt(z.boolean()),
  }),
  result: z.object({ walletIds: z.array(z.string()) }),
});

/** The organization's wallets under the official path (`getWallets` of the official clients). */
export const listWallets = defineQuery("list_wallets", {
  request: z.object({ organizationId: Id }),
  response: z.object({ wallets: z.array(Wallet) }),
});

export const walletOperations = {
  createWallet,
  updateWallet,
  deleteWallets,
  listWallets,
  createWalletAccounts,
  getWallets,
  getWallet,
  listWalletAccounts,
  exportWalletAccount,
};
