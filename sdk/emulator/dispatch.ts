/**
 * @module emulator/dispatch
 * The request pipeline, independent of the HTTP framework:
 *
 *   find the operation → parse the JSON body → authenticate the stamp → validate with the
 *   operation's shared zod schema → (activities) return the activity already recorded for
 *   this fingerprint, check `timestampMs`, run the handler and record the activity in one
 *   transaction → answer.
 *
 * Every failure is an {@link EmulatorError}; bad input never reaches a handler.
 */
import { createHash, randomUUID } from "node:crypto";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { ActivityDef, AuthProxyDef, OperationDef } from "../wire/define";
import { operations } from "../wire/registry";
import { describeZodError } from "../wire/shared";
import { authenticate, type Headers } from "./auth";
import { EmulatorError, GrpcCode, invalidArgument, notFound, notImplemented } from "./errors";
import type {
  ActivityContext,
  AuthProxyContext,
  EmulatorModule,
  Handlers,
  ModuleEnv,
  QueryContext,
  SignerKey,
} from "./handlers/types";
import { recordAppProofs, withAppProofs } from "./handlers/auth-app-proofs";
import { requireAuthProxyConfig } from "./handlers/auth-common";
import { enforceIpAllowlist } from "./handlers/ip-allowlists";
import { activityView } from "./handlers/views";
import type { ActivityRow, Db, Store } from "./store";

/**
 * How far an activity's `timestampMs` may be from the server clock, either way. The service
 * does not document its window; five minutes tolerates ordinary clock skew and slow retries
 * while refusing replays of old signed bodies.
 */
export const TIMESTAMP_WINDOW_MS = 5 * 60 * 1000;

/** A reply: HTTP status and JSON body. */
export interface Reply {
  status: number;
  body: unknown;
}

type AnyHandler = (ctx: never, input: unknown) => unknown;

interface Entry {
  readonly key: string;
  readonly def: OperationDef;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Parses the body as a JSON object. @throws 400 code 3 for anything else. */
export function parseJsonObject(raw: Uint8Array): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(raw));
  } catch {
    throw invalidArgument(raw.length === 0 ? "body: expected a JSON object, got an empty body" : "body: not valid UTF-8 JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument(`body: expected a JSON object, got ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`);
  }
  return value as Record<string, unknown>;
}

function validate<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidArgument(describeZodError(parsed.error));
  return parsed.data;
}

/** `sha256:` + hex SHA-256 of the exact body bytes (fact sheet 2). */
export function fingerprintOf(raw: Uint8Array): string {
  return `sha256:${createHash("sha256").update(raw).digest("hex")}`;
}

/** Routes requests to the handlers of the modules. */
export class Dispatcher {
  private readonly byPath = new Map<string, Entry>();
  private readonly handlers = new Map<string, AnyHandler>();
  /**
   * Called with each newly recorded activity after its transaction committed (webhook
   * delivery). A listener must not throw; errors are logged and ignored.
   */
  readonly activityListeners: ((activity: ActivityRow) => void)[] = [];

  constructor(
    private readonly db: Db,
    /** Public for the dev endpoints of the server (the OTP outbox). */
    readonly store: Store,
    private readonly signer: SignerKey,
    private readonly log: FastifyBaseLogger,
    modules: readonly EmulatorModule[],
  ) {
    for (const [key, def] of Object.entries(operations as Record<string, OperationDef>)) {
      this.byPath.set(def.path, { key, def });
    }
    const env: ModuleEnv = { db, store, signer, log };
    for (const module of modules) {
      const handlers: Handlers = module.setup(env);
      for (const [key, handler] of Object.entries(handlers)) {
        if (handler === undefined) continue;
        if (this.handlers.has(key)) throw new Error(`operation ${key} is handled by two modules (second: ${module.name})`);
        this.handlers.set(key, handler as AnyHandler);
      }
    }
  }

  /** Registry names of the operations that have a handler. */
  implementedOperations(): string[] {
    return [...this.handlers.keys()];
  }

  /**
   * Serves `POST /public/v1/{query|submit}/<name>`.
   * @param remoteAddress the TCP peer address, checked against the IP allowlists
   * @throws EmulatorError for every refusal
   */
  main(family: "query" | "submit", name: string, headers: Headers, raw: Uint8Array, remoteAddress?: string): Reply {
    const entry = this.byPath.get(`/public/v1/${family}/${name}`);
    if (!entry || entry.def.kind === "authProxy") throw notFound(`unknown operation: /public/v1/${family}/${name}`);
    const nowMs = Date.now();
    const body = parseJsonObject(raw);
    const organizationId = body.organizationId;
    if (typeof organizationId !== "string" || organizationId === "") {
      throw invalidArgument("organizationId: required, a non-empty string");
    }
    const caller = authenticate(this.store, headers, raw, organizationId, nowMs);
    enforceIpAllowlist(this.db, caller, organizationId, remoteAddress);
    const request = validate(entry.def.request, body) as Record<string, unknown>;
    const handler = this.handlers.get(entry.key);
    if (!handler) throw notImplemented(name);

    const base = { db: this.db, store: this.store, signer: this.signer, log: this.log, nowMs, organizationId, caller };
    if (entry.def.kind === "query") {
      const ctx: QueryContext = base;
      // A read transaction gives the handler one consistent snapshot.
      const result = this.db.transaction(() => (handler as (c: QueryContext, r: unknown) => unknown)(ctx, request))();
      return { status: 200, body: result };
    }
    return this.submit(entry.def, handler, base, request, raw);
  }

  private submit(
    def: ActivityDef,
    handler: AnyHandler,
    base: Omit<QueryContext, never>,
    request: Record<string, unknown>,
    raw: Uint8Array,
  ): Reply {
    const fingerprint = fingerprintOf(raw);
    // A byte-identical resubmission (a client retry) gets the activity it already produced,
    // whatever its age: the fingerprint covers timestampMs, so this is the same request.
    const existing = this.store.activities.findByFingerprint(fingerprint);
    if (existing) return { status: 200, body: { activity: withAppProofs(this.db, activityView(existing)) } };

    const timestampMs = Number(request.timestampMs);
    if (Math.abs(base.nowMs - timestampMs) > TIMESTAMP_WINDOW_MS) {
      throw invalidArgument(
        `timestampMs: ${String(request.timestampMs)} is more than ${TIMESTAMP_WINDOW_MS / 60000} minutes away from the server clock (${base.nowMs})`,
      );
    }

    const afterCommit: (() => void)[] = [];
    const ctx: ActivityContext = {
      ...base,
      activityId: randomUUID(),
      fingerprint,
      afterCommit: (fn) => void afterCommit.push(fn),
    };
    const row = this.db.transaction((): ActivityRow => {
      // Checked again inside the transaction: the store is the arbiter of "already ran".
      const again = this.store.activities.findByFingerprint(fingerprint);
      if (again) return again;
      const output = (handler as (c: ActivityContext, p: unknown) => unknown)(ctx, request.parameters);
      const result = def.result.safeParse(output);
      if (!result.success) {
        this.log.error({ operation: def.name, issues: describeZodError(result.error) }, "handler returned an invalid result");
        throw new EmulatorError(GrpcCode.INTERNAL, `internal error: ${def.name} produced an invalid result`);
      }
      const activity: ActivityRow = {
        id: ctx.activityId,
        org_id: base.organizationId,
        type: def.type,
        status: "ACTIVITY_STATUS_COMPLETED",
        fingerprint,
        intent_json: JSON.stringify({ [def.intentKey]: request.parameters }),
        result_json: JSON.stringify({ [def.resultKey]: result.data }),
        created_ms: base.nowMs,
        updated_ms: base.nowMs,
      };
      this.store.activities.insert(activity);
      if (request.generateAppProofs === true) recordAppProofs(this.db, activity);
      return activity;
    })();
    this.log.debug({ operation: def.name, activityId: row.id, organizationId: row.org_id }, "activity completed");
    for (const fn of afterCommit) {
      try {
        fn();
      } catch (error) {
        this.log.error({ err: error, activityId: row.id }, "after-commit hook failed");
      }
    }
    if (row.id === ctx.activityId) {
      for (const listener of this.activityListeners) {
        try {
          listener(row);
        } catch (error) {
          this.log.error({ err: error, activityId: row.id }, "activity listener failed");
        }
      }
    }
    return { status: 200, body: { activity: withAppProofs(this.db, activityView(row)) } };
  }

  /**
   * Serves `POST /v1/<name>` (the auth proxy; no stamp).
   * @throws EmulatorError for every refusal
   */
  authProxy(name: string, headers: Headers, raw: Uint8Array): Reply {
    const entry = this.byPath.get(`/v1/${name}`);
    if (!entry || entry.def.kind !== "authProxy") throw notFound(`unknown operation: /v1/${name}`);
    requireAuthProxyConfig(this.store, headers);
    const body = parseJsonObject(raw);
    const request = validate((entry.def as AuthProxyDef).request, body);
    const handler = this.handlers.get(entry.key);
    if (!handler) throw notImplemented(name);
    const ctx: AuthProxyContext = { db: this.db, store: this.store, signer: this.signer, log: this.log, nowMs: Date.now(), headers };
    const result = this.db.transaction(() => (handler as (c: AuthProxyContext, r: unknown) => unknown)(ctx, request))();
    return { status: 200, body: result };
  }
}

