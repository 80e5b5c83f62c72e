/**
 * @module policy/activity
 * What a condition sees of an activity (reference, `activity{type, kind, resource, action,
 * params}`): `kind` is the type without `ACTIVITY_TYPE_` and its version suffix; `resource` and
 * `action` come from the table below, which follows the service's language page for the
 * activities keyform serves (signing is on PRIVATE_KEY; credentials such as API keys and
 * authenticators are CREDENTIAL; tags belong to the users or keys they label); `params` are the
 * activity's parameters with snake_case field names at every depth.
 */

/** Activities only the root quorum may run; no policy can grant them. */
export const ROOT_QUORUM_ONLY_KINDS: ReadonlySet<string> = new Set([
  "UPDATE_ROOT_QUORUM",
  "SET_ORGANIZATION_FEATURE",
  "REMOVE_ORGANIZATION_FEATURE",
  "UPDATE_ORGANIZATION_NAME",
]);

/** The version-free kind of an activity type: ACTIVITY_TYPE_SIGN_TRANSACTION_V2 → SIGN_TRANSACTION. */
export function activityKind(type: string): string {
  return type.replace(/^ACTIVITY_TYPE_/, "").replace(/_V\d+$/, "");
}

/** Kinds whose resource or action the first-word rule below would get wrong. */
const EXCEPTIONS: Readonly<Record<string, readonly [resource: string, action: string]>> = {
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

/** `{resource, action}` of an activity kind; ORGANIZATION / UPDATE when nothing matches. */
export function resourceAndAction(kind: string): { resource: string; action: string } {
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

/** The `activity` keyword's value for an activity of `type` with `parameters`. */
export function activityFacts(type: string, parameters: unknown): { type: string; kind: string; resource: string; action: string; params: unknown } {
  const kind = activityKind(type);
  return { type, kind, ...resourceAndAction(kind), params: snakeCaseKeys(parameters ?? {}) };
}
