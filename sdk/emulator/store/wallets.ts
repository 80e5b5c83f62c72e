/**
 * @module emulator/store/wallets
 * HD wallets and their accounts, plus {@link createWalletWithAccounts}, the one way a wallet
 * comes into existence (create_wallet, and the wallet of signup_v2).
 *
 * A wallet keeps its mnemonic sealed at rest (`secret-box.ts`); account private keys are not
 * stored: they are derived again from the mnemonic when an account is exported. Accounts have
 * an insertion sequence (`seq`) that gives list_wallet_accounts its stable order.
 */
import { randomUUID } from "node:crypto";
import type { AddressFormat, Curve, PathFormat } from "keyform/wire/enums";
import { alreadyExists, invalidArgument } from "../errors";
import type { SignerKey } from "../handlers/types";
import { deriveAccount, generateMnemonic, mnemonicToSeed, WalletDerivationError } from "../wallets";
import type { Db } from "./database";
import { openSecret, sealSecret } from "./secret-box";

/** Schema versions of the wallets module (index 0 = version 1). Never edit a released step. */
export const WALLET_MIGRATIONS: readonly string[] = [
  /* v1 */ `
  CREATE TABLE wallets (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    name TEXT NOT NULL,
    mnemonic_sealed TEXT NOT NULL,
    exported INTEGER NOT NULL DEFAULT 0,
    imported INTEGER NOT NULL DEFAULT 0,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX wallets_name ON wallets(org_id, name);

  CREATE TABLE wallet_accounts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    org_id TEXT NOT NULL REFERENCES organizations(id),
    wallet_id TEXT NOT NULL REFERENCES wallets(id),
    curve TEXT NOT NULL,
    path_format TEXT NOT NULL,
    path TEXT NOT NULL,
    address_format TEXT NOT NULL,
    address TEXT NOT NULL,
    public_key TEXT NOT NULL,
    name TEXT,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX wallet_accounts_name ON wallet_accounts(org_id, name) WHERE name IS NOT NULL;
  CREATE UNIQUE INDEX wallet_accounts_params ON wallet_accounts(wallet_id, curve, path, address_format);
  CREATE INDEX wallet_accounts_address ON wallet_accounts(org_id, address);
  CREATE INDEX wallet_accounts_wallet ON wallet_accounts(wallet_id, seq);
  `,
];

export interface WalletRow {
  id: string;
  org_id: string;
  name: string;
  mnemonic_sealed: string;
  exported: number;
  imported: number;
  created_ms: number;
  updated_ms: number;
}

export interface WalletAccountRow {
  seq: number;
  id: string;
  org_id: string;
  wallet_id: string;
  curve: Curve;
  path_format: PathFormat;
  path: string;
  address_format: AddressFormat;
  address: string;
  public_key: string;
  name: string | null;
  created_ms: number;
  updated_ms: number;
}

/** Options of {@link WalletStore.listAccounts}. */
export interface AccountPageOptions {
  walletId?: string;
  limit: number;
  /** Accounts after (newer than) this sequence number. */
  afterSeq?: number;
  /** Accounts before (older than) this sequence number. */
  beforeSeq?: number;
}

/** Reads and writes the `wallets` and `wallet_accounts` tables. */
export class WalletStore {
  private readonly s;

  constructor(private readonly db: Db) {
    this.s = {
      wallet: db.prepare<[string, string], WalletRow>("SELECT * FROM wallets WHERE org_id = ? AND id = ?"),
      walletByName: db.prepare<[string, string], WalletRow>("SELECT * FROM wallets WHERE org_id = ? AND name = ?"),
      wallets: db.prepare<[string], WalletRow>("SELECT * FROM wallets WHERE org_id = ? ORDER BY created_ms, rowid"),
      insertWallet: db.prepare(
        "INSERT INTO wallets (id, org_id, name, mnemonic_sealed, exported, imported, created_ms, updated_ms) VALUES (@id, @org_id, @name, @mnemonic_sealed, @exported, @imported, @created_ms, @updated_ms)",
      ),
      markExported: db.prepare("UPDATE wallets SET exported = 1, updated_ms = ? WHERE id = ?"),
      touchWallet: db.prepare("UPDATE wallets SET updated_ms = ? WHERE id = ?"),
      renameWallet: db.prepare("UPDATE wallets SET name = ?, updated_ms = ? WHERE id = ?"),
      deleteAccounts: db.prepare("DELETE FROM wallet_accounts WHERE wallet_id = ?"),
      deleteWallet: db.prepare("DELETE FROM wallets WHERE id = ?"),
      account: db.prepare<[string, string], WalletAccountRow>("SELECT * FROM wallet_accounts WHERE org_id = ? AND id = ?"),
      accountsByAddress: db.prepare<[string, string], WalletAccountRow>(
        "SELECT * FROM wallet_accounts WHERE org_id = ? AND address = ? ORDER BY seq",
      ),
      accountByName: db.prepare<[string, string], WalletAccountRow>("SELECT * FROM wallet_accounts WHERE org_id = ? AND name = ?"),
      accountByParams: db.prepare<[string, string, string, string], WalletAccountRow>(
        "SELECT * FROM wallet_accounts WHERE wallet_id = ? AND curve = ? AND path = ? AND address_format = ?",
      ),
      accountsOfWallet: db.prepare<[string], WalletAccountRow>("SELECT * FROM wallet_accounts WHERE wallet_id = ? ORDER BY seq"),
      insertAccount: db.prepare(
        "INSERT INTO wallet_accounts (id, org_id, wallet_id, curve, path_format, path, address_format, address, public_key, name, created_ms, updated_ms) VALUES (@id, @org_id, @wallet_id, @curve, @path_format, @path, @address_format, @address, @public_key, @name, @created_ms, @updated_ms)",
      ),
    };
  }

  getWallet(orgId: string, id: string): WalletRow | undefined {
    return this.s.wallet.get(orgId, id);
  }

  getWalletByName(orgId: string, name: string): WalletRow | undefined {
    return this.s.walletByName.get(orgId, name);
  }

  /** Wallets of an organization, oldest first. */
  listWallets(orgId: string): WalletRow[] {
    return this.s.wallets.all(orgId);
  }

  insertWallet(row: WalletRow): void {
    this.s.insertWallet.run(row);
  }

  markExported(walletId: string, nowMs: number): void {
    this.s.markExported.run(nowMs, walletId);
  }

  touchWallet(walletId: string, nowMs: number): void {
    this.s.touchWallet.run(nowMs, walletId);
  }

  renameWallet(walletId: string, name: string, nowMs: number): void {
    this.s.renameWallet.run(name, nowMs, walletId);
  }

  /** Deletes a wallet with its accounts (its mnemonic goes with it). */
  deleteWallet(walletId: string): void {
    this.s.deleteAccounts.run(walletId);
    this.s.deleteWallet.run(walletId);
  }

  getAccount(orgId: string, id: string): WalletAccountRow | undefined {
    return this.s.account.get(orgId, id);
  }

  /**
   * Accounts with this exact address. Addresses of case-insensitive formats (hex) are also
   * tried in lower case, since callers may send EIP-55 checksummed or lower-case forms.
   */
  findByAddress(orgId: string, address: string): WalletAccountRow[] {
    const exact = this.s.accountsByAddress.all(orgId, address);
    if (exact.length > 0 || !/^(0x)?[0-9a-fA-F]+$/u.test(address)) return exact;
    const lower = address.toLowerCase();
    return this.db
      .prepare<[string, string], WalletAccountRow>("SELECT * FROM wallet_accounts WHERE org_id = ? AND lower(address) = ? ORDER BY seq")
      .all(orgId, lower);
  }

  getAccountByName(orgId: string, name: string): WalletAccountRow | undefined {
    return this.s.accountByName.get(orgId, name);
  }

  getAccountByParams(walletId: string, curve: string, path: string, addressFormat: string): WalletAccountRow | undefined {
    return this.s.accountByParams.get(walletId, curve, path, addressFormat);
  }

  accountsOfWallet(walletId: string): WalletAccountRow[] {
    return this.s.accountsOfWallet.all(walletId);
  }

  insertAccount(row: Omit<WalletAccountRow, "seq">): void {
    this.s.insertAccount.run(row);
  }

  /**
   * One page of accounts in creation order. With `beforeSeq` alone, the page is the `limit`
   * accounts just before the cursor (still returned oldest first).
   */
  listAccounts(orgId: string, options: AccountPageOptions): WalletAccountRow[] {
    const where = ["org_id = ?"];
    const args: (string | number)[] = [orgId];
    if (options.walletId !== undefined) {
      where.push("wallet_id = ?");
      args.push(options.walletId);
    }
    if (options.afterSeq !== undefined) {
      where.push("seq > ?");
      args.push(options.afterSeq);
    }
    if (options.beforeSeq !== undefined) {
      where.push("seq < ?");
      args.push(options.beforeSeq);
    }
    const backwards = options.beforeSeq !== undefined && options.afterSeq === undefined;
    const sql = `SELECT * FROM wallet_accounts WHERE ${where.join(" AND ")} ORDER BY seq ${backwards ? "DESC" : "ASC"} LIMIT ?`;
    const rows = this.db.prepare<(string | number)[], WalletAccountRow>(sql).all(...args, options.limit);
    return backwards ? rows.reverse() : rows;
  }
}

const stores = new WeakMap<Db, WalletStore>();

/** The wallet store of a connection (statements prepared once per connection). */
export function walletStoreOf(db: Db): WalletStore {
  let store = stores.get(db);
  if (!store) {
    store = new WalletStore(db);
    stores.set(db, store);
  }
  return store;
}

/** What {@link createWalletWithAccounts} needs of a handler context (any context has it). */
export interface WalletWriteContext {
  readonly db: Db;
  readonly signer: SignerKey;
  /** Timestamp of the request, epoch ms. */
  readonly nowMs: number;
}

/** One account to derive (spec 4.2 `wallet.accounts` item). */
export interface NewAccountParams {
  curve: Curve;
  pathFormat: PathFormat;
  path: string;
  addressFormat: AddressFormat;
  name?: string | undefined;
}

/** Input of {@link createWalletWithAccounts}. */
export interface CreateWalletInput {
  organizationId: string;
  walletName: string;
  /** 12, 15, 18, 21 or 24; default 12. Ignored when `mnemonic` is given. */
  mnemonicLength?: number | undefined;
  accounts: readonly NewAccountParams[];
  /** Import this mnemonic instead of generating one (the wallet is marked `imported`). */
  mnemonic?: string | undefined;
  /**
   * Prefix of the field names in error messages, e.g. `wallet.` for signup_v2 so an error
   * reads `wallet.accounts[1].addressFormat: …`. Default none.
   */
  fieldPrefix?: string | undefined;
}

/**
 * Turns a derivation failure into a 400 naming the request field. Anything else propagates.
 * @throws EmulatorError 400 code 3
 */
export function rethrowDerivation(error: unknown, fieldPrefix: string): never {
  if (error instanceof WalletDerivationError) {
    throw invalidArgument(`${fieldPrefix}${error.field}: ${error.message}`);
  }
  throw error;
}

/**
 * Derives `accounts` of the wallet `walletId` and stores them. Names must be unique within
 * the organization (also among the accounts of this call), and an account with the same
 * curve, path and address format must not already exist in the wallet.
 * @returns the addresses, in request order
 * @throws EmulatorError 400 naming `<prefix>accounts[i].<field>` for a derivation error,
 *   409 naming `<prefix>accounts[i].name` for a name taken, 409 for a duplicate account
 */
export function addWalletAccounts(
  ctx: WalletWriteContext,
  wallet: WalletRow,
  seed: Uint8Array,
  accounts: readonly NewAccountParams[],
  fieldPrefix = "",
): string[] {
  const store = walletStoreOf(ctx.db);
  const names = new Set<string>();
  const params = new Set<string>();
  const addresses: string[] = [];
  accounts.forEach((account, i) => {
    const field = `${fieldPrefix}accounts[${i}]`;
    let derived;
    try {
      derived = deriveAccount({ curve: account.curve, pathFormat: account.pathFormat, path: account.path, addressFormat: account.addressFormat, seed });
    } catch (error) {
      rethrowDerivation(error, `${field}.`);
    }
    const key = `${account.curve}|${account.path}|${account.addressFormat}`;
    if (params.has(key) || store.getAccountByParams(wallet.id, account.curve, account.path, account.addressFormat)) {
      throw alreadyExists(
        `${field}: wallet ${wallet.id} already has an account with curve ${account.curve}, path ${account.path} and addressFormat ${account.addressFormat}`,
      );
    }
    params.add(key);
    const name = account.name === undefined || account.name === "" ? null : account.name;
    if (name !== null) {
      if (names.has(name) || store.getAccountByName(wallet.org_id, name)) {
        throw alreadyExists(`${field}.name: a wallet account named ${JSON.stringify(name)} already exists in organization ${wallet.org_id}`);
      }
      names.add(name);
    }
    store.insertAccount({
      id: randomUUID(),
      org_id: wallet.org_id,
      wallet_id: wallet.id,
      curve: account.curve,
      path_format: account.pathFormat,
      path: account.path,
      address_format: account.addressFormat,
      address: derived.address,
      public_key: derived.publicKey,
      name,
      created_ms: ctx.nowMs,
      updated_ms: ctx.nowMs,
    });
    addresses.push(derived.address);
  });
  return addresses;
}

/** The BIP-39 seed of a stored wallet. */
export function walletSeed(ctx: Pick<WalletWriteContext, "signer">, wallet: WalletRow): Uint8Array {
  return mnemonicToSeed(openSecret(ctx.signer, wallet.mnemonic_sealed));
}

/**
 * Creates a wallet (new BIP-39 mnemonic, or `input.mnemonic` imported) and derives its
 * accounts. Call it inside the handler's transaction: a refusal thrown half-way rolls back
 * everything the activity wrote. The organization must exist (it may have been created
 * earlier in the same transaction).
 * @returns the wallet id and the account addresses in request order
 * @throws EmulatorError 409 naming `<prefix>walletName` for a name taken in the organization;
 *   400 naming `<prefix>mnemonicLength`, `<prefix>mnemonic` or
 *   `<prefix>accounts[i].<field>` (curve, pathFormat, path, addressFormat); 409 naming
 *   `<prefix>accounts[i].name` for an account name taken in the organization
 */
export function createWalletWithAccounts(ctx: WalletWriteContext, input: CreateWalletInput): { walletId: string; addresses: string[] } {
  const prefix = input.fieldPrefix ?? "";
  const store = walletStoreOf(ctx.db);
  if (input.walletName === "") throw invalidArgument(`${prefix}walletName: must not be empty`);
  if (store.getWalletByName(input.organizationId, input.walletName)) {
    throw alreadyExists(`${prefix}walletName: a wallet named ${JSON.stringify(input.walletName)} already exists in organization ${input.organizationId}`);
  }
  let mnemonic: string;
  if (input.mnemonic !== undefined) {
    mnemonic = input.mnemonic;
  } else {
    try {
      mnemonic = generateMnemonic(input.mnemonicLength ?? 12);
    } catch {
      throw invalidArgument(`${prefix}mnemonicLength: must be one of 12, 15, 18, 21, 24; got ${String(input.mnemonicLength)}`);
    }
  }
  let seed: Uint8Array;
  try {
    seed = mnemonicToSeed(mnemonic);
  } catch (error) {
    rethrowDerivation(error, prefix);
  }
  const wallet: WalletRow = {
    id: randomUUID(),
    org_id: input.organizationId,
    name: input.walletName,
    mnemonic_sealed: sealSecret(ctx.signer, mnemonic.trim().split(/\s+/u).join(" ")),
    exported: 0,
    imported: input.mnemonic !== undefined ? 1 : 0,
    created_ms: ctx.nowMs,
    updated_ms: ctx.nowMs,
  };
  store.insertWallet(wallet);
  const addresses = addWalletAccounts(ctx, wallet, seed, input.accounts, prefix);
  return { walletId: wallet.id, addresses };
}
