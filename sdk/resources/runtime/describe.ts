/**
 * @module resources/runtime/describe
 * The one description of a resource's properties: types, documentation, secrecy. Every front
 * door is derived from it (the provider plugin's Pulumi package schema, the generated
 * documentation, the checks of the schema's shape), so adding a resource or a property means
 * editing its {@link ResourceDescription} and nothing else.
 *
 * The shapes follow the Pulumi package schema's type specs closely, so the schema is a plain
 * mapping of these values.
 */
/** One object of an example: its class (the described resource's own when omitted), Pulumi name and inputs. */
export interface ExampleObject {
  readonly kind?: string;
  readonly name: string;
  readonly inputs: Readonly<Record<string, unknown>>;
}

/** The type of one property, in the terms of a Pulumi package schema. */
export type PropertyType =
  /**
   * Text; `enum` lists the values the service accepts (a literal union in TypeScript, an enum in
   * the schema); `acceptsNumber` lets the TypeScript classes take a number for a decimal string.
   */
  | { readonly type: "string"; readonly enum?: readonly string[]; readonly acceptsNumber?: boolean }
  | { readonly type: "integer" }
  | { readonly type: "number" }
  | { readonly type: "boolean" }
  | { readonly type: "array"; readonly items: PropertyType }
  /** An object with known properties (`properties`), or a map of one value type (`additionalProperties`). */
  | {
      readonly type: "object";
      readonly properties?: Readonly<Record<string, PropertyDescription>>;
      readonly additionalProperties?: PropertyType;
    }
  /** Any JSON value (a string holding JSON, or the parsed object): e.g. an ABI. */
  | { readonly type: "json" };

/** One property of a resource or of a nested object. */
export type PropertyDescription = PropertyType & {
  /** Markdown shown in the schema, the generated SDKs and the docs. */
  readonly description: string;
  /** The value is a secret: stored encrypted, never printed. */
  readonly secret?: boolean;
  /** An input the program must set (inputs and nested objects only). */
  readonly required?: boolean;
  /** A change replaces the object (inputs only); mirrors the diff rule of the property. */
  readonly replaceOnChange?: boolean;
  /** The TypeScript class fills it with the resource's name when the program leaves it unset (inputs only). */
  readonly defaultsToResourceName?: boolean;
  /** A plain value in TypeScript, never a promise or an output: it decides the resource options (inputs only). */
  readonly plain?: boolean;
  /** The output can be absent (outputs only; nested objects say it with `required`). */
  readonly optional?: boolean;
  /**
   * The value (or each element of a list) is an output of another resource: `kind`'s `output`
   * (its id output when omitted). `keyform export` writes such values as references.
   */
  readonly references?: { readonly kind: string; readonly output?: string };
  /**
   * A list whose order and repeats carry no meaning (inputs only): normalized to its sorted
   * members, and equal to another list with the same members.
   */
  readonly set?: boolean;
  /** The value an unset (or null) input takes (inputs only); the input is then always present in the state. */
  readonly default?: string | number | boolean | readonly never[];
};

/** Everything the front doors need to know about one resource beyond its CRUD logic. */
export interface ResourceDescription {
  /** Markdown documentation of the resource. */
  readonly description: string;
  /**
   * Whether the resource accepts the base input `importId` (adopt an existing object); default
   * true. `organizationId` every resource accepts.
   */
  readonly importId?: boolean;
  /** Inputs besides the base ones (`organizationId`, `importId`). */
  readonly inputs: Readonly<Record<string, PropertyDescription>>;
  /** Outputs besides the base one (`organizationId`). */
  readonly outputs: Readonly<Record<string, PropertyDescription>>;
  /**
   * The example of the resource: its own object, or a list of objects ending with its own.
   * Rendered as TypeScript and as Pulumi YAML for its page in docs/resources/, the schema's docs and the class's
   * JSDoc (`example.ts`, which says how objects refer to each other).
   */
  readonly example: ExampleObject | readonly ExampleObject[];
  /**
   * What the resource's page (`docs/resources/<kind>.md`) says beyond its description, inputs,
   * example and change rules (Markdown, links relative to that folder): how it behaves on
   * refresh, destroy, adoption, and why.
   */
  readonly guide?: string;
  /** What `importId` (and `pulumi import` with the plugin) takes, e.g. "the wallet's id (`walletId`)". */
  readonly importIdMeaning?: string;
  /**
   * The input that, unless true, makes the object retained on destroy (`retainOnDelete`): key
   * material is never deleted by accident. It must be a `plain` input.
   */
  readonly retainedUnless?: string;
  /** Inputs holding policy-language expressions, linted when the TypeScript class is constructed. */
  readonly expressionInputs?: readonly string[];
}

/**
 * Whether destroy (or a replacement) leaves the object in the organization: the rule of
 * {@link ResourceDescription.retainedUnless}, for `values` holding that input (the declared inputs,
 * or the outputs, which carry it). Every front door applies this one rule: the TypeScript classes
 * as `retainOnDelete`, the provider plugin by not deleting.
 */
export function retainedOnDelete(description: ResourceDescription, values: Readonly<Record<string, unknown>>): boolean {
  return description.retainedUnless !== undefined && values[description.retainedUnless] !== true;
}

/** The inputs every resource has besides its own. */
export function baseInputs(kind: string, description: ResourceDescription): Record<string, PropertyDescription> {
  const base: Record<string, PropertyDescription> = {
    organizationId: {
      type: "string",
      description: ORGANIZATION_ID_DESCRIPTION,
    },
  };
  if (description.importId !== false) {
    base.importId = {
      type: "string",
      description:
        `Adopt the existing ${kind} with this id (${description.importIdMeaning ?? "its id"}) instead of creating one; it is updated to ` +
        "match the inputs where the service allows, and fails naming the differences otherwise. Read only at creation.",
    };
  }
  return base;
}

/** Every input of a resource: its own, then the base ones. */
export function allInputs(kind: string, description: ResourceDescription): Record<string, PropertyDescription> {
  return { ...description.inputs, ...baseInputs(kind, description) };
}

/** Every output of a resource: its own, then `organizationId` (and `importId` where adoption exists). */
export function allOutputs(description: ResourceDescription): Record<string, PropertyDescription> {
  const outputs: Record<string, PropertyDescription> = {
    ...description.outputs,
    organizationId: { type: "string", description: "The organization the object lives in." },
  };
  if (description.importId !== false) {
    outputs.importId = { type: "string", description: "The `importId` the object was adopted with, if any.", optional: true };
  }
  return outputs;
}

/** The outputs that are secrets: returned and stored encrypted. */
export function secretOutputNames(description: ResourceDescription): string[] {
  return Object.entries(description.outputs)
    .filter(([, p]) => p.secret)
    .map(([name]) => name);
}

/**
 * What a change of one input does to an existing object. `organizationId` fails the plan (the
 * organization guard, `organization-guard.ts`): an object never follows its organization.
 * `importId` is read only at creation, so a later change does nothing.
 */
export type ChangeRule = "in place" | "replace" | "fails the plan" | "ignored";

/** The change rule of input `name`: the one rule the diff, the schema, the classes and the docs follow. */
export function changeRule(name: string, property: PropertyDescription): ChangeRule {
  if (name === "organizationId") return "fails the plan";
  if (name === "importId") return "ignored";
  return property.replaceOnChange === true ? "replace" : "in place";
}

/** The inputs of a resource by what a change of them does, each list in declaration order. */
export function changeRules(kind: string, description: ResourceDescription): Record<ChangeRule, string[]> {
  const rules: Record<ChangeRule, string[]> = { "in place": [], replace: [], "fails the plan": [], ignored: [] };
  for (const [name, property] of Object.entries(allInputs(kind, description))) rules[changeRule(name, property)].push(name);
  return rules;
}

/** Which inputs change in place, which replace the object and which fail the plan, in words ({@link changeRules}). */
export function changeBehaviour(kind: string, description: ResourceDescription): string {
  const rules = changeRules(kind, description);
  const spans = (names: string[]) => names.map((name) => `\`${name}\``).join(", ");
  return (
    (rules["in place"].length > 0 ? `Changes in place: ${spans(rules["in place"])}.` : "Nothing changes in place.") +
    (rules.replace.length > 0 ? ` A change of ${spans(rules.replace)} replaces it.` : "") +
    ` A change of ${spans(rules["fails the plan"])} fails the plan: the object is never moved to another organization.`
  );
}

/** The name of one element of a list named `name`: `WalletAccounts` → `WalletAccount`, `policies` → `policy`. */
export function singularName(name: string): string {
  if (name.endsWith("ies")) return `${name.slice(0, -3)}y`;
  if (name.endsWith("sses") || name.endsWith("xes")) return name.slice(0, -2);
  return name.replace(/s$/, "");
}

/**
 * The description of the base input `organizationId`, shared by every front door. Its rule is
 * `diff`'s organization guard (`organization-guard.ts`): a change fails the plan, never a replace.
 */
export const ORGANIZATION_ID_DESCRIPTION =
  "The organization the object lives in; defaults to the `keyform:organizationId` setting. Recorded in state at create: " +
  "when it (or the setting) later names another organization, the preview fails naming both; the object is never replaced or deleted because of it.";

// ---- TypeScript types derived from a description ----
// A kind declares its description `as const satisfies ResourceDescription`; these types read
// the state and outputs from it, so a property is written once.

/** Flattens an intersection into one object type (readable in hovers and messages). */
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The TypeScript value of a property type: an enum is the union of its values. */
export type ValueOf<P> = P extends { readonly type: "string"; readonly enum: readonly (infer E)[] }
  ? E
  : P extends { readonly type: "string" }
    ? string
    : P extends { readonly type: "integer" | "number" }
      ? number
      : P extends { readonly type: "boolean" }
        ? boolean
        : P extends { readonly type: "array"; readonly items: infer T }
          ? ValueOf<T>[]
          : P extends { readonly type: "object"; readonly properties: infer Props }
            ? ObjectOf<Props, { readonly required: true }>
            : P extends { readonly type: "object"; readonly additionalProperties: infer V }
              ? Record<string, ValueOf<V>>
              : unknown;

/** An object of `Props`: the properties matching `Present` always there, the others optional. */
type ObjectOf<Props, Present> = Simplify<
  { -readonly [K in keyof Props as Props[K] extends Present ? K : never]: ValueOf<Props[K]> } & {
    -readonly [K in keyof Props as Props[K] extends Present ? never : K]?: ValueOf<Props[K]>;
  }
>;

/** The inputs every resource accepts (`baseInputs`). */
interface BaseInputValues {
  organizationId?: string;
  importId?: string;
}

/** The outputs every resource has (`allOutputs`). */
interface BaseOutputValues {
  organizationId: string;
  importId?: string;
}

/** The normalized inputs (the state `diff` compares) of description `D`: required and defaulted inputs are always present. */
export type InputsOf<D extends ResourceDescription> = Simplify<
  ObjectOf<D["inputs"], { readonly required: true } | { readonly default: unknown }> & BaseInputValues
>;

/** The outputs of description `D`: those marked `optional` may be absent. */
export type OutputsOf<D extends ResourceDescription> = Simplify<
  { -readonly [K in keyof D["outputs"] as D["outputs"][K] extends { readonly optional: true } ? never : K]: ValueOf<D["outputs"][K]> } & {
    -readonly [K in keyof D["outputs"] as D["outputs"][K] extends { readonly optional: true } ? K : never]?: ValueOf<D["outputs"][K]>;
  } & BaseOutputValues
>;
