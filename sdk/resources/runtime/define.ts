/**
 * @module resources/runtime/define
 * Builds a {@link ResourceSpec} from what a kind writes once: its description and its CRUD
 * logic. The diff rules come from the description (replace from `replaceOnChange` through
 * {@link changeRule}, order-free lists from `set`), and so does the default normalization
 * (`normalize.ts`); a kind adds only the equality or normalization that is truly its own.
 */
import { changeRule } from "./describe";
import type { BaseInputs, BaseOutputs, PropertyRule, ResourceSpec } from "./framework";
import { normalizeInputs } from "./normalize";
import { equalAsSets } from "./values";

/** The names of a resource's own inputs (the ones `diff` compares). */
type OwnInputName<I> = Exclude<keyof I, keyof BaseInputs> & string;

/** A resource as its kind writes it: a {@link ResourceSpec} without what the description already says. */
export type ResourceDefinition<I extends BaseInputs, O extends BaseOutputs, L> = Omit<ResourceSpec<I, O, L>, "properties" | "normalize"> & {
  /**
   * Equality of the inputs whose comparison is truly custom (a hex key in any case, an unset
   * value meaning a default); the others compare as canonical JSON, or as sets when `set`.
   */
  readonly equal?: { readonly [K in OwnInputName<I>]?: PropertyRule<I, O>["equal"] };
  /**
   * The kind's own normalization, applied to the default one (`inputs`); `news` is the raw
   * input. It must keep unknown values as they are.
   */
  normalize?(inputs: I, news: Record<string, unknown>): I;
};

/** The diff rule of each input of `definition`, in the order the description declares them. */
function propertyRules<I extends BaseInputs, O extends BaseOutputs, L>(definition: ResourceDefinition<I, O, L>): ResourceSpec<I, O, L>["properties"] {
  const rules: Record<string, PropertyRule<I, O>> = {};
  const custom = (definition.equal ?? {}) as Record<string, PropertyRule<I, O>["equal"]>;
  for (const [name, property] of Object.entries(definition.describe.inputs)) {
    const equal = custom[name] ?? (property.set === true ? equalAsSets : undefined);
    rules[name] = { replace: changeRule(name, property) === "replace", ...(equal === undefined ? {} : { equal }) };
  }
  for (const name of Object.keys(custom)) {
    if (!(name in rules)) throw new Error(`${definition.kind}: equal.${name} names no input of the description`);
  }
  return rules as ResourceSpec<I, O, L>["properties"];
}

/** The spec of a resource: `definition` with its diff rules and normalization derived from its description. */
export function defineResource<I extends BaseInputs, O extends BaseOutputs, L>(definition: ResourceDefinition<I, O, L>): ResourceSpec<I, O, L> {
  const special = definition.normalize;
  const { equal: _equal, normalize: _normalize, ...rest } = definition;
  return {
    ...rest,
    properties: propertyRules(definition),
    normalize(news) {
      const inputs = normalizeInputs(definition.describe, news) as unknown as I;
      return special === undefined ? inputs : special(inputs, news);
    },
  };
}
