/**
 * @module emulator/dispatch
 * The request pipeline, independent of the HTTP framework:
 *
 *   find the operation → parse the JSON body → authenticate the stamp → validate with the
 *   operation's shared zod schema → (activities) return the activity already recorded for
 *   this fingerprint, check `timestampMs`, run the handler and record the activity in one
 *   transaction → answer.
 *
 * Before an activity runs, the organization's policies decide it unless the caller acts as the
 * root quorum (`policy-gate.ts`): a denial is a 403 and records nothing. An activity that needs
 * the root quorum's consensus, or more approvals under an ALLOW policy's consensus, is recorded
 * as CONSENSUS_NEEDED instead of running; approve_activity / reject_activity (handled here,
 * since an approval runs the stored request through another operation's handler) decide it.
 * See `consensus.ts`.
 *
 * Every failure is an {@link EmulatorError}; bad input never reaches a handler.
 */
import { randomUUID } from "node:crypto";
import { activityFingerprint } from "keyform/protocol/fingerprint";
import type { FastifyBaseLogger } from "fastify";
import type { z } from "zod";
import type { ActivityDef, AuthProxyDef, OperationDef } from "keyform/wire/define";
import { operations } from "keyform/wire/registry";
import { describeZodError } from "keyform/wire/shared";
import { authenticate, type Headers } from "./auth";
import {
  approvalCount,
  approvingVoters,
  CONSENSUS_NEEDED,
  heldByPolicy,
  recordVote,
  rootQuorumOf,
  VOTE_OPERATIONS,
  voteEvidence,
  voteTarget,
  type VoteEvidence,
} from "./consensus";
import { gateApproval, gateSubmission, policyDenied, PolicyDeniedError, recordEvaluation, type Gate } from "./policy-gate";
import type { Decision } from "keyform/policy/engine";
import { EmulatorError, GrpcCode, invalidArgument, notFound, notImplemented, permissionDenied } from "./errors";
import type {
  ActivityContext,
  AuthProxyContext,
  Caller,
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
import { activitySubmitterStoreOf } from "./store/activity-submitters";

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

/**
 * The activities a parent organization's key may submit in a sub-organization. The service's
 * rule: a parent reads its sub-organizations but does not change them, except to start the
 * authentication flows it runs for their users (an OTP login).
 */
const PARENT_MAY_SUBMIT: ReadonlySet<string> = new Set(["otpAuth"]);

/** An activity's context inside the dispatcher: the signed request, for the votes it casts. */
interface VotingContext extends ActivityContext {
  readonly evidence: VoteEvidence;
}

/** Thrown inside a savepoint to roll back a trial run of a handler. */
const TRIAL_RUN = Symbol("trial run");

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


/** A submission refused by the organization's policies (403 code 7). */
export interface PolicyDenial {
  readonly organizationId: string;
  readonly userId: string;
  /** The activity type submitted. */
  readonly type: string;
  readonly atMs: number;
  readonly decision: Decision;
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
  /** Called with each submission a policy denied (nothing is recorded for it). Must not throw. */
  readonly denialListeners: ((denial: PolicyDenial) => void)[] = [];

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
    // Votes are core: an approval runs the target's stored request through its own handler.
    this.handlers.set("approveActivity", ((ctx: VotingContext, p: { fingerprint: string }) => this.vote(ctx, p.fingerprint, true)) as AnyHandler);
    this.handlers.set("rejectActivity", ((ctx: VotingContext, p: { fingerprint: string }) => this.vote(ctx, p.fingerprint, false)) as AnyHandler);
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
   * @param seen receives the authenticated caller as soon as the stamp is verified (the request log)
   * @throws EmulatorError for every refusal
   */
  main(family: "query" | "submit", name: string, headers: Headers, raw: Uint8Array, remoteAddress?: string, seen?: { caller?: Caller }): Reply {
    const entry = this.byPath.get(`/public/v1/${family}/${name}`);
    if (!entry || entry.def.kind === "authProxy") throw notFound(`unknown operation: /public/v1/${family}/${name}`);
    const nowMs = Date.now();
    const body = parseJsonObject(raw);
    const organizationId = body.organizationId;
    if (typeof organizationId !== "string" || organizationId === "") {
      throw invalidArgument("organizationId: required, a non-empty string");
    }
    const caller = authenticate(this.store, headers, raw, organizationId, nowMs);
    if (seen) seen.caller = caller;
    enforceIpAllowlist(this.db, caller, organizationId, remoteAddress);
    if (entry.def.kind === "activity" && caller.organizationId !== organizationId && !PARENT_MAY_SUBMIT.has(entry.key)) {
      throw permissionDenied(
        `organizationId: the API key belongs to the parent organization ${caller.organizationId}, which may read ` +
          `sub-organization ${organizationId} but not change it (it may only start: ${[...PARENT_MAY_SUBMIT].join(", ")})`,
      );
    }
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
    try {
      return this.submit(entry.key, entry.def, handler, base, request, raw, voteEvidence(headers, raw, caller));
    } catch (error) {
      // A policy denial records nothing; the listeners (the local dashboard) still see it.
      if (error instanceof PolicyDeniedError) this.notifyDenied({ organizationId, userId: caller.userId, type: entry.def.type, atMs: nowMs, decision: error.decision });
      throw error;
    }
  }

  private notifyDenied(denial: PolicyDenial): void {
    for (const listener of this.denialListeners) {
      try {
        listener(denial);
      } catch (error) {
        this.log.error({ err: error }, "denial listener failed");
      }
    }
  }

  /**
   * Casts `userId`'s vote on the activity with `fingerprint` without a stamp: the local
   * dashboard acts for a user whose key it does not hold. The vote is submitted as an
   * approve_activity / reject_activity of that user (the same checks, consensus code and
   * activity record as a stamped vote); it records the user's first API key, if any, and an
   * empty signature, since nothing was signed.
   * @throws EmulatorError naming `userId` (unknown user) or whatever the vote itself refuses
   */
  voteWithoutStamp(organizationId: string, userId: string, fingerprint: string, approve: boolean): Reply {
    const key = approve ? "approveActivity" : "rejectActivity";
    const def = (operations as Record<string, OperationDef>)[key] as ActivityDef;
    const handler = this.handlers.get(key) as AnyHandler;
    const org = this.store.organizations.get(organizationId);
    if (!org) throw notFound(`organizationId: no organization ${organizationId}`);
    const home = [organizationId, ...(org.parent_id ? [org.parent_id] : [])].find((id) => this.store.users.get(id, userId));
    if (home === undefined) throw notFound(`userId: no user ${userId} in organization ${organizationId} or its parent`);
    const apiKey = this.store.apiKeys.listForUser(home, userId)[0];
    const caller: Caller = { userId, organizationId: home, apiKeyId: apiKey?.id ?? "", publicKey: apiKey?.public_key ?? "" };
    const nowMs = Date.now();
    const request = { type: def.type, timestampMs: String(nowMs), organizationId, parameters: { fingerprint } };
    const raw = new TextEncoder().encode(JSON.stringify(request));
    const base = { db: this.db, store: this.store, signer: this.signer, log: this.log, nowMs, organizationId, caller };
    const evidence: VoteEvidence = { message: new TextDecoder().decode(raw), publicKey: caller.publicKey, signature: "", scheme: "" };
    return this.submit(key, def, handler, base, validate(def.request, request) as Record<string, unknown>, raw, evidence);
  }

  private submit(
    key: string,
    def: ActivityDef,
    handler: AnyHandler,
    base: Omit<QueryContext, never>,
    request: Record<string, unknown>,
    raw: Uint8Array,
    evidence: VoteEvidence,
  ): Reply {
    const fingerprint = activityFingerprint(raw);
    // A byte-identical resubmission (a client retry) gets the activity it already produced,
    // whatever its age: the fingerprint covers timestampMs, so this is the same request.
    const existing = this.store.activities.findByFingerprint(fingerprint);
    if (existing) return { status: 200, body: { activity: withAppProofs(this.db, activityView(existing, this.store)) } };

    const timestampMs = Number(request.timestampMs);
    if (Math.abs(base.nowMs - timestampMs) > TIMESTAMP_WINDOW_MS) {
      throw invalidArgument(
        `timestampMs: ${String(request.timestampMs)} is more than ${TIMESTAMP_WINDOW_MS / 60000} minutes away from the server clock (${base.nowMs})`,
      );
    }

    const afterCommit: (() => void)[] = [];
    const ctx: VotingContext = {
      ...base,
      activityId: randomUUID(),
      fingerprint,
      afterCommit: (fn) => void afterCommit.push(fn),
      evidence,
    };
    const row = this.db.transaction((): ActivityRow => {
      // Checked again inside the transaction: the store is the arbiter of "already ran".
      const again = this.store.activities.findByFingerprint(fingerprint);
      if (again) return again;
      // Policies (or the root quorum) decide first; a denial throws and records nothing.
      const gate: Gate = VOTE_OPERATIONS.has(key) ? { action: "run" } : gateSubmission(base, def.type, request.parameters, base.caller);
      const held = gate.action !== "run";
      let resultJson = "{}";
      if (held) {
        // Refuse now what the handler would refuse now; the effects wait for the quorum.
        this.trialRun(def, handler, ctx, request.parameters);
      } else {
        resultJson = JSON.stringify({ [def.resultKey]: this.run(def, handler, ctx, request.parameters) });
      }
      const activity: ActivityRow = {
        id: ctx.activityId,
        org_id: base.organizationId,
        type: def.type,
        status: held ? CONSENSUS_NEEDED : "ACTIVITY_STATUS_COMPLETED",
        fingerprint,
        intent_json: JSON.stringify({ [def.intentKey]: request.parameters }),
        result_json: resultJson,
        created_ms: base.nowMs,
        updated_ms: base.nowMs,
      };
      this.store.activities.insert(activity);
      activitySubmitterStoreOf(this.db).insert({ activity_id: activity.id, user_id: base.caller.userId, api_key_id: base.caller.apiKeyId });
      let voteId = "";
      if (held) {
        this.store.consensus.insertPending({
          activity_id: activity.id,
          operation: key,
          caller_json: JSON.stringify(base.caller),
          parameters_json: JSON.stringify(request.parameters ?? null),
        });
        // The submission is the submitter's approval.
        voteId = recordVote(this.store, activity.id, base.caller, "VOTE_SELECTION_APPROVED", evidence, base.nowMs);
      }
      if (gate.decision) recordEvaluation(base, activity.id, voteId, gate.decision);
      if (request.generateAppProofs === true) recordAppProofs(this.db, activity);
      return activity;
    })();
    this.log.debug({ operation: def.name, activityId: row.id, organizationId: row.org_id, status: row.status }, "activity recorded");
    for (const fn of afterCommit) {
      try {
        fn();
      } catch (error) {
        this.log.error({ err: error, activityId: row.id }, "after-commit hook failed");
      }
    }
    if (row.id === ctx.activityId) this.notify(row);
    return { status: 200, body: { activity: withAppProofs(this.db, activityView(row, this.store)) } };
  }

  /** Tells the listeners (webhooks) about a new or changed activity, after its commit. */
  private notify(row: ActivityRow): void {
    for (const listener of this.activityListeners) {
      try {
        listener(row);
      } catch (error) {
        this.log.error({ err: error, activityId: row.id }, "activity listener failed");
      }
    }
  }

  /**
   * Runs a handler and checks its result against the operation's schema.
   * @returns the result object (schema output)
   * @throws whatever the handler throws; 500 code 13 for a result that breaks the schema
   */
  private run(def: ActivityDef, handler: AnyHandler, ctx: ActivityContext, parameters: unknown): unknown {
    const output = (handler as (c: ActivityContext, p: unknown) => unknown)(ctx, parameters);
    const result = def.result.safeParse(output);
    if (!result.success) {
      this.log.error({ operation: def.name, issues: describeZodError(result.error) }, "handler returned an invalid result");
      throw new EmulatorError(GrpcCode.INTERNAL, `internal error: ${def.name} produced an invalid result`);
    }
    return result.data;
  }

  /** Runs a handler in a savepoint that is always rolled back; its refusals propagate. */
  private trialRun(def: ActivityDef, handler: AnyHandler, ctx: ActivityContext, parameters: unknown): void {
    const trialCtx: ActivityContext = { ...ctx, afterCommit: () => undefined };
    try {
      this.db.transaction(() => {
        this.run(def, handler, trialCtx, parameters);
        throw TRIAL_RUN;
      })();
    } catch (error) {
      if (error !== TRIAL_RUN) throw error;
    }
  }

  /**
   * approve_activity / reject_activity: records the caller's vote on the activity named by
   * `fingerprint`; a rejection settles it as REJECTED, the approval that reaches the root
   * quorum's threshold runs it.
   * @throws see {@link voteTarget}
   */
  private vote(ctx: VotingContext, fingerprint: string, approve: boolean): Record<string, never> {
    const target = voteTarget(ctx, fingerprint);
    const voteId = recordVote(this.store, target.id, ctx.caller, approve ? "VOTE_SELECTION_APPROVED" : "VOTE_SELECTION_REJECTED", ctx.evidence, ctx.nowMs);
    if (!approve) {
      this.settle(ctx, target, { status: "ACTIVITY_STATUS_REJECTED", resultJson: "{}", failureJson: null });
    } else if (heldByPolicy(this.store, target)) {
      this.decideByPolicy(ctx, target, voteId);
    } else if (approvalCount(this.store, target.id) >= rootQuorumOf(this.store, target.org_id).threshold) {
      this.settle(ctx, target, this.execute(ctx, target));
    }
    return {};
  }

  /**
   * An approval of an activity held by an ALLOW policy's consensus: the policies run again
   * with every approver so far; ALLOW runs it, an applicable DENY fails it, else it waits.
   */
  private decideByPolicy(ctx: ActivityContext, target: ActivityRow, voteId: string): void {
    const pending = this.store.consensus.pending(target.id);
    const parameters = pending ? (JSON.parse(pending.parameters_json) as unknown) : null;
    const gateCtx = { db: this.db, store: this.store, organizationId: target.org_id, nowMs: ctx.nowMs };
    const decision = gateApproval(gateCtx, target.type, parameters, approvingVoters(this.store, target.id));
    recordEvaluation(gateCtx, target.id, voteId, decision);
    if (decision.outcome === "OUTCOME_ALLOW") {
      this.settle(ctx, target, this.execute(ctx, target));
    } else if (decision.outcome === "OUTCOME_DENY_EXPLICIT") {
      this.settle(ctx, target, { status: "ACTIVITY_STATUS_FAILED", resultJson: "{}", failureJson: JSON.stringify(policyDenied(decision).toBody()) });
    }
  }

  /**
   * Runs a CONSENSUS_NEEDED activity's stored request as its submitter, inside the approval's
   * transaction (a savepoint: a refusal rolls back only the target's effects).
   */
  private execute(ctx: ActivityContext, target: ActivityRow): { status: string; resultJson: string; failureJson: string | null } {
    const pending = this.store.consensus.pending(target.id);
    const entry = pending ? this.byKey(pending.operation) : undefined;
    const handler = pending ? this.handlers.get(pending.operation) : undefined;
    if (!pending || !entry || entry.def.kind !== "activity" || !handler) {
      throw new EmulatorError(GrpcCode.INTERNAL, `internal error: the request of activity ${target.id} is not available`);
    }
    const hooks: (() => void)[] = [];
    const targetCtx: ActivityContext = {
      db: this.db,
      store: this.store,
      signer: this.signer,
      log: this.log,
      nowMs: ctx.nowMs,
      organizationId: target.org_id,
      caller: JSON.parse(pending.caller_json) as Caller,
      activityId: target.id,
      fingerprint: target.fingerprint,
      afterCommit: (fn) => void hooks.push(fn),
    };
    const def = entry.def;
    try {
      const result = this.db.transaction(() => this.run(def, handler, targetCtx, JSON.parse(pending.parameters_json) as unknown))();
      for (const hook of hooks) ctx.afterCommit(hook);
      return { status: "ACTIVITY_STATUS_COMPLETED", resultJson: JSON.stringify({ [def.resultKey]: result }), failureJson: null };
    } catch (error) {
      if (!(error instanceof EmulatorError) || error.code === GrpcCode.INTERNAL) throw error;
      return { status: "ACTIVITY_STATUS_FAILED", resultJson: "{}", failureJson: JSON.stringify(error.toBody()) };
    }
  }

  /** Writes a decided activity's final state and notifies listeners once the vote commits. */
  private settle(ctx: ActivityContext, target: ActivityRow, outcome: { status: string; resultJson: string; failureJson: string | null }): void {
    this.store.activities.settle(target.id, { ...outcome, updatedMs: ctx.nowMs });
    this.store.consensus.deletePending(target.id);
    ctx.afterCommit(() => {
      const settled = this.store.activities.get(target.org_id, target.id);
      if (settled) this.notify(settled);
    });
  }

  private byKey(key: string): Entry | undefined {
    const def = (operations as Record<string, OperationDef>)[key];
    return def ? { key, def } : undefined;
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

