/**
 * @module emulator/handlers/earn-withdrawals
 * Earn withdrawals (spec 3 rule 1, 4.4 earn_withdraw; docs/service-facts.md#36-earn-yield-vault-wrappers
 * get_earn_withdraw_status).
 *
 * Rules: the wrapper must be a deployed wrapper of the organization on `chainCaip2`;
 * `signWith` must be the on-chain (EVM) address of one of the organization's wallet accounts
 * or private keys, never an id; `amountValue` is raw units (> 0) or `MAX`; withdrawals are
 * allowed whatever the wrapper's deposit state. A withdrawal executes at once (status
 * `COMPLETED`) and appears in the transaction history of `signWith` as a transaction from
 * `signWith` to the wrapper, with the operator details (`sponsored` = `sponsor`, the
 * activity's fingerprint). Positions are not modelled: `MAX` records no transfer amount.
 */
import { createHash } from "node:crypto";
import { failedPrecondition, invalidArgument, notFound } from "../errors";
import { earnWithdrawalStoreOf, EARN_WITHDRAWAL_MIGRATIONS } from "../store/earn-withdrawals";
import { historyStoreOf } from "../store/history";
import { privateKeyStoreOf } from "../store/private-keys";
import { walletStoreOf } from "../store/wallets";
import { findPrivateKeyByAddress } from "./private-keys";
import { findWalletAccountByAddress } from "./wallets";
import { newId } from "./common";
import type { EmulatorModule, QueryContext } from "./types";

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/u;

/** SLIP-44 coin of the native (fee) asset per chain; Ether unless listed. */
const NATIVE_SLIP44: Record<string, number> = { "eip155:56": 714, "eip155:97": 714, "eip155:137": 966, "eip155:80002": 966 };

/** CAIP-19 of the native asset of an EVM chain. */
export function nativeAssetOf(caip2: string): string {
  return `${caip2}/slip44:${NATIVE_SLIP44[caip2] ?? 60}`;
}

function sha256Hex(...parts: string[]): string {
  return createHash("sha256").update(parts.join("|")).digest("hex");
}

/** The address `signWith` stands for, or a refusal naming `signWith`. */
function resolveSignWith(ctx: QueryContext, signWith: string): string {
  const account = findWalletAccountByAddress(ctx, signWith);
  const key = account ? undefined : findPrivateKeyByAddress(ctx, signWith);
  const address = account?.address ?? (key ? signWith : undefined);
  if (address === undefined) {
    if (privateKeyStoreOf(ctx.db).get(ctx.organizationId, signWith)) {
      throw invalidArgument(`signWith: ${signWith} is a private key id; private key identifiers are not supported, pass the key's on-chain address`);
    }
    if (walletStoreOf(ctx.db).getAccount(ctx.organizationId, signWith) || walletStoreOf(ctx.db).getWallet(ctx.organizationId, signWith)) {
      throw invalidArgument(`signWith: ${signWith} is a wallet or wallet account id; pass the account's on-chain address`);
    }
    throw notFound(`signWith: no wallet account or private key with address ${signWith} in organization ${ctx.organizationId}`);
  }
  if (!EVM_ADDRESS.test(address)) {
    throw invalidArgument(`signWith: ${signWith} is not an EVM address (0x followed by 40 hex digits); Earn vaults live on EVM chains`);
  }
  return address;
}

export const earnWithdrawalsModule: EmulatorModule = {
  name: "earn-withdrawals",
  migrations: EARN_WITHDRAWAL_MIGRATIONS,
  setup: () => ({
    earnWithdraw(ctx, p) {
      if (!EVM_ADDRESS.test(p.wrapperAddress)) throw invalidArgument("wrapperAddress: expected an EVM address (0x followed by 40 hex digits)");
      const wrapper = ctx.store.earn.get(ctx.organizationId, p.wrapperAddress);
      if (!wrapper) {
        throw notFound(`wrapperAddress: ${p.wrapperAddress} is not a deployed Earn wrapper of organization ${ctx.organizationId}`);
      }
      if (wrapper.chain_caip2 !== p.chainCaip2) {
        throw failedPrecondition(`chainCaip2: wrapper ${p.wrapperAddress} is deployed on ${wrapper.chain_caip2}, not ${p.chainCaip2}`);
      }
      const signWith = resolveSignWith(ctx, p.signWith);
      if (p.amountValue !== "MAX" && BigInt(p.amountValue) === 0n) {
        throw invalidArgument("amountValue: must be greater than zero (raw on-chain units) or MAX");
      }
      const id = newId();
      const txHash = `0x${sha256Hex("earn-withdraw", ctx.activityId)}`;
      const sponsored = p.sponsor === true;
      earnWithdrawalStoreOf(ctx.db).insert({
        id,
        org_id: ctx.organizationId,
        wrapper_address: wrapper.wrapper_address,
        sign_with: signWith,
        chain_caip2: p.chainCaip2,
        sponsored: sponsored ? 1 : 0,
        amount_value: p.amountValue,
        tx_hash: txHash,
        status: "COMPLETED",
        activity_fingerprint: ctx.fingerprint,
        created_ms: ctx.nowMs,
      });
      const when = new Date(ctx.nowMs).toISOString();
      historyStoreOf(ctx.db).insert(ctx.organizationId, signWith, p.chainCaip2, ctx.nowMs, "executed", {
        transactionHash: txHash,
        // Block numbers advance with time (one block per 12 s), so later withdrawals sit higher.
        block: { number: String(Math.floor(ctx.nowMs / 12_000)), hash: `0x${sha256Hex("block", txHash)}`, timestamp: when },
        status: "CONFIRMED",
        origin: "TURNKEY",
        from: signWith,
        to: wrapper.wrapper_address,
        fee: { amount: "21000000000000", caip19: nativeAssetOf(p.chainCaip2) },
        transfers:
          p.amountValue === "MAX" ? [] : [{ direction: "IN", amount: p.amountValue, counterparty: wrapper.wrapper_address }],
        turnkey: { sponsored, activityFingerprint: ctx.fingerprint, submittedAt: when },
      });
      return { withdrawRequestId: id };
    },

    getEarnWithdrawStatus(ctx, req) {
      const row = earnWithdrawalStoreOf(ctx.db).get(ctx.organizationId, req.withdrawRequestId);
      if (!row) throw notFound(`withdrawRequestId: no withdrawal ${req.withdrawRequestId} in organization ${ctx.organizationId}`);
      return { status: row.status, withdrawTxHash: row.tx_hash };
    },
  }),
};
