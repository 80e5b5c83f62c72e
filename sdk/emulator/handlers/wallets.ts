/**
 * @module emulator/handlers/wallets
 * HD wallets (spec 2.3, 4.3 list_wallet_accounts, 4.4 export_wallet_account; docs/service-facts.md#312-wallet-accounts-and-transaction-history): create_wallet, update_wallet (rename), delete_wallets, create_wallet_accounts,
 * get_wallets / list_wallets, get_wallet, list_wallet_accounts and export_wallet_account, plus
 * the `wallets` of get_organization.
 *
 * Accounts are derived for real (BIP-32 / SLIP-10 from the wallet's BIP-39 mnemonic, see
 * `sdk/emulator/wallets`); an export re-derives the private key and seals it in an HPKE
 * export bundle signed by the emulator's signing key.
 */
import type { Wallet, WalletAccount } from "keyform/wire/operations/wallets";
import { alreadyExists, failedPrecondition, invalidArgument, notFound } from "../errors";
import { exportBundleFor, requireDistinct } from "./common";
import { timestampOf } from "../store";
import {
  addWalletAccounts,
  createWalletWithAccounts,
  rethrowDerivation,
  WALLET_MIGRATIONS,
  walletSeed,
  walletStoreOf,
  type WalletAccountRow,
  type WalletRow,
} from "../store/wallets";
import { walletAccountSecret } from "../signing/signer";
import { caip2PrefixFor } from "../wallets";
import type { EmulatorModule, QueryContext } from "./types";

const DEFAULT_PAGE_SIZE = 10;

/** `walletDetails` / `v1Wallet` of a stored wallet. */
export function walletView(row: WalletRow): Wallet {
  return {
    walletId: row.id,
    walletName: row.name,
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
    exported: row.exported === 1,
    imported: row.imported === 1,
  };
}

/** A wallet account record (spec 2.3). */
export function walletAccountView(row: WalletAccountRow, wallet?: WalletRow): WalletAccount {
  const view: WalletAccount = {
    walletAccountId: row.id,
    organizationId: row.org_id,
    walletId: row.wallet_id,
    curve: row.curve,
    pathFormat: row.path_format,
    path: row.path,
    addressFormat: row.address_format,
    address: row.address,
    createdAt: timestampOf(row.created_ms),
    updatedAt: timestampOf(row.updated_ms),
    publicKey: row.public_key,
  };
  if (wallet) view.walletDetails = walletView(wallet);
  if (row.name !== null) view.name = row.name;
  const caip2Prefix = caip2PrefixFor(row.address_format);
  if (caip2Prefix !== undefined) view.caip2Prefix = caip2Prefix;
  return view;
}

function requireWallet(ctx: QueryContext, walletId: string, field: string): WalletRow {
  const wallet = walletStoreOf(ctx.db).getWallet(ctx.organizationId, walletId);
  if (!wallet) throw notFound(`${field}: no wallet with id ${walletId} in organization ${ctx.organizationId}`);
  return wallet;
}

/**
 * The wallet account with on-chain address `address` in the organization, if any (the first
 * created when several accounts share an address).
 */
export function findWalletAccountByAddress(ctx: QueryContext, address: string): WalletAccountRow | undefined {
  return walletStoreOf(ctx.db).findByAddress(ctx.organizationId, address)[0];
}

export const walletsModule: EmulatorModule = {
  name: "wallets",
  migrations: WALLET_MIGRATIONS,
  setup: () => ({
    createWallet(ctx, p) {
      return createWalletWithAccounts(ctx, {
        organizationId: ctx.organizationId,
        walletName: p.walletName,
        mnemonicLength: p.mnemonicLength,
        accounts: p.accounts,
      });
    },

    createWalletAccounts(ctx, p) {
      const wallet = requireWallet(ctx, p.walletId, "walletId");
      let seed: Uint8Array;
      try {
        seed = walletSeed(ctx, wallet);
      } catch (error) {
        rethrowDerivation(error, "walletId.");
      }
      const addresses = addWalletAccounts(ctx, wallet, seed, p.accounts);
      walletStoreOf(ctx.db).touchWallet(wallet.id, ctx.nowMs);
      return { addresses };
    },

    updateWallet(ctx, p) {
      const store = walletStoreOf(ctx.db);
      const wallet = requireWallet(ctx, p.walletId, "walletId");
      if (p.walletName !== undefined && p.walletName !== wallet.name) {
        if (store.getWalletByName(ctx.organizationId, p.walletName)) {
          throw alreadyExists(`walletName: a wallet named ${JSON.stringify(p.walletName)} already exists in organization ${ctx.organizationId}`);
        }
        store.renameWallet(wallet.id, p.walletName, ctx.nowMs);
      }
      return { walletId: wallet.id };
    },

    deleteWallets(ctx, p) {
      const store = walletStoreOf(ctx.db);
      requireDistinct(p.walletIds, "walletIds");
      const wallets = p.walletIds.map((id, i) => requireWallet(ctx, id, `walletIds[${i}]`));
      // Like delete_private_keys: an unexported wallet's seed would be lost for good, so the
      // request must say so; one such wallet refuses the whole request.
      wallets.forEach((wallet, i) => {
        if (wallet.exported !== 1 && p.deleteWithoutExport !== true) {
          throw failedPrecondition(`walletIds[${i}]: wallet ${wallet.id} was never exported; set deleteWithoutExport to true to delete it anyway`);
        }
      });
      for (const wallet of wallets) store.deleteWallet(wallet.id);
      return { walletIds: wallets.map((w) => w.id) };
    },

    listWallets(ctx) {
      return { wallets: walletStoreOf(ctx.db).listWallets(ctx.organizationId).map(walletView) };
    },

    getWallets(ctx) {
      return { wallets: walletStoreOf(ctx.db).listWallets(ctx.organizationId).map(walletView) };
    },

    getWallet(ctx, req) {
      return { wallet: walletView(requireWallet(ctx, req.walletId, "walletId")) };
    },

    listWalletAccounts(ctx, req) {
      const store = walletStoreOf(ctx.db);
      if (req.walletId !== undefined) requireWallet(ctx, req.walletId, "walletId");
      const page = req.paginationOptions;
      const cursor = (id: string | undefined, field: "after" | "before"): number | undefined => {
        if (id === undefined) return undefined;
        const row = store.getAccount(ctx.organizationId, id);
        if (!row || (req.walletId !== undefined && row.wallet_id !== req.walletId)) {
          throw invalidArgument(
            `paginationOptions.${field}: no wallet account with id ${id} in ${req.walletId !== undefined ? `wallet ${req.walletId}` : `organization ${ctx.organizationId}`}`,
          );
        }
        return row.seq;
      };
      const rows = store.listAccounts(ctx.organizationId, {
        walletId: req.walletId,
        limit: page?.limit !== undefined ? Number(page.limit) : DEFAULT_PAGE_SIZE,
        afterSeq: cursor(page?.after, "after"),
        beforeSeq: cursor(page?.before, "before"),
      });
      const wallets = new Map<string, WalletRow | undefined>();
      const walletOf = (id: string): WalletRow | undefined => {
        if (!wallets.has(id)) wallets.set(id, store.getWallet(ctx.organizationId, id));
        return wallets.get(id);
      };
      return { accounts: rows.map((row) => walletAccountView(row, req.includeWalletDetails ? walletOf(row.wallet_id) : undefined)) };
    },

    exportWalletAccount(ctx, p) {
      const store = walletStoreOf(ctx.db);
      const account = findWalletAccountByAddress(ctx, p.address);
      if (!account) throw notFound(`address: no wallet account with address ${p.address} in organization ${ctx.organizationId}`);
      const exportBundle = exportBundleFor(ctx, walletAccountSecret(ctx, account), p.targetPublicKey);
      store.markExported(account.wallet_id, ctx.nowMs);
      return { address: account.address, exportBundle };
    },
  }),

  organizationData(ctx) {
    return { wallets: walletStoreOf(ctx.db).listWallets(ctx.organizationId).map(walletView) };
  },
};
