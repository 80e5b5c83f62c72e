/**
 * @module policy/activity
 * What a condition sees of an activity (docs, `activity{type, kind, resource, action, params}`):
 * `kind` is the type without `ACTIVITY_TYPE_` and its version suffix; `resource` and `action`
 * are the docs' ("Activity types by resource and action", {@link module:policy/documented}),
 * and for kinds the docs give none, keyform's reading below (marked undocumented in the
 * catalog); `params` are only the fields the docs' "Activity parameters" table lists for the
 * type, snake_case (every other type exposes none: reading one is a MissingField error).
 */
import { DOCUMENTED_ROOT_QUORUM_ONLY, documentedKinds, documentedParams } from "./documented";
import { documentedType, type Type } from "./types";
// A cycle (the catalog reads this module's facts), used only at call time, where it has resolved.
import { activityTypeInfo } from "./catalog";

/** Activities only the root quorum may run; no policy can grant them (docs "Root quorum activities"). */
export const ROOT_QUORUM_ONLY_KINDS: ReadonlySet<string> = new Set(DOCUMENTED_ROOT_QUORUM_ONLY.map((type) => type.replace(/^ACTIVITY_TYPE_/, "")));

/** The version-free kind of an activity type: ACTIVITY_TYPE_SIGN_TRANSACTION_V2 → SIGN_TRANSACTION. */
export function activityKind(type: string): string {
  return type.replace(/^ACTIVITY_TYPE_/, "").replace(/_V\d+$/, "");
}

/**
 * keyform's reading for kinds the docs give no resource and action, where the first-word rule
 * below would get them wrong. Documented kinds never read this table.
 */
const EXCEPTIONS: Readonly<Record<string, readonly [resource: string, action: string]>> = {
  // Signing activities like every documented one (signing is PRIVATE_KEY / SIGN).
  SPARK_SIGN_FROST: ["PRIVATE_KEY", "SIGN"],
  SPARK_PREPARE_TRANSFER: ["PRIVATE_KEY", "SIGN"],
  SPARK_CLAIM_TRANSFER: ["PRIVATE_KEY", "SIGN"],
  SPARK_PREPARE_LIGHTNING_RECEIVE: ["PRIVATE_KEY", "SIGN"],
  EXECUTE_SWAP: ["PRIVATE_KEY", "SIGN"],
  UPSERT_SWAP_CONFIG: ["CONFIG", "UPDATE"],
  UPSERT_GAS_USAGE_CONFIG: ["CONFIG", "UPDATE"],
  // Secrets (beta) are not in the docs' resource list.
  INIT_IMPORT_SECRETS: ["SECRET", "IMPORT"],
  IMPORT_SECRETS: ["SECRET", "IMPORT"],
  EXPORT_SECRETS: ["SECRET", "EXPORT"],
  CREATE_USER_TAG: ["USER", "CREATE"],
  UPDATE_USER_TAG: ["USER", "UPDATE"],
  DELETE_USER_TAGS: ["USER", "DELETE"],
  CREATE_PRIVATE_KEY_TAG: ["PRIVATE_KEY", "CREATE"],
  UPDATE_PRIVATE_KEY_TAG: ["PRIVATE_KEY", "UPDATE"],
  DELETE_PRIVATE_KEY_TAGS: ["PRIVATE_KEY", "DELETE"],
  CREATE_SUB_ORGANIZATION: ["ORGANIZATION", "CREATE"],
  UPDATE_ROOT_QUORUM: ["ORGANIZATION", "UPDATE"],
  SET_ORGANIZATION_FEATURE: ["ORGANIZATION", "UPDATE"],
  REMOVE_ORGANIZATION_FEATURE: ["ORGANIZATION", "UPDATE"],
  UPDATE_ORGANIZATION_NAME: ["ORGANIZATION", "UPDATE"],
  DELETE_ORGANIZATION: ["ORGANIZATION", "DELETE"],
  DELETE_SUB_ORGANIZATION: ["ORGANIZATION", "DELETE"],
  EXPORT_WALLET_ACCOUNT: ["WALLET", "EXPORT"],
  INIT_IMPORT_WALLET: ["WALLET", "IMPORT"],
  INIT_IMPORT_PRIVATE_KEY: ["PRIVATE_KEY", "IMPORT"],
  SIGN_RAW_PAYLOAD: ["PRIVATE_KEY", "SIGN"],
  SIGN_RAW_PAYLOADS: ["PRIVATE_KEY", "SIGN"],
  SIGN_TRANSACTION: ["PRIVATE_KEY", "SIGN"],
  INIT_OTP: ["OTP", "CREATE"],
  INIT_OTP_AUTH: ["OTP", "CREATE"],
  VERIFY_OTP: ["OTP", "VERIFY"],
  OTP_AUTH: ["AUTH", "CREATE"],
  OTP_LOGIN: ["AUTH", "CREATE"],
  OAUTH_LOGIN: ["AUTH", "CREATE"],
  STAMP_LOGIN: ["AUTH", "CREATE"],
  EMAIL_AUTH: ["AUTH", "CREATE"],
  OAUTH: ["AUTH", "CREATE"],
  CREATE_READ_ONLY_SESSION: ["AUTH", "CREATE"],
  CREATE_READ_WRITE_SESSION: ["AUTH", "CREATE"],
  INIT_USER_EMAIL_RECOVERY: ["RECOVERY", "CREATE"],
  RECOVER_USER: ["RECOVERY", "UPDATE"],
  APPROVE_ACTIVITY: ["ORGANIZATION", "UPDATE"],
  REJECT_ACTIVITY: ["ORGANIZATION", "UPDATE"],
  EARN_DEPLOY_WRAPPER: ["CONFIG", "CREATE"],
  EARN_SET_WRAPPER_STATE: ["CONFIG", "UPDATE"],
  CLAIM_EARN_FEES: ["WALLET", "SIGN"],
  EARN_DEPOSIT: ["WALLET", "SIGN"],
  EARN_WITHDRAW: ["WALLET", "SIGN"],
  EARN_CLAIM_REWARDS: ["WALLET", "SIGN"],
};

/** Nouns of a kind (after its verb), longest first, and their resource. */
const NOUNS: readonly [prefix: string, resource: string][] = [
  ["SMART_CONTRACT_INTERFACE", "SMART_CONTRACT_INTERFACE"],
  ["WEBHOOK_ENDPOINT", "WEBHOOK_ENDPOINT"],
  ["SESSION_PROFILE", "SESSION_PROFILE"],
  ["PRIVATE_KEY", "PRIVATE_KEY"],
  ["WALLET", "WALLET"],
  ["API_KEY", "CREDENTIAL"],
  ["AUTHENTICATOR", "CREDENTIAL"],
  ["OAUTH_PROVIDER", "CREDENTIAL"],
  ["OAUTH2_CREDENTIAL", "CREDENTIAL"],
  ["IP_ALLOWLIST", "CONFIG"],
  ["POLIC", "POLICY"],
  ["INVITATION", "INVITATION"],
  ["USER", "USER"],
  ["MFA_POLICY", "MFA_POLICY"],
  ["FIAT_ON_RAMP", "ON_RAMP_CREDENTIALS"],
  ["TVC_APP", "TVC_APP"],
  ["TVC_DEPLOYMENT", "TVC_DEPLOYMENT"],
];

const VERBS = new Set(["CREATE", "UPDATE", "DELETE", "SIGN", "EXPORT", "IMPORT", "VERIFY", "ENCRYPT"]);
const VERB_ALIASES: Readonly<Record<string, string>> = { SET: "UPDATE", REMOVE: "DELETE", ADD: "CREATE", INIT: "CREATE" };

/** `{resource, action}` of an activity kind: the docs', else keyform's reading; ORGANIZATION / UPDATE when nothing matches. */
export function resourceAndAction(kind: string): { resource: string; action: string } {
  const documented = documentedKinds.get(kind);
  if (documented) return { resource: documented.resource, action: documented.action };
  const known = EXCEPTIONS[kind];
  if (known) return { resource: known[0], action: known[1] };
  const [verb = "", ...rest] = kind.split("_");
  const action = VERBS.has(verb) ? verb : (VERB_ALIASES[verb] ?? "UPDATE");
  const noun = rest.join("_");
  const resource = NOUNS.find(([prefix]) => noun.startsWith(prefix))?.[1] ?? "ORGANIZATION";
  return { resource, action };
}

/** camelCase → snake_case, at every depth of objects and arrays. */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, v]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snakeCaseKeys(v)]),
  );
}

/** Whether a kind's resource and action come from the docs (false: keyform's reading). */
export function factsDocumented(kind: string): boolean {
  return documentedKinds.has(kind);
}

/**
 * `value` with the defaults the docs give for omitted Spark fields: optional strings read as
 * '', inactive key-derivation variants as their type defaults ('' and 0). Lists and other
 * values are left as they are.
 */
function withDefaults(value: unknown, type: Type): unknown {
  if (type.t === "list") return Array.isArray(value) ? value.map((item) => withDefaults(item, type.of)) : value;
  if (type.t !== "object") return value;
  if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) return value;
  const given = (value ?? {}) as Record<string, unknown>;
  const filled: Record<string, unknown> = { ...given };
  for (const [name, field] of Object.entries(type.fields)) {
    if (given[name] === undefined || given[name] === null) {
      if (field.t === "string") filled[name] = "";
      else if (field.t === "int") filled[name] = 0;
      else if (field.t === "object") filled[name] = withDefaults(undefined, field);
      else continue;
    } else filled[name] = withDefaults(given[name], field);
  }
  return filled;
}

/** Top-level params the docs say read as '' when the request leaves them out. */
export const EMPTY_WHEN_OMITTED: ReadonlySet<string> = new Set(["session_profile_id"]);

/**
 * The `activity.params` a policy reads for an activity of `type`: the documented fields only (of
 * a type the catalog does not know, every field of the request).
 * `session_profile_id` left out reads as '' (the docs: "or an empty string when omitted"),
 * Spark values get their documented defaults, other missing fields stay missing (MissingField
 * when read).
 */
export function policyParams(type: string, parameters: unknown): Record<string, unknown> {
  const all = (snakeCaseKeys(parameters ?? {}) ?? {}) as Record<string, unknown>;
  // A version the catalog does not know yet (the service adds versions): what it shows a policy is
  // not documented, so it is taken to show what the request carries, as the prover models it.
  if (activityTypeInfo(type) === undefined) return all;
  const fields = documentedParams.get(type);
  if (!fields) return {};
  const params: Record<string, unknown> = {};
  for (const [name, text] of Object.entries(fields)) {
    const fieldType = documentedType(text);
    const value = all[name];
    if (value === undefined || value === null) {
      if (EMPTY_WHEN_OMITTED.has(name)) params[name] = "";
      continue;
    }
    params[name] = withDefaults(value, fieldType);
  }
  return params;
}

/** The `activity` keyword's value for an activity of `type` with `parameters`. */
export function activityFacts(type: string, parameters: unknown): { type: string; kind: string; resource: string; action: string; params: unknown } {
  const kind = activityKind(type);
  return { type, kind, ...resourceAndAction(kind), params: policyParams(type, parameters) };
}
