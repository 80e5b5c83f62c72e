/**
 * @module plugin/functions
 * The data functions as the plugin's invokes (`keyform:index:listUsers`, …): every entry of the
 * data function table, its schema derived from the wire schemas of its query and result, run
 * through the same {@link runDataFunction} as the TypeScript data functions.
 */
import type { z } from "zod";
import { Timestamp } from "../wire/shared";
import { singularName } from "../resources/runtime/describe";
import { dataFunctionNamed, dataFunctionSchemas, runDataFunction, type DataFunction, type DataFunctionName } from "../resources/runtime/queries";
import type { ProviderContext } from "../resources/runtime/context";

type SchemaSpec = Record<string, unknown>;

/** Zod's internal definition (zod 4): enough to map a wire schema onto schema types. */
interface ZodDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  entries?: Record<string, string>;
  valueType?: z.ZodType;
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
      // A preprocessed value (`opt`: null or "" read as absent) is typed by what it becomes.
      current = defOf(def.in).type === "transform" && def.out ? def.out : def.in;
    } else {
      return { schema: current, optional };
    }
  }
}

/**
 * The object types of the functions' inputs and outputs, named after the field that holds them
 * (`users` → `UserInfo`; `Info` keeps them apart from the resources' tokens). One wire object
 * (the same zod schema) is one type wherever it appears.
 */
export class FunctionTypes {
  readonly types: Record<string, SchemaSpec> = {};
  // The shared timestamp object is named for what it is, not for the first field holding it.
  private readonly names = new Map<z.ZodType, string>([[Timestamp, "keyform:index:Timestamp"]]);

  constructor() {
    this.types["keyform:index:Timestamp"] = {
      type: "object",
      description: "A point in time as the service writes it: seconds and nanoseconds since the Unix epoch, as decimal strings.",
      properties: {
        seconds: { type: "string", description: "Seconds since the Unix epoch." },
        nanos: { type: "string", description: "Nanoseconds within the second." },
      },
      required: ["seconds", "nanos"],
    };
  }

  /** The schema type of wire value `schema`, held by field `field` of `owner`. */
  typeOf(schema: z.ZodType, field: string, owner: string): SchemaSpec {
    const inner = unwrap(schema).schema;
    const def = defOf(inner);
    switch (def.type) {
      case "string":
      case "literal":
        return { type: "string" };
      case "enum":
        return { type: "string" };
      case "number":
      case "int":
        return { type: "number" };
      case "boolean":
        return { type: "boolean" };
      case "array":
        return { type: "array", items: def.element ? this.typeOf(def.element, singularName(field), owner) : { $ref: "pulumi.json#/Any" } };
      case "record":
        return { type: "object", additionalProperties: def.valueType ? this.typeOf(def.valueType, field, owner) : { $ref: "pulumi.json#/Any" } };
      case "object":
        return { $ref: `#/types/${this.objectType(inner, field, owner)}` };
      default:
        // A free-form value of the service (`unknown` in the wire schema): any JSON.
        return { $ref: "pulumi.json#/Any" };
    }
  }

  /** Registers the object type of `schema` (once) and returns its token. */
  private objectType(schema: z.ZodType, field: string, owner: string): string {
    const known = this.names.get(schema);
    if (known !== undefined) return known;
    const base = `${field[0]!.toUpperCase()}${field.slice(1)}Info`;
    let token = `keyform:index:${base}`;
    for (let n = 2; this.types[token] !== undefined; n++) token = `keyform:index:${base}${n}`;
    this.names.set(schema, token);
    this.types[token] = {}; // reserved before the fields, which may refer to it
    const { properties, required } = this.objectProperties(schema, `\`${field}\``);
    this.types[token] = { type: "object", description: `One \`${field}\` entry of \`${owner}\`, as the service returns it.`, properties, required };
    return token;
  }

  /** The properties of wire object `schema` (without `skip`), each typed and described. */
  objectProperties(schema: z.ZodType, owner: string, skip: readonly string[] = []): { properties: Record<string, SchemaSpec>; required: string[] } {
    const def = defOf(unwrap(schema).schema);
    const properties: Record<string, SchemaSpec> = {};
    const required: string[] = [];
    for (const [name, field] of Object.entries(def.shape ?? {})) {
      if (skip.includes(name)) continue;
      const { schema: inner, optional } = unwrap(field);
      const innerDef = defOf(inner);
      const values = innerDef.type === "enum" && innerDef.entries ? ` One of ${Object.values(innerDef.entries).map((v) => `\`${v}\``).join(", ")}.` : "";
      properties[name] = { ...this.typeOf(field, name, owner), description: `The \`${name}\` field of ${owner}${optional ? " (absent when the service leaves it out)" : ""}.${values}` };
      if (!optional) required.push(name);
    }
    return { properties, required };
  }
}

/** The schema of one data function: inputs from its query's request, outputs from its result. */
export function functionSchema(fn: DataFunction, types: FunctionTypes = new FunctionTypes()): Record<string, unknown> {
  const { request, result } = dataFunctionSchemas(fn);
  // organizationId is optional for a data function: it defaults to the setting.
  const inputs = types.objectProperties(request, `the \`${fn.name}\` request`, ["organizationId"]);
  inputs.properties.organizationId = { type: "string", description: "The organization; defaults to the `keyform:organizationId` setting." };
  const outputs = types.objectProperties(result, `the \`${fn.name}\` result`);
  return {
    description: fn.description,
    inputs: { properties: inputs.properties, required: inputs.required },
    outputs: { properties: outputs.properties, required: outputs.required },
  };
}

/** The data function a token names (`keyform:index:listUsers`), or undefined. */
export function functionOfToken(token: string): DataFunctionName | undefined {
  return token.startsWith("keyform:index:") ? dataFunctionNamed(token.slice("keyform:index:".length))?.name : undefined;
}

/**
 * Runs the data function `name` with `args`; the result is plain JSON.
 * @throws {ProviderError} naming the function and, where it helps, the setting to fix.
 */
export async function invokeFunction(context: ProviderContext, name: DataFunctionName, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await runDataFunction(context, name, args as never);
  // The response is parsed JSON already; a round trip drops `undefined` for the Struct.
  return JSON.parse(JSON.stringify(result)) as Record<string, unknown>;
}
