/**
 * @module resources/runtime/root-quorum
 * RootQuorum: the organization's root quorum, a singleton (docs/service-facts.md#39-organization-and-identity). Every organization
 * has one from its start (its creator, threshold 1), so "create" adopts it and sets it with
 * `update_root_quorum` when it differs; the id is the organization id. Destroy leaves the quorum
 * as it is, with a warning: the service has no delete.
 *
 * The service requires the current root quorum to approve the change. When the current quorum
 * needs more than one approval the activity waits for consensus, and the resource reports it
 * like every other create or update (activity id and fingerprint to approve); the next `up`
 * reports the same waiting activity instead of submitting another.
 */
import { operations } from "../../wire/registry";
import type { Quorum } from "../../wire/operations/organization";
import { rule, schemaFailures } from "./check";
import type { Session } from "./client";
import type { InputsOf, OutputsOf, ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { createActivity } from "./earlier-activity";
import { warnEngine } from "./engine-log";
import { defineResource } from "./define";
import { makeHandler } from "./framework";
import { containsUnknown, isUnknown, sameSet, sortedSet } from "./values";

/** A root quorum and the organization it belongs to. */
type LiveQuorum = Quorum & { organizationId: string };

/** The quorum of the session's organization; `undefined` when `id` names another organization. */
async function fetchQuorum(session: Session, id: string): Promise<LiveQuorum | undefined> {
  if (id !== session.organizationId) return undefined;
  const { organizationData } = await session.client.getOrganization();
  return { ...(organizationData.rootQuorum ?? { threshold: 1, userIds: [] }), organizationId: session.organizationId };
}

const parameters = (inputs: RootQuorumInputs) => ({ threshold: inputs.threshold, userIds: inputs.userIds });

const describe = {
  description:
    "The organization's root quorum (`update_root_quorum`): the users who can approve anything, bypassing every policy, and how many " +
    "of them must approve. A singleton: creating it adopts the organization's quorum and sets it; destroy leaves it as it is, with a " +
    "warning. The current quorum must approve a change (consensus is reported like every other activity). Keep the user whose API key " +
    "keyform runs with in the quorum, or keyform loses root access on the hosted service.",
  example: { name: "root-quorum", inputs: { threshold: 1, userIds: ["${alice.userId}"] } },
  guide: [
    "A singleton: every organization has a root quorum, so creating the resource adopts it and sets",
    "it with `update_root_quorum` where it differs; threshold and members change **in place**.",
    "Destroy **leaves the quorum as it is** and says so in a warning (the service has no delete). The",
    "current quorum must approve a change: when it needs more than one approval the update waits for",
    "consensus and is reported like every other activity (id and fingerprint; the next `up` reports",
    "the same activity instead of submitting another). Keep the user behind keyform's API key in the",
    "quorum with threshold 1: a user outside the root quorum can only do what policies allow, and a",
    "higher threshold makes every later change wait for approvals.",
  ].join("\n"),
  importIdMeaning: "the organization's id, `rootQuorumId`",
  inputs: {
    threshold: { type: "integer", description: "How many members must approve (1 to the number of `userIds`).", required: true },
    userIds: { type: "array", items: { type: "string" }, description: "The members (a set: order does not matter).", required: true, references: { kind: "User" }, set: true, default: [] },
  },
  outputs: {
    rootQuorumId: { type: "string", description: "The quorum's id: the id of its organization." },
    threshold: { type: "integer", description: "The threshold as the service holds it." },
    userIds: { type: "array", items: { type: "string" }, description: "The members as the service holds them, sorted." },
  },
} as const satisfies ResourceDescription;

/** Normalized inputs of a RootQuorum. */
export type RootQuorumInputs = InputsOf<typeof describe>;
/** Outputs of a RootQuorum. */
export type RootQuorumOutputs = OutputsOf<typeof describe>;

/** The organization's root quorum: one per organization. */
const listRootQuorum: ListObjects = async (session) => [{ id: session.organizationId, label: "root-quorum" }];

export const rootQuorumSpec = defineResource<RootQuorumInputs, RootQuorumOutputs, LiveQuorum>({
  kind: "RootQuorum",
  describe,
  list: listRootQuorum,
  idProperty: "rootQuorumId",
  normalize(inputs) {
    // A decimal string is taken for the integer (a YAML or config value).
    const threshold: unknown = inputs.threshold;
    return typeof threshold === "string" && /^\d+$/u.test(threshold) ? { ...inputs, threshold: Number(threshold) } : inputs;
  },
  validate(inputs) {
    const record = inputs as unknown as Record<string, unknown>;
    const failures = schemaFailures(operations.updateRootQuorum.parameters, parameters(inputs), record);
    if (failures.length > 0) return failures;
    if (containsUnknown(inputs.userIds) || isUnknown(inputs.threshold)) return [];
    return [
      ...rule(record, "userIds", () => inputs.userIds.length > 0, "needs at least one user"),
      ...rule(record, "threshold", () => inputs.threshold >= 1 && inputs.threshold <= Math.max(inputs.userIds.length, 1), `must be between 1 and the number of userIds (${inputs.userIds.length})`),
    ];
  },
  label: (inputs) => `(threshold ${inputs.threshold ?? "?"} of ${Array.isArray(inputs.userIds) ? inputs.userIds.length : "?"})`,
  fetch: (session, id) => fetchQuorum(session, id),
  flatten: (live) => ({ rootQuorumId: live.organizationId, threshold: live.threshold, userIds: sortedSet(live.userIds) }),
  // No object id in the result (the quorum is the organization's): a completed earlier request
  // shows in the live quorum, a waiting one is reported again instead of submitted twice.
  createActivity: createActivity({ operation: "updateRootQuorum", parameters, createdId: () => undefined }),
  async create(session, inputs) {
    const live = await fetchQuorum(session, session.organizationId);
    if (live === undefined || live.threshold !== inputs.threshold || !sameSet(live.userIds, inputs.userIds)) {
      await session.client.updateRootQuorum(parameters(inputs));
    }
    return { id: session.organizationId };
  },
  async update(session, _id, _live, inputs) {
    await session.client.updateRootQuorum(parameters(inputs));
  },
  async remove(session) {
    const live = await fetchQuorum(session, session.organizationId);
    await warnEngine(
      `RootQuorum of organization ${session.organizationId}: destroy leaves the root quorum as it is ` +
        `(threshold ${live?.threshold}, users ${JSON.stringify(live?.userIds ?? [])}); the service has no delete. ` +
        `It is only removed from the stack.`,
    );
  },
});

/** The runtime handler the RootQuorum provider code in state delegates to. */
export const rootQuorumHandler = makeHandler(rootQuorumSpec);
