/**
 * @module client/client
 * `KeyformClient`: one typed method per query and activity of the wire registry, derived from
 * the registry (no per-operation code). Queries return their parsed response; activities
 * return their parsed result object once the activity is COMPLETED.
 *
 * @example
 * const client = new KeyformClient({ baseUrl, organizationId, stamper: new ApiKeyStamper(keys) });
 * const { userTagId } = await client.createUserTag({ userTagName: "ops", userIds: [] });
 * const { userTags } = await client.listUserTags();
 */
import { z } from "zod";
import { ActivityResponse, activityResponseWith, type Activity } from "../wire/activity";
import type { ActivityDef, OperationDef, QueryDef } from "../wire/define";
import { operations, type ActivityName, type ParamsOf, type QueryName, type ResultOf } from "../wire/registry";
import { Id, Uint64String } from "../wire/shared";
import {
  assertActivityCompleted,
  getActivityQuery,
  pollActivity,
  resolvePollOptions,
  type ConsensusOptions,
  type PollOptions,
} from "./activity-poller";
import { RequestValidationError, ResponseValidationError } from "./errors";
import { paginateQuery, type PaginateOptions } from "./pagination";
import type { RetryOptions } from "./retry";
import { queryWithRecovery } from "./query-recovery";
import type { Pacer } from "./service-pace";
import type { Stamper } from "../protocol/stamper";
import { recoverSubmit, isUnknownOutcome } from "./submit-recovery";
import { activityFingerprint, Transport, type ClientLogger } from "./transport";

/** Constructor options of {@link KeyformClient}. */
export interface KeyformClientOptions {
  /** Service URL, e.g. `http://127.0.0.1:1234`; a trailing slash is tolerated. */
  baseUrl: string;
  /** Default `organizationId` of every call. */
  organizationId: string;
  /** Signs every request body (e.g. `ApiKeyStamper`). */
  stamper: Stamper;
  /** `fetch` implementation to send with (default: a keep-alive `node:http` connection pool). */
  fetch?: typeof fetch;
  /**
   * Paces requests to stay under the service's rate limit: a `ServicePace` learns it from the
   * answers' `ratelimit-limit` headers, a `RateLimiter` keeps a fixed rate; share one between
   * clients to pace them together. Default: none.
   */
  rateLimiter?: Pacer;
  /** Told the path of each request when it is sent and when its answer arrives. */
  onRequest?: (path: string) => void;
  /** Per-attempt timeout in ms (default 30_000). */
  timeoutMs?: number;
  /**
   * Time an attempt may take to connect and receive the first byte of its answer (default
   * 15_000); a silent server then fails the call within it, without retries.
   */
  firstByteTimeoutMs?: number;
  /** Budget of a whole call (every attempt and backoff wait) in ms; default: none. */
  budgetMs?: number;
  /** Retries of network errors, 429, 502, 503, 504 (defaults: 3 retries, 250 ms base, 5 s cap). */
  retry?: RetryOptions;
  /**
   * Ask a query again (a few more calls, within the budget) when its retries end without an
   * answer, as a submit resends its body (`query-recovery.ts`). Default: off, a query fails
   * after its retries. The resources turn it on: a read there should never be the request
   * that fails a run all of whose writes got through.
   */
  recoverQueries?: boolean;
  /** Polling of CREATED/PENDING activities (defaults: every 500 ms, for up to 30 s). */
  poll?: PollOptions;
  /** Wait up to `waitMs` for approvals instead of failing at once on CONSENSUS_NEEDED. */
  consensus?: ConsensusOptions;
  /** Receives structured request, retry and poll events (never bodies or secrets). */
  logger?: ClientLogger;
}

/** Per-call options of an activity. */
export interface ActivityCallOptions {
  /** Run in this organization instead of the client's default. */
  organizationId?: string;
  /** Ask the service to generate App Proofs for the activity. */
  generateAppProofs?: boolean;
  /** Envelope timestamp (epoch ms); default `Date.now()`. */
  timestampMs?: string | number;
}

/** Per-call options of {@link KeyformClient.submitActivity}. */
export interface SubmitActivityOptions extends ActivityCallOptions {
  /**
   * Return the activity in whatever status polling ended (FAILED, REJECTED,
   * CONSENSUS_NEEDED, …) instead of throwing its typed error. Default `false`.
   */
  allowIncomplete?: boolean;
}

/** A query's request, with `organizationId` optional (the client fills in its default). */
export type QueryRequest<K extends QueryName> = Omit<ParamsOf<K>, "organizationId"> & { organizationId?: string };

/** Arguments of a query method: the request is optional when none of its fields is required. */
export type QueryArgs<K extends QueryName> = {} extends Omit<ParamsOf<K>, "organizationId">
  ? [request?: QueryRequest<K>]
  : [request: QueryRequest<K>];

/** One method per query of the registry. */
export type QueryMethods = { [K in QueryName]: (...args: QueryArgs<K>) => Promise<ResultOf<K>> };

/** One method per activity of the registry. */
export type ActivityMethods = {
  [K in ActivityName]: (parameters: ParamsOf<K>, options?: ActivityCallOptions) => Promise<ResultOf<K>>;
};

/** Queries that take `paginationOptions`. */
export type PaginatedQueryName = {
  [K in QueryName]: "paginationOptions" extends keyof ParamsOf<K> ? K : never;
}[QueryName];

/** The element type of the array fields of a query's response (its page items). */
export type PageItemOf<K extends QueryName> = {
  [F in keyof ResultOf<K>]-?: NonNullable<ResultOf<K>[F]> extends ReadonlyArray<infer I> ? I : never;
}[keyof ResultOf<K>];

// Members of the class that an operation method must never shadow.
const RESERVED = new Set(["organizationId", "paginate", "submitActivity", "callQuery", "callActivity", "constructor"]);

export interface KeyformClient extends QueryMethods, ActivityMethods {}

/**
 * Typed client of the service. Every query and activity of the wire registry is a method:
 * `client.listUserTags(request?)`, `client.createUserTag(parameters, options?)`.
 */
export class KeyformClient {
  /** Default `organizationId` of every call. */
  readonly organizationId: string;
  readonly #transport: Transport;
  readonly #poll: Required<PollOptions>;
  readonly #consensusWaitMs: number;
  readonly #recoverQueries: boolean;

  /**
   * @throws {TypeError} when `baseUrl`, `organizationId` or `stamper` is missing or malformed.
   * @throws {RangeError} when a timeout, retry or poll setting is out of range.
   */
  constructor(options: KeyformClientOptions) {
    if (typeof options.organizationId !== "string" || options.organizationId === "") {
      throw new TypeError("organizationId must be a non-empty string");
    }
    if (!options.stamper || typeof options.stamper.stamp !== "function") {
      throw new TypeError("stamper must be a Stamper (an object with a stamp(body) method)");
    }
    const waitMs = options.consensus?.waitMs ?? 0;
    if (!Number.isFinite(waitMs) || waitMs < 0) {
      throw new RangeError(`consensus.waitMs must be a non-negative number, got ${String(waitMs)}`);
    }
    this.organizationId = options.organizationId;
    this.#transport = new Transport({
      baseUrl: options.baseUrl,
      stamper: options.stamper,
      fetch: options.fetch,
      rateLimiter: options.rateLimiter,
      onRequest: options.onRequest,
      timeoutMs: options.timeoutMs,
      firstByteTimeoutMs: options.firstByteTimeoutMs,
      budgetMs: options.budgetMs,
      retry: options.retry,
      logger: options.logger,
    });
    this.#poll = resolvePollOptions(options.poll);
    this.#consensusWaitMs = waitMs;
    this.#recoverQueries = options.recoverQueries ?? false;
  }

  /**
   * The address the service sees this client from, as its last answer echoed it
   * (`x-rate-limit-request-remote-addr`); undefined before an answer, or when the service does not say.
   */
  get remoteAddress(): string | undefined {
    return this.#transport.remoteAddress;
  }

  /** The base URL requests go to (without a trailing slash). */
  get baseUrl(): string {
    return this.#transport.baseUrl;
  }

  /**
   * Runs a query by name. `organizationId` defaults to the client's.
   *
   * @throws {RequestValidationError} when the request does not match the schema (nothing is sent).
   * @throws {ApiError} and the other transport errors.
   */
  async callQuery<K extends QueryName>(name: K, ...[request]: QueryArgs<K>): Promise<ResultOf<K>> {
    const def = operationDef(name, "query");
    const body = validateArguments(def.request, { organizationId: this.organizationId, ...(request ?? {}) }, "", name);
    const send = (budget?: number) => this.#transport.send({ operation: name, path: def.path, body, schema: def.response, budgetMs: budget });
    if (!this.#recoverQueries) return (await send()).data as ResultOf<K>;
    const budgetMs = this.#transport.budgetMs;
    const deadline = budgetMs === undefined ? Infinity : Date.now() + budgetMs;
    // A read is always safe to repeat: it gets the extra chances a submit gets (query-recovery.ts).
    const { data } = await queryWithRecovery(send, deadline);
    return data as ResultOf<K>;
  }

  /**
   * Submits an activity by name and returns its result object once it is COMPLETED.
   *
   * @throws {RequestValidationError} when `parameters` do not match the schema (nothing is sent).
   * @throws {ConsensusNeededError | ActivityFailedError | ActivityRejectedError | ActivityPollTimeoutError}
   *   when the activity does not complete.
   * @throws {ApiError} and the other transport errors (carrying the body's fingerprint).
   */
  async callActivity<K extends ActivityName>(name: K, parameters: ParamsOf<K>, options?: ActivityCallOptions): Promise<ResultOf<K>> {
    const def = operationDef(name, "activity");
    const { activity, fingerprint } = await this.#submit(def, name, parameters, options, typedResponse(def));
    assertActivityCompleted(activity, { operation: name, fingerprint });
    return this.#result(def, name, activity, fingerprint) as ResultOf<K>;
  }

  /**
   * Submits an activity and returns the activity object itself (id, fingerprint, status,
   * intent, result, votes, App Proofs), after polling.
   *
   * @throws the typed activity errors unless `allowIncomplete` is set; see {@link callActivity}.
   */
  async submitActivity<K extends ActivityName>(name: K, parameters: ParamsOf<K>, options?: SubmitActivityOptions): Promise<Activity> {
    const def = operationDef(name, "activity");
    // The activity as the service sent it: its result is not reshaped by the operation's schema.
    const { activity, fingerprint, consensusWaitedMs } = await this.#submit(def, name, parameters, options, ActivityResponse);
    if (!options?.allowIncomplete) assertActivityCompleted(activity, { operation: name, fingerprint, consensusWaitedMs });
    return activity;
  }

  /**
   * Iterates over every item of a paginated query, page by page (docs/service-facts.md#6-pagination).
   *
   * @example
   * for await (const activity of client.paginate("listActivities", { filterByStatus: [] })) { … }
   * @throws {TypeError} when `name` is not a paginated query.
   */
  paginate<K extends PaginatedQueryName>(
    name: K,
    request?: QueryRequest<K>,
    options?: PaginateOptions,
  ): AsyncGenerator<PageItemOf<K>, void, undefined> {
    const def = operationDef(name, "query");
    // Checked here, not inside the generator, so that the mistake surfaces at the call.
    if (!def.pageItems) throw new TypeError(`${name} is not a paginated query`);
    const first = { organizationId: this.organizationId, ...(request ?? {}) } as Record<string, unknown>;
    const fetchPage = (pageRequest: Record<string, unknown>) =>
      (this.callQuery as (n: string, r: unknown) => Promise<unknown>)(name, pageRequest);
    return paginateQuery<PageItemOf<K>>(def, first, fetchPage, options);
  }

  /** Submits and polls; every answer about this activity is parsed with `response`. */
  async #submit(def: ActivityDef, name: string, parameters: unknown, options: SubmitActivityOptions | undefined, response: z.ZodType<ActivityResponse>) {
    const checkedParameters = validateArguments(def.parameters, parameters, "parameters", name);
    const organizationId = validateArguments(Id, options?.organizationId ?? this.organizationId, "organizationId", name);
    const timestampMs = validateArguments(Uint64String, String(options?.timestampMs ?? Date.now()), "timestampMs", name);
    const envelope: Record<string, unknown> = { type: def.type, timestampMs, organizationId, parameters: checkedParameters };
    if (options?.generateAppProofs !== undefined) envelope["generateAppProofs"] = options.generateAppProofs;

    const budgetMs = this.#transport.budgetMs;
    const deadline = budgetMs === undefined ? Infinity : Date.now() + budgetMs;
    const send = (budget?: number) =>
      this.#transport.send({ operation: name, path: def.path, body: envelope, schema: response, fingerprint: true, budgetMs: budget });
    const fingerprint = activityFingerprint(JSON.stringify(envelope));
    let submitted: Activity;
    try {
      submitted = (await send()).data.activity;
    } catch (error) {
      if (!isUnknownOutcome(error)) throw error;
      // Resend the same bytes, then ask by fingerprint, before giving up (submit-recovery.ts).
      submitted = await recoverSubmit(
        {
          operation: name,
          fingerprint,
          activityType: def.type,
          deadline,
          resend: async (budget) => (await send(budget)).data.activity,
          listRecent: async (limit, budget) => {
            const listed = await this.#transport.send({
              operation: "listActivities",
              path: operations.listActivities.path,
              body: { organizationId, filterByType: [def.type], paginationOptions: { limit: String(limit) } },
              schema: operations.listActivities.response,
              budgetMs: budget,
            });
            return (listed.data as { activities: Activity[] }).activities;
          },
        },
        error,
      );
    }
    const { activity, consensusWaitedMs } = await pollActivity(submitted, {
      operation: name,
      fingerprint,
      poll: this.#poll,
      consensusWaitMs: this.#consensusWaitMs,
      log: (event) => this.#transport.log(event),
      fetchActivity: async (activityId, activityOrganizationId) => {
        const answer = await this.#transport.send({
          operation: "getActivity",
          path: getActivityQuery.path,
          body: { organizationId: activityOrganizationId, activityId },
          schema: response,
          activityId,
          activityFingerprint: fingerprint,
        });
        return answer.data.activity;
      },
    });
    return { activity, fingerprint, consensusWaitedMs };
  }

  #result(def: ActivityDef, name: string, activity: Activity, fingerprint: string | undefined): unknown {
    const value = activity.result[def.resultKey];
    // Checked with the answer it came in, unless that answer was a listing of activities (a
    // submit recovered by fingerprint that had completed already).
    if (value !== undefined && resultChecked.has(activity)) return value;
    const root = `activity.result.${def.resultKey}`;
    const parsed = def.result.safeParse(value);
    if (!parsed.success) {
      throw new ResponseValidationError({ operation: name, activityId: activity.id, fingerprint: activity.fingerprint || fingerprint }, parsed.error, root);
    }
    return parsed.data;
  }
}

// Install one method per query and activity of the registry.
for (const [name, def] of Object.entries(operations as Record<string, OperationDef>)) {
  if (def.kind === "authProxy" || RESERVED.has(name) || name in KeyformClient.prototype) continue;
  const method =
    def.kind === "query"
      ? function (this: KeyformClient, request?: unknown) {
          return (this.callQuery as (n: string, r: unknown) => Promise<unknown>)(name, request);
        }
      : function (this: KeyformClient, parameters: unknown, options?: ActivityCallOptions) {
          return (this.callActivity as (n: string, p: unknown, o?: ActivityCallOptions) => Promise<unknown>)(name, parameters, options);
        };
  Object.defineProperty(method, "name", { value: name });
  Object.defineProperty(KeyformClient.prototype, name, { value: method, writable: true, configurable: true, enumerable: false });
}

/** The activities whose result was parsed by their operation's schema along with the answer. */
const resultChecked = new WeakSet<Activity>();
const typedResponses = new WeakMap<ActivityDef, z.ZodType<ActivityResponse>>();

/** The answer schema of `def`'s activity with its result parsed in the same pass (one per operation). */
function typedResponse(def: ActivityDef): z.ZodType<ActivityResponse> {
  let schema = typedResponses.get(def);
  if (schema === undefined) {
    const parse = activityResponseWith(def.resultKey, def.result);
    schema = parse.transform((answer) => {
      resultChecked.add(answer.activity as Activity);
      return answer as ActivityResponse;
    }) as unknown as z.ZodType<ActivityResponse>;
    typedResponses.set(def, schema);
  }
  return schema;
}

function operationDef(name: string, kind: "query"): QueryDef;
function operationDef(name: string, kind: "activity"): ActivityDef;
function operationDef(name: string, kind: "query" | "activity"): OperationDef {
  const def = (operations as Record<string, OperationDef | undefined>)[name];
  if (!def || def.kind !== kind) throw new TypeError(`${name} is not a known ${kind === "query" ? "query" : "activity"} operation`);
  return def;
}

/**
 * Parses a caller-supplied value, or throws {@link RequestValidationError} naming the fields.
 * Returns the parsed (wire) form, which is what gets sent.
 */
export function validateArguments<S extends z.ZodType>(schema: S, value: unknown, root: string, operation: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RequestValidationError(parsed.error, root, { operation });
  return parsed.data;
}

