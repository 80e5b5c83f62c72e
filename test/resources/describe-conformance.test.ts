/**
 * Every registered resource's description agrees with its diff rules, so the schema the
 * provider plugin serves (and the SDKs generated from it) promise what the runtime does. This
 * runs over the runtime's registry, so it checks resources added later too; its messages name
 * the resource and the property.
 */
import { describe, expect, it } from "vitest";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { packageSchema, schemaInputs } from "../../sdk/plugin/schema";

const specs = registeredSpecs();

describe("resource descriptions", () => {
  it("covers every registered resource", () => {
    expect(specs.length).toBeGreaterThanOrEqual(6);
    for (const spec of specs) expect(spec.describe, `${spec.kind}: has no describe`).toBeDefined();
  });

  it.each(specs.map((s) => [s.kind, s] as const))("%s: describe agrees with the diff rules", (kind, spec) => {
    const problems: string[] = [];
    const described = spec.describe.inputs;
    const rules = spec.properties as Record<string, { replace: boolean }>;
    for (const name of Object.keys(rules)) {
      if (!(name in described)) problems.push(`${kind}.${name}: compared by diff but not described in describe.inputs`);
    }
    for (const [name, property] of Object.entries(described)) {
      const rule = rules[name];
      if (rule === undefined) {
        problems.push(`${kind}.${name}: described as an input but diff has no rule for it (add it to properties)`);
        continue;
      }
      if ((property.replaceOnChange ?? false) !== rule.replace) {
        problems.push(
          `${kind}.${name}: describe says replaceOnChange=${property.replaceOnChange ?? false} but the diff rule says replace=${rule.replace}`,
        );
      }
      if (!property.description.trim()) problems.push(`${kind}.${name}: input has no description`);
    }
    if (!(spec.idProperty in spec.describe.outputs)) problems.push(`${kind}.${spec.idProperty}: the id output is not described in describe.outputs`);
    for (const [name, property] of Object.entries(spec.describe.outputs)) {
      if (!property.description.trim()) problems.push(`${kind}.${name}: output has no description`);
      if (property.replaceOnChange !== undefined || property.required !== undefined) {
        problems.push(`${kind}.${name}: replaceOnChange/required apply to inputs only`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("package schema", () => {
  const schema = packageSchema("1.2.3") as {
    resources: Record<string, { inputProperties: Record<string, { replaceOnChanges?: boolean; secret?: boolean }>; properties: Record<string, { secret?: boolean }>; requiredInputs: string[] }>;
    provider: { inputProperties: Record<string, { secret?: boolean }> };
    functions: Record<string, unknown>;
  };

  it("has one resource per registered spec, with the base inputs", () => {
    expect(Object.keys(schema.resources).sort()).toEqual(specs.map((s) => `keyform:index:${s.kind}`).sort());
    for (const spec of specs) {
      const resource = schema.resources[`keyform:index:${spec.kind}`]!;
      expect(Object.keys(resource.inputProperties).sort()).toEqual(Object.keys(schemaInputs(spec)).sort());
      // A changed organization fails the plan (the organization guard); it is never a replace.
      expect(resource.inputProperties.organizationId?.replaceOnChanges).toBeUndefined();
    }
  });

  it("marks secrets: the generated private key and the API private key setting", () => {
    expect(schema.resources["keyform:index:ApiKey"]!.properties.privateKey?.secret).toBe(true);
    expect(schema.provider.inputProperties.apiPrivateKey?.secret).toBe(true);
    expect(schema.provider.inputProperties.apiPublicKey?.secret).toBeUndefined();
    expect(schema.resources["keyform:index:Policy"]!.requiredInputs.sort()).toEqual(["effect", "policyName"]);
  });

  it("offers the data functions as invokes", () => {
    expect(Object.keys(schema.functions)).toContain("keyform:index:listUsers");
    expect(schema.functions["keyform:index:listUsers"]).toMatchObject({ outputs: { properties: { users: { type: "array" } } } });
  });
});
