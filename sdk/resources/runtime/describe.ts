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
  /** A short TypeScript program fragment using the class (`keyform.<Kind>`), for the docs and the schema. */
  readonly example: string;
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
 * Which inputs change in place and which replace the object, in words, from the
 * `replaceOnChange` flags (the diff rules mirror them).
 */
export function changeBehaviour(kind: string, description: ResourceDescription): string {
  const inputs = allInputs(kind, description);
  const names = (replace: boolean) =>
    Object.entries(inputs)
      .filter(([name, p]) => name !== "importId" && name !== "organizationId" && (p.replaceOnChange ?? false) === replace)
      .map(([name]) => `\`${name}\``);
  const inPlace = names(false);
  const replacing = names(true);
  return (
    (inPlace.length > 0 ? `Changes in place: ${inPlace.join(", ")}.` : "Nothing changes in place.") +
    (replacing.length > 0 ? ` A change of ${replacing.join(", ")} replaces it.` : "")
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
