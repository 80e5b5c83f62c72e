/**
 * @module resources/runtime/define
 * Builds a {@link ResourceSpec} from what a kind writes once: its description and its CRUD
 * logic. The diff rules come from the description (replace from `replaceOnChange` through
 * {@link changeRule}, order-free lists from `set`), and so does the default normalization
 * (`normalize.ts`), and so do the outputs of a live object that are its fields of the same name
 * and create parameters that are inputs of the same name (`parametersFrom`); a kind adds only
 * the equality, normalization, outputs and parameters that are truly its own.
 */
import type { z } from "zod";
import { changeRule, type ResourceDescription } from "./describe";
import type { BaseInputs, BaseOutputs, PropertyRule, ResourceSpec } from "./framework";
import { normalizeInputs } from "./normalize";
import { equalAsSets } from "./values";

/** The names of a resource's own inputs (the ones `diff` compares). */
type OwnInputName<I> = Exclude<keyof I, keyof BaseInputs> & string;

/** A resource as its kind writes it: a {@link ResourceSpec} without what the description already says. */
export type ResourceDefinition<I extends BaseInputs, O extends BaseOutputs, L> = Omit<ResourceSpec<I, O, L>, "properties" | "normalize" | "flatten"> & {
  /**
   * The outputs of a live object that are not its field of the same name (a renamed field, a
   * service's "" meaning none, a value computed from others or carried from creation); every
   * other declared output is the live record's field of its name. Left out when all are.
   */
  flatten?(live: L, carry: Partial<O>): Partial<Omit<O, keyof BaseOutputs>>;
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

/** The declared outputs of `description` that `live` holds under the same name. */
function outputsByName(description: ResourceDescription, live: unknown): Record<string, unknown> {
  const record = live as Record<string, unknown>;
  const outputs: Record<string, unknown> = {};
  for (const name of Object.keys(description.outputs)) if (record[name] !== undefined && record[name] !== null) outputs[name] = record[name];
  return outputs;
}

/**
 * The parameters of `schema` (a wire operation's, or one item of a plural one's) that are the
 * inputs of the same name: a kind's create parameters where they only restate its inputs. Unset
 * inputs are left out; `check` holds the result to the schema (`schemaFailures`). Typed as the
 * schema's parsed form: normalized inputs hold no `null` or `""` for an absent value.
 */
export function parametersFrom<S extends z.ZodObject>(schema: S, inputs: object): z.output<S> {
  const record = inputs as Record<string, unknown>;
  const parameters: Record<string, unknown> = {};
  for (const name of Object.keys(schema.shape)) if (record[name] !== undefined) parameters[name] = record[name];
  return parameters as z.output<S>;
}

/** The spec of a resource: `definition` with its diff rules, normalization and outputs derived from its description. */
export function defineResource<I extends BaseInputs, O extends BaseOutputs, L>(definition: ResourceDefinition<I, O, L>): ResourceSpec<I, O, L> {
  const special = definition.normalize;
  const ownOutputs = definition.flatten;
  const { equal: _equal, normalize: _normalize, flatten: _flatten, ...rest } = definition;
  return {
    ...rest,
    properties: propertyRules(definition),
    flatten(live, carry) {
      const outputs = { ...outputsByName(definition.describe, live), ...(ownOutputs === undefined ? {} : ownOutputs(live, carry)) };
      return outputs as Omit<O, keyof BaseOutputs>;
    },
    normalize(news) {
      const inputs = normalizeInputs(definition.describe, news) as unknown as I;
      return special === undefined ? inputs : special(inputs, news);
    },
  };
}
