/**
 * @module resources/runtime/framework
 * The CRUD skeleton every resource shares, in the manner of a Terraform provider: `check`
 * validates the normalized inputs and keeps them as declared, `diff` compares the old outputs
 * with the new inputs property by property (each property is either updatable in place or
 * forces a replacement), `create` and `update` end with a read, `read` returns an empty id for
 * an object that is gone, `delete` of an object that is gone succeeds, and `importId` adopts
 * an existing object.
 * A create recognises the work of an earlier run of its own stack that is not in state (a run
 * killed mid-`up`, a lost response, a consensus approval since) by proof: with the resource's
 * URN it journals the request's timestamp before sending it and sends the same bytes again
 * later (`ownership.ts`); an object holding the name that the stack did not create fails the
 * create. Without a URN (the handlers called outside an engine run) it adopts by the service's
 * 409 on a unique name ({@link ResourceSpec.findExisting}), or by the activity history
 * ({@link ResourceSpec.createActivity}; when, see `earlier-work.ts`).
 *
 * Each resource describes itself with a {@link ResourceSpec}; {@link makeHandler} turns it
 * into the object the thin provider in state delegates to.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { dedupe, rule, type CheckFailure } from "./check";
import { resolveOrganizationId, sessionFor, type Session } from "./client";
import { ConflictError } from "../../client/errors";
import { announceCreate, batched, createArrived, type BatchForm } from "./batch";
import { matchingActivities, type CreateActivity } from "./earlier-activity";
import { claim, isClaimed, needsHistory, recentCreates } from "./earlier-work";
import type { ResourceDescription } from "./describe";
import type { ListObjects } from "./listing";
import { consensusNeededMessage, explain, isNotFound, ObjectLeftBehindError, ProviderError } from "./errors";
import { quietHostErrorEcho, warnEngine } from "./engine-log";
import { holdingSlot } from "./engine-slots";
import { organizationMoveMessage } from "./organization-guard";
import { duplicateFailures, limitFailures, nameOfUrn, urnOf } from "./plan-census";
import { refuseOwnCredentialDelete, refuseOwnKeyReplace } from "./lockout";
import { neededKinds, stepOf } from "./needed-activities";
import { deployerAccessFailures, refuseAccessLosingDelete } from "./deployer-access";
import { entryForCreate, inputsKeyOf, mayStillApply, refusedUnrun, notOwnedMessage, readEntry, removeEntry, renewEntry, stampedSession } from "./ownership";
import { replayBatchItem, settleBatchItem } from "./batch-journal";
import { directContext, ProviderContext, useDirectly } from "./context";
import type { Settings } from "./settings";
import { unknownKeysError, verifySettings } from "./verify";
import { canonicalJson, compact, containsUnknown, isUnknown } from "./values";

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

/**
 * The context of each engine run's configuration, by the run's raw stack config: the
 * dynamic-provider host configures one provider object per resource class, all with the same
 * run's config, and they share one context. Module-level on purpose: the run's config object
 * is the only thing those provider objects have in common, and the map holds it weakly, so a
 * context lives exactly as long as its run's config and two runs never share one.
 */
const contextsOfRuns = new WeakMap<object, ProviderContext>();

/**
 * Creates the context of a configuration (`context.ts`) from the stack config the engine passes.
 * Values are read on each call, never stored in state. In an engine run (the dynamic-provider
 * host's config, which carries every stack config key, or `options.verify` from the plugin)
 * `check` then verifies the settings once per run (`verify.ts`), and a failed call prints once
 * (`engine-log.ts`).
 *
 * Called on a provider object (the dynamic-provider host calls `provider.configure(req)` on the
 * object whose prototype is a handler), it keeps the context there, where the handler's methods
 * find it; the plugin builds such objects with {@link withContext}. Called directly, the context
 * serves the handlers' direct calls (`directContext` in `context.ts`).
 */
export function configure(
  this: unknown,
  req: { config: { get(key: string): string | undefined } },
  options?: { verify?: boolean; configKeys?: readonly string[] },
): ProviderContext {
  const context = contextOfConfiguration(req, options);
  // A provider object has the handler's methods (its prototype); provider code of earlier
  // versions calls `configure` on the runtime module instead, and its handlers run directly.
  if (typeof (this as Partial<Handler> | undefined)?.create === "function") (this as { context?: ProviderContext }).context = context;
  else useDirectly(context);
  return context;
}

/**
 * The context of a configuration: {@link configure} without keeping it anywhere. The plugin
 * creates one per Configure and hands it to its handlers with {@link withContext}.
 */
export function contextOfConfiguration(
  req: { config: { get(key: string): string | undefined } },
  options?: { verify?: boolean; configKeys?: readonly string[] },
): ProviderContext {
  const config = req.config;
  // The dynamic-provider host's Config keeps the whole stack config in `rawConfig`.
  const raw = (config as { rawConfig?: Record<string, unknown> }).rawConfig;
  const engineRun = options?.verify === true || raw !== undefined ? { configKeys: options?.configKeys ?? Object.keys(raw ?? {}) } : undefined;
  if (engineRun !== undefined) quietHostErrorEcho();
  let context = raw === undefined ? undefined : contextsOfRuns.get(raw);
  if (context === undefined) {
    context = new ProviderContext((key) => config.get(key), engineRun);
    if (raw !== undefined) contextsOfRuns.set(raw, context);
  }
  return context;
}

/** `handler` bound to `context`: what the dynamic-provider host's provider object is, for other front doors. */
export function withContext(handler: Handler, context: ProviderContext): Handler {
  return Object.assign(Object.create(handler) as Handler, { context });
}

/** The context a handler method runs in: its provider object's, else the direct one (a fresh one before any configure). */
function contextOf(provider: unknown): ProviderContext {
  return (provider as { context?: ProviderContext } | undefined)?.context ?? directContext();
}

/** The settings of direct calls: stack config (via a direct `configure`), then the environment. */
export function currentSettings(): Settings {
  return contextOf(undefined).settings();
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

/** The prefix of the message a create prints when it adopts an earlier run's object (the GitOps runner lists them). */
export const ADOPTED_PREFIX = "keyform: adopted";

/** Says which object a create adopted instead of creating it again. */
function adoptedMessage(kind: string, label: string, id: string, urn: string | undefined, how = "made by an earlier run that did not record it"): string {
  return `${ADOPTED_PREFIX} ${kind} ${label} (${id}), ${how}${urn === undefined ? "" : ` [${urn}]`}`;
}

/** The default equality of {@link PropertyRule}. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

/** Short, single-line rendering of a value for messages (long values are cut). */
export function show(value: unknown): string {
  if (value === undefined) return "(unset)";
  const text = typeof value === "string" ? JSON.stringify(value) : canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Builds the runtime handler of one resource from its spec. */
export function makeHandler<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>): Handler {
  const propertyNames = Object.keys(spec.properties) as Array<Exclude<keyof I, keyof BaseInputs> & string>;

  /** Properties whose new input differs from `current` (old outputs, or a live object's outputs). */
  function changedProperties(current: Partial<O>, news: I): string[] {
    return propertyNames.filter((name) => {
      const newValue = (news as Record<string, unknown>)[name];
      if (containsUnknown(newValue)) return true;
      const ruleOf = spec.properties[name] as PropertyRule<I, O>;
      const oldValue = (current as Record<string, unknown>)[name];
      return !(ruleOf.equal ?? sameValue)(oldValue, newValue, current, news);
    });
  }

  /** `carry` plus the inputs the spec keeps in its outputs. */
  function carryWith(carry: Partial<O>, inputs: I): Partial<O> {
    return spec.carriedInputs ? { ...carry, ...spec.carriedInputs(inputs) } : carry;
  }

  function outputsOf(live: L, organizationId: string, importId: string | undefined, carry: Partial<O>): O {
    return compact({ ...spec.flatten(live, carry), organizationId, importId } as unknown as Record<string, unknown>) as unknown as O;
  }

  function session(context: ProviderContext, settings: Settings, organizationId: string | undefined, what: string): Session {
    try {
      return sessionFor(context, settings, resolveOrganizationId(settings, organizationId, what), what);
    } catch (error) {
      throw explain(error, what);
    }
  }

  /** Reads the object after a write; a missing object here is an error, not drift. */
  async function readBack(s: Session, id: string, hint: Hint<I, O>, what: string): Promise<L> {
    const live = await spec.fetch(s, id, hint);
    if (live === undefined) {
      throw new ProviderError(`${what}: ${spec.kind} ${id} was not found when read back after the change`);
    }
    return live;
  }

  async function adopt(s: Session, inputs: I, importId: string, what: string): Promise<{ id: string; live: L }> {
    const live = await spec.fetch(s, importId, inputs as unknown as Hint<I, O>);
    if (live === undefined) {
      throw new ProviderError(
        `${what}: importId: no ${spec.kind} with id "${importId}" exists in organization ${s.organizationId}`,
      );
    }
    return reconcile(s, inputs, importId, live, what, "importId");
  }

  /**
   * The properties where the existing object `live` differs from `inputs`, and a listing of them
   * (declared and found value each) for messages.
   */
  function differencesFrom(live: L, inputs: I): { differing: string[]; listed: string } {
    // Inputs the service does not hold (carriedInputs) are what the program declares, not a difference.
    const current = spec.flatten(live, carryWith({}, inputs)) as unknown as Record<string, unknown>;
    const differing = changedProperties(current as Partial<O>, inputs);
    const listed = differing
      .map((name) => `${name} (declared ${show((inputs as Record<string, unknown>)[name])}, found ${show(current[name])})`)
      .join("; ");
    return { differing, listed };
  }

  /**
   * Makes an existing object match the inputs: nothing when it does, an update when the
   * differing properties can change in place, an error naming them otherwise. `source` says
   * how the object was found (`importId`, or `activity <id>`), for the message.
   */
  async function reconcile(s: Session, inputs: I, id: string, live: L, what: string, source: string): Promise<{ id: string; live: L }> {
    const { differing, listed } = differencesFrom(live, inputs);
    if (differing.length === 0) return { id, live };
    const fixed = differing.filter((name) => spec.properties[name as keyof typeof spec.properties].replace);
    if (spec.update === undefined || fixed.length > 0) {
      throw new ProviderError(
        `${what}: ${source}: the existing ${spec.kind} "${id}" differs from the declared inputs in ` +
          `${fixed.length > 0 ? "properties the service cannot update" : "properties"}: ${listed}. ` +
          (source === "importId"
            ? `Change the program to match it, or remove importId to create a new one.`
            : `Change the program to match it, or delete it to create a new one.`),
      );
    }
    await spec.update(s, id, live, inputs);
    return { id, live: await readBack(s, id, inputs as unknown as Hint<I, O>, what) };
  }

  /**
   * Why this exists: an earlier run may have made this object without recording it (approved
   * under consensus since, killed mid-`up`, answer lost). Submitting again would be a new
   * activity (new timestamp, new fingerprint): a duplicate, a second pending request, or a 409
   * on every run. So look for the same request made earlier (bounded: one page, 7 days;
   * `earlier-activity.ts`), when `earlier-work.ts` says it is worth it or `afterConflict` (the
   * service just answered 409). One that completed, whose object still exists and that no other
   * resource of this run holds, is adopted like `importId` (including the update when the
   * object changed since); else one still waiting is reported again; else `undefined`.
   * @throws {ProviderError} naming the waiting activity's id and fingerprint.
   */
  async function adoptEarlierActivity(s: Session, inputs: I, what: string, afterConflict = false): Promise<{ id: string; live: L } | undefined> {
    const declared = spec.createActivity;
    const parameters = declared?.parameters(inputs);
    if (declared === undefined || parameters === undefined) return undefined;
    if (!afterConflict && !(await needsHistory(s, spec.findExisting !== undefined))) return undefined;
    const earlier = matchingActivities(declared, parameters, await recentCreates(s, declared), Date.now());
    for (const { activity, createdId } of earlier) {
      // Held by another resource of this run (two resources with the same parameters).
      if (createdId === undefined || isClaimed(s, spec.kind, createdId)) continue;
      const live = await spec.fetch(s, createdId, inputs as unknown as Hint<I, O>);
      // Deleted since: it does not stand for this resource any more.
      if (live === undefined) continue;
      claim(s, spec.kind, createdId);
      return reconcile(s, inputs, createdId, live, what, `activity ${activity.id}`);
    }
    const waiting = earlier.find((e) => e.activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED");
    if (waiting !== undefined) {
      throw new ProviderError(consensusNeededMessage(what, waiting.activity.id, waiting.activity.fingerprint, true));
    }
    return undefined;
  }

  /**
   * After a 409 "already exists": the object holding the unique name, adopted when it matches
   * every declared input (an earlier run made it and did not record it). One that differs, or
   * that another resource of this run holds, is an error naming its id and how to adopt it.
   * `undefined` when the resource cannot look it up, or nothing is found.
   * @throws {ProviderError} when the existing object is not this resource's.
   */
  async function adoptConflicting(s: Session, inputs: I, conflict: ConflictError, what: string): Promise<{ id: string; live: L } | undefined> {
    const existing = await spec.findExisting?.(s, inputs);
    if (existing === undefined) return undefined;
    const { id, live } = existing;
    const { differing, listed } = differencesFrom(live, inputs);
    const refused = `${what}: the service refused it (HTTP 409: ${conflict.serverMessage || conflict.message})`;
    if (isClaimed(s, spec.kind, id)) {
      throw new ProviderError(`${refused}; the existing ${spec.kind} "${id}" belongs to another resource of this program: give each resource its own name.`);
    }
    if (differing.length > 0) {
      throw new ProviderError(
        `${refused}; the existing ${spec.kind} "${id}" differs from the declared inputs: ${listed}. ` +
          `To manage it with this resource, set importId: "${id}"; otherwise choose another name, or delete it.`,
      );
    }
    claim(s, spec.kind, id);
    return { id, live };
  }

  /** The outputs of a created object, read back unless the create knew it; a failed read still hands back the id. */
  async function finishCreate(s: Session, inputs: I, created: { id: string; carry?: Partial<O>; live?: L }, what: string, raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
    try {
      const live = created.live ?? (await readBack(s, created.id, inputs as unknown as Hint<I, O>, what));
      return { id: created.id, outs: outputsOf(live, s.organizationId, undefined, carryWith(created.carry ?? {}, inputs)) };
    } catch (error) {
      // The object exists: hand its id back so it is recorded in state, not leaked.
      const explained = explain(error, what);
      // `carry` is left out on purpose: it may hold a generated secret, and the outputs of a
      // failed create are not covered by additionalSecretOutputs everywhere.
      // The dynamic-provider host records these properties as they are, without adding the
      // provider's code to them as it does for a create that succeeds: without it, every later
      // delete or update of the object fails in the host ("code must be a string").
      const properties = compact({ ...(inputs as Record<string, unknown>), [spec.idProperty]: created.id, organizationId: s.organizationId, __provider: raw.__provider });
      throw new ObjectLeftBehindError(explained.message, created.id, properties, { cause: error });
    }
  }

  /**
   * A create whose ownership is proven (ownership.ts): journaled before it is submitted, and
   * submitted with the journaled timestamp, so a killed run's successor sends the same bytes and
   * gets its own activity (and object) back. A 409 then means the name is held by an object this
   * stack did not create: the create fails naming it and the importId that adopts it. With a
   * plural form, the create goes out in a batch whose exact body is journaled (batch-journal.ts),
   * unless this URN's entry is a singular create to replay.
   */
  async function createOwned(s: Session, inputs: I, raw: Record<string, unknown>, urn: string, journalDir: string, what: string): Promise<dynamic.CreateResult> {
    let created: { id: string; carry?: Partial<O>; live?: L };
    try {
      const form = spec.batch?.create;
      const recorded = readEntry(journalDir, urn);
      const sameCreate = recorded !== undefined && recorded.inputsKey === inputsKeyOf(raw) && recorded.organizationId === s.organizationId;
      if (form === undefined || (sameCreate && recorded.batch === undefined)) {
        const outcome = await submitOwned(s, inputs, raw, urn, journalDir, what);
        created = outcome.created;
        if (outcome.replay) await warnEngine(adoptedMessage(spec.kind, spec.label(inputs), created.id, urn, "its create was journaled by an earlier run of this stack"));
      } else {
        // The batch an earlier run of this stack journaled for this URN, sent again byte-identical.
        const replayed = sameCreate ? await replayBatchItem(s, form, journalDir, recorded) : undefined;
        if (replayed !== undefined && !replayed.adoptable) {
          // This stack's own object, made with a secret that was never journaled (a generated
          // key pair): unusable, so it is deleted and made anew rather than left behind.
          await spec.remove(s, replayed.result.id, inputs as unknown as Partial<O>).catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
          await warnEngine(`keyform: replaced ${spec.kind} ${spec.label(inputs)} (${replayed.result.id}), made by an earlier run of this stack with a generated secret that run never recorded [${urn}]`);
        }
        // Its object, unless deleted since (a destroy, then an up of the same inputs): then a new create.
        const live = replayed === undefined || !replayed.adoptable ? undefined : await spec.fetch(s, replayed.result.id, inputs as unknown as Hint<I, O>);
        if (replayed !== undefined && live !== undefined) {
          created = { ...replayed.result, live };
          await warnEngine(adoptedMessage(spec.kind, spec.label(inputs), created.id, urn, "its batched create was journaled by an earlier run of this stack"));
        } else {
          const owner = { urn, journalDir, kind: spec.kind, organizationId: s.organizationId, inputsKey: inputsKeyOf(raw) };
          // Batching hook: waiting creates of this kind go out as one journaled plural activity;
          // alone, or split out of a refused batch, this one takes the journaled singular path.
          created = await batched(`${spec.kind}:create`, form, s, inputs, async () => (await submitOwned(s, inputs, raw, urn, journalDir, what)).created, owner);
        }
      }
      // The entry stays: the engine records this create in state after it returns, and a run
      // killed in between must still find it. A later create of the URN checks it is not stale.
      claim(s, spec.kind, created.id);
    } catch (error) {
      if (!mayStillApply(error)) removeEntry(journalDir, urn);
      throw explain(error, what);
    }
    return finishCreate(s, inputs, created, what, raw);
  }

  /**
   * The journaled singular create: submitted under this URN's entry (a replay when the entry is
   * an earlier run's for the same inputs). `replay` says the object was that earlier run's.
   */
  async function submitOwned(s: Session, inputs: I, raw: Record<string, unknown>, urn: string, journalDir: string, what: string): Promise<{ created: CreateOutcome<O, L>; replay: boolean }> {
    let created: CreateOutcome<O, L>;
    let { entry, replay } = entryForCreate(journalDir, urn, spec.kind, s.organizationId, raw);
    try {
      try {
        created = await spec.create(stampedSession(s, entry.timestampMs), inputs);
      } catch (error) {
        // The service holds no activity for the journaled bytes (it looks the fingerprint up
        // first) and refuses them as new (this old): the earlier run never got to send it.
        if (!(replay && refusedUnrun(error))) throw error;
        entry = renewEntry(journalDir, entry);
        replay = false;
        created = await spec.create(stampedSession(s, entry.timestampMs), inputs);
      }
      if (replay) {
        // The journaled request's object, unless it was deleted since (a destroy, then an
        // up of the same inputs): then this is a new create under a new entry.
        const live = await spec.fetch(s, created.id, inputs as unknown as Hint<I, O>);
        if (live === undefined) {
          entry = renewEntry(journalDir, entry);
          replay = false;
          created = await spec.create(stampedSession(s, entry.timestampMs), inputs);
        } else created = { ...created, live };
      }
    } catch (error) {
      if (!mayStillApply(error)) removeEntry(journalDir, urn);
      if (!(error instanceof ConflictError)) throw error;
      const existing = await spec.findExisting?.(s, inputs);
      if (existing === undefined) throw error;
      throw new ProviderError(notOwnedMessage(what, spec.kind, existing.id, s.organizationId, error.serverMessage || error.message));
    }
    return { created, replay };
  }

  /** The census of the whole plan for one checked resource (only with a URN to tell resources apart). */
  async function planFailures(context: ProviderContext, olds: Record<string, unknown>, inputs: Record<string, unknown>, urn: string | undefined): Promise<CheckFailure[]> {
    const settings = context.settings();
    const engineRun = context.engineRun;
    const organizationId = (inputs.organizationId as string | undefined) ?? settings.organizationId;
    if (organizationId === undefined || isUnknown(organizationId)) return [];
    if (urn === undefined) return [];
    const planned = { kind: spec.kind, urn, organizationId, inputs, olds: olds ?? {} };
    const duplicates = duplicateFailures(context, planned);
    if (duplicates.length > 0 || engineRun === undefined) return duplicates;
    const what = `${spec.kind} ${spec.label(inputs as unknown as I)}: check`;
    try {
      const s = session(context, settings, organizationId, what);
      // What this resource's step submits, for the organization the plan leaves (deployer-access.ts).
      const hasOlds = Object.keys(olds ?? {}).length > 0;
      const changed = hasOlds ? changedProperties(olds as Partial<O>, inputs as unknown as I) : [];
      const step = stepOf(hasOlds, changed, (name) => spec.properties[name as keyof typeof spec.properties]?.replace === true);
      const access = { kind: spec.kind, name: nameOfUrn(urn), urn, inputs, olds: olds ?? {}, kinds: neededKinds(spec.kind, step), changed: step !== "same", property: propertyNames[0] ?? "organizationId" };
      return [...(await limitFailures(s, planned)), ...(await deployerAccessFailures(s, access, settings))];
    } catch (error) {
      throw explain(error, what);
    }
  }

  return holdingSlots({
    spec,

    async check(olds, news, context) {
      const configured = contextOf(this);
      const inputs = spec.normalize(news);
      const base = news as Record<string, unknown>;
      const failures = dedupe([
        ...rule(base, "organizationId", (v) => v === undefined || (typeof v === "string" && v.length > 0), "must be a non-empty string"),
        ...rule(base, "importId", (v) => v === undefined || (typeof v === "string" && v.length > 0), "must be a non-empty string"),
        ...spec.validate(inputs),
      ]);
      if (failures.length === 0 && configured.engineRun !== undefined) {
        // Once per run, before anything is planned: settings that cannot work fail the preview here.
        const unknownKeys = unknownKeysError(configured.engineRun.configKeys);
        if (unknownKeys !== undefined) throw unknownKeys;
        const organizationId = typeof base.organizationId === "string" && !isUnknown(base.organizationId) ? base.organizationId : undefined;
        await verifySettings(configured, configured.settings(), organizationId);
      }
      // The plan as a whole (plan-census.ts): names two resources share, limits the plan exceeds.
      const urn = urnOf(base, context?.urn);
      if (failures.length === 0) failures.push(...(await planFailures(configured, olds, inputs as unknown as Record<string, unknown>, urn)));
      // A new resource of an engine run: its create is coming, and a batch of its kind may wait for it (batch.ts).
      const form = spec.batch?.create;
      if (failures.length === 0 && form !== undefined && urn !== undefined && configured.engineRun !== undefined && Object.keys(olds ?? {}).length === 0 && inputs.importId === undefined) {
        const group = form.group?.(inputs) ?? "";
        if (!isUnknown(group)) announceCreate(configured, `${spec.kind}:create`, group, urn);
      }
      // State keeps the inputs as declared: defaults and canonical forms are applied again by
      // every diff, create and update, so storing them would only add bytes to each checkpoint.
      // The host turns the result into a protobuf Struct, which has no `undefined`.
      return { inputs: compact(news), failures };
    },

    async diff(id, olds, news) {
      const configured = contextOf(this);
      const previous = olds as Partial<O>;
      const next = spec.normalize(news);
      const replaces: string[] = [];
      const updates: string[] = [];
      for (const name of changedProperties(previous, next)) {
        (spec.properties[name as keyof typeof spec.properties].replace ? replaces : updates).push(name);
      }
      // An object never follows a changed organization: replacing it would delete it where it
      // lives and create it elsewhere, and a mistyped setting would plan exactly that. Fail the
      // plan instead, naming both organizations. (An unknown id is checked again at `up`, when
      // the engine diffs with known values, before any step runs.)
      const organizationId = next.organizationId ?? configured.settings().organizationId;
      const recorded = previous.organizationId;
      if (organizationId !== undefined && !isUnknown(organizationId) && recorded !== undefined && organizationId !== recorded) {
        throw new ProviderError(
          organizationMoveMessage({
            what: `${spec.kind} ${id}`,
            recorded,
            wanted: organizationId,
            fromInput: next.organizationId !== undefined,
          }),
        );
      }
      // The object is in state: a batch record's entry for it is no longer needed (batch-journal.ts).
      settleBatchItem(configured.settings().journalDir, id);
      const changes = replaces.length > 0 || updates.length > 0;
      if (replaces.length > 0) refuseOwnKeyReplace(spec.kind, id, olds, configured.settings());
      return {
        changes,
        replaces,
        diffs: [...updates, ...replaces],
        deleteBeforeReplace: replaces.length > 0 && (spec.deleteBeforeReplace?.(previous, next) ?? false),
      };
    },

    async create(raw, context) {
      const configured = contextOf(this);
      const inputs = spec.normalize(raw);
      const settings = configured.settings();
      const what = `${spec.kind} ${spec.label(inputs)}: create`;
      const s = session(configured, settings, inputs.organizationId, what);
      const urn = urnOf(raw, context?.urn);
      if (inputs.importId !== undefined) {
        try {
          const { id, live } = await adopt(s, inputs, inputs.importId, what);
          return { id, outs: outputsOf(live, s.organizationId, inputs.importId, carryWith({}, inputs)) };
        } catch (error) {
          throw explain(error, what);
        }
      }
      // With a URN, what this stack created is proven by its journal (ownership.ts), not inferred.
      if (urn !== undefined) {
        try {
          return await createOwned(s, inputs, raw, urn, settings.journalDir, what);
        } finally {
          // However it went (a batch, a replay, the singular path), no batch waits for it any more.
          const form = spec.batch?.create;
          if (form !== undefined) createArrived(configured, `${spec.kind}:create`, form.group?.(inputs) ?? "", urn);
        }
      }
      let created: { id: string; carry?: Partial<O>; live?: L };
      try {
        const adopted = await adoptEarlierActivity(s, inputs, what);
        if (adopted !== undefined) {
          await warnEngine(adoptedMessage(spec.kind, spec.label(inputs), adopted.id, urnOf(raw, undefined)));
          return { id: adopted.id, outs: outputsOf(adopted.live, s.organizationId, undefined, carryWith({}, inputs)) };
        }
        try {
          // Batching hook: with a plural form, this create may travel with others of its kind.
          const batchCreate = spec.batch?.create;
          created = batchCreate
            ? await batched(`${spec.kind}:create`, batchCreate, s, inputs, () => spec.create(s, inputs))
            : await spec.create(s, inputs);
        } catch (error) {
          // A 409: an earlier create activity with these parameters made the object (adopted, and
          // updated where it changed since), else the object holding the name is compared.
          const found =
            error instanceof ConflictError
              ? ((await adoptEarlierActivity(s, inputs, what, true)) ?? (await adoptConflicting(s, inputs, error, what)))
              : undefined;
          if (found === undefined) throw error;
          await warnEngine(adoptedMessage(spec.kind, spec.label(inputs), found.id, urnOf(raw, undefined)));
          return { id: found.id, outs: outputsOf(found.live, s.organizationId, undefined, carryWith({}, inputs)) };
        }
        claim(s, spec.kind, created.id);
      } catch (error) {
        throw explain(error, what);
      }
      return finishCreate(s, inputs, created, what, raw);
    },

    async read(id, props) {
      const configured = contextOf(this);
      const previous = props as Partial<O>;
      const what = `${spec.kind} ${id}: read`;
      const settings = configured.settings();
      const s = session(configured, settings, previous.organizationId, what);
      try {
        // A refresh runs no check: prove the settings here (once per run), so wrong ones give
        // one message naming the setting rather than a connection error per resource.
        if (configured.engineRun !== undefined) await verifySettings(configured, settings, previous.organizationId);
        const live = await spec.fetch(s, id, previous as unknown as Hint<I, O>);
        if (live === undefined) return { id: "" };
        const outs = outputsOf(live, s.organizationId, previous.importId, previous);
        const inputs: Record<string, unknown> = { organizationId: s.organizationId };
        if (spec.readInputs) Object.assign(inputs, spec.readInputs(outs));
        else for (const name of propertyNames) inputs[name] = (outs as Record<string, unknown>)[name];
        if (previous.importId !== undefined) inputs.importId = previous.importId;
        return { id, props: outs, inputs: compact(inputs) };
      } catch (error) {
        throw explain(error, what);
      }
    },

    async update(id, olds, news) {
      const configured = contextOf(this);
      const previous = olds as Partial<O>;
      const inputs = spec.normalize(news);
      const what = `${spec.kind} ${spec.label(inputs)}: update`;
      const s = session(configured, configured.settings(), previous.organizationId ?? inputs.organizationId, what);
      try {
        const live = await spec.fetch(s, id, { ...(inputs as object), ...(previous as object) } as unknown as Hint<I, O>);
        if (live === undefined) {
          throw new ProviderError(`${what}: ${spec.kind} ${id} no longer exists; run "pulumi refresh" to drop it from state`);
        }
        let current: L = live;
        if (spec.update !== undefined && changedProperties(spec.flatten(live, carryWith(previous, inputs)) as unknown as Partial<O>, inputs).length > 0) {
          await spec.update(s, id, live, inputs);
          current = await readBack(s, id, inputs as unknown as Hint<I, O>, what);
        }
        return { outs: outputsOf(current, s.organizationId, inputs.importId ?? previous.importId, carryWith(previous, inputs)) };
      } catch (error) {
        throw explain(error, what);
      }
    },

    async delete(id, props) {
      const configured = contextOf(this);
      const previous = props as Partial<O>;
      const what = `${spec.kind} ${id}: delete`;
      const s = session(configured, configured.settings(), previous.organizationId, what);
      // No read first: a delete of an object that is already gone answers not-found, which is
      // success here, so a read would only add a request (and a whole list) per resource.
      try {
        // A destroy runs no check. Without this, settings of another service (or a mistyped
        // organization) would answer every delete "not found", which reads as already gone: the
        // objects would stay where they live and vanish from state.
        if (configured.engineRun !== undefined) await verifySettings(configured, configured.settings(), previous.organizationId);
        await refuseOwnCredentialDelete(spec.kind, s, id, props, configured.settings());
        await refuseAccessLosingDelete(s, spec.kind, id, props, configured.settings());
        // Batching hook: with a plural form, this delete may travel with others of its kind.
        const batchRemove = spec.batch?.remove;
        if (batchRemove) await batched(`${spec.kind}:remove`, batchRemove, s, { id, props: previous }, () => spec.remove(s, id, previous));
        else await spec.remove(s, id, previous);
        settleBatchItem(configured.settings().journalDir, id);
      } catch (error) {
        if (isNotFound(error)) return settleBatchItem(configured.settings().journalDir, id);
        throw explain(error, what);
      }
    },
  });
}

/** `handler` with its create, read, update and delete counted as engine slots its context holds (`engine-slots.ts`). */
function holdingSlots(handler: Handler): Handler {
  for (const name of ["create", "read", "update", "delete"] as const) {
    const operation = handler[name] as (...args: unknown[]) => Promise<unknown>;
    Object.assign(handler, {
      [name](this: unknown, ...args: unknown[]) {
        return holdingSlot(contextOf(this), () => operation.apply(this, args));
      },
    });
  }
  return handler;
}
