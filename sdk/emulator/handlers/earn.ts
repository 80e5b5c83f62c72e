/**
 * @module emulator/handlers/earn
 * Earn wrappers (spec 3, 4.4; docs/service-facts.md#36-earn-yield-vault-wrappers). Deploying a wrapper records it at an address
 * derived deterministically from organization, vault and chain (`0x` + 40 hex), so the same
 * organization gets the same wrapper address after a reset of the data directory; a vault
 * has one wrapper per chain and organization. Deployments complete at once.
 *
 * Not emulated (501): deposits, withdrawals, claims and their status lookups, which need
 * on-chain state.
 */
import { createHash } from "node:crypto";
import { alreadyExists, invalidArgument, notFound } from "../errors";
import type { EarnWrapperRow } from "../store";
import { newId } from "./common";
import type { EmulatorModule } from "./types";

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function deriveAddress(...parts: string[]): string {
  return `0x${createHash("sha256").update(parts.join("|")).digest("hex").slice(0, 40)}`;
}

/** The wrapper address the emulator assigns to `vaultAddress` on `chainCaip2` for an organization. */
export function wrapperAddressFor(organizationId: string, vaultAddress: string, chainCaip2: string): string {
  return deriveAddress("earn-wrapper", organizationId, vaultAddress.toLowerCase(), chainCaip2);
}

function caip19(row: EarnWrapperRow): string {
  return `${row.chain_caip2}/erc4626:${row.vault_address}`;
}

export const earnModule: EmulatorModule = {
  name: "earn",
  setup: () => ({
    earnDeployWrapper(ctx, p) {
      if (!EVM_ADDRESS.test(p.vaultAddress)) throw invalidArgument("vaultAddress: expected an EVM address (0x followed by 40 hex digits)");
      if (!EVM_ADDRESS.test(p.clientFeeWallet)) throw invalidArgument("clientFeeWallet: expected an EVM address (0x followed by 40 hex digits)");
      const wrapperAddress = wrapperAddressFor(ctx.organizationId, p.vaultAddress, p.chainCaip2);
      if (ctx.store.earn.get(ctx.organizationId, wrapperAddress)) {
        throw alreadyExists(`vaultAddress: a wrapper for vault ${p.vaultAddress} on ${p.chainCaip2} is already deployed (${wrapperAddress})`);
      }
      const splitterAddress = deriveAddress("earn-splitter", ctx.organizationId, p.vaultAddress.toLowerCase(), p.chainCaip2);
      const deployRequestId = newId();
      ctx.store.earn.insert({
        wrapper_address: wrapperAddress,
        org_id: ctx.organizationId,
        vault_address: p.vaultAddress.toLowerCase(),
        chain_caip2: p.chainCaip2,
        client_fee_bps: Number(p.clientFeeBps),
        client_fee_wallet: p.clientFeeWallet,
        splitter_address: splitterAddress,
        deploy_request_id: deployRequestId,
        deposits_disabled: 0,
        created_ms: ctx.nowMs,
        updated_ms: ctx.nowMs,
      });
      return { wrapperAddress, splitterAddress, deployRequestId };
    },

    earnSetWrapperState(ctx, p) {
      if (!EVM_ADDRESS.test(p.wrapperAddress)) throw invalidArgument("wrapperAddress: expected an EVM address (0x followed by 40 hex digits)");
      const wrapper = ctx.store.earn.get(ctx.organizationId, p.wrapperAddress);
      if (!wrapper) {
        throw notFound(`wrapperAddress: ${p.wrapperAddress} is not a deployed Earn wrapper of organization ${ctx.organizationId}`);
      }
      ctx.store.earn.setDepositsDisabled(ctx.organizationId, wrapper.wrapper_address, p.depositsDisabled, ctx.nowMs);
      return { wrapperAddress: p.wrapperAddress, depositsDisabled: p.depositsDisabled };
    },

    listEarnEnabledVaults(ctx, req) {
      const provider = "EARN_PROVIDER_MORPHO" as const;
      const vaults = ctx.store.earn
        .list(ctx.organizationId)
        .filter((row) => (req.provider === undefined || req.provider === provider) && (req.caip19 === undefined || req.caip19 === caip19(row)))
        .map((row) => ({
          vaultAddress: row.vault_address,
          wrapperAddress: row.wrapper_address,
          provider,
          caip19: caip19(row),
          apyPct: "0",
          totalDeposited: "0",
          clientFeeBps: String(row.client_fee_bps),
          clientFeeWallet: row.client_fee_wallet,
          depositsDisabled: row.deposits_disabled === 1,
          deployStatus: "COMPLETED",
          deployRequestId: row.deploy_request_id,
          ...(req.includeExposure ? { exposures: [] } : {}),
        }));
      return { enabledVaults: vaults };
    },
  }),
};
