/**
 * @module emulator/fixtures
 * Fixtures loaded at start (`startEmulator({ fixturesFile })`, `keyform serve --fixtures`):
 * wallets with a known mnemonic (so their addresses are known in advance) and EVM
 * transactions shown by list_eth_transaction_history.
 *
 * File format (JSON):
 * ```json
 * {
 *   "wallets": [{ "organizationId": "optional, default the root organization",
 *                 "walletName": "demo", "mnemonic": "abandon … about",
 *                 "accounts": [{ "curve": "CURVE_SECP256K1", "pathFormat": "PATH_FORMAT_BIP32",
 *                                "path": "m/44'/60'/0'/0/0", "addressFormat": "ADDRESS_FORMAT_ETHEREUM" }] }],
 *   "transactions": [{ "address": "0x…", "caip2": "eip155:1", "transaction": { <spec 2.8 record> } }]
 * }
 * ```
 * A fixture wallet is created (marked `imported`) only if the organization has no wallet of
 * that name yet. Fixture transactions are replaced on every start; they are shown to any
 * organization owning a wallet account with that address. A transaction's place in the
 * history is its `block.timestamp`.
 */
import * as fs from "node:fs";
import { z } from "zod";
import { HistoryCaip2 } from "keyform/wire/enums";
import { EthTransaction } from "keyform/wire/operations/history";
import { WalletAccountParams } from "keyform/wire/operations/wallets";
import { describeZodError } from "keyform/wire/shared";
import { EmulatorError } from "./errors";
import type { SignerKey } from "./handlers/types";
import type { Db } from "./store";
import { historyStoreOf } from "./store/history";
import { createWalletWithAccounts, walletStoreOf } from "./store/wallets";

const FixtureFile = z.object({
  wallets: z
    .array(
      z.object({
        organizationId: z.string().min(1).optional(),
        walletName: z.string().min(1),
        mnemonic: z.string().min(1),
        accounts: z.array(WalletAccountParams),
      }),
    )
    .optional(),
  transactions: z
    .array(z.object({ address: z.string().min(1), caip2: HistoryCaip2, transaction: EthTransaction }))
    .optional(),
});
export type FixtureFile = z.input<typeof FixtureFile>;

/** What was loaded. */
export interface FixtureSummary {
  walletsCreated: number;
  transactions: number;
}

/**
 * Reads and applies a fixtures file in one transaction.
 * @throws Error naming the file and the offending field (the mnemonic is never shown)
 */
export function loadFixtures(db: Db, signer: SignerKey, rootOrganizationId: string, file: string): FixtureSummary {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`fixtures file ${file}: ${error instanceof Error ? error.message : "unreadable"}`);
  }
  const parsed = FixtureFile.safeParse(raw);
  if (!parsed.success) throw new Error(`fixtures file ${file}: ${describeZodError(parsed.error)}`);
  const fixtures = parsed.data;
  const nowMs = Date.now();
  return db.transaction((): FixtureSummary => {
    let walletsCreated = 0;
    (fixtures.wallets ?? []).forEach((wallet, i) => {
      const organizationId = wallet.organizationId ?? rootOrganizationId;
      if (!db.prepare("SELECT 1 FROM organizations WHERE id = ?").get(organizationId)) {
        throw new Error(`fixtures file ${file}: wallets[${i}].organizationId: no organization with id ${organizationId}`);
      }
      if (walletStoreOf(db).getWalletByName(organizationId, wallet.walletName)) return;
      try {
        createWalletWithAccounts({ db, signer, nowMs }, { organizationId, walletName: wallet.walletName, mnemonic: wallet.mnemonic, accounts: wallet.accounts, fieldPrefix: `wallets[${i}].` });
      } catch (error) {
        throw new Error(`fixtures file ${file}: ${error instanceof EmulatorError || error instanceof Error ? error.message : "invalid wallet"}`);
      }
      walletsCreated++;
    });
    const history = historyStoreOf(db);
    history.clearFixtures();
    (fixtures.transactions ?? []).forEach((entry, i) => {
      const blockMs = Date.parse(entry.transaction.block.timestamp);
      if (Number.isNaN(blockMs)) {
        throw new Error(`fixtures file ${file}: transactions[${i}].transaction.block.timestamp: not an RFC 3339 time`);
      }
      const { operator, ...rest } = entry.transaction;
      history.insert(null, entry.address, entry.caip2, blockMs, "fixture", { ...rest, ...(operator ? { turnkey: operator } : {}) });
    });
    return { walletsCreated, transactions: fixtures.transactions?.length ?? 0 };
  })();
}
