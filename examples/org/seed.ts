/**
 * What an example organization assumes already exists. The TypeScript example (examples/org)
 * declares its users itself and only needs a deployed Earn wrapper for its vault (deployed once,
 * by hand on the hosted service): the main command deploys it on a fresh emulator with
 * {@link deployEarnWrapper}. The YAML example takes user ids as config, so its tests create the
 * users first ({@link seedOrganization}). Every step looks first and creates only what is
 * missing, so running it again changes nothing.
 */
import type { KeyformClient } from "keyform";
import type { OrgSettings } from "./settings";

/** Every user name the settings refer to. */
export function userNamesIn(settings: OrgSettings): string[] {
  const names = [
    ...settings.teams.admins,
    ...settings.teams.treasury,
    ...settings.teams.engineering,
    settings.inviter,
    settings.ciBots.deployer,
    settings.ciBots.auditor,
  ];
  return [...new Set(names)];
}

export interface SeedReport {
  createdUsers: string[];
  deployedWrapper?: string;
}

/** Creates the missing users and the Earn wrapper; returns what it created. */
export async function seedOrganization(client: KeyformClient, settings: OrgSettings): Promise<SeedReport> {
  const createdUsers = await createMissingUsers(client, settings);
  return { createdUsers, ...(await deployEarnWrapper(client, settings)) };
}

/** Creates the users the settings name that do not exist yet; returns their names. */
export async function createMissingUsers(client: KeyformClient, settings: OrgSettings): Promise<string[]> {
  const { users } = await client.listUsers();
  const existing = new Set(users.map((u) => u.userName));
  const missing = userNamesIn(settings).filter((name) => !existing.has(name));
  if (missing.length > 0) {
    await client.createUsers({
      users: missing.map((userName) => ({
        userName,
        userEmail: `${userName}@example.com`,
        apiKeys: [],
        authenticators: [],
        oauthProviders: [],
        userTags: [],
      })),
    });
  }
  return missing;
}

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
