/**
 * @module plugin/functions
 * The data functions as the plugin's invokes (`keyform:index:listUsers`, …): their schema is
 * derived from the wire schemas of the queries they run, and they run through the same
 * {@link runQuery} as the TypeScript data functions.
 */
import type { z } from "zod";
import type { QueryName } from "../wire/registry";
import { operations } from "../wire/registry";
import { DATA_FUNCTIONS, runQuery, type DataFunction } from "../resources/runtime/queries";
import type { Settings } from "../resources/runtime/settings";

type SchemaSpec = Record<string, unknown>;

/** Zod's internal definition (zod 4): enough to map a wire schema onto schema types. */
interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
}

function defOf(schema: z.ZodType): ZodDef {
  return (schema as unknown as { _zod: { def: ZodDef } })._zod.def;
}

/** Strips wrappers that do not change the JSON type; `optional` is reported separately. */
function unwrap(schema: z.ZodType): { schema: z.ZodType; optional: boolean } {
  let current = schema;
  let optional = false;
  for (;;) {
    const def = defOf(current);
    if ((def.type === "optional" || def.type === "nullable" || def.type === "default" || def.type === "readonly") && def.innerType) {
      if (def.type !== "readonly") optional = true;
      current = def.innerType;
    } else if (def.type === "pipe" && def.in) {
      current = def.in;
    } else {
      return { schema: current, optional };
    }
  }
}

/** A schema type for a wire value: scalars and lists of scalars typed, anything deeper `Any`. */
function typeOf(schema: z.ZodType): SchemaSpec {
  const def = defOf(unwrap(schema).schema);
  switch (def.type) {
    case "string":
    case "enum":
    case "literal":
      return { type: "string" };
    case "number":
    case "int":
      return { type: "number" };
    case "boolean":
      return { type: "boolean" };
    case "array":
      return def.element ? { type: "array", items: typeOf(def.element) } : { type: "array", items: { $ref: "pulumi.json#/Any" } };
    default:
      // Objects of the service (users, wallets, …) stay untyped: YAML and the SDKs can still
      // index into them, and the wire schema stays the one definition.
      return { $ref: "pulumi.json#/Any" };
  }
}

function objectType(schema: z.ZodType, skip: readonly string[] = []): { properties: Record<string, SchemaSpec>; required: string[] } {
  const def = defOf(unwrap(schema).schema);
  const properties: Record<string, SchemaSpec> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(def.shape ?? {})) {
    if (skip.includes(name)) continue;
    properties[name] = typeOf(field);
    if (!unwrap(field).optional) required.push(name);
  }
  return { properties, required };
}

/** The schema of one data function: inputs from its request, outputs from its response. */
export function functionSchema(fn: DataFunction): Record<string, unknown> {
  const op = operations[fn.name] as unknown as { request: z.ZodType; response: z.ZodType };
  // organizationId is optional for a data function: it defaults to the setting.
  const inputs = objectType(op.request, ["organizationId"]);
  inputs.properties.organizationId = { type: "string", description: "The organization; defaults to the `keyform:organizationId` setting." };
  const outputs = objectType(op.response);
  return {
    description: fn.description,
    inputs: { properties: inputs.properties, required: inputs.required },
    outputs: { properties: outputs.properties, required: outputs.required },
  };
}

/** The data function a token names (`keyform:index:listUsers`), or undefined. */
export function functionOfToken(token: string): QueryName | undefined {
  const name = token.startsWith("keyform:index:") ? token.slice("keyform:index:".length) : undefined;
  return DATA_FUNCTIONS.find((fn) => fn.name === name)?.name;
}

/**
 * Runs the data function `name` with `args`; the result is plain JSON.
 * @throws {ProviderError} naming the function and, where it helps, the setting to fix.
 */
export async function invokeFunction(settings: Settings, name: QueryName, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await runQuery(settings, name, args as never);
  // The response is parsed JSON already; a round trip drops `undefined` for the Struct.
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}
