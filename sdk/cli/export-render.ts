/**
 * @module cli/export-render
 * Writers of an exported organization, one per program format, all from the same list of
 * resources: adding a format is one more entry in {@link RENDERERS}.
 */
import type { ExportedResource } from "./export-model";

/** A program format: the file it is usually saved as, and how to write it. */
export interface Renderer {
  readonly defaultFile: string;
  render(resources: readonly ExportedResource[], organizationId: string): string;
}

/** A value as TypeScript source: JSON, spread over lines when it is long. */
function tsValue(value: unknown, indent: string): string {
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
    for (const r of resources) {
      lines.push(`new keyform.${r.className}(${JSON.stringify(r.name)}, {`);
      for (const [key, value] of Object.entries(r.inputs)) lines.push(`  ${key}: ${tsValue(value, "  ")},`);
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
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? v.replace(/\$\{/g, () => "$${") : v));
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
      "resources:",
    ];
    for (const r of resources) {
      lines.push(`  ${r.name}:`, `    type: keyform:index:${r.className}`, "    properties:");
      for (const [key, value] of Object.entries(r.inputs)) lines.push(`      ${key}: ${yamlValue(value)}`);
    }
    return lines.join("\n") + "\n";
  },
};

/** The formats `keyform export --format` accepts. */
export const RENDERERS: Readonly<Record<string, Renderer>> = { typescript, yaml };
