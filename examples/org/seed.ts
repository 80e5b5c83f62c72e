/**
 * What the example organizations assume already exists. Both examples (examples/org and
 * examples/org-yaml) declare everything else themselves, users included, and only need a
 * deployed Earn wrapper for their vault (deployed once, by hand on the hosted service): the main
 * command deploys it on a fresh emulator with {@link deployEarnWrapper}, which looks first and
 * deploys only when it is missing, so running it again changes nothing.
 */
import type { KeyformClient } from "keyform";
import type { OrgSettings } from "./settings";

/** Deploys the Earn wrapper of the settings' vault unless it exists; returns its address when deployed. */
export async function deployEarnWrapper(client: KeyformClient, settings: OrgSettings): Promise<{ deployedWrapper?: string }> {
  const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
  const vault = settings.earn.vaultAddress.toLowerCase();
  let deployedWrapper: string | undefined;
  if (!enabledVaults.some((v) => v.vaultAddress?.toLowerCase() === vault)) {
    const deployed = await client.earnDeployWrapper({
      vaultAddress: settings.earn.vaultAddress,
      chainCaip2: settings.earn.chainCaip2 as never,
      clientFeeBps: 25,
      clientFeeWallet: "0x000000000000000000000000000000000000fee5",
    });
    deployedWrapper = deployed.wrapperAddress;
  }
  return deployedWrapper === undefined ? {} : { deployedWrapper };
}
