/**
 * `PlannedSteps`: the plan a preview's events lay over the stack's state, as the GitOps preview
 * hands it to the lockout proof: the objects the program keeps (with the inputs the plan gives
 * them, normalized, and the activity kinds their steps submit), and the objects removed from the
 * program. The whole check against the engine and the emulator is plan (b) of
 * `test/engine/no-self-lockout-plans.test.ts`.
 */
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { describe, expect, it } from "vitest";
import { PlannedSteps } from "../../sdk/gitops/access-delete-check";

const urn = (type: string, name: string) => `urn:pulumi:dev::p::${type}::${name}`;
const DYNAMIC_POLICY = "pulumi-nodejs:dynamic/keyform:Policy";
const PLUGIN_TAG = "keyform:index:UserTag";

function step(op: string, type: string, name: string, old?: { id: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }, inputs?: Record<string, unknown>): EngineEvent {
  return { sequence: 0, timestamp: 0, resourcePreEvent: { metadata: { op, urn: urn(type, name), type, provider: "", ...(old ? { old } : {}), ...(inputs ? { new: { type, urn: urn(type, name), custom: true, delete: false, id: "", parent: "", protect: false, inputs, outputs: {}, initErrors: [] } } : {}) } } } as unknown as EngineEvent;
}

describe("PlannedSteps", () => {
  it("keeps what the program still declares and names what it deletes", () => {
    const allowInputs = { policyName: "own", effect: "EFFECT_ALLOW", consensus: "true", importId: "p-1", __provider: "code", __urn: "x" };
    const state = [
      { urn: urn(DYNAMIC_POLICY, "own-allow"), type: DYNAMIC_POLICY, id: "p-1", inputs: allowInputs, outputs: { policyId: "p-1", policyName: "own" } },
      { urn: urn(PLUGIN_TAG, "ops"), type: PLUGIN_TAG, id: "t-1", inputs: { userTagName: "ops" }, outputs: { userTagId: "t-1" } },
      { urn: "urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev", type: "pulumi:pulumi:Stack" },
    ];
    const steps = new PlannedSteps();
    steps.onEvent(step("delete", DYNAMIC_POLICY, "own-allow", { id: "p-1", inputs: allowInputs, outputs: { policyId: "p-1", policyName: "own" } }));
    // The tag is not in the events (a preview need not report steps that change nothing): the state holds it.
    steps.onEvent(step("create", PLUGIN_TAG, "new-tag", undefined, { userTagName: "new" }));
    expect(steps.deletesAccess).toBe(true);
    const { kept, deleted } = steps.plan(state);
    expect(deleted).toEqual([{ kind: "Policy", id: "p-1", props: { policyId: "p-1", policyName: "own" } }]);
    expect(kept.map((o) => [o.kind, o.name, o.kinds ?? []])).toEqual([
      ["UserTag", "ops", []],
      ["UserTag", "new-tag", ["CREATE_USER_TAG"]],
    ]);
    // Normalized, as the provider's census holds them (a tag's members default to none).
    expect(kept[1]!.inputs).toMatchObject({ userTagName: "new", userIds: [] });
    // Objects of another organization are not this organization's plan.
    steps.onEvent(step("delete", PLUGIN_TAG, "elsewhere", { id: "t-9", inputs: { userTagName: "x", organizationId: "org-2" }, outputs: { userTagId: "t-9", organizationId: "org-2" } }));
    expect(steps.plan(state, "org-1").deleted.map((d) => d.id)).toEqual(["p-1"]);
    expect(steps.plan(state).deleted.map((d) => d.id)).toEqual(["p-1", "t-9"]);
  });

  it("does not count a replacement's delete as a removal, and strips the dynamic providers' hidden inputs", () => {
    const steps = new PlannedSteps();
    const old = { id: "p-2", inputs: { policyName: "a", effect: "EFFECT_DENY" }, outputs: { policyId: "p-2" } };
    steps.onEvent(step("replace", DYNAMIC_POLICY, "deny", old, { policyName: "b", effect: "EFFECT_DENY", __provider: "code" }));
    steps.onEvent(step("delete-replaced", DYNAMIC_POLICY, "deny", old));
    expect(steps.deletesAccess).toBe(false);
    const { kept, deleted } = steps.plan([]);
    expect(deleted).toEqual([]);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.inputs.__provider).toBeUndefined();
    expect(kept[0]!.kinds).toEqual(["CREATE_POLICY", "DELETE_POLICY"]);
  });
});
