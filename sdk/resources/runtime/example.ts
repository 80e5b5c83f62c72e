/**
 * @module resources/runtime/example
 * A resource's example, written once in its description and rendered by the program writers
 * (`program-render.ts`) wherever an example is shown: the resource's page in docs/resources/, the Registry docs of
 * the plugin's schema and the class's JSDoc, as TypeScript and as Pulumi YAML alike.
 *
 * An example object refers to an output of another object as a Pulumi YAML interpolation,
 * `"${alice.userId}"`. A name that no earlier object of the example declares is the own object
 * of another resource's example (User's example declares `alice`), which is then declared first:
 * so a kind writes only the objects no other example already has.
 */
import type { ExampleObject, ResourceDescription } from "./describe";

export type { ExampleObject } from "./describe";
import { ExportReference, type ExportedResource } from "./program-render";


/** A resource as the example resolver needs it. */
interface DescribedKind {
  readonly kind: string;
  readonly describe: ResourceDescription;
}

const REFERENCE = /^\$\{([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+)\}$/;

/** `value` with every `"${name.output}"` (alone or in a list) as an {@link ExportReference}. */
function withReferences(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withReferences);
  const match = typeof value === "string" ? REFERENCE.exec(value) : null;
  return match === null ? value : new ExportReference(match[1]!, match[2]!);
}

/** The names `inputs` refer to, in order. */
function referencedNames(inputs: Readonly<Record<string, unknown>>): string[] {
  return Object.values(inputs)
    .flatMap((value) => (Array.isArray(value) ? value : [value]))
    .flatMap((value) => {
      const match = typeof value === "string" ? REFERENCE.exec(value) : null;
      return match === null ? [] : [match[1]!];
    });
}

/** The example objects `description` writes itself, each with its class. */
function ownObjects(kind: string, description: ResourceDescription): ExampleObject[] {
  const objects = Array.isArray(description.example) ? description.example : [description.example as ExampleObject];
  if (objects.length === 0) throw new Error(`${kind}: its example declares no object`);
  const own = objects.at(-1)!;
  if ((own.kind ?? kind) !== kind) throw new Error(`${kind}: the last object of its example must be a ${kind}, not a ${own.kind}`);
  return objects.map((object) => ({ ...object, kind: object.kind ?? kind }));
}

/**
 * The program of `kind`'s example: the objects it refers to first (those of other kinds'
 * examples included), its own object last, references resolved. `kinds` are every registered
 * resource; a reference to a name none of them declares is an error naming it.
 */
export function exampleProgram(kind: string, kinds: readonly DescribedKind[]): ExportedResource[] {
  const byKind = new Map(kinds.map((k) => [k.kind, k.describe]));
  const program: ExportedResource[] = [];
  const declared = new Set<string>();
  const visiting = new Set<string>();
  const declare = (ofKind: string): void => {
    const description = byKind.get(ofKind);
    if (description === undefined) throw new Error(`${kind}: its example uses ${ofKind}, which is not a registered resource`);
    if (visiting.has(ofKind)) throw new Error(`${kind}: the examples of ${[...visiting].join(", ")} refer to each other`);
    visiting.add(ofKind);
    for (const object of ownObjects(ofKind, description)) {
      if (declared.has(object.name)) continue;
      for (const name of referencedNames(object.inputs)) {
        if (declared.has(name)) continue;
        const owner = kinds.find((k) => k.kind !== ofKind && ownObjects(k.kind, k.describe).at(-1)!.name === name);
        if (owner === undefined) throw new Error(`${ofKind}: its example refers to ${name}, which neither it nor any resource's own example declares`);
        declare(owner.kind);
      }
      declared.add(object.name);
      program.push({ className: object.kind!, name: object.name, inputs: Object.fromEntries(Object.entries(object.inputs).map(([k, v]) => [k, withReferences(v)])) });
    }
    visiting.delete(ofKind);
  };
  declare(kind);
  return program;
}
