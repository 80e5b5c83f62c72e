/**
 * @module wire/operations/history
 * EVM transaction history (spec 2.8, 4.3 list_eth_transaction_history).
 */
import { z } from "zod";
import { defineQuery } from "../define";
import { EthTransactionStatus, HistoryCaip2, TransferDirection } from "../enums";
import { Id, opt, PageInfo, PaginationOptions } from "../shared";

/** Spec 2.8 block: the block that included the transaction. */
export const TransactionBlock = z.object({
  number: z.string(),
  hash: z.string(),
  /** RFC 3339. */
  timestamp: z.string(),
});

/** Spec 2.8 fee: paid in atomic units of the asset named by `caip19`. */
export const TransactionFee = z.object({ amount: z.string(), caip19: z.string() });

/** Spec 2.8 transfers[].asset. */
export const TransferAsset = z.object({
  caip19: z.string(),
  symbol: z.string(),
  name: z.string(),
  decimals: z.number(),
});

/** Spec 2.8: one asset transfer, relative to the queried address. */
export const Transfer = z.object({
  direction: TransferDirection,
  asset: opt(TransferAsset),
  /** Atomic units. */
  amount: z.string(),
  counterparty: z.string(),
  /** Display values only; never for arithmetic. */
  display: opt(z.object({ crypto: opt(z.string()), usd: opt(z.string()) })),
});
export type Transfer = z.infer<typeof Transfer>;

/** Spec 2.8 operator: service-side details of a transaction the service submitted. */
export const TransactionOperator = z.object({
  /** Whether the service paid the fee. */
  sponsored: z.boolean(),
  activityFingerprint: opt(z.string()),
  /** RFC 3339. */
  submittedAt: opt(z.string()),
});

/**
 * The spec's `operator` stands in for a wire key that carries the operator's brand
 * (`turnkey` in the hosted service's types); that key is read as `operator` too.
 */
function renameOperator(value: unknown): unknown {
  if (typeof value === "object" && value !== null && !("operator" in value) && "turnkey" in value) {
    const { turnkey, ...rest } = value as Record<string, unknown>;
    return { ...rest, operator: turnkey };
  }
  return value;
}

/** Spec 2.8: an EVM transaction record. */
export const EthTransaction = z.preprocess(
  renameOperator,
  z.object({
    transactionHash: z.string(),
    block: TransactionBlock,
    status: EthTransactionStatus,
    /** Where the transaction originated; one value names the service itself. */
    origin: z.string(),
    from: z.string(),
    /** The called contract; absent for contract creation. */
    to: opt(z.string()),
    fee: TransactionFee,
    transfers: z.array(Transfer),
    operator: opt(TransactionOperator),
    executionFailed: opt(z.boolean()),
  }),
);
export type EthTransaction = z.infer<typeof EthTransaction>;

export const listEthTransactionHistory = defineQuery("list_eth_transaction_history", {
  request: z.object({
    organizationId: Id,
    /** A wallet account address; private key addresses are not supported. */
    address: Id,
    caip2: HistoryCaip2,
    paginationOptions: opt(PaginationOptions),
  }),
  /** Most recent first; cursors are opaque (`pageInfo.endCursor`). */
  response: z.object({ transactions: z.array(EthTransaction), pageInfo: opt(PageInfo) }),
  pageItems: "transactions",
});

export const historyOperations = { listEthTransactionHistory };
