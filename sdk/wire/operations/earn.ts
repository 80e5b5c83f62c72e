/**
 * @module wire/operations/earn
 * Earn: yield-vault wrappers (spec 4.4 earn_withdraw / earn_set_wrapper_state; docs/service-facts.md#36-earn-yield-vault-wrappers
 * for deployment, the enabled-vault listing and the withdrawal status lookup). Amounts are
 * raw on-chain units carried as decimal strings.
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { EarnChainCaip2, EarnProvider, EarnRequestStatus } from "../enums";
import { Id, opt, Uint64String } from "../shared";

/** Spec 4.4 earn_withdraw: raw on-chain units, or `MAX` for the whole position. */
export const EarnAmount = z
  .string()
  .regex(/^(\d+|MAX)$/, "must be a string of decimal digits (raw on-chain units) or MAX");

/**
 * Fee in basis points (0 to 10000). A decimal string on the wire; a whole number is accepted
 * too and carried as its string.
 */
export const BasisPoints = z.preprocess(
  (value) => (typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? String(value) : value),
  Uint64String.refine((v) => !/^\d+$/.test(v) || BigInt(v) <= 10_000n, "must be at most 10000 basis points"),
) as unknown as z.ZodType<string, string | number>;

/** Values for display only (`v1EarnValueDisplay`); never for arithmetic. */
export const EarnValueDisplay = z.object({ usd: opt(z.string()), crypto: opt(z.string()) });
export type EarnValueDisplay = z.infer<typeof EarnValueDisplay>;

/** A market a vault lends into (`v1EarnVaultExposure`). */
export const EarnVaultExposure = z.object({
  marketId: opt(z.string()),
  collateralSymbol: opt(z.string()),
  collateralCaip19: opt(z.string()),
  lltvPct: opt(z.string()),
  supplied: opt(z.string()),
  display: opt(EarnValueDisplay),
  sharePct: opt(z.string()),
});
export type EarnVaultExposure = z.infer<typeof EarnVaultExposure>;

/** docs/service-facts.md#36-earn-yield-vault-wrappers / `v1EarnEnabledVault`: one deployed wrapper; every field is optional. */
export const EnabledVault = z.object({
  vaultAddress: opt(z.string()),
  wrapperAddress: opt(z.string()),
  provider: opt(EarnProvider),
  caip19: opt(z.string()),
  apyPct: opt(z.string()),
  totalDeposited: opt(z.string()),
  display: opt(EarnValueDisplay),
  netApyPct: opt(z.string()),
  clientFeeBps: opt(z.string()),
  depositsDisabled: opt(z.boolean()),
  name: opt(z.string()),
  curator: opt(z.string()),
  claimableClientFee: opt(z.string()),
  claimableClientFeeDisplay: opt(EarnValueDisplay),
  clientFeeWallet: opt(z.string()),
  liquidity: opt(z.string()),
  liquidityDisplay: opt(EarnValueDisplay),
  exposures: opt(z.array(EarnVaultExposure)),
  forceDeallocatableLiquidity: opt(z.string()),
  forceDeallocatableLiquidityDisplay: opt(EarnValueDisplay),
  deployStatus: opt(z.string()),
  deployRequestId: opt(z.string()),
  deployError: opt(z.string()),
});
export type EnabledVault = z.infer<typeof EnabledVault>;

export const earnWithdraw = defineActivity("earn_withdraw", {
  type: "ACTIVITY_TYPE_EARN_WITHDRAW",
  intentKey: "earnWithdrawIntent",
  resultKey: "earnWithdrawResult",
  parameters: z.object({
    /** A deployed wrapper of the organization that holds the position. */
    wrapperAddress: Id,
    /** An on-chain address (wallet account or private key); private key IDs are not accepted. */
    signWith: Id,
    chainCaip2: EarnChainCaip2,
    /** Whether the transaction goes through the gas sponsorship facility. */
    sponsor: opt(z.boolean()),
    amountValue: EarnAmount,
  }),
  result: z.object({ withdrawRequestId: z.string() }),
});

export const earnSetWrapperState = defineActivity("earn_set_wrapper_state", {
  type: "ACTIVITY_TYPE_EARN_SET_WRAPPER_STATE",
  intentKey: "earnSetWrapperStateIntent",
  resultKey: "earnSetWrapperStateResult",
  parameters: z.object({
    wrapperAddress: Id,
    /** True rejects new deposits; withdrawals are never affected. */
    depositsDisabled: z.boolean(),
  }),
  result: z.object({ wrapperAddress: z.string(), depositsDisabled: z.boolean() }),
});

export const earnDeployWrapper = defineActivity("earn_deploy_wrapper", {
  type: "ACTIVITY_TYPE_EARN_DEPLOY_WRAPPER",
  intentKey: "earnDeployWrapperIntent",
  resultKey: "earnDeployWrapperResult",
  parameters: z.object({
    vaultAddress: Id,
    chainCaip2: EarnChainCaip2,
    /** The integrator's fee in basis points. */
    clientFeeBps: BasisPoints,
    clientFeeWallet: Id,
  }),
  result: z.object({ wrapperAddress: z.string(), splitterAddress: z.string(), deployRequestId: z.string() }),
});

export const listEarnEnabledVaults = defineQuery("list_earn_enabled_vaults", {
  request: z.object({
    organizationId: Id,
    provider: opt(EarnProvider),
    caip19: opt(z.string()),
    includeExposure: opt(z.boolean()),
  }),
  response: z.object({ enabledVaults: opt(z.array(EnabledVault)) }),
});

export const getEarnWithdrawStatus = defineQuery("get_earn_withdraw_status", {
  request: z.object({ organizationId: Id, withdrawRequestId: Id }),
  response: z.object({
    status: EarnRequestStatus,
    withdrawTxHash: opt(z.string()),
    error: opt(z.string()),
  }),
});

export const earnOperations = {
  earnWithdraw,
  earnSetWrapperState,
  earnDeployWrapper,
  listEarnEnabledVaults,
  getEarnWithdrawStatus,
};
