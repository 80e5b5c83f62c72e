/**
 * @module resources/data
 * Data functions: the service's queries, callable from a Pulumi program. They run in the
 * program's process (not in a provider), with the settings of the stack config
 * (`keyform:*`) or the `KEYFORM_*` environment. Each has an `...Output` variant that takes
 * `pulumi.Input`s and returns an `Output`, for arguments that come from other resources.
 */
import * as pulumi from "@pulumi/pulumi";
import type { QueryRequest } from "../client/client";
import type { QueryName, ResultOf } from "../wire/registry";
import { runQuery as runQueryWith } from "./runtime/queries";
import { ProviderContext } from "./runtime/context";

/** `T` with every property accepting a `pulumi.Input`. */
export type InputsOf<T> = { [P in keyof T]: pulumi.Input<T[P]> };

/**
 * The settings a data function uses: stack config `keyform:*` (the project's config, read
 * through the engine), then the `KEYFORM_*` environment.
 */
/** The program's own context: its settings from the stack config (getConfig reads the raw value, secrets included, without the plaintext-secret warning) and its clients. */
const programContext = new ProviderContext((key) => pulumi.runtime.getConfig(key), undefined);

async function runQuery<K extends QueryName>(name: K, args: QueryRequest<K> | undefined): Promise<ResultOf<K>> {
  try {
    return await runQueryWith(programContext, name, args);
  } catch (error) {
    // A RunError is reported by Pulumi as its message alone: one line that names the setting
    // to check, instead of the stack traces of every layer and cause.
    throw new pulumi.RunError(error instanceof Error ? error.message : String(error));
  }
}

function outputOf<A extends object, R>(fn: (args: A) => Promise<R>, args: InputsOf<A> | undefined): pulumi.Output<R> {
  return pulumi.output(args ?? {}).apply((plain) => fn(plain as unknown as A));
}

/** Arguments of {@link getApiKeys}. */
export type GetApiKeysArgs = QueryRequest<"getApiKeys">;
/** The API keys of a user, or of the organization when `userId` is omitted (`get_api_keys`). */
export function getApiKeys(args: GetApiKeysArgs = {}): Promise<ResultOf<"getApiKeys">> {
  return runQuery("getApiKeys", args);
}
/** {@link getApiKeys} with `Input` arguments. */
export function getApiKeysOutput(args?: InputsOf<GetApiKeysArgs>): pulumi.Output<ResultOf<"getApiKeys">> {
  return outputOf(getApiKeys, args);
}

/** Arguments of {@link listWalletAccounts}. */
export type ListWalletAccountsArgs = QueryRequest<"listWalletAccounts">;
/** Wallet accounts of a wallet, or of the whole organization (`list_wallet_accounts`, one page). */
export function listWalletAccounts(args: ListWalletAccountsArgs = {}): Promise<ResultOf<"listWalletAccounts">> {
  return runQuery("listWalletAccounts", args);
}
/** {@link listWalletAccounts} with `Input` arguments. */
export function listWalletAccountsOutput(args?: InputsOf<ListWalletAccountsArgs>): pulumi.Output<ResultOf<"listWalletAccounts">> {
  return outputOf(listWalletAccounts, args);
}

/** Arguments of {@link listWebhookEndpoints}. */
export type ListWebhookEndpointsArgs = QueryRequest<"listWebhookEndpoints">;
/** The organization's webhook endpoints (`list_webhook_endpoints`). */
export function listWebhookEndpoints(args: ListWebhookEndpointsArgs = {}): Promise<ResultOf<"listWebhookEndpoints">> {
  return runQuery("listWebhookEndpoints", args);
}
/** {@link listWebhookEndpoints} with `Input` arguments. */
export function listWebhookEndpointsOutput(args?: InputsOf<ListWebhookEndpointsArgs>): pulumi.Output<ResultOf<"listWebhookEndpoints">> {
  return outputOf(listWebhookEndpoints, args);
}

/** Arguments of {@link getSessionProfile}. */
export type GetSessionProfileArgs = QueryRequest<"getSessionProfile">;
/** One session profile by id (`get_session_profile`). */
export function getSessionProfile(args: GetSessionProfileArgs): Promise<ResultOf<"getSessionProfile">> {
  return runQuery("getSessionProfile", args);
}
/** {@link getSessionProfile} with `Input` arguments. */
export function getSessionProfileOutput(args: InputsOf<GetSessionProfileArgs>): pulumi.Output<ResultOf<"getSessionProfile">> {
  return outputOf(getSessionProfile, args);
}

/** Arguments of {@link listSmartContractInterfaces}. */
export type ListSmartContractInterfacesArgs = QueryRequest<"listSmartContractInterfaces">;
/** The organization's smart contract interfaces (`list_smart_contract_interfaces`). */
export function listSmartContractInterfaces(
  args: ListSmartContractInterfacesArgs = {},
): Promise<ResultOf<"listSmartContractInterfaces">> {
  return runQuery("listSmartContractInterfaces", args);
}
/** {@link listSmartContractInterfaces} with `Input` arguments. */
export function listSmartContractInterfacesOutput(
  args?: InputsOf<ListSmartContractInterfacesArgs>,
): pulumi.Output<ResultOf<"listSmartContractInterfaces">> {
  return outputOf(listSmartContractInterfaces, args);
}

/** Arguments of {@link listEthTransactionHistory}. */
export type ListEthTransactionHistoryArgs = QueryRequest<"listEthTransactionHistory">;
/** Transactions of a wallet account address on one EVM chain, newest first (one page). */
export function listEthTransactionHistory(args: ListEthTransactionHistoryArgs): Promise<ResultOf<"listEthTransactionHistory">> {
  return runQuery("listEthTransactionHistory", args);
}
/** {@link listEthTransactionHistory} with `Input` arguments. */
export function listEthTransactionHistoryOutput(
  args: InputsOf<ListEthTransactionHistoryArgs>,
): pulumi.Output<ResultOf<"listEthTransactionHistory">> {
  return outputOf(listEthTransactionHistory, args);
}

/** Arguments of {@link listUsers}. */
export type ListUsersArgs = QueryRequest<"listUsers">;
/** The organization's users (`list_users`); handy to find user ids by name. */
export function listUsers(args: ListUsersArgs = {}): Promise<ResultOf<"listUsers">> {
  return runQuery("listUsers", args);
}
/** {@link listUsers} with `Input` arguments. */
export function listUsersOutput(args?: InputsOf<ListUsersArgs>): pulumi.Output<ResultOf<"listUsers">> {
  return outputOf(listUsers, args);
}

/** Arguments of {@link listEarnEnabledVaults}. */
export type ListEarnEnabledVaultsArgs = QueryRequest<"listEarnEnabledVaults">;
/** Result of {@link listEarnEnabledVaults}: `enabledVaults` is always an array. */
export type ListEarnEnabledVaultsResult = Omit<ResultOf<"listEarnEnabledVaults">, "enabledVaults"> & {
  enabledVaults: NonNullable<ResultOf<"listEarnEnabledVaults">["enabledVaults"]>;
};
/** The organization's deployed Earn wrappers (`list_earn_enabled_vaults`). */
export async function listEarnEnabledVaults(args: ListEarnEnabledVaultsArgs = {}): Promise<ListEarnEnabledVaultsResult> {
  const result = await runQuery("listEarnEnabledVaults", args);
  return { ...result, enabledVaults: result.enabledVaults ?? [] };
}
/** {@link listEarnEnabledVaults} with `Input` arguments. */
export function listEarnEnabledVaultsOutput(args?: InputsOf<ListEarnEnabledVaultsArgs>): pulumi.Output<ListEarnEnabledVaultsResult> {
  return outputOf(listEarnEnabledVaults, args);
}

/** Declares `name` and `nameOutput` for a query: the call with plain arguments, and with `Input`s. */
function dataFunction<K extends QueryName>(name: K) {
  const call = (args?: QueryRequest<K>): Promise<ResultOf<K>> => runQuery(name, (args ?? {}) as QueryRequest<K>);
  const output = (args?: InputsOf<QueryRequest<K>>): pulumi.Output<ResultOf<K>> => outputOf(call as (a: QueryRequest<K>) => Promise<ResultOf<K>>, args);
  return [call, output] as const;
}

/** Arguments of {@link getUser}. */
export type GetUserArgs = QueryRequest<"getUser">;
/** One user by id, with its API keys, OAuth providers and tag ids (`get_user`). */
export const [getUser, getUserOutput] = dataFunction("getUser") as unknown as [
  (args: GetUserArgs) => Promise<ResultOf<"getUser">>,
  (args: InputsOf<GetUserArgs>) => pulumi.Output<ResultOf<"getUser">>,
];

/** The organization, user and user name of the API key keyform runs with (`whoami`). */
export const [whoami, whoamiOutput] = dataFunction("whoami");

/** The whole organization: users, policies, keys, wallets, tags, root quorum (`get_organization`). */
export const [getOrganization, getOrganizationOutput] = dataFunction("getOrganization");

/** Result of {@link getRootQuorum}. */
export interface RootQuorumResult {
  threshold: number;
  /** The members, sorted. */
  userIds: string[];
}
/** The organization's root quorum (from `get_organization`). */
export async function getRootQuorum(args: QueryRequest<"getOrganization"> = {}): Promise<RootQuorumResult> {
  const { organizationData } = await getOrganization(args);
  const quorum = organizationData.rootQuorum ?? { threshold: 1, userIds: [] };
  return { threshold: quorum.threshold, userIds: [...quorum.userIds].sort() };
}
/** {@link getRootQuorum} with `Input` arguments. */
export function getRootQuorumOutput(args?: InputsOf<QueryRequest<"getOrganization">>): pulumi.Output<RootQuorumResult> {
  return outputOf(getRootQuorum, args);
}

/** The organization's wallets (`list_wallets`). */
export const [listWallets, listWalletsOutput] = dataFunction("listWallets");

/** Arguments of {@link getWallet}. */
export type GetWalletArgs = QueryRequest<"getWallet">;
/** One wallet by id (`get_wallet`); its accounts: {@link listWalletAccounts}. */
export const [getWallet, getWalletOutput] = dataFunction("getWallet") as unknown as [
  (args: GetWalletArgs) => Promise<ResultOf<"getWallet">>,
  (args: InputsOf<GetWalletArgs>) => pulumi.Output<ResultOf<"getWallet">>,
];

/** The organization's private keys (`list_private_keys`). */
export const [listPrivateKeys, listPrivateKeysOutput] = dataFunction("listPrivateKeys");

/** Arguments of {@link getPrivateKey}. */
export type GetPrivateKeyArgs = QueryRequest<"getPrivateKey">;
/** One private key by id (`get_private_key`). */
export const [getPrivateKey, getPrivateKeyOutput] = dataFunction("getPrivateKey") as unknown as [
  (args: GetPrivateKeyArgs) => Promise<ResultOf<"getPrivateKey">>,
  (args: InputsOf<GetPrivateKeyArgs>) => pulumi.Output<ResultOf<"getPrivateKey">>,
];

/** The organization's private key tags (`list_private_key_tags`). */
export const [listPrivateKeyTags, listPrivateKeyTagsOutput] = dataFunction("listPrivateKeyTags");
