/**
 * @module emulator/handlers/policies
 * Policies (docs/service-facts.md#32-policies). Names are unique per organization. The emulator stores policies
 * but does not evaluate them: every authenticated user of the organization may act.
 */
import type { PolicyParams } from "keyform/wire/operations/policies";
import { alreadyExists, notFound } from "../errors";
import { POLICY_MIGRATIONS } from "../store/policies";
import { newId, requireName } from "./common";
import type { ActivityContext, EmulatorModule, QueryContext } from "./types";
import { policyView } from "./views";

function requirePolicy(ctx: QueryContext, policyId: string, field: string) {
  const policy = ctx.store.policies.get(ctx.organizationId, policyId);
  if (!policy) throw notFound(`${field}: no policy with id ${policyId} in organization ${ctx.organizationId}`);
  return policy;
}

function insertPolicy(ctx: ActivityContext, p: PolicyParams, field: string): string {
  requireName(p.policyName, `${field}policyName`);
  if (ctx.store.policies.getByName(ctx.organizationId, p.policyName)) {
    throw alreadyExists(`${field}policyName: a policy named ${JSON.stringify(p.policyName)} already exists`);
  }
  const id = newId();
  ctx.store.policies.insert({
    id,
    org_id: ctx.organizationId,
    name: p.policyName,
    effect: p.effect,
    condition: p.condition ?? null,
    consensus: p.consensus ?? null,
    notes: p.notes,
    time: p.time ?? null,
    created_ms: ctx.nowMs,
    updated_ms: ctx.nowMs,
  });
  return id;
}

export const policiesModule: EmulatorModule = {
  name: "policies",
  migrations: POLICY_MIGRATIONS,
  setup: () => ({
    createPolicy(ctx, p) {
      return { policyId: insertPolicy(ctx, p, "") };
    },

    // All or none: the activity's transaction rolls back every insert when one is refused.
    createPolicies(ctx, p) {
      return { policyIds: p.policies.map((policy, i) => insertPolicy(ctx, policy, `policies[${i}].`)) };
    },

    deletePolicies(ctx, p) {
      for (const [i, policyId] of p.policyIds.entries()) ctx.store.policies.delete(requirePolicy(ctx, policyId, `policyIds[${i}]`).id);
      return { policyIds: p.policyIds };
    },

    updatePolicy(ctx, p) {
      const policy = requirePolicy(ctx, p.policyId, "policyId");
      if (p.policyName !== undefined) requireName(p.policyName, "policyName");
      if (p.policyName !== undefined && p.policyName !== policy.name && ctx.store.policies.getByName(ctx.organizationId, p.policyName)) {
        throw alreadyExists(`policyName: a policy named ${JSON.stringify(p.policyName)} already exists`);
      }
      ctx.store.policies.update({
        ...policy,
        name: p.policyName ?? policy.name,
        effect: p.policyEffect ?? policy.effect,
        condition: p.policyCondition ?? policy.condition,
        consensus: p.policyConsensus ?? policy.consensus,
        notes: p.policyNotes ?? policy.notes,
        time: p.time ?? policy.time,
        updated_ms: ctx.nowMs,
      });
      return { policyId: policy.id };
    },

    deletePolicy(ctx, p) {
      const policy = requirePolicy(ctx, p.policyId, "policyId");
      ctx.store.policies.delete(policy.id);
      return { policyId: policy.id };
    },

    getPolicy(ctx, req) {
      return { policy: policyView(requirePolicy(ctx, req.policyId, "policyId")) };
    },

    listPolicies(ctx) {
      return { policies: ctx.store.policies.list(ctx.organizationId).map(policyView) };
    },
  }),
};
