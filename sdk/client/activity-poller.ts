/**
 * @module client/activity-poller
 * What happens after a submit (docs/service-facts.md#4-activity-lifecycle): an activity answered as CREATED or PENDING is
 * polled with `get_activity` until it settles, within a bounded budget; CONSENSUS_NEEDED is
 * either reported at once or, with a consensus wait, polled until approvers decide.
 * {@link assertActivityCompleted} turns every outcome other than COMPLETED into its typed error.
 */
import { z } from "zod";
import { ActivityResponse, type Activity } from "../wire/activity";
import { defineQuery, type QueryDef } from "../wire/define";
import { operations } from "../wire/registry";
import { Id } from "../wire/shared";
import {
  ActivityFailedError,
  ActivityPollTimeoutError,
  ActivityRejectedError,
  AuthenticatorsNeededError,
  ConsensusNeededError,
  KeyformError,
  type ActivityErrorContext,
} from "./errors";
import { sleep } from "./retry";
import type { ClientLogEvent } from "./transport";

/** Polling of CREATED/PENDING activities. */
export interface PollOptions {
  /** Delay between two `get_activity` calls in ms (default 500). */
  intervalMs?: number;
  /** How long an activity may stay CREATED/PENDING, in ms (default 30_000). */
  timeoutMs?: number;
}

/** Waiting for approvals of CONSENSUS_NEEDED activities. */
export interface ConsensusOptions {
  /**
   * When set (> 0), poll a CONSENSUS_NEEDED activity for up to this many ms until approvers
   * complete or reject it, instead of throwing {@link ConsensusNeededError} at once.
   */
  waitMs?: number;
}

export const DEFAULT_POLL: Required<PollOptions> = { intervalMs: 500, timeoutMs: 30_000 };

/**
 * Fills in defaults.
 * @throws {RangeError} when a value is not a positive number.
 */
export function resolvePollOptions(options: PollOptions | undefined): Required<PollOptions> {
  const resolved = {
    intervalMs: options?.intervalMs ?? DEFAULT_POLL.intervalMs,
    timeoutMs: options?.timeoutMs ?? DEFAULT_POLL.timeoutMs,
  };
  for (const [key, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value <= 0) throw new RangeError(`poll.${key} must be a positive number, got ${String(value)}`);
  }
  return resolved;
}

/**
 * The `get_activity` query: the registry's definition when it has one, otherwise the same
 * call defined by its path (docs/service-facts.md#38-activities).
 */
export const getActivityQuery: QueryDef =
  ((operations as Record<string, unknown>)["getActivity"] as QueryDef | undefined) ??
  defineQuery("get_activity", {
    request: z.object({ organizationId: Id, activityId: Id }),
    response: ActivityResponse,
  });

const SETTLING = new Set<string>(["ACTIVITY_STATUS_CREATED", "ACTIVITY_STATUS_PENDING"]);
const CONSENSUS = "ACTIVITY_STATUS_CONSENSUS_NEEDED";

/** Inputs of {@link pollActivity}. */
export interface PollContext {
  /** camelCase name of the submitting operation. */
  operation: string;
  /** Client-side fingerprint of the submitted body, used when the activity lacks one. */
  fingerprint?: string | undefined;
  /** Fetches the activity again (`get_activity`). */
  fetchActivity: (activityId: string, organizationId: string) => Promise<Activity>;
  poll: Required<PollOptions>;
  consensusWaitMs?: number | undefined;
  log?: ((event: ClientLogEvent) => void) | undefined;
}

/** Where polling stopped. */
export interface PollOutcome {
  /** The last activity seen: COMPLETED, FAILED, REJECTED, CONSENSUS_NEEDED or AUTHENTICATORS_NEEDED. */
  activity: Activity;
  /** How long a CONSENSUS_NEEDED activity was waited on, when a wait was configured. */
  consensusWaitedMs: number | undefined;
}

/**
 * Polls `activity` until it leaves CREATED/PENDING (and, with a consensus wait, until it
 * leaves CONSENSUS_NEEDED or the wait ends). Does not judge the final status.
 *
 * @throws {ActivityPollTimeoutError} when the activity stays CREATED/PENDING beyond `poll.timeoutMs`.
 */
export async function pollActivity(initial: Activity, context: PollContext): Promise<PollOutcome> {
  const started = Date.now();
  let activity = initial;
  // The pending budget restarts whenever the activity (re)enters CREATED/PENDING, e.g. after
  // approvers completed the consensus and the service runs it.
  let settlingSince = started;
  let consensusSince: number | undefined;
  let previousStatus: string | undefined;
  const consensusWaitMs = context.consensusWaitMs ?? 0;

  for (;;) {
    const now = Date.now();
    const status = activity.status;
    if (SETTLING.has(status)) {
      if (previousStatus !== undefined && !SETTLING.has(previousStatus)) settlingSince = now;
      if (now - settlingSince >= context.poll.timeoutMs) {
        throw new ActivityPollTimeoutError(activityErrorContext(activity, context), context.poll.timeoutMs);
      }
    } else if (status === CONSENSUS && consensusWaitMs > 0) {
      consensusSince ??= now;
      if (now - consensusSince >= consensusWaitMs) return { activity, consensusWaitedMs: now - consensusSince };
    } else {
      return { activity, consensusWaitedMs: consensusSince === undefined ? undefined : now - consensusSince };
    }
    previousStatus = status;

    const deadline = SETTLING.has(status) ? settlingSince + context.poll.timeoutMs : (consensusSince ?? now) + consensusWaitMs;
    await sleep(Math.max(0, Math.min(context.poll.intervalMs, deadline - Date.now())));
    activity = await context.fetchActivity(activity.id, activity.organizationId);
    context.log?.({
      type: "activity.poll",
      operation: context.operation,
      activityId: activity.id,
      status: activity.status,
      elapsedMs: Date.now() - started,
    });
  }
}

/**
 * Throws the typed error for every status other than COMPLETED.
 *
 * @throws {ConsensusNeededError} CONSENSUS_NEEDED (names activity id and fingerprint).
 * @throws {ActivityFailedError} FAILED, with the service's failure message.
 * @throws {ActivityRejectedError} REJECTED.
 * @throws {AuthenticatorsNeededError} AUTHENTICATORS_NEEDED.
 * @throws {ActivityPollTimeoutError} still CREATED/PENDING.
 */
export function assertActivityCompleted(
  activity: Activity,
  context: { operation: string; fingerprint?: string | undefined; consensusWaitedMs?: number | undefined },
): void {
  const errorContext = activityErrorContext(activity, context);
  switch (activity.status) {
    case "ACTIVITY_STATUS_COMPLETED":
      return;
    case "ACTIVITY_STATUS_CONSENSUS_NEEDED":
      throw new ConsensusNeededError(errorContext, context.consensusWaitedMs);
    case "ACTIVITY_STATUS_FAILED":
      throw new ActivityFailedError(errorContext, activity.failure);
    case "ACTIVITY_STATUS_REJECTED":
      throw new ActivityRejectedError(errorContext);
    case "ACTIVITY_STATUS_AUTHENTICATORS_NEEDED":
      throw new AuthenticatorsNeededError(errorContext);
    case "ACTIVITY_STATUS_CREATED":
    case "ACTIVITY_STATUS_PENDING":
      throw new ActivityPollTimeoutError(errorContext, 0);
    default: {
      const unreachable: never = activity.status;
      throw new KeyformError(`${context.operation}: unknown activity status ${String(unreachable)}`, context.operation);
    }
  }
}

function activityErrorContext(
  activity: Activity,
  context: { operation: string; fingerprint?: string | undefined },
): ActivityErrorContext {
  return {
    operation: context.operation,
    activityId: activity.id,
    fingerprint: activity.fingerprint || context.fingerprint || "",
    activityStatus: activity.status,
    activityType: activity.type,
  };
}
