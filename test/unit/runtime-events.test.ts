/**
 * The provider runtime's adoption events and typed errors: an adoption's message is read back
 * into the same event (what the GitOps runner does with the engine's diagnostics), and the
 * errors about an existing object carry their facts as data, the fix apart from the problem.
 */
import { describe, expect, it } from "vitest";
import { ADOPTED_HOW, adoptionMessage, adoptionOf, type AdoptionEvent } from "../../sdk/resources/runtime/adoption";
import { FixableError, ProviderError } from "../../sdk/resources/runtime/errors";
import { DiffersFromDeclaredError, HeldByAnotherResourceError, ImportNotFoundError, NotOwnedError } from "../../sdk/resources/runtime/object-errors";

describe("adoption events", () => {
  const events: AdoptionEvent[] = [
    { event: "adopted", resourceType: "UserTag", label: "ops", id: "5f3c-ops", how: ADOPTED_HOW.unrecorded },
    { event: "adopted", resourceType: "Policy", label: "allow (all) signing", id: "p-1", how: ADOPTED_HOW.journaled, urn: "urn:pulumi:dev::org::keyform:index:Policy::allow" },
    { event: "adopted", resourceType: "Invitation", label: "a@example.com", id: "i-9", how: ADOPTED_HOW.batchJournaled, urn: "urn:pulumi:dev::org::keyform:index:Invitation::a" },
  ];

  it("prints the message the engine shows, and reads it back into the same event", () => {
    expect(adoptionMessage(events[0]!)).toBe("keyform: adopted UserTag ops (5f3c-ops), made by an earlier run that did not record it");
    expect(adoptionMessage(events[1]!)).toBe(
      "keyform: adopted Policy allow (all) signing (p-1), its create was journaled by an earlier run of this stack [urn:pulumi:dev::org::keyform:index:Policy::allow]",
    );
    for (const event of events) expect(adoptionOf(adoptionMessage(event))).toEqual(event);
  });

  it("reads no adoption from other warnings", () => {
    expect(adoptionOf("keyform: replaced ApiKey ci (k-1), made by an earlier run of this stack with a generated secret that run never recorded [urn:x]")).toBeUndefined();
    expect(adoptionOf("unscoped-signing-allow: the policy allows signing with any key")).toBeUndefined();
  });
});

describe("errors about an existing object", () => {
  it("carry no `id` or `properties`: the dynamic-provider host would record such an error's id in state as this resource's", () => {
    const errors = [
      new NotOwnedError("UserTag ops: create", "UserTag", "tag-1", "org-1", "exists"),
      new DiffersFromDeclaredError("UserTag ops: create", "UserTag", "tag-1", { by: "importId" }, [{ property: "userIds", declared: [], found: ["u"] }], false),
      new HeldByAnotherResourceError("UserTag ops: create", "UserTag", "tag-1", "exists"),
      new ImportNotFoundError("UserTag ops: create", "UserTag", "tag-1", "org-1"),
    ];
    for (const error of errors) {
      expect((error as unknown as { id?: unknown }).id, error.name).toBeUndefined();
      expect((error as unknown as { properties?: unknown }).properties, error.name).toBeUndefined();
    }
  });

  it("not owned: the id and its importId as data, the fix apart", () => {
    const error = new NotOwnedError("UserTag ops: create", "UserTag", "tag-1", "org-1", "tag name already exists");
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toBeInstanceOf(FixableError);
    expect(error.importId).toBe("tag-1");
    expect(error.objectId).toBe("tag-1");
    expect(error.fix).toBe('To manage it with this resource, set importId: "tag-1"; otherwise choose another name.');
    expect(error.message).toBe(`${error.problem} ${error.fix}`);
    expect(error.message).toBe(
      'UserTag ops: create: the service refused it (HTTP 409: tag name already exists); the existing UserTag "tag-1" in organization org-1 holds the declared name, ' +
        'and this stack did not create it (another stack\'s, or made by hand). To manage it with this resource, set importId: "tag-1"; otherwise choose another name.',
    );
  });

  it("differs from what is declared: the differing properties as data", () => {
    const differences = [{ property: "userIds", declared: ["u-1"], found: ["u-2"] }];
    const byImport = new DiffersFromDeclaredError("UserTag ops: create", "UserTag", "tag-1", { by: "importId" }, differences, false);
    expect(byImport.differingProperties).toEqual(["userIds"]);
    expect(byImport.objectId).toBe("tag-1");
    expect(byImport.message).toBe(
      'UserTag ops: create: importId: the existing UserTag "tag-1" differs from the declared inputs in properties: userIds (declared ["u-1"], found ["u-2"]). ' +
        "Change the program to match it, or remove importId to create a new one.",
    );
    const byConflict = new DiffersFromDeclaredError("UserTag ops: create", "UserTag", "tag-1", { by: "conflict", conflict: "exists" }, differences, false);
    expect(byConflict.problem).toBe('UserTag ops: create: the service refused it (HTTP 409: exists); the existing UserTag "tag-1" differs from the declared inputs: userIds (declared ["u-1"], found ["u-2"]).');
    expect(byConflict.fix).toBe('To manage it with this resource, set importId: "tag-1"; otherwise choose another name, or delete it.');
  });
});
