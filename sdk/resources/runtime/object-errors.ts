/**
 * @module resources/runtime/object-errors
 * The errors about an existing object that a create or an adoption meets, each with its facts as
 * data (the object's id, the `importId` that would adopt it, the properties that differ) and its
 * problem kept apart from its fix ({@link FixableError}). Their messages are the ones the engine
 * shows; a caller that needs a fact reads the property, never the message.
 *
 * The existing object's id is `objectId`, never `id`: the dynamic-provider host takes an error
 * with an `id` for an object created but not initialized, and records that id (and the error's
 * `properties`) in the stack's state (`ObjectLeftBehindError` is that case). These objects are
 * not this resource's.
 */
import { FixableError } from "./errors";
import { show } from "./values";

/** One property where an existing object differs from the declared inputs. */
export interface Difference {
  readonly property: string;
  readonly declared: unknown;
  readonly found: unknown;
}

/** The differences as messages list them: each property with its declared and found value. */
function listed(differences: readonly Difference[]): string {
  return differences.map((d) => `${d.property} (declared ${show(d.declared)}, found ${show(d.found)})`).join("; ");
}

/** The start of a message about a create the service refused with 409. */
function refusedWith409(what: string, conflict: string): string {
  return `${what}: the service refused it (HTTP 409: ${conflict})`;
}

/**
 * A create refused with 409 because an object this stack did not create (another stack's, or
 * made by hand) holds the declared name. `importId` adopts it.
 */
export class NotOwnedError extends FixableError {
  constructor(
    readonly what: string,
    /** The resource class, e.g. `UserTag`. */
    readonly kind: string,
    /** The existing object's id. */
    readonly objectId: string,
    readonly organizationId: string,
    /** The service's own words for the 409. */
    readonly conflict: string,
  ) {
    super(
      `${refusedWith409(what, conflict)}; the existing ${kind} "${objectId}" in organization ${organizationId} holds the declared name, ` +
        `and this stack did not create it (another stack's, or made by hand).`,
      `To manage it with this resource, set importId: "${objectId}"; otherwise choose another name.`,
    );
    this.name = "NotOwnedError";
  }

  /** The `importId` that adopts the object. */
  get importId(): string {
    return this.objectId;
  }
}

/** How an existing object that differs from the declared inputs was found. */
export type FoundBy =
  /** By the resource's `importId`. */
  | { readonly by: "importId" }
  /** By an earlier run's create activity with the same parameters. */
  | { readonly by: "activity"; readonly activityId: string }
  /** By its unique name, after the service refused the create with 409. */
  | { readonly by: "conflict"; readonly conflict: string };

/**
 * An existing object that differs from what is declared, where the create cannot make it match:
 * the differing properties (`differences`), and whether some of them the service cannot update.
 */
export class DiffersFromDeclaredError extends FixableError {
  constructor(
    readonly what: string,
    readonly kind: string,
    /** The existing object's id (the `importId` that adopts it). */
    readonly objectId: string,
    readonly foundBy: FoundBy,
    readonly differences: readonly Difference[],
    /** True when some differing property cannot change in place (or the resource has no update). */
    readonly cannotUpdate: boolean,
  ) {
    const [problem, fix] = DiffersFromDeclaredError.wording(what, kind, objectId, foundBy, differences, cannotUpdate);
    super(problem, fix);
    this.name = "DiffersFromDeclaredError";
  }

  /** The names of the properties that differ. */
  get differingProperties(): string[] {
    return this.differences.map((d) => d.property);
  }

  private static wording(what: string, kind: string, id: string, foundBy: FoundBy, differences: readonly Difference[], cannotUpdate: boolean): [string, string] {
    if (foundBy.by === "conflict") {
      return [
        `${refusedWith409(what, foundBy.conflict)}; the existing ${kind} "${id}" differs from the declared inputs: ${listed(differences)}.`,
        `To manage it with this resource, set importId: "${id}"; otherwise choose another name, or delete it.`,
      ];
    }
    const source = foundBy.by === "importId" ? "importId" : `activity ${foundBy.activityId}`;
    return [
      `${what}: ${source}: the existing ${kind} "${id}" differs from the declared inputs in ${cannotUpdate ? "properties the service cannot update" : "properties"}: ${listed(differences)}.`,
      foundBy.by === "importId" ? `Change the program to match it, or remove importId to create a new one.` : `Change the program to match it, or delete it to create a new one.`,
    ];
  }
}

/** A create refused with 409 because another resource of this program stands for the object holding the name. */
export class HeldByAnotherResourceError extends FixableError {
  constructor(
    readonly what: string,
    readonly kind: string,
    readonly objectId: string,
    readonly conflict: string,
  ) {
    super(`${refusedWith409(what, conflict)}; the existing ${kind} "${objectId}" belongs to another resource of this program:`, `give each resource its own name.`);
    this.name = "HeldByAnotherResourceError";
  }
}

/** An `importId` that names no object of the class in the organization. */
export class ImportNotFoundError extends FixableError {
  constructor(
    readonly what: string,
    readonly kind: string,
    readonly importId: string,
    readonly organizationId: string,
  ) {
    super(`${what}: importId: no ${kind} with id "${importId}" exists in organization ${organizationId}`, "");
    this.name = "ImportNotFoundError";
  }
}
