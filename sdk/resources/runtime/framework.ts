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
 * Each resource describes itself with a {@link ResourceSpec} (`resource-spec.ts`);
 * {@link makeHandler} turns it into the object the thin provider in state delegates to, each
 * method one stage module of `stages/` (docs/development.md, "Provider runtime"). This module
 * keeps what binds a handler to its run: the configuration's context and the engine slots.
 */
import { directContext, ProviderContext, useDirectly } from "./context";
import { quietHostErrorEcho } from "./engine-log";
import { holdingSlot } from "./engine-slots";
import type { BaseInputs, BaseOutputs, Handler, ResourceSpec } from "./resource-spec";
import type { Settings } from "./settings";
import { checkStep } from "./stages/check";
import { createStep } from "./stages/create";
import { deleteStep } from "./stages/delete";
import { diffStep } from "./stages/diff";
import { readStep } from "./stages/read";
import { updateStep } from "./stages/update";

export type { AnyResourceSpec, BaseInputs, BaseOutputs, CreateOutcome, Handler, HandlerDiffResult, Hint, PropertyRule, ResourceSpec } from "./resource-spec";
export { ADOPTED_PREFIX } from "./adoption";
export { sameValue } from "./stages/compare";
export { show } from "./values";

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

/**
 * Builds the runtime handler of one resource from its spec: each method is a stage of
 * `stages/` (`check.ts`, `diff.ts`, `create.ts`, `read.ts`, `update.ts`, `delete.ts`), run in the
 * context of the provider object it is called on.
 */
export function makeHandler<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>): Handler {
  return holdingSlots({
    spec,
    check(olds, news, context) {
      return checkStep(spec, contextOf(this), olds, news, context?.urn);
    },
    diff(id, olds, news) {
      return diffStep(spec, contextOf(this), id, olds, news);
    },
    create(inputs, context) {
      return createStep(spec, contextOf(this), inputs, context?.urn);
    },
    read(id, props) {
      return readStep(spec, contextOf(this), id, props);
    },
    update(id, olds, news) {
      return updateStep(spec, contextOf(this), id, olds, news);
    },
    delete(id, props) {
      return deleteStep(spec, contextOf(this), id, props);
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
