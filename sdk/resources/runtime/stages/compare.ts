/**
 * @module resources/runtime/stages/compare
 * How a resource's declared inputs compare with an object's outputs, property by property, by
 * the rules of its spec (`ResourceSpec.properties`): what `diff`, `update` and an adoption decide on.
 */
import type { Difference } from "../object-errors";
import type { BaseInputs, BaseOutputs, PropertyRule, ResourceSpec } from "../resource-spec";
import { canonicalJson, containsUnknown } from "../values";
import { carryWith } from "./outputs";

/** The default equality of {@link PropertyRule}: canonical JSON, `undefined` equal only to `undefined`. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

/** The properties the spec compares (every input but the base ones). */
export function propertyNamesOf<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>): Array<Exclude<keyof I, keyof BaseInputs> & string> {
  return Object.keys(spec.properties) as Array<Exclude<keyof I, keyof BaseInputs> & string>;
}

/** Properties whose new input differs from `current` (old outputs, or a live object's outputs). */
export function changedProperties<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, current: Partial<O>, news: I): string[] {
  return propertyNamesOf(spec).filter((name) => {
    const newValue = (news as Record<string, unknown>)[name];
    if (containsUnknown(newValue)) return true;
    const ruleOf = spec.properties[name] as PropertyRule<I, O>;
    const oldValue = (current as Record<string, unknown>)[name];
    return !(ruleOf.equal ?? sameValue)(oldValue, newValue, current, news);
  });
}

/** Whether the service cannot change `name` of an existing object (a change replaces it). */
export function forcesReplace<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, name: string): boolean {
  return spec.properties[name as keyof typeof spec.properties]?.replace === true;
}

/** The properties where the existing object `live` differs from `inputs`, each with its declared and found value. */
export function differencesFrom<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, live: L, inputs: I): Difference[] {
  // Inputs the service does not hold (carriedInputs) are what the program declares, not a difference.
  const current = spec.flatten(live, carryWith(spec, {}, inputs)) as unknown as Record<string, unknown>;
  return changedProperties(spec, current as Partial<O>, inputs).map((property) => ({
    property,
    declared: (inputs as Record<string, unknown>)[property],
    found: current[property],
  }));
}
