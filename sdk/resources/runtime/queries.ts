/**
 * @module resources/runtime/queries
 * The data functions keyform offers, in one table ({@link DATA_FUNCTION_TABLE}): name,
 * description, the query each runs and, for the few that reshape the answer, the result's wire
 * schema. The TypeScript data functions (`resources/data.ts`, generated from this table), the
 * plugin's invokes and schema (`keyform:index:<name>`) and the docs are all drawn from it, and
 * every one runs through {@link runDataFunction}.
 */
import { z } from "zod";
import type { QueryRequest } from "../../client/client";
import { operations, type QueryName, type ResultOf } from "../../wire/registry";
import { EnabledVault } from "../../wire/operations/earn";
import { Quorum } from "../../wire/operations/organization";
import { resolveOrganizationId, sessionFor } from "./client";
import { explain } from "./errors";
import type { ProviderContext } from "./context";

/** One entry of the table: the query a data function runs and what it is for. */
export interface DataFunctionSpec<Q extends QueryName = QueryName, R = ResultOf<Q>> {
  readonly query: Q;
  readonly description: string;
  /** For a function whose result is not the query's answer as is: its wire schema, and how it is made from the answer. */
  readonly result?: { readonly schema: z.ZodType<R>; readonly from: (answer: ResultOf<Q>) => R };
}

/** A data function that returns its query's answer unchanged. */
function answerOf<Q extends QueryName>(query: Q, description: string): DataFunctionSpec<Q> {
  return { query, description };
}

/** A data function whose result is `schema`, made from its query's answer by `from`. */
function reshaped<Q extends QueryName, S extends z.ZodType>(
  query: Q,
  description: string,
  schema: S,
  from: (answer: ResultOf<Q>) => z.output<S>,
): DataFunctionSpec<Q, z.output<S>> {
  return { query, description, result: { schema: schema as unknown as z.ZodType<z.output<S>>, from } };
}

/** Every data function, by name: the one place one is declared. */
export const DATA_FUNCTION_TABLE = {
  getApiKeys: answerOf("getApiKeys", "The API keys of a user, or of the organization when `userId` is omitted (`get_api_keys`)."),
  listWalletAccounts: answerOf("listWalletAccounts", "Wallet accounts of a wallet, or of the whole organization (`list_wallet_accounts`, one page)."),
  listWebhookEndpoints: answerOf("listWebhookEndpoints", "The organization's webhook endpoints (`list_webhook_endpoints`)."),
  getSessionProfile: answerOf("getSessionProfile", "One session profile by id (`get_session_profile`)."),
  listSmartContractInterfaces: answerOf("listSmartContractInterfaces", "The organization's smart contract interfaces (`list_smart_contract_interfaces`)."),
  listEthTransactionHistory: answerOf("listEthTransactionHistory", "Transactions of a wallet account address on one EVM chain, newest first (`list_eth_transaction_history`, one page)."),
  listUsers: answerOf("listUsers", "The organization's users (`list_users`); handy to find user ids by name."),
  listEarnEnabledVaults: reshaped(
    "listEarnEnabledVaults",
    "The organization's deployed Earn wrappers (`list_earn_enabled_vaults`); `enabledVaults` is always a list.",
    z.object({ enabledVaults: z.array(EnabledVault) }),
    (answer) => ({ ...answer, enabledVaults: answer.enabledVaults ?? [] }),
  ),
  getUser: answerOf("getUser", "One user by id, with its API keys, authenticators, OAuth providers and tag ids (`get_user`)."),
  whoami: answerOf("whoami", "The organization, user and user name of the API key keyform runs with (`whoami`)."),
  getOrganization: answerOf("getOrganization", "The whole organization: users, policies, keys, wallets, tags, root quorum (`get_organization`)."),
  getRootQuorum: reshaped(
    "getOrganization",
    "The organization's root quorum: its threshold and its members, sorted (from `get_organization`).",
    Quorum,
    (answer) => {
      const quorum = answer.organizationData.rootQuorum ?? { threshold: 1, userIds: [] };
      return { threshold: quorum.threshold, userIds: [...quorum.userIds].sort() };
    },
  ),
  listWallets: answerOf("listWallets", "The organization's wallets (`list_wallets`)."),
  getWallet: answerOf("getWallet", "One wallet by id (`get_wallet`); its accounts: `listWalletAccounts`."),
  listPrivateKeys: answerOf("listPrivateKeys", "The organization's private keys (`list_private_keys`)."),
  getPrivateKey: answerOf("getPrivateKey", "One private key by id (`get_private_key`)."),
  listPrivateKeyTags: answerOf("listPrivateKeyTags", "The organization's private key tags (`list_private_key_tags`)."),
} as const;

type Table = typeof DATA_FUNCTION_TABLE;
/** The name of a data function (`listUsers`, `getRootQuorum`). */
export type DataFunctionName = keyof Table;
/** The arguments of data function `N`: its query's request, `organizationId` optional. */
export type DataArgs<N extends DataFunctionName> = QueryRequest<Table[N]["query"]>;
/** The result of data function `N`. */
export type DataResult<N extends DataFunctionName> = Table[N] extends DataFunctionSpec<QueryName, infer R> ? R : never;

/** One data function as the plugin, the schema and the docs list it. */
export interface DataFunction extends DataFunctionSpec<QueryName, unknown> {
  readonly name: DataFunctionName;
}

/** Every data function, in the table's order. */
export const DATA_FUNCTIONS: readonly DataFunction[] = Object.entries(DATA_FUNCTION_TABLE).map(
  ([name, spec]) => ({ name, ...spec }) as unknown as DataFunction,
);

/** The data function called `name`, or undefined. */
export function dataFunctionNamed(name: string): DataFunction | undefined {
  return DATA_FUNCTIONS.find((fn) => fn.name === name);
}

/** The wire schemas of a data function's arguments (its query's request) and of its result. */
export function dataFunctionSchemas(fn: DataFunction): { request: z.ZodType; result: z.ZodType } {
  const op = operations[fn.query] as unknown as { request: z.ZodType; response: z.ZodType };
  return { request: op.request, result: fn.result?.schema ?? op.response };
}

/**
 * True when every argument of data function `fn` may be left out (its query's request has no
 * required field but the organization, which defaults to the setting).
 */
export function argumentsOptional(fn: DataFunction): boolean {
  const shape = (dataFunctionSchemas(fn).request as unknown as { shape: Record<string, z.ZodType> }).shape;
  return Object.entries(shape).every(([name, field]) => name === "organizationId" || field.safeParse(undefined).success);
}

/**
 * Runs query `name` with the settings of `context`, in the organization `args.organizationId`
 * or the `organizationId` setting.
 * @throws {ProviderError} naming the data function and, where it helps, the setting to fix.
 */
export async function runQuery<K extends QueryName>(context: ProviderContext, name: K, args: QueryRequest<K> | undefined, what = `keyform.${name}`): Promise<ResultOf<K>> {
  try {
    const settings = context.settings();
    const organizationId = resolveOrganizationId(settings, (args as { organizationId?: string } | undefined)?.organizationId, what);
    const { client } = sessionFor(context, settings, organizationId, what);
    return await (client.callQuery as (n: K, r?: QueryRequest<K>) => Promise<ResultOf<K>>)(name, args);
  } catch (error) {
    throw explain(error, what);
  }
}

/**
 * Runs data function `name` with the settings of `context`: its query, then the reshaping its table entry
 * declares.
 * @throws {ProviderError} naming the data function and, where it helps, the setting to fix.
 */
export async function runDataFunction<N extends DataFunctionName>(context: ProviderContext, name: N, args: DataArgs<N> | undefined): Promise<DataResult<N>> {
  const fn = DATA_FUNCTION_TABLE[name] as DataFunctionSpec<QueryName, unknown>;
  const answer = await runQuery(context, fn.query, args as QueryRequest<QueryName> | undefined, `keyform.${name}`);
  return (fn.result === undefined ? answer : fn.result.from(answer as never)) as DataResult<N>;
}
