/**
 * @module resources/runtime/normalize
 * The default normalization of a resource's inputs, read from its description: each declared
 * input is copied, an unset one takes its `default`, a number given for a decimal string
 * (`acceptsNumber`) becomes that string, and a `set` list becomes its sorted members. A kind
 * adds only its real special cases on top (`define.ts`).
 */
import type { ResourceDescription } from "./describe";
import { compact, containsUnknown, sortedSet } from "./values";

/** The normalized value of one input; unknown values are kept as they are. */
function normalizedValue(property: ResourceDescription["inputs"][string], value: unknown): unknown {
  if (value === undefined || value === null) {
    // A fresh copy: the normalized inputs are the caller's to change.
    return Array.isArray(property.default) ? [...property.default] : property.default;
  }
  if (property.type === "string" && property.acceptsNumber === true && typeof value === "number") {
    // The wire carries 64-bit integers as strings; a number is accepted for convenience.
    return String(value);
  }
  if (property.set === true && Array.isArray(value) && !containsUnknown(value)) {
    // Order and repeats carry no meaning.
    return sortedSet(value as string[]);
  }
  return value;
}

/** The inputs of `description` in `news`, normalized, with the base inputs as given; unset ones left out. */
export function normalizeInputs(description: ResourceDescription, news: Record<string, unknown>): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(description.inputs)) inputs[name] = normalizedValue(property, news[name]);
  // A resource without adoption (`importId: false`) ignores an `importId` it is given.
  const importId = description.importId === false ? undefined : news.importId;
  return compact({ ...inputs, organizationId: news.organizationId, importId });
}
