/**
 * @module plugin/schema
 * The Pulumi package schema of `keyform`, derived from what the runtime already knows: each
 * registered resource's {@link ResourceDescription} (resources `keyform:index:<Kind>`), the
 * data functions' wire schemas (invokes `keyform:index:<name>`), and the settings (the
 * provider's config). Nothing here lists resources or properties by hand, so a resource
 * registered in the runtime appears in the schema, the YAML type checker and the generated
 * SDKs without another edit.
 */
import { registeredSpecs } from "../resources/runtime";
import { allInputs, allOutputs, changeBehaviour, changeRule, secretOutputNames, singularName, type PropertyDescription, type PropertyType } from "../resources/runtime/describe";
import { exampleProgram } from "../resources/runtime/example";
import type { AnyResourceSpec } from "../resources/runtime/framework";
import { RENDERERS } from "../resources/runtime/program-render";
import { DATA_FUNCTIONS } from "../resources/runtime/queries";
import { SETTINGS_DESCRIPTION } from "./config";
import { FunctionTypes, functionSchema } from "./functions";

/** The package name: the `keyform` in `keyform:index:Policy` and `keyform:baseUrl`. */
export const PACKAGE = "keyform";

/** The source repository. */
export const REPOSITORY = "https://github.com/keyform/keyform";

/** Where the engine fetches the plugin when it is not installed: the repository's GitHub releases. */
export const PLUGIN_DOWNLOAD_URL = "github://api.github.com/keyform/keyform";

/** The type token of resource class `kind`. */
export function resourceToken(kind: string): string {
  return `${PACKAGE}:index:${kind}`;
}

/** The resource class of a type token (`keyform:index:Policy` → `Policy`), or undefined. */
export function kindOfToken(token: string): string | undefined {
  const prefix = `${PACKAGE}:index:`;
  return token.startsWith(prefix) ? token.slice(prefix.length) : undefined;
}

/** One property in schema form. */
export type SchemaProperty = Record<string, unknown>;

/** Types named in the schema's `types` section (object types with known properties). */
type NamedTypes = Record<string, Record<string, unknown>>;

/** Which side of a resource a type is written for: nested objects may differ between the two. */
type Side = "input" | "output";

/** Registers `spec` as type `name` and returns its reference; an output shape unlike the input one of the same name gets `Details` appended. */
function namedType(name: string, spec: Record<string, unknown>, side: Side, types: NamedTypes): SchemaProperty {
  let token = `${PACKAGE}:index:${name}`;
  const existing = types[token];
  if (existing !== undefined && side === "output" && JSON.stringify(existing) !== JSON.stringify(spec)) token = `${token}Details`;
  types[token] = spec;
  return { $ref: `#/types/${token}` };
}

/**
 * The schema type spec of a {@link PropertyType}: nested objects and enums become named types,
 * `<owner>` (a list's element is named in the singular, `WalletAccount`).
 */
function typeSpec(type: PropertyType, owner: string, side: Side, types: NamedTypes): SchemaProperty {
  switch (type.type) {
    case "string":
      if (type.enum === undefined) return { type: "string" };
      return namedType(owner, { type: "string", description: `The values of \`${owner}\`.`, enum: type.enum.map((value) => ({ value })) }, side, types);
    case "integer":
    case "number":
    case "boolean":
      return { type: type.type };
    case "json":
      return { $ref: "pulumi.json#/Any" };
    case "array":
      return { type: "array", items: typeSpec(type.items, singularName(owner), side, types) };
    case "object": {
      if (type.properties === undefined) {
        return { type: "object", additionalProperties: type.additionalProperties ? typeSpec(type.additionalProperties, owner, side, types) : { $ref: "pulumi.json#/Any" } };
      }
      const spec = {
        type: "object",
        description: `\`${owner}\`: ${Object.keys(type.properties).map((k) => `\`${k}\``).join(", ")}.`,
        properties: propertiesOf(type.properties, owner, side, types),
        required: requiredOf(type.properties),
      };
      return namedType(owner, spec, side, types);
    }
  }
}

function propertySpec(name: string, property: PropertyDescription, owner: string, side: Side, types: NamedTypes): SchemaProperty {
  const spec: SchemaProperty = {
    ...typeSpec(property, `${owner}${name[0]!.toUpperCase()}${name.slice(1)}`, side, types),
    description: property.description,
  };
  if (property.secret) spec.secret = true;
  if (changeRule(name, property) === "replace") spec.replaceOnChanges = true;
  return spec;
}

function propertiesOf(properties: Readonly<Record<string, PropertyDescription>>, owner: string, side: Side, types: NamedTypes): Record<string, SchemaProperty> {
  return Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, propertySpec(name, p, owner, side, types)]));
}

function requiredOf(properties: Readonly<Record<string, PropertyDescription>>): string[] {
  return Object.entries(properties)
    .filter(([, p]) => p.required)
    .map(([name]) => name);
}

/** The inputs of a resource as the schema lists them: its own, then the base ones. */
export function schemaInputs(spec: AnyResourceSpec): Record<string, PropertyDescription> {
  return allInputs(spec.kind, spec.describe);
}

/** The outputs of a resource as the schema lists them: its own, then `organizationId`. */
export function schemaOutputs(spec: AnyResourceSpec): Record<string, PropertyDescription> {
  return allOutputs(spec.describe);
}

/** The names of the outputs the schema marks secret: they are returned as secrets. */
export function secretOutputs(spec: AnyResourceSpec): string[] {
  return secretOutputNames(spec.describe);
}

/**
 * The documentation of a resource as the Pulumi Registry shows it: the description, how each
 * input changes the object, an example, and how to import an existing object.
 */
export function resourceDocs(spec: AnyResourceSpec): string {
  const d = spec.describe;
  const example = exampleProgram(spec.kind, registeredSpecs());
  return [
    d.description,
    "",
    changeBehaviour(spec.kind, d),
    "",
    "## Example Usage",
    "",
    "```typescript",
    'import * as keyform from "keyform";',
    "",
    RENDERERS.typescript!.declarations(example).trimEnd(),
    "```",
    "",
    "```yaml",
    RENDERERS.yaml!.declarations(example).trimEnd(),
    "```",
    "",
    "## Import",
    "",
    `An existing ${spec.kind} is adopted by its id (${d.importIdMeaning ?? "its id"}):`,
    "",
    "```sh",
    `$ pulumi import ${resourceToken(spec.kind)} <name> <id>`,
    "```",
    ...(d.importId === false ? [] : ["", "Programs using the TypeScript classes adopt it with the `importId` input instead."]),
  ].join("\n");
}

function resourceSchema(spec: AnyResourceSpec, types: NamedTypes): Record<string, unknown> {
  const inputs = schemaInputs(spec);
  const outputs = schemaOutputs(spec);
  return {
    description: resourceDocs(spec),
    inputProperties: propertiesOf(inputs, spec.kind, "input", types),
    requiredInputs: requiredOf(inputs),
    properties: propertiesOf(outputs, spec.kind, "output", types),
    // Every output the service always reports (the id and the organization among them).
    required: Object.entries(outputs)
      .filter(([, p]) => !p.optional)
      .map(([name]) => name),
  };
}

/** The provider's config as schema properties (the settings, `apiPrivateKey` secret). */
function settingsProperties(): Record<string, SchemaProperty> {
  return Object.fromEntries(
    Object.entries(SETTINGS_DESCRIPTION).map(([name, s]) => [
      name,
      { type: "string", description: s.description, ...(s.secret ? { secret: true } : {}) },
    ]),
  );
}

/**
 * The package schema, as the plugin's GetSchema returns it and `pulumi package gen-sdk` reads it.
 * @param version the package version (the plugin's).
 */
export function packageSchema(version: string): Record<string, unknown> {
  const types: NamedTypes = {};
  const resources = Object.fromEntries(registeredSpecs().map((spec) => [resourceToken(spec.kind), resourceSchema(spec, types)]));
  const functionTypes = new FunctionTypes();
  const functions = Object.fromEntries(DATA_FUNCTIONS.map((fn) => [`${PACKAGE}:index:${fn.name}`, functionSchema(fn, functionTypes)]));
  const settings = settingsProperties();
  return {
    name: PACKAGE,
    displayName: "keyform",
    version,
    description: "Organization configuration as code for the organization, wallet and authentication service.",
    keywords: ["pulumi", "keyform", "wallets", "policies", "api-keys", "category/security", "kind/native"],
    license: "Apache-2.0",
    homepage: REPOSITORY,
    repository: REPOSITORY,
    publisher: "keyform",
    // Where the engine downloads a missing plugin: the GitHub releases of the repository, assets
    // pulumi-resource-keyform-v<version>-<os>-<arch>.tar.gz.
    pluginDownloadURL: PLUGIN_DOWNLOAD_URL,
    config: { variables: settings },
    provider: {
      description: "The keyform provider: the settings of one organization's API access. Unset settings fall back to the `KEYFORM_*` environment variables.",
      inputProperties: settings,
    },
    resources,
    functions,
    types: { ...types, ...functionTypes.types },
    language: {
      nodejs: { packageName: "@keyform/pulumi" },
      python: { packageName: "pulumi_keyform" },
      go: { importBasePath: "github.com/keyform/keyform/sdk/go/keyform", generateResourceContainerTypes: false },
      csharp: { rootNamespace: "Keyform", packageReferences: { Pulumi: "3.*" } },
    },
  };
}
