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
import { ORGANIZATION_ID_DESCRIPTION, type PropertyDescription, type PropertyType, type ResourceDescription } from "../resources/runtime/describe";
import type { AnyResourceSpec } from "../resources/runtime/framework";
import { DATA_FUNCTIONS } from "../resources/runtime/queries";
import { SETTINGS_DESCRIPTION } from "./config";
import { functionSchema } from "./functions";

/** The package name: the `keyform` in `keyform:index:Policy` and `keyform:baseUrl`. */
export const PACKAGE = "keyform";

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

/** The schema type spec of a {@link PropertyType}; nested objects are named `<owner><Prop>`. */
function typeSpec(type: PropertyType, owner: string, types: NamedTypes): SchemaProperty {
  switch (type.type) {
    case "string":
    case "integer":
    case "number":
    case "boolean":
      return { type: type.type };
    case "json":
      return { $ref: "pulumi.json#/Any" };
    case "array":
      return { type: "array", items: typeSpec(type.items, owner, types) };
    case "object": {
      if (type.properties === undefined) {
        return { type: "object", additionalProperties: type.additionalProperties ? typeSpec(type.additionalProperties, owner, types) : { $ref: "pulumi.json#/Any" } };
      }
      const token = `${PACKAGE}:index:${owner}`;
      types[token] = {
        type: "object",
        properties: propertiesOf(type.properties, owner, types),
        required: requiredOf(type.properties),
      };
      return { $ref: `#/types/${token}` };
    }
  }
}

function propertySpec(name: string, property: PropertyDescription, owner: string, types: NamedTypes): SchemaProperty {
  // Enums stay plain strings (the TypeScript API takes any string too); the values are listed
  // in the description unless it names them already.
  const allowed = property.type === "string" ? property.enum : undefined;
  const listed = allowed === undefined || allowed.every((v) => property.description.includes(v));
  const spec: SchemaProperty = {
    ...typeSpec(property, `${owner}${name[0]!.toUpperCase()}${name.slice(1)}`, types),
    description: listed ? property.description : `${property.description} One of: ${allowed.map((v) => `\`${v}\``).join(", ")}.`,
  };
  if (property.secret) spec.secret = true;
  if (property.replaceOnChange) spec.replaceOnChanges = true;
  return spec;
}

function propertiesOf(properties: Readonly<Record<string, PropertyDescription>>, owner: string, types: NamedTypes): Record<string, SchemaProperty> {
  return Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, propertySpec(name, p, owner, types)]));
}

function requiredOf(properties: Readonly<Record<string, PropertyDescription>>): string[] {
  return Object.entries(properties)
    .filter(([, p]) => p.required)
    .map(([name]) => name);
}

/** The inputs every resource has besides its own, as descriptions. */
function baseInputs(description: ResourceDescription, kind: string): Record<string, PropertyDescription> {
  const base: Record<string, PropertyDescription> = {
    organizationId: {
      type: "string",
      description: ORGANIZATION_ID_DESCRIPTION,
    },
  };
  if (description.importId !== false) {
    base.importId = {
      type: "string",
      description: `Adopt the existing ${kind} with this id instead of creating one; it is updated to match the inputs where the service allows, and fails naming the differences otherwise.`,
    };
  }
  return base;
}

/** The inputs of a resource as the schema lists them: its own, then the base ones. */
export function schemaInputs(spec: AnyResourceSpec): Record<string, PropertyDescription> {
  return { ...spec.describe.inputs, ...baseInputs(spec.describe, spec.kind) };
}

/** The outputs of a resource as the schema lists them: its own, then `organizationId`. */
export function schemaOutputs(spec: AnyResourceSpec): Record<string, PropertyDescription> {
  const outputs: Record<string, PropertyDescription> = {
    ...spec.describe.outputs,
    organizationId: { type: "string", description: "The organization the object lives in." },
  };
  if (spec.describe.importId !== false) {
    outputs.importId = { type: "string", description: "The `importId` the object was adopted with, if any." };
  }
  return outputs;
}

/** The names of the outputs the schema marks secret: they are returned as secrets. */
export function secretOutputs(spec: AnyResourceSpec): string[] {
  return Object.entries(spec.describe.outputs)
    .filter(([, p]) => p.secret)
    .map(([name]) => name);
}

function resourceSchema(spec: AnyResourceSpec, types: NamedTypes): Record<string, unknown> {
  const inputs = schemaInputs(spec);
  return {
    description: spec.describe.description,
    inputProperties: propertiesOf(inputs, spec.kind, types),
    requiredInputs: requiredOf(inputs),
    properties: propertiesOf(schemaOutputs(spec), spec.kind, types),
    // The id output and the organization are always known once the object exists.
    required: [spec.idProperty, "organizationId"],
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
  const functions = Object.fromEntries(DATA_FUNCTIONS.map((fn) => [`${PACKAGE}:index:${fn.name}`, functionSchema(fn)]));
  const settings = settingsProperties();
  return {
    name: PACKAGE,
    displayName: "keyform",
    version,
    description: "Organization configuration as code for the organization, wallet and authentication service.",
    keywords: ["pulumi", "keyform", "category/utility"],
    license: "Apache-2.0",
    repository: "https://github.com/keyform/keyform",
    publisher: "keyform",
    config: { variables: settings },
    provider: {
      description: "The keyform provider: the settings of one organization's API access. Unset settings fall back to the `KEYFORM_*` environment variables.",
      inputProperties: settings,
    },
    resources,
    functions,
    types,
    language: {
      nodejs: { packageName: "@keyform/pulumi" },
      python: { packageName: "pulumi_keyform" },
      go: { importBasePath: "github.com/keyform/keyform/sdk/go/keyform", generateResourceContainerTypes: false },
      csharp: { rootNamespace: "Keyform", packageReferences: { Pulumi: "3.*" } },
    },
  };
}
