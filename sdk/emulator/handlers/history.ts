/**
 * @module emulator/handlers/history
 * list_eth_transaction_history (spec 2.8, 4.3; docs/service-facts.md#312-wallet-accounts-and-transaction-history, #6-pagination): the history of one
 * wallet-account address on one chain, most recent first, with opaque cursors and `pageInfo`.
 *
 * A private-key address is refused (400 naming `address`), as the spec says private key
 * addresses are unsupported. Cursors encode the position and the address+chain they belong
 * to; a cursor of another address or chain is refused.
 */
import { invalidArgument, notFound } from "../errors";
import { HISTORY_MIGRATIONS, historyStoreOf, type HistoryKey, type HistoryRow } from "../store/history";
import { findPrivateKeyByAddress } from "./private-keys";
import { findWalletAccountByAddress } from "./wallets";
import type { EmulatorModule } from "./types";

const DEFAULT_PAGE_SIZE = 10;

function encodeCursor(row: HistoryRow): string {
  return Buffer.from(JSON.stringify([row.address_lc, row.caip2, row.block_ms, row.seq])).toString("base64url");
}

function decodeCursor(cursor: string, address: string, caip2: string, field: string): HistoryKey {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parts = undefined;
  }
  if (!Array.isArray(parts) || parts.length !== 4 || typeof parts[2] !== "number" || typeof parts[3] !== "number") {
    throw invalidArgument(`paginationOptions.${field}: not a cursor of this history (use pageInfo.startCursor or endCursor)`);
  }
  if (parts[0] !== address.toLowerCase() || parts[1] !== caip2) {
    throw invalidArgument(`paginationOptions.${field}: the cursor belongs to another address or chain`);
  }
  return { blockMs: parts[2], seq: parts[3] };
}

export const historyModule: EmulatorModule = {
  name: "history",
  migrations: HISTORY_MIGRATIONS,
  setup: () => ({
    listEthTransactionHistory(ctx, req) {
      const account = findWalletAccountByAddress(ctx, req.address);
      if (!account) {
        if (findPrivateKeyByAddress(ctx, req.address)) {
          throw invalidArgument(
            `address: ${req.address} is a private key address; transaction history is available for wallet account addresses only`,
          );
        }
        throw notFound(`address: no wallet account with address ${req.address} in organization ${ctx.organizationId}`);
      }
      const page = req.paginationOptions;
      if (page?.after !== undefined && page.before !== undefined) {
        throw invalidArgument("paginationOptions: give either after or before, not both");
      }
      const limit = page?.limit !== undefined ? Number(page.limit) : DEFAULT_PAGE_SIZE;
      const older = page?.after !== undefined ? decodeCursor(page.after, req.address, req.caip2, "after") : undefined;
      const newer = page?.before !== undefined ? decodeCursor(page.before, req.address, req.caip2, "before") : undefined;
      const store = historyStoreOf(ctx.db);
      const rows = store.page(ctx.organizationId, req.address, req.caip2, limit, older, newer);
      const first = rows[0];
      const last = rows[rows.length - 1];
      const keyOf = (row: HistoryRow): HistoryKey => ({ blockMs: row.block_ms, seq: row.seq });
      // An empty page past either end still tells which way the other items lie.
      const pageInfo = {
        hasNextPage: last ? store.exists(ctx.organizationId, req.address, req.caip2, keyOf(last), "older") : newer !== undefined,
        hasPreviousPage: first ? store.exists(ctx.organizationId, req.address, req.caip2, keyOf(first), "newer") : older !== undefined,
        ...(first ? { startCursor: encodeCursor(first) } : {}),
        ...(last ? { endCursor: encodeCursor(last) } : {}),
      };
      return { transactions: rows.map((row) => JSON.parse(row.tx_json) as never), pageInfo };
    },
  }),
};
