/**
 * @module policy/smt/witness
 * Parameters a client could submit for an activity type: every required field of the type's
 * parameter schema (the wire definitions), or of the service's documented parameters for the
 * activities keyform does not send itself, filled with well-formed sample values. A diff's
 * witness starts from these and overrides what the solver chose.
 */
import type { z } from "zod";
import type { ActivityDef } from "../../wire/define";
import { operations } from "../../wire/registry";
import { activityTypeInfo } from "../catalog";

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; values?: unknown[]; entries?: Record<string, unknown>; options?: z.ZodType[]; shape?: Record<string, z.ZodType>; in?: z.ZodType };

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Well-formed shapes of refined strings (JSON text, a URL, decimal digits, hex). */
const STRING_SHAPES = ["{}", "https://example.com/hook", "1", "0x00"];

/** A well-formed value of `schema` with its required fields only. */
function sample(schema: z.ZodType, name: string, depth = 0): unknown {
  const def = defOf(schema);
  switch (def.type) {
    case "object": {
      const shape = (schema as unknown as { shape: Record<string, z.ZodType> }).shape;
      const out: Record<string, unknown> = {};
      if (depth > 6) return out;
      for (const [field, inner] of Object.entries(shape)) {
        if (!inner.safeParse(undefined).success) out[field] = sample(inner, field, depth + 1);
      }
      return out;
    }
    case "optional":
    case "nullable":
    case "default":
    case "readonly":
    case "nonoptional":
      return sample(def.innerType!, name, depth);
    case "pipe": {
      // The input's sample, unless the output's refinements refuse it (then a well-formed shape).
      const inner = sample(def.in!, name, depth);
      return schema.safeParse(inner).success ? inner : (STRING_SHAPES.find((candidate) => schema.safeParse(candidate).success) ?? inner);
    }
    case "array":
      // One item where the schema wants at least one.
      return schema.safeParse([]).success || depth > 6 ? [] : [sample(def.element!, name.replace(/s$/, ""), depth + 1)];
    case "enum":
      return Object.values(def.entries ?? {})[0];
    case "literal":
      return def.values?.[0];
    case "union":
      return sample(def.options![0]!, name, depth);
    case "number":
    case "int":
      return 1;
    case "bigint":
      return "1";
    case "boolean":
      return false;
    case "record":
      return {};
    default: {
      // A string the schema accepts: by the field's name first, then well-formed shapes of refined strings.
      const candidates = [sampleByName(name), ...STRING_SHAPES];
      return candidates.find((candidate) => schema.safeParse(candidate).success) ?? candidates[0];
    }
  }
}

/** A sample value from a field's name alone (the service's documented parameters carry no schema here). */
function sampleByName(name: string): unknown {
  if (/_ids$|Ids$|^policies$|^authenticators$|^oauth_providers$|^accounts$|^payloads$|^root_users$|^address_formats$/.test(name)) return [];
  if (/threshold$|Threshold$/.test(name)) return 1;
  if (name === "encoding") return "PAYLOAD_ENCODING_HEXADECIMAL";
  if (name === "hash_function") return "HASH_FUNCTION_KECCAK256";
  if (name === "type") return "TRANSACTION_TYPE_ETHEREUM";
  if (name === "curve") return "CURVE_SECP256K1";
  if (/(payload|transaction|bundle|key)$/i.test(name)) return "0x00";
  return `sample-${name.replace(/_/g, "-")}`;
}

const camel = (snake: string) => snake.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

let byType: Map<string, ActivityDef> | undefined;

/**
 * Every required parameter of `type`, camelCase as a client sends them, or `{}` when the type is
 * unknown (another version: nothing is known to be required).
 */
export function requiredParameters(type: string): Record<string, unknown> {
  byType ??= new Map(
    (Object.values(operations) as { kind: string }[]).filter((op) => op.kind === "activity").map((op) => [(op as ActivityDef).type, op as ActivityDef]),
  );
  const def = byType.get(type);
  if (def) return sample(def.parameters, "parameters") as Record<string, unknown>;
  const info = activityTypeInfo(type);
  if (!info) return {};
  const out: Record<string, unknown> = {};
  for (const field of REQUEST_ONLY_FIELDS[type]?.split(" ") ?? []) out[camel(field)] = sampleByName(field);
  for (const [field, required] of Object.entries(info.requestFields)) if (required) out[camel(field)] ??= sampleByName(field);
  for (const [field, required] of Object.entries(info.params)) if (required) out[camel(field)] = sampleByName(field);
  return out;
}

/**
 * Required request fields of the service's activities that keyform does not send itself and that
 * a policy cannot read (the catalog lists only what `activity.params` shows a condition): without
 * them a witness could not be submitted.
 */
const REQUEST_ONLY_FIELDS: Readonly<Record<string, string>> = {
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: "sign_with unsigned_transaction",
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: "sign_with payload",
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: "sign_with payloads",
  ACTIVITY_TYPE_EXPORT_WALLET: "wallet_id target_public_key",
};

/** `snake_case` → `camelCase` at the top level (conditions read params in snake_case; clients send camelCase). */
export function camelCaseKey(key: string): string {
  return camel(key);
}

/**
 * Why a witness is not a request a client could submit, or undefined when it is: its type must
 * be one of the catalog's, and its parameters must be valid under the type's wire schema (for
 * the types keyform sends; the others carry their required fields by construction).
 */
export function witnessProblem(witness: { readonly type: string; readonly parameters?: unknown; readonly approvers?: readonly unknown[] }): string | undefined {
  if (activityTypeInfo(witness.type) === undefined) return `${witness.type} is not an activity type of the service's catalog`;
  if ((witness.approvers ?? []).length === 0) return `${witness.type}: no submitter`;
  requiredParameters(witness.type);
  const def = byType!.get(witness.type);
  if (def === undefined) return undefined;
  const parsed = def.parameters.safeParse(witness.parameters ?? {});
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return `${witness.type}: parameters.${issue.path.join(".")}: ${issue.message}`;
}

/**
 * The params fields (snake_case) of `type` whose list its wire schema wants non-empty: a sample of
 * the field is a list with an item only when the empty list is refused.
 */
export function nonEmptyLists(type: string): ReadonlySet<string> {
  requiredParameters(type);
  const def = byType!.get(type);
  const found = new Set<string>();
  if (!def) return found;
  const shape = (def.parameters as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  for (const [field, schema] of Object.entries(shape)) {
    const value = sample(schema, field);
    if (Array.isArray(value) && value.length > 0) found.add(field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  }
  return found;
}
