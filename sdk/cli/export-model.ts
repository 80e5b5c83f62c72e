/**
 * @module cli/export-model
 * Reads a live organization into the resources of a keyform program: one entry per object,
 * with the inputs that reproduce it and its id as `importId`. Which objects exist comes from each
 * registered resource's `list`, and their inputs from the resources' own `read` (the same code
 * `pulumi refresh` runs), projected onto the inputs the resource's description declares. So
 * every registered resource is exported, and the program declares exactly what the providers
 * compare: the first `up` adopts every object without changing it, and later previews report
 * no changes.
 */
import { registeredSpecs } from "../resources/runtime";
import { withContext } from "../resources/runtime/framework";
import type { Session } from "../resources/runtime/client";
import type { PropertyDescription, PropertyType } from "../resources/runtime/describe";
import { handlerFor } from "../resources/runtime";
import { ExportReference, type ExportedResource } from "../resources/runtime/program-render";

// The program's object model is the renderers'; the exporter fills it from a live organization.
export { ExportReference, type ExportedResource };

/** A resource as read, before references are resolved. */
interface ReadResource extends ExportedResource {
  readonly outputs: Readonly<Record<string, unknown>>;
}

/** A Pulumi resource name from a label: lowercase words joined by dashes. */
function slug(label: string, fallback: string): string {
  const words = label.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return words === "" ? fallback : words.slice(0, 60);
}

/**
 * `value` as an input of type `type`: objects keep only the properties the description declares
 * (a read reports outputs such as an account's address beside the declared ones), JSON
 * documents held as text become the document, and an empty text (how the service reports an
 * unset optional field) is left out.
 */
function asInput(type: PropertyType, value: unknown): unknown {
  if (value === "" || value === null || value === undefined) return undefined;
  switch (type.type) {
    case "json":
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case "array":
      return Array.isArray(value) ? value.map((item) => asInput(type.items, item)) : value;
    case "object":
      if (type.properties === undefined || typeof value !== "object") return value;
      return declaredInputs(type.properties, value as Record<string, unknown>);
    default:
      return value;
  }
}

/** The values of `properties` in `values`, in the order of the description. */
function declaredInputs(properties: Readonly<Record<string, PropertyDescription>>, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    const value = asInput(property, values[name]);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * Every object of every registered resource class in the session's organization, as resources
 * adopted by `importId`. The API key the session signs with, and its user, are left out (see
 * `listing.ts`). Settings must be in the environment (`KEYFORM_*`): the reads run through the
 * providers' code.
 */
export async function exportOrganization(session: Session): Promise<ExportedResource[]> {
  const read: ReadResource[] = [];
  // Unique across classes: a Pulumi YAML program names every resource in one namespace.
  const taken = new Set<string>();
  for (const spec of registeredSpecs()) {
    // The reads run in the session's context: the exporter's own, never a provider's.
    const handler = withContext(handlerFor(spec.kind), session.context);
    for (const found of await spec.list(session)) {
      const result = await handler.read(found.id, { ...found.hint, organizationId: session.organizationId });
      if (result.id === "" || result.inputs === undefined) continue; // gone meanwhile
      const inputs = declaredInputs(spec.describe.inputs, result.inputs as Record<string, unknown>);
      const base = slug(found.label, spec.kind.toLowerCase());
      let name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
      taken.add(name);
      read.push({
        className: spec.kind,
        name,
        inputs: spec.describe.importId === false ? inputs : { ...inputs, importId: found.id },
        outputs: (result.props ?? {}) as Record<string, unknown>,
      });
    }
  }
  return inDependencyOrder(read.map((r) => ({ className: r.className, name: r.name, inputs: withReferences(r, read) })));
}

/** The inputs of `resource`, where the description says a value is another resource's output and that resource is exported: a reference to it. */
function withReferences(resource: ReadResource, all: readonly ReadResource[]): Record<string, unknown> {
  const described = registeredSpecs().find((s) => s.kind === resource.className)!.describe.inputs;
  const inputs: Record<string, unknown> = { ...resource.inputs };
  for (const [name, property] of Object.entries(described)) {
    const target = property.references;
    if (target === undefined || inputs[name] === undefined) continue;
    const output = target.output ?? registeredSpecs().find((s) => s.kind === target.kind)!.idProperty;
    const refer = (value: unknown) => {
      const holder = all.find((r) => r !== resource && r.className === target.kind && value !== undefined && r.outputs[output] === value);
      return holder === undefined ? value : new ExportReference(holder.name, output);
    };
    inputs[name] = Array.isArray(inputs[name]) ? (inputs[name] as unknown[]).map(refer) : refer(inputs[name]);
  }
  return inputs;
}

/** The names of the resources `resource` refers to. */
function referencedNames(resource: ExportedResource): string[] {
  return Object.values(resource.inputs)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v): v is ExportReference => v instanceof ExportReference)
    .map((r) => r.resource);
}

/** `resources` with every resource after those it refers to, otherwise in the given order. */
function inDependencyOrder(resources: readonly ExportedResource[]): ExportedResource[] {
  const ordered: ExportedResource[] = [];
  const placed = new Set<string>();
  const pending = [...resources];
  while (pending.length > 0) {
    const index = pending.findIndex((r) => referencedNames(r).every((name) => placed.has(name)));
    // A cycle cannot be ordered: keep the given order for what is left.
    const next = pending.splice(index < 0 ? 0 : index, 1)[0]!;
    ordered.push(next);
    placed.add(next.name);
  }
  return ordered;
}
