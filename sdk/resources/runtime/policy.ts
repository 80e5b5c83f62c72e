/**
 * @module resources/runtime/policy
 * Policy: every property changes in place through `update_policy` (V2, whose fields carry a
 * `policy` prefix: docs/service-facts.md#32-policies). An unset condition, consensus, notes or time is the empty
 * string on the service, and absent from the outputs.
 */
import { Effect } from "../../wire/enums";
import { operations } from "../../wire/registry";
import { firstSegment, schemaFailures } from "./check";
import type { Session } from "./client";
import { createActivity } from "./earlier-activity";
import type { ListObjects } from "./listing";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import { defineResource, parametersFrom } from "./define";
import { makeHandler } from "./framework";
import { collections } from "./shared-reads";
import { expressionFailures } from "./policy-expressions";
import { compact } from "./values";

interface LivePolicy {
  policyId: string;
  policyName: string;
  effect: Effect;
  condition?: string | undefined;
  consensus?: string | undefined;
  notes?: string | undefined;
  time?: string | undefined;
}

/** Absent and empty are the same expression. */
const sameText = (a: unknown, b: unknown) => (a ?? "") === (b ?? "");

/** Reads one policy from the shared list; `undefined` when no policy has this id. */
async function fetchPolicy(session: Session, id: string): Promise<LivePolicy | undefined> {
  const { policies } = await collections.policies(session);
  return policies.find((p) => p.policyId === id);
}

/** The create_policy parameters of `inputs` (unset condition and consensus are left out). */
function createParameters(inputs: PolicyInputs) {
  return parametersFrom(operations.createPolicy.parameters, inputs);
}

/** The expression properties of a Policy and their kinds. */
const POLICY_EXPRESSIONS = { condition: "condition", consensus: "consensus", time: "time" } as const;

/** Every policy of the organization. */
const listPolicies: ListObjects = async (session) =>
  (await collections.policies(session)).policies.map((p) => ({ id: p.policyId, label: p.policyName }));

const describe = {
  description: "An allow or deny rule of the organization's policy engine. Every property changes in place (`update_policy`).",
  example: {
    name: "treasury-quorum",
    inputs: {
      policyName: "Treasury signing needs two admins",
      effect: "EFFECT_ALLOW",
      condition: "activity.action == 'SIGN'",
      consensus: "approvers.count() >= 2",
      notes: "managed by keyform",
    },
  },
  guide: [
    "Every property changes **in place** (`update_policy`); removing `condition`, `consensus` or",
    "`time` clears it. `condition`, `consensus` and `time` are parsed and type checked at preview: a",
    "broken one fails `pulumi preview` naming the property, line and column; lint warnings are logged",
    "on the resource (see [Policies](../policies.md)).",
  ].join("\n"),
  importIdMeaning: "the policy's id, `policyId`",
  expressionInputs: ["effect", "condition", "consensus", "time"],
  inputs: {
    policyName: { type: "string", description: "The policy's name.", required: true },
    effect: { type: "string", enum: Effect.options, description: "`EFFECT_ALLOW` or `EFFECT_DENY`.", required: true },
    condition: { type: "string", description: "Expression on the activity that makes the policy apply." },
    consensus: { type: "string", description: "Expression on the approvals that satisfies the policy." },
    notes: { type: "string", description: "Free text; default \"\".", default: "" },
    time: { type: "string", description: "The policy's `time` field (`create_policy` V3, `update_policy` V2), passed as given; unset: none." },
  },
  outputs: {
    policyId: { type: "string", description: "The policy's id." },
    policyName: { type: "string", description: "The policy's name." },
    effect: { type: "string", enum: Effect.options, description: "`EFFECT_ALLOW` or `EFFECT_DENY`." },
    condition: { type: "string", description: "The condition as the service holds it; absent when none.", optional: true },
    consensus: { type: "string", description: "The consensus expression as the service holds it; absent when none.", optional: true },
    notes: { type: "string", description: "Free text; absent when empty.", optional: true },
    time: { type: "string", description: "The `time` field as the service holds it; absent when none.", optional: true },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a Policy. */
export type PolicyInputs = InputsOf<typeof describe>;
/** Outputs of a Policy. */
export type PolicyOutputs = OutputsOf<typeof describe>;

export const policySpec = defineResource<PolicyInputs, PolicyOutputs, LivePolicy>({
  kind: "Policy",
  list: listPolicies,
  describe,
  idProperty: "policyId",
  equal: { condition: sameText, consensus: sameText, notes: sameText, time: sameText },
  validate(inputs) {
    return [
      ...schemaFailures(operations.createPolicy.parameters, createParameters(inputs), inputs as unknown as Record<string, unknown>, firstSegment),
      // The expressions are parsed and type checked, so a broken one fails at preview.
      ...expressionFailures(inputs as unknown as Record<string, unknown>, POLICY_EXPRESSIONS),
    ];
  },
  label: (inputs) => JSON.stringify(inputs.policyName ?? ""),
  fetch: (session, id) => fetchPolicy(session, id),
  flatten: (live) => ({
    // The service's "" means none: leaving it out keeps state to what was set.
    condition: live.condition || undefined,
    consensus: live.consensus || undefined,
    notes: live.notes || undefined,
    time: live.time || undefined,
  }),
  createActivity: createActivity({
    operation: "createPolicy",
    parameters: createParameters,
    createdId: (result) => result.policyId,
  }),
  async findExisting(session, inputs) {
    // Policy names are unique in an organization.
    const { policies } = await collections.policies(session);
    const live = policies.find((p) => p.policyName === inputs.policyName);
    return live === undefined ? undefined : { id: live.policyId, live };
  },
  async create(session, inputs) {
    const parameters = createParameters(inputs);
    const result = await session.client.createPolicy(parameters);
    // The service keeps a policy's fields as sent: the completed activity made exactly this
    // policy, so no read of it is needed.
    return { id: result.policyId, live: { policyId: result.policyId, ...parameters } };
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
        time: sameText(inputs.time, live.time) ? undefined : (inputs.time ?? ""),
      }),
    );
  },
  async remove(session, id) {
    await session.client.deletePolicy({ policyId: id });
  },
  batch: {
    // At most the organization's 100 policies (docs "Resource limits"): no activity can take more.
    create: {
      max: 100,
      async submit(session, items) {
        const policies = items.map(createParameters);
        const { policyIds } = await session.client.createPolicies({ policies });
        return policyIds.map((policyId, i) => ({ id: policyId, live: { policyId, ...policies[i]! } }));
      },
    },
    remove: {
      max: 100,
      async submit(session, items) {
        await session.client.deletePolicies({ policyIds: items.map((item) => item.id) });
        return items.map(() => undefined);
      },
    },
  },
});

/** The runtime handler the Policy provider code in state delegates to. */
export const policyHandler = makeHandler(policySpec);
