/**
 * @module policy/catalog
 * The activity types a policy can meet and what each one offers a condition: its `params`
 * fields and which request keywords exist for it. The service's notes: a keyword that does not
 * exist for an activity (a chain keyword on an unrelated activity, `wallet` on a request that
 * names no wallet, a missing `activity.params` field) makes the policy an error for that
 * activity, and an erroring policy counts as no match.
 *
 * The types come from the wire definitions (each with the fields of its parameter schema),
 * plus the service's activities keyform does not send itself (signing, sub-organizations,
 * organization features), listed below with their documented parameters.
 */
import { z } from "zod";
import type { ActivityDef } from "../wire/define";
import { operations } from "../wire/registry";
import { activityKind, snakeCaseKeys } from "./activity";

/** What a condition can read for one activity type. */
export interface ActivityTypeInfo {
  /** `ACTIVITY_TYPE_SIGN_TRANSACTION_V2`. */
  readonly type: string;
  /** `SIGN_TRANSACTION`. */
  readonly kind: string;
  /** Version number (1 when the type has no `_V<n>` suffix). */
  readonly version: number;
  /** Top-level `activity.params` fields, snake_case: true when always present, false when optional. */
  readonly params: Readonly<Record<string, boolean>>;
  /** Request keywords beyond `activity`, `approvers`, `credentials` and `time` that may exist. */
  readonly keywords: ReadonlySet<string>;
}

/** Keywords every request has. */
export const UNIVERSAL_KEYWORDS: ReadonlySet<string> = new Set(["activity", "approvers", "credentials", "time"]);

/** Activities of the service outside the wire definitions, with their documented parameters (snake_case; `?` optional). */
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
};

/** Chain payload keywords per kind: `eth.tx` and the rest exist on transactions, `eth.eip_712` on raw payloads. */
const CHAIN_KEYWORDS: Readonly<Record<string, readonly string[]>> = {
  SIGN_TRANSACTION: ["eth", "solana", "tron", "bitcoin"],
  SIGN_RAW_PAYLOAD: ["eth"],
  SIGN_RAW_PAYLOADS: ["eth"],
};

/** The signing target keywords a request with these params fields may carry (how the service resolves the target). */
function targetKeywords(params: Readonly<Record<string, boolean>>): string[] {
  const found: string[] = [];
  if ("sign_with" in params || "address" in params || "wallet_address" in params) found.push("wallet", "wallet_account", "private_key");
  if ("wallet_id" in params) found.push("wallet");
  if ("private_key_id" in params) found.push("private_key");
  return found;
}

function versionOf(type: string): number {
  const match = /_V(\d+)$/.exec(type);
  return match ? Number(match[1]) : 1;
}

function info(type: string, params: Record<string, boolean>): ActivityTypeInfo {
  const kind = activityKind(type);
  return { type, kind, version: versionOf(type), params, keywords: new Set([...targetKeywords(params), ...(CHAIN_KEYWORDS[kind] ?? [])]) };
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
  const byType = new Map<string, ActivityTypeInfo>();
  for (const op of Object.values(operations) as { kind: string }[]) {
    if (op.kind !== "activity") continue;
    const activity = op as ActivityDef;
    byType.set(activity.type, info(activity.type, fieldsOf(activity.parameters)));
  }
  for (const [type, fields] of Object.entries(SERVICE_ONLY)) {
    if (byType.has(type)) continue;
    const params: Record<string, boolean> = {};
    for (const field of fields.split(" ")) params[field.replace(/\?$/, "")] = !field.endsWith("?");
    byType.set(type, info(type, params));
  }
  return byType;
}

let catalog: ReadonlyMap<string, ActivityTypeInfo> | undefined;

/** Every activity type keyform knows, by type. */
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
