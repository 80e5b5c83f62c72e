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
  | { readonly type: "string"; readonly enum?: readonly string[] }
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
}

/**
 * The description of the base input `organizationId`, shared by every front door. Its rule is
 * `diff`'s organization guard (`organization-guard.ts`): a change fails the plan, never a replace.
 */
export const ORGANIZATION_ID_DESCRIPTION =
  "The organization the object lives in; defaults to the `keyform:organizationId` setting. Recorded in state at create: " +
  "when it (or the setting) later names another organization, the preview fails naming both; the object is never replaced or deleted because of it.";
