/**
 * `neededKinds`: the activity kinds a resource's step submits, which the lockout proof asks the
 * organization after the plan for (`deployer-access.ts`, "carry out this plan").
 */
import { describe, expect, it } from "vitest";
import { latestTypeOf } from "../../sdk/policy/catalog";
import { ACTIVITY_KINDS, neededKinds, stepOf } from "../../sdk/resources/runtime/needed-activities";

describe("neededKinds", () => {
  it("names activity kinds the catalog knows, for every resource kind and step", () => {
    for (const [kind, steps] of Object.entries(ACTIVITY_KINDS)) {
      for (const name of [...(steps.create ?? []), ...(steps.update ?? []), ...(steps.delete ?? [])]) expect(latestTypeOf(name), `${kind}: ${name}`).toBeDefined();
    }
  });

  it("reads the step from the check: create, update, replace (both halves), or nothing", () => {
    const replacing = (p: string) => p === "userName";
    expect(neededKinds("User", stepOf(false, [], replacing))).toEqual(["CREATE_USERS"]);
    expect(neededKinds("User", stepOf(true, ["userEmail"], replacing))).toEqual(["UPDATE_USER"]);
    expect(neededKinds("User", stepOf(true, ["userEmail", "userName"], replacing))).toEqual(["CREATE_USERS", "DELETE_USERS"]);
    expect(neededKinds("User", stepOf(true, [], replacing))).toEqual([]);
    expect(neededKinds("Invitation", stepOf(false, [], replacing))).toEqual(["CREATE_INVITATIONS"]);
    expect(neededKinds("RootQuorum", "create")).toEqual([]);
  });
});
