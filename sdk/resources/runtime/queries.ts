/**
 * @module resources/runtime/queries
 * The service queries keyform offers as data functions, and the one way to run them: the
 * TypeScript data functions (`resources/data.ts`, in the program's process) and the provider
 * plugin's invokes (`keyform:index:<name>`) both call {@link runQuery}.
 */
import type { QueryRequest } from "../../client/client";
import type { QueryName, ResultOf } from "../../wire/registry";
import { resolveOrganizationId, sessionFor } from "./client";
import { explain } from "./errors";
import type { ProviderContext } from "./context";

/** One data function: the query it runs and what it is for. */
export interface DataFunction {
  readonly name: QueryName;
  readonly description: string;
}

/** Every data function, by the client method (and wire query) it runs. */
export const DATA_FUNCTIONS: readonly DataFunction[] = [
  { name: "getApiKeys", description: "The API keys of a user, or of the organization when `userId` is omitted (`get_api_keys`)." },
  { name: "listWalletAccounts", description: "Wallet accounts of a wallet, or of the whole organization (`list_wallet_accounts`, one page)." },
  { name: "listWebhookEndpoints", description: "The organization's webhook endpoints (`list_webhook_endpoints`)." },
  { name: "getSessionProfile", description: "One session profile by id (`get_session_profile`)." },
  { name: "listSmartContractInterfaces", description: "The organization's smart contract interfaces (`list_smart_contract_interfaces`)." },
  { name: "listEthTransactionHistory", description: "Transactions of a wallet account address on one EVM chain, newest first (one page)." },
  { name: "listUsers", description: "The organization's users (`list_users`); handy to find user ids by name." },
  { name: "listEarnEnabledVaults", description: "The organization's deployed Earn wrappers (`list_earn_enabled_vaults`)." },
  { name: "getUser", description: "One user by id, with its API keys, authenticators, OAuth providers and tag ids (`get_user`)." },
  { name: "whoami", description: "The organization, user and user name of the API key keyform runs with (`whoami`)." },
  { name: "getOrganization", description: "The whole organization: users, policies, keys, wallets, tags, root quorum (`get_organization`)." },
  { name: "listWallets", description: "The organization's wallets (`list_wallets`)." },
  { name: "getWallet", description: "One wallet by id (`get_wallet`)." },
  { name: "listPrivateKeys", description: "The organization's private keys (`list_private_keys`)." },
  { name: "getPrivateKey", description: "One private key by id (`get_private_key`)." },
  { name: "listPrivateKeyTags", description: "The organization's private key tags (`list_private_key_tags`)." },
];

/**
 * Runs query `name` with the settings of `context`, in the organization `args.organizationId`
 * or the `organizationId` setting.
 * @throws {ProviderError} naming the data function and, where it helps, the setting to fix.
 */
export async function runQuery<K extends QueryName>(context: ProviderContext, name: K, args: QueryRequest<K> | undefined): Promise<ResultOf<K>> {
  const what = `keyform.${name}`;
  try {
    const settings = context.settings();
    const organizationId = resolveOrganizationId(settings, (args as { organizationId?: string } | undefined)?.organizationId, what);
    const { client } = sessionFor(context, settings, organizationId, what);
    return await (client.callQuery as (n: K, r?: QueryRequest<K>) => Promise<ResultOf<K>>)(name, args);
  } catch (error) {
    throw explain(error, what);
  }
}
