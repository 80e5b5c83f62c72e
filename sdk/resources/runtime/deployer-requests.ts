/**
 * @module resources/runtime/deployer-requests
 * The requests keyform sends for an object it manages, as the policy engine sees them (the
 * versioned activity type and the wire parameters): to carry out this plan's own step for it
 * (its create, update, or both halves of a replace), to apply the plan again (an update, or a
 * create for a kind the service cannot update) and to destroy it. `deployer-access.ts` decides
 * each with the evaluator the emulator enforces. A Policy's delete may travel alone
 * (DELETE_POLICY) or in a batch (DELETE_POLICIES), so both are asked.
 */
import { activityKind } from "../../policy/activity";
import { latestTypeOf } from "../../policy/catalog";
import { ACTIVITY_KINDS } from "./needed-activities";
import type { ManagedObject } from "./org-after-plan";

/** One request keyform would submit. */
export interface DeployerRequest {
  /** The versioned type, e.g. `ACTIVITY_TYPE_DELETE_POLICY`. */
  readonly type: string;
  readonly parameters: Record<string, unknown>;
  /** The user's change to its own API keys: allowed without a policy unless a DENY applies. */
  readonly ownCredentials?: boolean;
}

const typeOf = (kind: string): string => latestTypeOf(kind)?.type ?? `ACTIVITY_TYPE_${kind}`;
const request = (kind: string, parameters: Record<string, unknown>, ownCredentials?: boolean): DeployerRequest => ({
  type: typeOf(kind),
  parameters,
  ...(ownCredentials ? { ownCredentials } : {}),
});
const withId = (field: string, id: string | undefined) => (id === undefined ? {} : { [field]: id });

/** What applying the plan again submits for `object`. */
export function applyRequests(object: ManagedObject, deployerUserId: string): DeployerRequest[] {
  const { kind, inputs, id } = object;
  if (kind === "Policy") return [request("UPDATE_POLICY", { ...withId("policyId", id), policyName: inputs.policyName })];
  if (kind === "UserTag") return [request("UPDATE_USER_TAG", { ...withId("userTagId", id), addUserIds: [], removeUserIds: [] })];
  if (kind === "IpAllowlist") {
    const { publicKey, enabled, rules, onEvaluationError } = inputs;
    return [request("SET_IP_ALLOWLIST", { ...(publicKey === undefined ? { enabled: enabled ?? true } : { publicKey }), rules, onEvaluationError: onEvaluationError ?? "DENY" })];
  }
  if (kind === "ApiKey") return [request("CREATE_API_KEYS", { userId: inputs.userId }, inputs.userId === deployerUserId)];
  // Only the root quorum may run it: a deployer outside a threshold-1 quorum cannot put it back.
  if (kind === "RootQuorum") return [request("UPDATE_ROOT_QUORUM", { threshold: inputs.threshold, userIds: inputs.userIds })];
  const kinds = ACTIVITY_KINDS[kind];
  const step = kinds?.update ?? kinds?.create ?? [];
  return step.map((k) => request(k, {}));
}

/** What destroying `object` submits (nothing for the root quorum: the service has no delete, the stack only forgets it). */
export function deleteRequests(object: ManagedObject, deployerUserId: string): DeployerRequest[] {
  const { kind, inputs, id } = object;
  if (kind === "Policy") return [request("DELETE_POLICY", withId("policyId", id)), request("DELETE_POLICIES", { policyIds: id === undefined ? [] : [id] })];
  if (kind === "UserTag") return [request("DELETE_USER_TAGS", { userTagIds: id === undefined ? [] : [id] })];
  if (kind === "IpAllowlist") return [request("REMOVE_IP_ALLOWLIST", inputs.publicKey === undefined ? {} : { publicKey: inputs.publicKey })];
  if (kind === "ApiKey") return [request("DELETE_API_KEYS", { userId: inputs.userId }, inputs.userId === deployerUserId)];
  return (ACTIVITY_KINDS[kind]?.delete ?? []).map((k) => request(k, {}));
}

/** What creating `object` submits, where its parameters decide policies this proof is asked about. */
function createRequests(object: ManagedObject, deployerUserId: string): DeployerRequest[] {
  const { kind, inputs } = object;
  if (kind === "Policy") {
    const { policyName, effect, condition, consensus, notes } = inputs;
    return [request("CREATE_POLICY", { policyName, effect, ...(condition === undefined ? {} : { condition }), ...(consensus === undefined ? {} : { consensus }), notes: notes ?? "" })];
  }
  if (kind === "UserTag") return [request("CREATE_USER_TAG", { userTagName: inputs.userTagName, userIds: inputs.userIds ?? [] })];
  if (kind === "ApiKey") return [request("CREATE_API_KEYS", { userId: inputs.userId }, inputs.userId === deployerUserId)];
  return [];
}

/**
 * What this plan's own step submits for `object`: one request of each of `kinds` (the activity
 * kinds of its create, update or replace, `needed-activities.ts`), with the parameters above
 * where this module knows them, else none.
 */
export function stepRequests(object: ManagedObject, kinds: readonly string[], deployerUserId: string): DeployerRequest[] {
  const known = [...createRequests(object, deployerUserId), ...applyRequests(object, deployerUserId), ...deleteRequests(object, deployerUserId)];
  return kinds.map((kind) => known.find((r) => activityKind(r.type) === kind) ?? request(kind, {}));
}
