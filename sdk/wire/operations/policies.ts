/**
 * @module wire/operations/policies
 * Policies (spec 4.4 create_policy; docs/service-facts.md#32-policies for update, delete, get and list).
 */
import { z } from "zod";
import { defineActivity, defineQuery } from "../define";
import { Effect } from "../enums";
import { Id, opt, Timestamp } from "../shared";

/**
 * docs/service-facts.md#shared-object-shapes `v1Policy`. `notes`, `consensus` and `condition` are always strings ("" when
 * unset); a response that leaves one out parses as "".
 */
export const Policy = z.object({
  policyId: z.string(),
  policyName: z.string(),
  effect: Effect,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  notes: z.string().default(""),
  consensus: z.string().default(""),
  condition: z.string().default(""),
  time: opt(z.string()),
});
export type Policy = z.infer<typeof Policy>;

/** Spec 4.4 create_policy (`v1CreatePolicyIntentV3`). */
export const PolicyParams = z.object({
  policyName: Id,
  effect: Effect,
  /** Expression that triggers the effect. */
  condition: opt(z.string()),
  /** Consensus expression that triggers the effect. */
  consensus: opt(z.string()),
  notes: z.string(),
  time: opt(z.string()),
});
export type PolicyParams = z.infer<typeof PolicyParams>;

export const createPolicy = defineActivity("create_policy", {
  type: "ACTIVITY_TYPE_CREATE_POLICY_V3",
  intentKey: "createPolicyIntentV3",
  // The result key carries no version suffix, unlike the intent (docs/service-facts.md#32-policies).
  resultKey: "createPolicyResult",
  parameters: PolicyParams,
  result: z.object({ policyId: z.string() }),
});

export const updatePolicy = defineActivity("update_policy", {
  type: "ACTIVITY_TYPE_UPDATE_POLICY_V2",
  intentKey: "updatePolicyIntentV2",
  resultKey: "updatePolicyResultV2",
  // Note the `policy*` prefixes, unlike create_policy.
  parameters: z.object({
    policyId: Id,
    policyName: opt(Id),
    policyEffect: opt(Effect),
    policyCondition: opt(z.string()),
    policyConsensus: opt(z.string()),
    policyNotes: opt(z.string()),
    time: opt(z.string()),
  }),
  result: z.object({ policyId: z.string() }),
});

export const deletePolicy = defineActivity("delete_policy", {
  type: "ACTIVITY_TYPE_DELETE_POLICY",
  intentKey: "deletePolicyIntent",
  resultKey: "deletePolicyResult",
  parameters: z.object({ policyId: Id }),
  result: z.object({ policyId: z.string() }),
});

/** Docs `create_policies`: several policies in one activity, all or none. */
export const createPolicies = defineActivity("create_policies", {
  type: "ACTIVITY_TYPE_CREATE_POLICIES",
  intentKey: "createPoliciesIntent",
  resultKey: "createPoliciesResult",
  parameters: z.object({ policies: z.array(PolicyParams).min(1) }),
  result: z.object({ policyIds: z.array(z.string()) }),
});

/** Docs `delete_policies`: several policies in one activity, all or none. */
export const deletePolicies = defineActivity("delete_policies", {
  type: "ACTIVITY_TYPE_DELETE_POLICIES",
  intentKey: "deletePoliciesIntent",
  resultKey: "deletePoliciesResult",
  parameters: z.object({ policyIds: z.array(Id).min(1) }),
  result: z.object({ policyIds: z.array(z.string()) }),
});

export const getPolicy = defineQuery("get_policy", {
  request: z.object({ organizationId: Id, policyId: Id }),
  response: z.object({ policy: Policy }),
});

export const listPolicies = defineQuery("list_policies", {
  request: z.object({ organizationId: Id }),
  response: z.object({ policies: z.array(Policy) }),
});

/** Swagger `v1Outcome`: one policy's outcome for one request. */
export const PolicyOutcome = z.enum([
  "OUTCOME_ALLOW",
  "OUTCOME_DENY_EXPLICIT",
  "OUTCOME_DENY_IMPLICIT",
  "OUTCOME_REQUIRES_CONSENSUS",
  "OUTCOME_REJECTED",
  "OUTCOME_ERROR",
  "OUTCOME_REQUIRES_AUTHENTICATORS",
  "OUTCOME_TIME_INACTIVE",
]);

/**
 * `externalactivityv1PolicyEvaluation`: the policies run for one vote on an activity (its
 * submission or an approval), each with its outcome.
 */
export const ActivityPolicyEvaluation = z.object({
  id: z.string(),
  activityId: z.string(),
  organizationId: z.string(),
  voteId: z.string().default(""),
  policyEvaluations: z.array(
    z.object({
      policyId: opt(z.string()),
      outcome: opt(PolicyOutcome),
      /** keyform's emulator: why an OUTCOME_ERROR policy errored (it counted as no match). */
      error: opt(z.string()),
    }),
  ),
  createdAt: Timestamp,
});

export const getPolicyEvaluations = defineQuery("get_policy_evaluations", {
  request: z.object({ organizationId: Id, activityId: Id }),
  response: z.object({ policyEvaluations: z.array(ActivityPolicyEvaluation) }),
});

export const policyOperations = { createPolicy, createPolicies, updatePolicy, deletePolicy, deletePolicies, getPolicy, listPolicies, getPolicyEvaluations };
