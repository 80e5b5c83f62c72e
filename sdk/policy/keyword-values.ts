/**
 * @module policy/keyword-values
 * Checks request keyword values written by hand (a `keyform policy simulate` activity file)
 * against the language's types, so that a misspelt or camelCase field (`eth.tx.chainId`) is an
 * error naming it instead of a silent MissingField in every policy that reads it. Fields may be
 * left out (a request may lack them); what is given must exist and have the documented type.
 */
import { KEYWORDS, typeName, type Type } from "./types";

/** Whether `value` can stand for an int or uint: an integral number, a bigint or a decimal string (u256 amounts come as strings). */
function isInteger(value: unknown): boolean {
  return (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint" || (typeof value === "string" && /^-?\d+$/.test(value));
}

function check(value: unknown, type: Type, path: string): void {
  const wrong = (): never => {
    throw new TypeError(`${path}: expected ${typeName(type)}, got ${Array.isArray(value) ? "a list" : value === null ? "null" : typeof value}`);
  };
  switch (type.t) {
    case "dyn":
      return;
    case "bool":
      if (typeof value !== "boolean") wrong();
      return;
    case "string":
      if (typeof value !== "string") wrong();
      return;
    case "int":
    case "uint":
      if (!isInteger(value)) wrong();
      return;
    case "timestamp":
      if (typeof value !== "string" && typeof value !== "number") wrong();
      return;
    case "list":
      if (!Array.isArray(value)) wrong();
      (value as unknown[]).forEach((item, i) => check(item, type.of, `${path}[${i}]`));
      return;
    case "map":
      if (typeof value !== "object" || value === null || Array.isArray(value)) wrong();
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) check(item, type.of, `${path}['${key}']`);
      return;
    case "object": {
      if (typeof value !== "object" || value === null || Array.isArray(value)) wrong();
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const field = type.fields[key];
        if (field) check(item, field, `${path}.${key}`);
        else if (!type.open) throw new TypeError(`${path}.${key}: ${type.name} has no field '${key}'; its fields are ${Object.keys(type.fields).join(", ")}`);
      }
      return;
    }
  }
}

/**
 * Checks the condition keywords of a request (`wallet`, `eth`, `tempo`, …) against their types.
 * @param path how the caller names the keywords in messages (`activity.keywords`)
 * @throws TypeError naming the first field that is unknown or has the wrong type
 */
export function checkKeywordValues(keywords: Readonly<Record<string, unknown>>, path = "keywords"): void {
  for (const [name, value] of Object.entries(keywords)) {
    const type = KEYWORDS.condition[name];
    if (!type) throw new TypeError(`${path}.${name}: not a request keyword`);
    check(value, type, `${path}.${name}`);
  }
}
