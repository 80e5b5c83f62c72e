/**
 * @module resources/runtime/resource-spec
 * What a resource says about itself ({@link ResourceSpec}) and what the runtime makes of it
 * ({@link Handler}): the types the stages of the provider runtime (`stages/`) and the resources
 * share. `framework.ts` re-exports them.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { BatchForm } from "./batch";
import type { CheckFailure } from "./check";
import type { Session } from "./client";
import type { ResourceDescription } from "./describe";
import type { CreateActivity } from "./earlier-activity";
import type { ListObjects } from "./listing";

/** Inputs every resource accepts. */
export interface BaseInputs {
  /** The organization the object lives in; defaults to the `organizationId` setting. */
  organizationId?: string;
  /** Adopt this existing object instead of creating one. */
  importId?: string;
}

/** Outputs every resource has besides its own. */
export interface BaseOutputs {
  /** The organization the object lives in (resolved at create). */
  organizationId: string;
  importId?: string;
}

/** What `fetch` may use to find an object: inputs, or previous outputs. */
export type Hint<I, O> = Partial<I> & Partial<O>;

/** How `diff` treats one property. */
export interface PropertyRule<I, O> {
  /** True when the service cannot change this property of an existing object. */
  replace: boolean;
  /**
   * Whether the old output value and the new input value are the same; the default compares
   * canonical JSON and treats `undefined` as equal only to `undefined`.
   */
  equal?: (oldValue: unknown, newValue: unknown, olds: Partial<O>, news: I) => boolean;
}

/** Everything a resource says about itself. `L` is the live object as read from the service. */
export interface ResourceSpec<I extends BaseInputs, O extends BaseOutputs, L> {
  /** The class name, e.g. `UserTag`, for messages. */
  readonly kind: string;
  /**
   * Types, documentation and secrecy of the inputs and outputs: the source of the plugin's
   * schema and the docs (`describe.ts`), and of `properties` and `normalize` (`define.ts`).
   */
  readonly describe: ResourceDescription;
  /** Lists the objects of this class in an organization (`keyform export`). */
  readonly list: ListObjects;
  /** The output holding the object's id, e.g. `userTagId`. */
  readonly idProperty: keyof O & string;
  /** The properties `diff` and import compare, and how; derived from `describe` by `defineResource`. */
  readonly properties: { readonly [K in Exclude<keyof I, keyof BaseInputs>]-?: PropertyRule<I, O> };
  /** Applies defaults and conversions; must keep unknown values as they are. */
  normalize(news: Record<string, unknown>): I;
  /** The resource-level and wire-schema checks; unknown values must not fail. */
  validate(inputs: I): CheckFailure[];
  /** A short label for messages, e.g. `"ops"`. */
  label(inputs: Partial<I>): string;
  /** Delete the old object before creating its replacement (when both cannot coexist). */
  deleteBeforeReplace?(olds: Partial<O>, news: I): boolean;
  /** Reads the live object, or `undefined` when it does not exist. */
  fetch(session: Session, id: string, hint: Hint<I, O>): Promise<L | undefined>;
  /**
   * The resource's outputs for a live object (without the base outputs). `carry` holds the
   * previous outputs, for values the service never returns (a generated private key).
   */
  flatten(live: L, carry: Partial<O>): Omit<O, keyof BaseOutputs>;
  /**
   * Creates the object; returns its id, any outputs only known at creation, and the live object
   * when the create already knows it (read by id, or from the activity's result). Without
   * `live`, the object is read back with `fetch`, which may read its whole collection.
   */
  create(session: Session, inputs: I): Promise<CreateOutcome<O, L>>;
  /**
   * The activity `create` submits: its operation, the parameters it sends, and where its
   * result names the created object. With it, create first looks for the same request made
   * by an earlier run under consensus, and reports or adopts it instead of submitting again.
   */
  readonly createActivity?: CreateActivity<I>;
  /**
   * Finds the existing object that holds the unique name (or key) of `inputs`, for a create the
   * service refused with 409 "already exists"; `undefined` when none is found. With it, such a
   * create adopts the object when it matches the inputs (an earlier run made it and was killed
   * or lost the answer), and otherwise fails naming its id and `importId`. Declaring it also
   * tells the framework that repeats are caught by the 409, so the activity history is read
   * only when the organization can hold creates back for consensus (`earlier-work.ts`).
   */
  findExisting?(session: Session, inputs: I): Promise<{ id: string; live: L } | undefined>;
  /**
   * Inputs the outputs keep although the service does not hold them (e.g. the
   * `deleteWithoutExport` that `remove` needs); merged into `carry` at create and update.
   */
  carriedInputs?(inputs: I): Partial<O>;
  /** The inputs `read` reports for refreshed outputs; default: every compared property. */
  readInputs?(outs: O): Partial<I>;
  /** Changes an existing object in place; absent when the service has no update. */
  update?(session: Session, id: string, live: L, inputs: I): Promise<void>;
  /** Deletes the object; a not-found error is treated as success by the caller. */
  remove(session: Session, id: string, props: Partial<O>): Promise<void>;
  /**
   * The service's plural forms of `create` and `remove` (`batch.ts`): creates, or deletes, of
   * this kind waiting at the same time go out as one activity. A refused batch falls back to
   * `create` / `remove` for the item it names, so each item's results and errors are its own.
   */
  readonly batch?: {
    readonly create?: BatchForm<I, CreateOutcome<O, L>>;
    readonly remove?: BatchForm<{ id: string; props: Partial<O> }, void>;
  };
}

/** What a create returns: the id, outputs only known at creation, and the live object when known. */
export interface CreateOutcome<O, L> {
  id: string;
  carry?: Partial<O>;
  live?: L;
}

/** A spec of any resource, as the registry and the front doors derived from it see it. */
// `any`: the registry holds specs of every input and output shape.
export type AnyResourceSpec = ResourceSpec<any, any, any>;

/** What a diff found: the dynamic provider's result plus the names of every changed property. */
export type HandlerDiffResult = dynamic.DiffResult & {
  /** Every property that changes, in place or by replacement (`replaces` is a subset). */
  diffs: string[];
};

/** The object the provider code in state (and the provider plugin) delegates to, one per resource class. */
export interface Handler {
  /** The spec the handler was built from: the source of the plugin's schema. */
  readonly spec: AnyResourceSpec;
  /** `context.urn`: the resource's URN when the caller knows it (the plugin); else the hidden input `__urn`. */
  check(olds: Record<string, unknown>, news: Record<string, unknown>, context?: { urn?: string }): Promise<dynamic.CheckResult>;
  diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<HandlerDiffResult>;
  /** `context.urn`: the resource's URN when the caller knows it (the plugin); else the hidden input `__urn`. */
  create(inputs: Record<string, unknown>, context?: { urn?: string }): Promise<dynamic.CreateResult>;
  read(id: string, props: Record<string, unknown>): Promise<dynamic.ReadResult>;
  update(id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<dynamic.UpdateResult>;
  delete(id: string, props: Record<string, unknown>): Promise<void>;
}
