/**
 * The per-resource examples of the docs (each description's `example`, resolved by `exampleProgram`
 * and rendered by the exporter's renderers): every registered resource has one; each object declares only inputs its class
 * describes, every required one, enum values the description lists, and refers only to earlier
 * objects of the example by outputs they have; and the TypeScript and YAML blocks of each
 * resource's page (docs/resources/<kind>.md) declare the same objects with the same values.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { ExportReference, type ExportedResource } from "../../sdk/cli/export-model";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { allOutputs, type PropertyDescription, type PropertyType } from "../../sdk/resources/runtime/describe";
import { exampleProgram } from "../../sdk/resources/runtime/example";
import { resourcePagePath } from "../../scripts/resource-docs";
import { repoRoot } from "../support/engine";

const specOf = (kind: string) => registeredSpecs().find((s) => s.kind === kind)!;
const examples: Record<string, ExportedResource[]> = Object.fromEntries(registeredSpecs().map((s) => [s.kind, exampleProgram(s.kind, registeredSpecs())]));

/** Why `value` is no value of `type` (enums and nested objects checked), or undefined. */
function problem(type: PropertyType, value: unknown, where: string): string | undefined {
  if (value instanceof ExportReference) return undefined;
  switch (type.type) {
    case "string":
      if (typeof value !== "string") return `${where}: not a string`;
      return type.enum !== undefined && !type.enum.includes(value) ? `${where}: ${value} is not one of ${type.enum.join(", ")}` : undefined;
    case "array":
      if (!Array.isArray(value)) return `${where}: not a list`;
      return value.map((item, i) => problem(type.items, item, `${where}[${i}]`)).find((p) => p !== undefined);
    case "object":
      if (type.properties === undefined || typeof value !== "object" || value === null) return undefined;
      return objectProblem(type.properties, value as Record<string, unknown>, where);
    case "integer":
    case "number":
      return typeof value === "number" ? undefined : `${where}: not a number`;
    case "boolean":
      return typeof value === "boolean" ? undefined : `${where}: not a boolean`;
    default:
      return undefined;
  }
}

function objectProblem(properties: Readonly<Record<string, PropertyDescription>>, values: Record<string, unknown>, where: string): string | undefined {
  for (const name of Object.keys(values)) if (properties[name] === undefined) return `${where}.${name}: not an input`;
  for (const [name, p] of Object.entries(properties)) {
    if (values[name] === undefined) {
      if (p.required) return `${where}.${name}: required`;
      continue;
    }
    const found = problem(p, values[name], `${where}.${name}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The plain values of an example object, references written as YAML interpolations. */
function asYamlValues(resource: ExportedResource): unknown {
  return JSON.parse(JSON.stringify(resource.inputs, (_k, v: unknown) => (v instanceof ExportReference ? `\${${v.resource}.${v.output}}` : v)));
}

describe("the per-resource examples of the docs", () => {
  it("every registered resource has an example whose last object is of its class", () => {
    for (const spec of registeredSpecs()) expect(examples[spec.kind]?.at(-1)?.className, spec.kind).toBe(spec.kind);
  });

  it.each(registeredSpecs().map((s) => s.kind))("%s: the objects hold to their descriptions and refer only to earlier objects' outputs", (kind) => {
    const example = examples[kind]!;
    example.forEach((resource, index) => {
      const spec = specOf(resource.className);
      expect(objectProblem(spec.describe.inputs, resource.inputs as Record<string, unknown>, `${kind} ${resource.name}`)).toBeUndefined();
      const references = Object.values(resource.inputs).flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is ExportReference => v instanceof ExportReference);
      for (const reference of references) {
        const target = example.slice(0, index).find((r) => r.name === reference.resource);
        expect(target, `${kind}: ${resource.name} refers to ${reference.resource}`).toBeDefined();
        expect(Object.keys(allOutputs(specOf(target!.className).describe)), `${reference.resource}.${reference.output}`).toContain(reference.output);
      }
    });
  });

  it.each(registeredSpecs().map((s) => s.kind))("%s: its page's TypeScript and YAML blocks declare the example's objects", (kind) => {
    const section = fs.readFileSync(path.join(repoRoot, resourcePagePath(kind)), "utf8");
    expect(section.startsWith(`# ${kind}\n`), `${resourcePagePath(kind)} is the page of ${kind}`).toBe(true);
    const ts = /```ts\n([^]*?)\n```/.exec(section)![1]!;
    const yaml = load(/```yaml\n([^]*?)\n```/.exec(section)![1]!) as { resources: Record<string, { type: string; properties: unknown }> };
    const example = examples[kind]!;
    expect(Object.keys(yaml.resources)).toEqual(example.map((r) => r.name));
    for (const r of example) {
      expect(yaml.resources[r.name]!.type).toBe(`keyform:index:${r.className}`);
      expect(yaml.resources[r.name]!.properties).toEqual(asYamlValues(r));
    }
    expect([...ts.matchAll(/new keyform\.(\w+)\("([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`)).toEqual(example.map((r) => `${r.className} ${r.name}`));
  });

  it("an example's reference to a name no example declares, or a last object of another class, is an error naming it", () => {
    const kinds = registeredSpecs().map((spec) => ({ kind: spec.kind, describe: spec.describe }));
    const widget = (example: unknown) => ({ kind: "Widget", describe: { ...specOf("UserTag").describe, example } as never });
    expect(() => exampleProgram("Widget", [...kinds, widget({ name: "w", inputs: { userIds: ["${nobody.userId}"] } })])).toThrow(/Widget: its example refers to nobody/);
    expect(() => exampleProgram("Widget", [...kinds, widget([{ kind: "User", name: "u", inputs: {} }])])).toThrow(/must be a Widget, not a User/);
    // A reference to another kind's own object declares that object (and what it refers to) first, once.
    const program = exampleProgram("Widget", [...kinds, widget({ name: "w", inputs: { a: "${invite-carol.invitationId}", b: "${alice.userId}" } })]);
    expect(program.map((r) => `${r.className} ${r.name}`)).toEqual(["User alice", "UserTag admins", "Invitation invite-carol", "Widget w"]);
  });
});
