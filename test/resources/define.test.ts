/**
 * A resource is written once: its diff rules and default normalization come from its
 * description, and one change rule serves the diff, the schema and the docs. These tests read
 * the registry, so they hold for resources added later too.
 */
import { describe, expect, it } from "vitest";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { changeRule, changeRules, type ResourceDescription } from "../../sdk/resources/runtime/describe";
import { normalizeInputs } from "../../sdk/resources/runtime/normalize";
import { resourceTable } from "../../scripts/resource-docs";
import { packageSchema } from "../../sdk/plugin/schema";
import { UNKNOWN } from "../../sdk/resources/runtime/values";

const specs = registeredSpecs();

describe("the change rule", () => {
  it.each(specs.map((s) => [s.kind, s] as const))("%s: diff, schema and docs follow changeRule", (kind, spec) => {
    const schema = packageSchema("1.2.3") as { resources: Record<string, { inputProperties: Record<string, { replaceOnChanges?: boolean }> }> };
    const inputs = schema.resources[`keyform:index:${kind}`]!.inputProperties;
    for (const [name, property] of Object.entries(spec.describe.inputs)) {
      const replaces = changeRule(name, property) === "replace";
      expect((spec.properties as Record<string, { replace: boolean }>)[name]?.replace, `${kind}.${name}`).toBe(replaces);
      expect(inputs[name]?.replaceOnChanges === true, `${kind}.${name} in the schema`).toBe(replaces);
    }
    const rules = changeRules(kind, spec.describe);
    expect(rules["fails the plan"]).toEqual(["organizationId"]);
    expect([...rules["in place"], ...rules.replace]).not.toContain("organizationId");
    // The row of docs/resources.md lists organizationId only in its own column.
    const row = resourceTable().split("\n").find((line) => line.startsWith(`| [\`${kind}\`]`))!;
    const cells = row.split(" | ");
    expect(cells[2]).not.toContain("organizationId");
    expect(cells[3]).not.toContain("organizationId");
    expect(cells[4]).toBe("`organizationId`");
  });
});

describe("default normalization", () => {
  const description: ResourceDescription = {
    description: "test",
    example: "",
    inputs: {
      name: { type: "string", description: "n", required: true },
      members: { type: "array", items: { type: "string" }, description: "m", set: true, default: [] },
      seconds: { type: "string", acceptsNumber: true, description: "s" },
      flag: { type: "boolean", description: "f", default: false },
    },
    outputs: {},
  };

  it("copies, applies defaults, converts numbers and sorts sets; unset and null inputs take the default or are left out", () => {
    expect(normalizeInputs(description, { name: "a", members: ["b", "a", "b"], seconds: 60, organizationId: "o", ignored: 1 })).toEqual({
      name: "a",
      members: ["a", "b"],
      seconds: "60",
      flag: false,
      organizationId: "o",
    });
    const normalized = normalizeInputs(description, { name: "a", members: null, seconds: null });
    expect(normalized).toEqual({ name: "a", members: [], flag: false });
    expect(Object.keys(normalized)).not.toContain("seconds");
  });

  it("keeps unknown values as they are", () => {
    expect(normalizeInputs(description, { name: UNKNOWN, members: ["b", UNKNOWN, "a"] })).toMatchObject({ name: UNKNOWN, members: ["b", UNKNOWN, "a"] });
    expect(normalizeInputs(description, { members: UNKNOWN }).members).toBe(UNKNOWN);
  });

  it("ignores importId for a resource that cannot adopt", () => {
    expect(normalizeInputs({ ...description, importId: false }, { name: "a", importId: "x" }).importId).toBeUndefined();
    expect(normalizeInputs(description, { name: "a", importId: "x" }).importId).toBe("x");
  });

  it("a default is a fresh copy each time", () => {
    const first = normalizeInputs(description, {}).members as string[];
    first.push("changed");
    expect(normalizeInputs(description, {}).members).toEqual([]);
  });
});
