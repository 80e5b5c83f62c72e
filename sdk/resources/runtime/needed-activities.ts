/**
 * @module resources/runtime/needed-activities
 * Which activity kinds (the version-free `activity.kind` a policy condition sees) keyform submits
 * for a resource it creates, updates or deletes: what the deploying user must still be allowed
 * in the organization after the plan to carry the plan out (`deployer-access.ts`). A replace
 * submits the create and the delete. The root quorum's own update is left out: the quorum of
 * today submits it, and the proof asks the quorum after the plan for it as "apply this plan
 * again". Reads (queries) are not activities and are not governed by policies.
 */

/** The activity kinds of each operation, by resource kind. */
export const ACTIVITY_KINDS: Readonly<Record<string, { readonly create?: readonly string[]; readonly update?: readonly string[]; readonly delete?: readonly string[] }>> = {
  User: { create: ["CREATE_USERS"], update: ["UPDATE_USER"], delete: ["DELETE_USERS"] },
  UserTag: { create: ["CREATE_USER_TAG"], update: ["UPDATE_USER_TAG"], delete: ["DELETE_USER_TAGS"] },
  Policy: { create: ["CREATE_POLICY"], update: ["UPDATE_POLICY"], delete: ["DELETE_POLICY"] },
  Wallet: { create: ["CREATE_WALLET"], update: ["UPDATE_WALLET"], delete: ["DELETE_WALLETS"] },
  ApiKey: { create: ["CREATE_API_KEYS"], delete: ["DELETE_API_KEYS"] },
  PrivateKey: { create: ["CREATE_PRIVATE_KEYS"], delete: ["DELETE_PRIVATE_KEYS"] },
  PrivateKeyTag: { create: ["CREATE_PRIVATE_KEY_TAG"], update: ["UPDATE_PRIVATE_KEY_TAG"], delete: ["DELETE_PRIVATE_KEY_TAGS"] },
  Invitation: { create: ["CREATE_INVITATIONS"], delete: ["DELETE_INVITATION"] },
  IpAllowlist: { create: ["SET_IP_ALLOWLIST"], update: ["SET_IP_ALLOWLIST"], delete: ["REMOVE_IP_ALLOWLIST"] },
  WebhookEndpoint: { create: ["CREATE_WEBHOOK_ENDPOINT"], update: ["UPDATE_WEBHOOK_ENDPOINT"], delete: ["DELETE_WEBHOOK_ENDPOINT"] },
  SmartContractInterface: { create: ["CREATE_SMART_CONTRACT_INTERFACE"], delete: ["DELETE_SMART_CONTRACT_INTERFACE"] },
  SessionProfile: { create: ["CREATE_SESSION_PROFILE"] },
};

/** What the plan does to one resource, as its `check` sees it. */
export type PlannedStep = "create" | "update" | "replace" | "same";

/** The step a check implies: no recorded inputs is a create; changed properties an update, or a replace when one of them replaces. */
export function stepOf(hasOlds: boolean, changed: readonly string[], replacing: (property: string) => boolean): PlannedStep {
  if (!hasOlds) return "create";
  if (changed.length === 0) return "same";
  return changed.some(replacing) ? "replace" : "update";
}

/** The activity kinds `step` of a resource of `kind` submits (none for a kind keyform does not know here). */
export function neededKinds(kind: string, step: PlannedStep): string[] {
  const kinds = ACTIVITY_KINDS[kind];
  if (kinds === undefined || step === "same") return [];
  if (step === "replace") return [...(kinds.create ?? []), ...(kinds.delete ?? [])];
  // Kinds without an update activity replace on every change the service would see.
  if (step === "update") return [...(kinds.update ?? [])];
  return [...(kinds.create ?? [])];
}
