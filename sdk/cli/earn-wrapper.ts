/**
 * @module cli/earn-wrapper
 * `keyform serve --earn-wrapper <vault>[@<chain>]`: makes sure the emulator's root organization
 * has a deployed Earn wrapper for a vault. On the hosted service a wrapper is deployed once, by
 * hand, and is not configuration; programs (TypeScript and YAML alike) find it with
 * `listEarnEnabledVaults` and manage its state with `EarnWrapperState`. This gives a fresh
 * emulator the same starting point, through the service's own API, without any script.
 */
import { InvalidArgumentError } from "commander";
import { ApiKeyStamper } from "../protocol/api-key-stamper";
import { KeyformClient } from "../client/client";
import type { Bootstrap } from "../emulator-contract";
import { EarnChainCaip2 } from "../wire/enums";

/** A vault whose wrapper the emulator deploys on start. */
export interface EarnWrapperRequest {
  readonly vaultAddress: string;
  readonly chainCaip2: EarnChainCaip2;
}

/** Default chain of `--earn-wrapper`: Base, where the examples' vault lives. */
export const DEFAULT_EARN_CHAIN: EarnChainCaip2 = "eip155:8453";

/** The fee wallet and fee of a wrapper deployed for local use (the integrator's own values). */
const LOCAL_FEE = { clientFeeBps: "25", clientFeeWallet: "0x000000000000000000000000000000000000fee5" };

/** Parses `<vault address>[@<chain caip2>]`. */
export function parseEarnWrapper(value: string): EarnWrapperRequest {
  const [vaultAddress = "", chain] = value.split("@");
  if (!/^0x[0-9a-fA-F]{40}$/.test(vaultAddress)) throw new InvalidArgumentError(`expected <vault address>[@<chain>], the address as 0x and 40 hex digits, got "${vaultAddress}"`);
  const chainCaip2 = EarnChainCaip2.safeParse(chain ?? DEFAULT_EARN_CHAIN);
  if (!chainCaip2.success) throw new InvalidArgumentError(`the chain must be one of ${EarnChainCaip2.options.join(", ")}, got "${chain}"`);
  return { vaultAddress, chainCaip2: chainCaip2.data };
}

/**
 * Deploys a wrapper for the vault unless the organization has one; idempotent across restarts.
 * @returns the wrapper's address and whether it was deployed now.
 */
export async function ensureEarnWrapper(baseUrl: string, bootstrap: Bootstrap, request: EarnWrapperRequest): Promise<{ wrapperAddress: string; deployed: boolean }> {
  const client = new KeyformClient({
    baseUrl,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
  });
  const vault = request.vaultAddress.toLowerCase();
  const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
  const existing = enabledVaults.find((v) => v.vaultAddress?.toLowerCase() === vault && v.wrapperAddress !== undefined);
  if (existing?.wrapperAddress !== undefined) return { wrapperAddress: existing.wrapperAddress, deployed: false };
  const { wrapperAddress } = await client.earnDeployWrapper({ vaultAddress: request.vaultAddress, chainCaip2: request.chainCaip2, ...LOCAL_FEE });
  return { wrapperAddress, deployed: true };
}
