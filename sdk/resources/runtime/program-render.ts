/**
 * @module resources/runtime/program-render
 * Writers of a keyform program, one per program format, all from the same list of resources:
 * `keyform export` writes an organization with them, and the docs, the schema and the classes'
 * JSDoc write each resource's example with them (`example.ts`). Adding a format is one more
 * entry in {@link RENDERERS}. It lives below the CLI so that the plugin's schema can use it.
 */

/** An input value that is an output of another resource of the program (a user's id, a key's public key). */
export class ExportReference {
  constructor(
    /** The Pulumi name of the resource referred to. */
    readonly resource: string,
    /** Its output holding the value. */
    readonly output: string,
  ) {}
}

/** One resource of a program. */
export interface ExportedResource {
  /** The keyform class, e.g. `UserTag`. */
  readonly className: string;
  /** The Pulumi resource name (unique in the program). */
  readonly name: string;
  /**
   * Declared inputs, `importId` last (where the class adopts by `importId`). A value that is an
   * output of another resource of the program is an {@link ExportReference}, alone or in a list.
   */
  readonly inputs: Readonly<Record<string, unknown>>;
}

/** A program format: the file it is usually saved as, and how to write it. */
export interface Renderer {
  readonly defaultFile: string;
  render(resources: readonly ExportedResource[], organizationId: string): string;
  /** The declarations of `resources` alone, without the program around them (the examples of the resource pages in docs/). */
  declarations(resources: readonly ExportedResource[]): string;
}

/** A TypeScript variable name for resource `name` (`ops-team` → `opsTeam`), unique in `taken`. */
function variableName(name: string, taken: Set<string>): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let base = words.map((w, i) => (i === 0 ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1).toLowerCase())).join("") || "resource";
  if (/^[0-9]/.test(base) || RESERVED.has(base)) base = `r${base[0]!.toUpperCase()}${base.slice(1)}`;
  let variable = base;
  for (let n = 2; taken.has(variable); n++) variable = `${base}${n}`;
  taken.add(variable);
  return variable;
}

const RESERVED = new Set(["break", "case", "catch", "class", "const", "continue", "debugger", "default", "delete", "do", "else", "enum", "export", "extends", "false", "finally", "for", "function", "if", "import", "in", "instanceof", "new", "null", "return", "super", "switch", "this", "throw", "true", "try", "typeof", "var", "void", "while", "with", "let", "static", "yield", "await", "keyform", "pulumi"]);

/** A value as TypeScript source: JSON, spread over lines when it is long; references as `<variable>.<output>`. */
function tsValue(value: unknown, indent: string, variables: ReadonlyMap<string, string>): string {
  const reference = (v: unknown) => (v instanceof ExportReference ? `${variables.get(v.resource)}.${v.output}` : undefined);
  const single = reference(value);
  if (single !== undefined) return single;
  if (Array.isArray(value) && value.some((v) => v instanceof ExportReference)) {
    return `[${value.map((v) => reference(v) ?? JSON.stringify(v)).join(", ")}]`;
  }
  const flat = JSON.stringify(value);
  if (flat.length <= 100 || typeof value !== "object") return flat;
  return JSON.stringify(value, null, 2).replace(/\n/g, `\n${indent}`);
}

const typescript: Renderer = {
  defaultFile: "index.ts",
  render(resources, organizationId) {
    const lines = [
      `// Written by \`keyform export\` from organization ${organizationId}.`,
      "// Every object is adopted with importId: the first `pulumi up` records it in state without",
      "// changing it. importId is read only at creation, so it can stay.",
      'import * as keyform from "keyform";',
      "",
    ];
    const body = this.declarations(resources);
    return lines.join("\n") + (body === "" ? "" : `\n${body}`);
  },
  declarations(resources) {
    const lines: string[] = [];
    const variables = new Map<string, string>();
    const taken = new Set<string>();
    for (const r of resources) {
      const variable = variableName(r.name, taken);
      variables.set(r.name, variable);
      lines.push(`const ${variable} = new keyform.${r.className}(${JSON.stringify(r.name)}, {`);
      for (const [key, value] of Object.entries(r.inputs)) lines.push(`  ${key}: ${tsValue(value, "  ", variables)},`);
      lines.push("});", "");
    }
    return lines.join("\n");
  },
};

/**
 * A value as Pulumi YAML: JSON is YAML, and `${` starts an interpolation in Pulumi YAML, so a
 * literal one is written `$${`.
 */
function yamlValue(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v instanceof ExportReference ? `\${${v.resource}.${v.output}}` : typeof v === "string" ? v.replace(/\$\{/g, () => "$${") : v,
  );
}

const yaml: Renderer = {
  defaultFile: "Pulumi.yaml",
  render(resources, organizationId) {
    const lines = [
      "name: exported-organization",
      "runtime: yaml",
      `description: Written by keyform export from organization ${organizationId}`,
      "# Every object is adopted with importId: the first `pulumi up` records it in state without",
      "# changing it. The keyform provider plugin (pulumi-resource-keyform) must be installed or on",
      "# PATH, or named in a packages section (`packages: {keyform: ./node_modules/keyform/bin}`).",
    ];
    return lines.join("\n") + "\n" + this.declarations(resources);
  },
  declarations(resources) {
    const lines = ["resources:"];
    for (const r of resources) {
      lines.push(`  ${r.name}:`, `    type: keyform:index:${r.className}`, "    properties:");
      for (const [key, value] of Object.entries(r.inputs)) lines.push(`      ${key}: ${yamlValue(value)}`);
    }
    return lines.join("\n") + "\n";
  },
};

/** The formats `keyform export --format` accepts. */
export const RENDERERS: Readonly<Record<string, Renderer>> = { typescript, yaml };
