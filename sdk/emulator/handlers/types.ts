/**
 * @module emulator/handlers/types
 * What a handler sees and returns, and how an area plugs into the emulator.
 *
 * An area (users, policies, wallets, webhooks …) is an {@link EmulatorModule}: optional schema
 * migrations of its own plus one handler per operation it serves, keyed by the registry's
 * camelCase name. Operations of the registry with no handler answer 501.
 *
 * Handlers are synchronous: an activity's handler runs inside one SQLite transaction together
 * with the activity record, so a thrown {@link EmulatorError} leaves nothing behind. Work that
 * must happen outside the transaction (webhook delivery …) goes through `afterCommit`.
 */
import type { z } from "zod";
import type { FastifyBaseLogger } from "fastify";
import type { ActivityDef, AuthProxyDef, QueryDef } from "keyform/wire/define";
import type { Operations, OperationName } from "keyform/wire/registry";
import type { Db, Store } from "../store";

/** The emulator's signing key (the "enclave" key of export bundles and App Proofs). */
export interface SignerKey {
  /** Uncompressed P-256 public key, hex (`04…`); written to bootstrap.json. */
  readonly publicKey: string;
  /** 32-byte P-256 private scalar, hex. Never log it or put it in a response. */
  readonly privateKey: string;
}

/** What a module's `setup` receives once at start, after migrations ran. */
export interface ModuleEnv {
  readonly db: Db;
  readonly store: Store;
  readonly signer: SignerKey;
  readonly log: FastifyBaseLogger;
}

/** The authenticated caller of a main-API request. */
export interface Caller {
  readonly userId: string;
  /** Organization the caller's user belongs to (the target or its parent). */
  readonly organizationId: string;
  readonly apiKeyId: string;
  readonly publicKey: string;
}

/** Shared by every handler. */
export interface BaseContext {
  readonly db: Db;
  readonly store: Store;
  readonly signer: SignerKey;
  readonly log: FastifyBaseLogger;
  /** Server time of this request, epoch ms; use it for every timestamp the request writes. */
  readonly nowMs: number;
}

/** A query's context: the organization named in the body, and who asks. */
export interface QueryContext extends BaseContext {
  readonly organizationId: string;
  readonly caller: Caller;
}

/** An activity's context. */
export interface ActivityContext extends QueryContext {
  /** Id the activity record will have (available to embed in results). */
  readonly activityId: string;
  /** `sha256:<hex>` of the exact body bytes. */
  readonly fingerprint: string;
  /** Runs `fn` after the transaction committed (never if it rolled back). */
  afterCommit(fn: () => void): void;
}

/** An auth proxy operation's context (no stamp; identified by its config id header). */
export interface AuthProxyContext extends BaseContext {
  /** Lower-cased request headers. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** Parameters a handler receives: the schema's output (validated, optional nulls removed). */
type ParamsOut<D> = D extends ActivityDef<string, string, infer P> ? z.output<P> : never;
type RequestOut<D> = D extends QueryDef<string, infer R> | AuthProxyDef<string, infer R> ? z.output<R> : never;
type ResultIn<D> = D extends ActivityDef<string, string, z.ZodType, infer R>
  ? z.input<R>
  : D extends QueryDef<string, z.ZodType, infer R> | AuthProxyDef<string, z.ZodType, infer R>
    ? z.input<R>
    : never;

/** The handler of one operation, typed from its registry definition. */
export type HandlerOf<K extends OperationName> = Operations[K] extends ActivityDef
  ? (ctx: ActivityContext, parameters: ParamsOut<Operations[K]>) => ResultIn<Operations[K]>
  : Operations[K] extends QueryDef
    ? (ctx: QueryContext, request: RequestOut<Operations[K]>) => ResultIn<Operations[K]>
    : (ctx: AuthProxyContext, request: RequestOut<Operations[K]>) => ResultIn<Operations[K]>;

/** Handlers of one area, keyed by registry name. */
export type Handlers = { [K in OperationName]?: HandlerOf<K> };

/** One area of the emulator. */
export interface EmulatorModule {
  /** Unique name; also the key of its schema version in `module_migrations`. */
  readonly name: string;
  /** SQL of each schema version of this module's own tables (index 0 = version 1). */
  readonly migrations?: readonly string[];
  /** Builds the handlers once at start (prepare statements here). */
  setup(env: ModuleEnv): Handlers;
  /**
   * Extra fields of get_organization's `organizationData` (e.g. `wallets`, `privateKeys`);
   * merged over the core fields.
   */
  organizationData?(ctx: QueryContext): Record<string, unknown>;
}
