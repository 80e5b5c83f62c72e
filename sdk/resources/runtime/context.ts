/**
 * @module resources/runtime/context
 * Everything the provider runtime remembers during one engine run, in one object created by
 * `configure()` and handed down through each call's {@link Session}: where the settings come
 * from, the clients, what this run's resources stand for, the census of the plan, which
 * settings were proven and the generation of shared reads. Two configurations (two engine runs
 * in one process, the exporter beside a provider, two tests) never see each other's.
 *
 * Not here: the service's pace (`sharedServicePace`), which is the process's on purpose (the
 * service counts requests per client address).
 */
import type { Activity } from "../../wire/activity";
import type { KeyformClient } from "../../client";
import type { BatchGroup } from "./batch";
import type { SharedReadEntry } from "./shared-reads";
import type { AllowlistsToday } from "./org-after-plan";
import { resolveSettings, type ConfigLookup, type SettingName, type Settings } from "./settings";
import { settingOrigins, type SettingOrigin } from "./setting-sources";

/** What `check` knows in an engine run: the stack config keys to vet before anything is planned. */
export interface EngineRun {
  readonly configKeys: readonly string[];
}

/** The state of one configuration of the provider runtime. */
export class ProviderContext {
  /** One client per base URL, organization, API key and timeouts. */
  readonly clients = new Map<string, KeyformClient>();
  /** `kind|organization|id` of every object a resource of this run stands for (created or adopted). */
  readonly claims = new Set<string>();
  /** Whether an organization can hold activities back for approval, read once. */
  readonly consensusByOrg = new Map<string, Promise<boolean>>();
  /** Recent create activities by organization and type, read once. */
  readonly historyByType = new Map<string, Promise<Activity[]>>();
  /** The census of the plan (`plan-census.ts`). */
  readonly census = {
    /** unique key (org|kind|value) → URN → the resource's name. */
    uniqueHolders: new Map<string, Map<string, string>>(),
    /** bucket (org|kind|bucket) → URN → the counted key it declares. */
    bucketMembers: new Map<string, Map<string, string>>(),
    /** bucket → keys the plan moves away from (old names of resources renamed in place). */
    released: new Map<string, Map<string, string>>(),
    /** Per client: the organization's collections as this run first read them (`shared-reads.ts`, `before`). */
    before: new Map<object, Map<string, SharedReadEntry>>(),
    /** org → URN → whether a User resource of the plan creates its user with API keys of its own. */
    usersWithKeys: new Map<string, Map<string, boolean>>(),
    /** org|kind → the objects that exist now, by bucket. */
    existingByKind: new Map<string, Promise<Map<string, Map<string, string>>>>(),
    /** org → URN → a resource of the plan, in the order the engine checked it (`deployer-access.ts`). */
    plannedObjects: new Map<string, Map<string, unknown>>(),
    /** org|public key → the organization-level IP allowlist and the deploying key's own before this run (`org-after-plan.ts`). */
    allowlistsBefore: new Map<string, Promise<AllowlistsToday>>(),
  };
  /** Outcome of each settings check, by base URL, organization and public key (`verify.ts`). */
  readonly verified = new Map<string, Promise<void>>();
  /** The batches gathering items now, by kind, client, group and journal (`batch.ts`). */
  readonly batchGroups = new Map<string, BatchGroup>();
  /**
   * Requests the batches of this context made, by plural and singular submits and splits, and
   * how many batches went because every engine slot was held by a waiting item (benchmarks, tests).
   */
  readonly batchCounts = { plural: 0, singular: 0, split: 0, everySlotWaiting: 0 };
  /** Shared reads (`shared-reads.ts`), per client of this context: collection name → entry. */
  readonly sharedReads = new WeakMap<object, Map<string, SharedReadEntry>>();
  /** The URNs checked as new (a create is coming) that have not joined their batch yet, by kind and group (`batch.ts`). */
  readonly expectedCreates = new Map<string, Set<string>>();
  /** When a create of each kind and group was last announced (epoch ms, `batch.ts`). */
  readonly lastAnnounced = new Map<string, number>();
  /** Resends of journaled batches, in flight or done, by record file (`batch-journal.ts`). */
  readonly batchReplays = new Map<string, Promise<unknown[] | undefined>>();
  /** Bumped by every write through this context's clients; a shared read of an earlier generation is stale. */
  readGeneration = 0;

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
