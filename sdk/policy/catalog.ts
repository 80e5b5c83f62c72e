/**
 * @module policy/catalog
 * The one catalog of activity types: for each type its kind, version, resource and action,
 * the `activity.params` fields a policy can read, and which request keywords exist for it.
 * The evaluator (through simulate and the emulator's gate), the lints, simulate and the access
 * diff all read it; nothing else keeps its own list.
 *
 * Sources: the docs' tables ({@link module:policy/documented}: kinds and their versions,
 * resources and actions, policy-visible params), the wire definitions (request fields keyform
 * sends), and the service's activities keyform does not send itself (listed below with their
 * request fields). The service's notes: a keyword that does not exist for an activity (a chain
 * keyword on an unrelated activity, `wallet` on a request that names no wallet, a params field
 * the docs do not list for the type) makes the policy an error for that activity, and an
 * erroring policy counts as no match.
 */
import { z } from "zod";
import type { ActivityDef } from "../wire/define";
import { operations } from "../wire/registry";
import { activityKind, EMPTY_WHEN_OMITTED, factsDocumented, resourceAndAction, ROOT_QUORUM_ONLY_KINDS, snakeCaseKeys } from "./activity";
import { documentedKinds, documentedParams, kindsWithoutFacts } from "./documented";

/** What a condition can read for one activity type. */
export interface ActivityTypeInfo {
  /** `ACTIVITY_TYPE_SIGN_TRANSACTION_V2`. */
  readonly type: string;
  /** `SIGN_TRANSACTION`. */
  readonly kind: string;
  /** Version number (1 when the type has no `_V<n>` suffix). */
  readonly version: number;
  /** `activity.resource`. */
  readonly resource: string;
  /** `activity.action`. */
  readonly action: string;
  /** Whether resource and action are the docs' (false: keyform's reading for a kind the docs give none). */
  readonly factsDocumented: boolean;
  /** Whether the docs list this exact type (kinds table, breakdown or params table). */
  readonly documented: boolean;
  /** Only the root quorum may run it (no policy can grant it). */
  readonly rootQuorumOnly: boolean;
  /**
   * The `activity.params` fields a policy can read (docs "Activity parameters"), snake_case:
   * true when always present, false when the request may leave them out. Empty for types the
   * table does not list: they expose no params.
   */
  readonly params: Readonly<Record<string, boolean>>;
  /** The documented type of each of `params` ("string", "list<string>", "SparkClaimPackage"). */
  readonly paramTypes: Readonly<Record<string, string>>;
  /** Top-level request fields (snake_case) keyform knows for the type: true required, false optional. */
  readonly requestFields: Readonly<Record<string, boolean>>;
  /** Request keywords beyond `activity`, `approvers`, `credentials` and `time` that may exist. */
  readonly keywords: ReadonlySet<string>;
}

/** Keywords every request has. */
export const UNIVERSAL_KEYWORDS: ReadonlySet<string> = new Set(["activity", "approvers", "credentials", "time"]);

/** Activities of the service outside the wire definitions, with their request fields (snake_case; `?` optional). */
const SERVICE_ONLY: Readonly<Record<string, string>> = {
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: "sign_with unsigned_transaction type",
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: "sign_with payload encoding hash_function",
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: "sign_with payloads encoding hash_function",
  ACTIVITY_TYPE_EXPORT_WALLET: "wallet_id target_public_key language?",
  ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7: "sub_organization_name root_users root_quorum_threshold wallet? disable_email_recovery? disable_email_auth? disable_sms_auth? disable_otp_email_auth? verification_token?",
  ACTIVITY_TYPE_DELETE_SUB_ORGANIZATION: "delete_without_export?",
  ACTIVITY_TYPE_CREATE_POLICIES: "policies",
  ACTIVITY_TYPE_DELETE_POLICIES: "policy_ids",
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: "user_id authenticators",
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: "user_id authenticator_ids",
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: "user_id oauth_providers",
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: "user_id provider_ids",
  ACTIVITY_TYPE_DELETE_WALLET_ACCOUNTS: "wallet_account_ids delete_without_export?",
  ACTIVITY_TYPE_SET_ORGANIZATION_FEATURE: "name value?",
  ACTIVITY_TYPE_REMOVE_ORGANIZATION_FEATURE: "name",
  ACTIVITY_TYPE_UPDATE_ORGANIZATION_NAME: "organization_name",
  ACTIVITY_TYPE_EARN_DEPOSIT: "wallet_address amount wrapper_address?",
  ACTIVITY_TYPE_EARN_CLAIM_REWARDS: "wallet_address wrapper_address?",
  ACTIVITY_TYPE_CLAIM_EARN_FEES: "wallet_address wrapper_address?",
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: "user_id",
  ACTIVITY_TYPE_IMPORT_WALLET: "user_id wallet_name encrypted_bundle accounts",
  ACTIVITY_TYPE_INIT_IMPORT_PRIVATE_KEY: "user_id",
  ACTIVITY_TYPE_IMPORT_PRIVATE_KEY: "user_id private_key_name encrypted_bundle curve address_formats",
  ACTIVITY_TYPE_SIGN_TRANSACTION: "sign_with unsigned_transaction type",
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD: "sign_with payload encoding hash_function",
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION: "sign_with",
  ACTIVITY_TYPE_ETH_SEND_TRANSACTION_V2: "sign_with",
  ACTIVITY_TYPE_SOL_SEND_TRANSACTION: "sign_with",
  ACTIVITY_TYPE_EXECUTE_SWAP: "sign_with",
  ACTIVITY_TYPE_SPARK_SIGN_FROST: "sign_with signatures",
  ACTIVITY_TYPE_SPARK_PREPARE_TRANSFER: "sign_with transfer",
  ACTIVITY_TYPE_SPARK_CLAIM_TRANSFER: "sign_with claim",
  ACTIVITY_TYPE_SPARK_PREPARE_LIGHTNING_RECEIVE: "sign_with lightning_receive",
  ACTIVITY_TYPE_EXPORT_WALLET_ACCOUNT: "address target_public_key",
  ACTIVITY_TYPE_EXPORT_PRIVATE_KEY: "private_key_id target_public_key",
  ACTIVITY_TYPE_UPDATE_WALLET: "wallet_id wallet_name?",
  ACTIVITY_TYPE_DELETE_WALLETS: "wallet_ids delete_without_export?",
  ACTIVITY_TYPE_INIT_IMPORT_SECRETS: "user_id",
  ACTIVITY_TYPE_IMPORT_SECRETS: "user_id encrypted_bundle name? static_properties?",
  ACTIVITY_TYPE_EXPORT_SECRETS: "secret_ids target_public_key",
};

/** Chain payload keywords per kind: the parsed payload a signing request carries. */
const CHAIN_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  SIGN_TRANSACTION: ["eth", "solana", "tron", "bitcoin", "tempo"],
  // `eth.eip_712` and `eth.eip_7702_authorization` are raw payloads.
  SIGN_RAW_PAYLOAD: ["eth"],
  SIGN_RAW_PAYLOADS: ["eth"],
  ETH_SEND_TRANSACTION: ["eth"],
  SOL_SEND_TRANSACTION: ["solana"],
};

/**
 * The parsed payloads (`eth.tx`, `eth.eip_712`…) a request of a kind may carry: a request
 * carries one at most, so each is present or absent on its own (reading another one errors).
 */
export const CHAIN_PAYLOADS: Readonly<Record<string, readonly string[]>> = {
  SIGN_TRANSACTION: ["eth.tx", "solana.tx", "tron.tx", "bitcoin.tx", "tempo.tx"],
  SIGN_RAW_PAYLOAD: ["eth.eip_712", "eth.eip_7702_authorization"],
  SIGN_RAW_PAYLOADS: ["eth.eip_712", "eth.eip_7702_authorization"],
  ETH_SEND_TRANSACTION: ["eth.tx"],
  SOL_SEND_TRANSACTION: ["solana.tx"],
};

/** Every parsed payload keyword of the language. */
export const ALL_CHAIN_PAYLOADS: readonly string[] = [...new Set(Object.values(CHAIN_PAYLOADS).flat())].sort();

/** Keywords an activity kind carries whatever its request fields (the docs' examples and notes). */
const KIND_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  // Secrets: an export is evaluated per secret, with its static properties.
  EXPORT_SECRETS: ["secret"],
};

/** The signing or export target keywords a request with these fields may carry (how the service resolves the target). */
function targetKeywords(fields: Readonly<Record<string, boolean>>): string[] {
  const found: string[] = [];
  // `sign_with` and `address` name an address (a wallet account's or a private key's) or a private key id.
  if ("sign_with" in fields || "address" in fields || "wallet_address" in fields) found.push("wallet", "wallet_account", "private_key");
  if ("wallet_id" in fields) found.push("wallet");
  if ("wallet_ids" in fields) found.push("wallets");
  if ("private_key_id" in fields) found.push("private_key");
  return found;
}

function versionOf(type: string): number {
  const match = /_V(\d+)$/.exec(type);
  return match ? Number(match[1]) : 1;
}

/** The type name of version `version` of `kind`. */
function typeOf(kind: string, version: number): string {
  return `ACTIVITY_TYPE_${kind}${version > 1 ? `_V${version}` : ""}`;
}

function info(type: string, requestFields: Record<string, boolean>): ActivityTypeInfo {
  const kind = activityKind(type);
  const paramTypes = documentedParams.get(type) ?? {};
  // A documented field is present when the request requires it, when it reads as '' if left out, or (keyform not knowing the request) always.
  const params = Object.fromEntries(Object.keys(paramTypes).map((name) => [name, EMPTY_WHEN_OMITTED.has(name) || (requestFields[name] ?? true)]));
  const documentedVersions = documentedKinds.get(kind)?.versions ?? kindsWithoutFacts.get(kind) ?? [];
  const documented = documentedParams.has(type) || documentedVersions.includes(versionOf(type));
  return {
    type,
    kind,
    version: versionOf(type),
    ...resourceAndAction(kind),
    factsDocumented: factsDocumented(kind),
    documented,
    rootQuorumOnly: ROOT_QUORUM_ONLY_KINDS.has(kind),
    params,
    paramTypes,
    requestFields,
    keywords: new Set([...targetKeywords(requestFields), ...(CHAIN_KEYWORDS[kind] ?? []), ...(KIND_KEYWORDS[kind] ?? [])]),
  };
}

/** Top-level fields of a zod object schema, snake_case, each required (true) or optional (false). */
function fieldsOf(schema: z.ZodType): Record<string, boolean> {
  if (!(schema instanceof z.ZodObject)) return {};
  const fields: Record<string, boolean> = {};
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const snake = Object.keys(snakeCaseKeys({ [name]: 0 }) as object)[0]!;
    fields[snake] = !field.safeParse(undefined).success;
  }
  return fields;
}

function buildCatalog(): ReadonlyMap<string, ActivityTypeInfo> {
  const fields = new Map<string, Record<string, boolean>>();
  for (const op of Object.values(operations) as { kind: string }[]) {
    if (op.kind !== "activity") continue;
    const activity = op as ActivityDef;
    fields.set(activity.type, fieldsOf(activity.parameters));
  }
  for (const [type, list] of Object.entries(SERVICE_ONLY)) {
    if (fields.has(type)) continue;
    const request: Record<string, boolean> = {};
    for (const field of list.split(" ")) request[field.replace(/\?$/, "")] = !field.endsWith("?");
    fields.set(type, request);
  }
  // Every version the docs list, and every type of their params table, even when keyform knows no request fields for it.
  const kinds = new Map([...[...documentedKinds].map(([kind, { versions }]) => [kind, versions] as const), ...kindsWithoutFacts]);
  for (const [kind, versions] of kinds) for (const version of versions) if (!fields.has(typeOf(kind, version))) fields.set(typeOf(kind, version), {});
  for (const type of documentedParams.keys()) if (!fields.has(type)) fields.set(type, {});
  for (const kind of ROOT_QUORUM_ONLY_KINDS) if (!fields.has(typeOf(kind, 1))) fields.set(typeOf(kind, 1), {});
  // By kind, newest version first: the version clients send today stands first for its kind (witnesses, listings).
  const entries = [...fields].map(([type, request]) => info(type, request));
  entries.sort((a, b) => a.kind.localeCompare(b.kind) || b.version - a.version);
  return new Map(entries.map((entry) => [entry.type, entry]));
}

let catalog: ReadonlyMap<string, ActivityTypeInfo> | undefined;

/** Every activity type keyform knows, by type; iterated by kind, newest version first. */
export function activityCatalog(): ReadonlyMap<string, ActivityTypeInfo> {
  catalog ??= buildCatalog();
  return catalog;
}

/** What a condition can read for `type`; an unknown type gets an open description (every keyword, params unknown). */
export function activityTypeInfo(type: string): ActivityTypeInfo | undefined {
  return activityCatalog().get(type);
}

/** The newest version of `kind` keyform knows, if any. */
export function latestTypeOf(kind: string): ActivityTypeInfo | undefined {
  let latest: ActivityTypeInfo | undefined;
  for (const entry of activityCatalog().values()) {
    if (entry.kind === kind && (!latest || entry.version > latest.version)) latest = entry;
  }
  return latest;
}

/**
 * Whether `keyword` exists for an activity of `type`. Unknown types keep every keyword (nothing
 * is known to be missing).
 */
export function keywordAvailable(type: string, keyword: string): boolean {
  if (UNIVERSAL_KEYWORDS.has(keyword)) return true;
  const entry = activityTypeInfo(type);
  return entry === undefined || entry.keywords.has(keyword);
}

/** `keywords` without those that do not exist for an activity of `type` (a policy reading them errors: no match). */
export function keywordsFor(type: string, keywords: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(keywords).filter(([name]) => keywordAvailable(type, name)));
}
