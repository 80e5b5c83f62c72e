/**
 * @module resources/runtime/policy
 * Policy: every property changes in place through `update_policy` (V2, whose fields carry a
 * `policy` prefix: fact sheet 3.2). An unset condition, consensus or notes is the empty
 * string on the service.
 */
import { operations } from "../../wire/registry";
import { firstSegment, schemaFailures } from "./check";
import type { Session } from "./client";
import { createActivity } from "./earlier-activity";
import { makeHandler, type BaseInputs, type BaseOutputs, type ResourceSpec } from "./framework";
import { isNotFound } from "./errors";
import { compact } from "./values";

/** Normalized inputs of a Policy. */
export interface PolicyState extends BaseInputs {
  policyName: string;
  effect: string;
  condition?: string;
  consensus?: string;
  notes: string;
}

/** Outputs of a Policy. */
export interface PolicyOutputs extends BaseOutputs {
  policyId: string;
  policyName: string;
  effect: string;
  condition: string;
  consensus: string;
  notes: string;
}

interface LivePolicy {
  policyId: string;
  policyName: string;
  effect: string;
  condition?: string | undefined;
  consensus?: string | undefined;
  notes?: string | undefined;
}

/** Absent and empty are the same expression. */
const sameText = (a: unknown, b: unknown) => (a ?? "") === (b ?? "");

async function fetchPolicy(session: Session, id: string): Promise<LivePolicy | undefined> {
  try {
    const { policy } = await session.client.getPolicy({ policyId: id });
    return policy;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** The create_policy parameters of `inputs` (unset condition and consensus are left out). */
function createParameters(inputs: PolicyState) {
  const { policyName, effect, condition, consensus, notes } = inputs;
  return compact({ policyName, effect: effect as "EFFECT_ALLOW" | "EFFECT_DENY", condition, consensus, notes });
}

export const policySpec: ResourceSpec<PolicyState, PolicyOutputs, LivePolicy> = {
  kind: "Policy",
  idProperty: "policyId",
  properties: {
    policyName: { replace: false },
    effect: { replace: false },
    condition: { replace: false, equal: sameText },
    consensus: { replace: false, equal: sameText },
    notes: { replace: false, equal: sameText },
  },
  normalize(news) {
    return compact({
      policyName: news.policyName as string,
      effect: news.effect as string,
      condition: (news.condition ?? undefined) as string | undefined,
      consensus: (news.consensus ?? undefined) as string | undefined,
      notes: (news.notes ?? "") as string,
      organizationId: news.organizationId as string | undefined,
      importId: news.importId as string | undefined,
    });
  },
  validate(inputs) {
    const { policyName, effect, condition, consensus, notes } = inputs;
    return schemaFailures(
      operations.createPolicy.parameters,
      compact({ policyName, effect, condition, consensus, notes }),
      inputs as unknown as Record<string, unknown>,
      firstSegment,
    );
  },
  label: (inputs) => JSON.stringify(inputs.policyName ?? ""),
  fetch: (session, id) => fetchPolicy(session, id),
  flatten: (live) => ({
    policyId: live.policyId,
    policyName: live.policyName,
    effect: live.effect,
    condition: live.condition ?? "",
    consensus: live.consensus ?? "",
    notes: live.notes ?? "",
  }),
  createActivity: createActivity({
    operation: "createPolicy",
    parameters: createParameters,
    createdId: (result) => result.policyId,
  }),
  async create(session, inputs) {
    const result = await session.client.createPolicy(createParameters(inputs));
    return { id: result.policyId };
  },
  async update(session, id, live, inputs) {
    // Send only what changes; "" clears an expression.
    await session.client.updatePolicy(
      compact({
        policyId: id,
        policyName: inputs.policyName !== live.policyName ? inputs.policyName : undefined,
        policyEffect: inputs.effect !== live.effect ? (inputs.effect as "EFFECT_ALLOW" | "EFFECT_DENY") : undefined,
        policyCondition: sameText(inputs.condition, live.condition) ? undefined : (inputs.condition ?? ""),
        policyConsensus: sameText(inputs.consensus, live.consensus) ? undefined : (inputs.consensus ?? ""),
        policyNotes: sameText(inputs.notes, live.notes) ? undefined : inputs.notes,
      }),
    );
  },
  async remove(session, id) {
    await session.client.deletePolicy({ policyId: id });
  },
};

/** The runtime handler the serialized Policy provider delegates to. */
export const policyHandler = makeHandler(policySpec);
