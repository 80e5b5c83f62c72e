/**
 * @module resources/runtime/values
 * Small value helpers shared by the resource handlers: the engine's unknown sentinel,
 * canonical JSON, set comparison.
 */

/**
 * The value the engine sends for an input that is not known yet (an output of a resource
 * that is still to be created) during `preview`; `check` and `diff` must tolerate it.
 */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** True when `value` is the unknown sentinel or holds one anywhere inside it. */
export function containsUnknown(value: unknown): boolean {
  if (value === UNKNOWN) return true;
  if (Array.isArray(value)) return value.some(containsUnknown);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsUnknown);
  return false;
}

/** True when `value` is exactly the unknown sentinel. */
export function isUnknown(value: unknown): boolean {
  return value === UNKNOWN;
}

/**
 * JSON text with object keys sorted at every level and no whitespace, so that two texts that
 * differ only in key order or formatting map to the same string.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      out[key] = sortKeys((value as Record<string, unknown>)[key]);
    }
    return out;
  }
  return value;
}

/**
 * Canonical text of a JSON document given either as text or as a value.
 * @throws {SyntaxError} when `document` is a string that is not JSON.
 */
export function canonicalDocument(document: unknown): string {
  return canonicalJson(typeof document === "string" ? JSON.parse(document) : document);
}

/** Sorted, de-duplicated copy of a list of strings (order-insensitive comparison). */
export function sortedSet(values: readonly string[] | undefined): string[] {
  return [...new Set(values ?? [])].sort();
}

/** True when two string lists hold the same members, ignoring order and duplicates. */
export function sameSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = sortedSet(a);
  const y = sortedSet(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** {@link sameSet} as the `equal` of a diff rule, for a property that holds a set of strings. */
export function equalAsSets(oldValue: unknown, newValue: unknown): boolean {
  return sameSet(oldValue as readonly string[] | undefined, newValue as readonly string[] | undefined);
}

/** Members of `a` that are not in `b`. */
export function minus(a: readonly string[], b: readonly string[]): string[] {
  const drop = new Set(b);
  return sortedSet(a.filter((v) => !drop.has(v)));
}

/** Copy of `record` without the keys whose value is `undefined`. */
export function compact<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as T;
}

/** Short, single-line rendering of a value for messages (long values are cut). */
export function show(value: unknown): string {
  if (value === undefined) return "(unset)";
  const text = typeof value === "string" ? JSON.stringify(value) : canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
