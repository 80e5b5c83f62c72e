/**
 * @module resources/runtime/context
 * One configuration of the provider runtime, created by `configure()` and handed down through
 * each call's {@link Session}: where its settings come from, and whether it is an engine run.
 * What the run remembers is kept by each feature itself, keyed by this object (`run-state.ts`):
 * the clients (`client.ts`), claims and earlier work (`earlier-work.ts`), the census of the plan
 * (`plan-census.ts` and the lockout checks), proven settings (`verify.ts`), shared reads
 * (`shared-reads.ts`) and batches (`batch.ts`, `batch-journal.ts`). Two configurations (two
 * engine runs in one process, the exporter beside a provider, two tests) never see each other's.
 *
 * Not here: the service's pace (`sharedServicePace`), which is the process's on purpose (the
 * service counts requests per client address).
 */
import type { EngineRun, RunContext } from "./run-types";
import { resolveSettings, type ConfigLookup, type SettingName, type Settings } from "./settings";
import { settingOrigins, type SettingOrigin } from "./setting-sources";

export type { EngineRun } from "./run-types";

/** One configuration of the provider runtime: the key of every feature's per-run state. */
export class ProviderContext implements RunContext {
  constructor(
    /** Where settings come from before the environment: the stack config of this run. */
    private readonly lookup: ConfigLookup | undefined,
    /** Set in an engine run: `check` then proves the settings once (`verify.ts`). */
    readonly engineRun: EngineRun | undefined,
  ) {}

  /** The settings in effect now: stack config, then the environment (read on each call, never stored). */
  settings(): Settings {
    return resolveSettings(this.lookup);
  }

  /** Where the value of `name` in effect comes from (stack config, environment, default): errors say it. */
  settingOrigin(name: SettingName): SettingOrigin {
    return settingOrigins(this.lookup, process.env)[name];
  }
}

/**
 * The context of the last direct `configure()` (one not made on a provider object): the one
 * module-level state of the provider runtime, kept on purpose. Provider code that earlier
 * versions stored in state (`test/support/earlier-provider-code.ts`, run by refresh and destroy
 * of those stacks) calls `configure` on the runtime module and only then gives its provider
 * object a handler as prototype, so nothing links that object to the context but the process;
 * such a host runs one engine run, so the process's context is that run's. In-process callers
 * of the handlers (tests, scripts) use it the same way. The engine's front doors of this
 * version never reach it: provider objects and the plugin's handlers carry their own.
 */
let direct: ProviderContext | undefined;

/**
 * The context of direct, in-process calls to the handlers (tests, scripts): the one the last
 * direct `configure()` created, else one with the environment's settings. The engine's front
 * doors never use it: the dynamic-provider host's provider objects and the plugin carry their own.
 */
export function directContext(): ProviderContext {
  direct ??= new ProviderContext(undefined, undefined);
  return direct;
}

/** Makes `context` the one direct calls run in. */
export function useDirectly(context: ProviderContext): void {
  direct = context;
}
