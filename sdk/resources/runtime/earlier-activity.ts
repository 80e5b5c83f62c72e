/**
 * @module resources/runtime/earlier-activity
 * Finds an earlier activity that expresses the same intent as a create about to be submitted.
 *
 * Why: under consensus the first `pulumi up` only submits the activity; it completes later,
 * when other quorum members approve it, and nothing of it is in state. Submitting again on
 * the next `up` would make a new activity (a new `timestampMs`, so a new fingerprint): a
 * second pending request on the service, or a duplicate object once both are approved. So
 * before a create submits, the framework looks for an earlier activity of the same type whose
 * parameters are the ones this create would send, and that went through consensus. A pending
 * one is reported again (approve it); a completed one is adopted.
 *
 * The search is bounded: one page of {@link LOOKUP_PAGE_SIZE} activities of that type (newest
 * first, filtered by status on the service), and only activities created within
 * {@link LOOKUP_WINDOW_MS} (7 days). Older requests are not considered the same intent.
 *
 * Only activities that went through consensus match: a CONSENSUS_NEEDED one, or a COMPLETED
 * one approved by more than one user. An ordinary completed create, made by anyone, is never
 * adopted: an object someone created directly is taken over only with `importId`.
 *
 * A key that may create but not list activities (HTTP 403), or a service without
 * `list_activities` (501), creates as before, without the lookup.
 */
import { NotImplementedError, PermissionDeniedError } from "../../client/errors";
import type { Activity } from "../../wire/activity";
import type { ActivityDef } from "../../wire/define";
import { operations, type ActivityName, type ParamsOf, type ResultOf } from "../../wire/registry";
import type { Session } from "./client";
import { canonicalJson } from "./values";

/** How many activities of the type the lookup reads (one page, the service's maximum). */
export const LOOKUP_PAGE_SIZE = 100;

/** How old an activity may be and still count as the same intent: 7 days. */
export const LOOKUP_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** What a resource declares about the activity its create submits. */
export interface CreateActivity<I, K extends ActivityName = ActivityName> {
  /** The create operation, e.g. `createUserTag`. */
  readonly operation: K;
  /**
   * The parameters create submits for `inputs` (create must send exactly these);
   * `undefined` when they cannot be known before the create runs (a key pair generated at
   * create), which skips the lookup.
   */
  parameters(inputs: I): ParamsOf<K> | undefined;
  /** The created object's id in the activity's result. */
  createdId(result: ResultOf<K>): string | undefined;
}

/** Declares a resource's create activity with the operation's own parameter and result types. */
export function createActivity<I, K extends ActivityName>(spec: CreateActivity<I, K>): CreateActivity<I> {
  return spec as unknown as CreateActivity<I>;
}

/** An earlier activity with the same intent. */
export interface EarlierActivity {
  readonly activity: Activity;
  /** The created object's id, for a COMPLETED activity. */
  readonly createdId?: string;
}

/**
 * Canonical text of activity parameters: parsed by the operation's schema (what the client
 * sends and the service echoes in the intent), with absent, `null` and `""` treated alike, and
 * keys sorted. `undefined` when the value does not parse.
 */
export function intentKey(def: ActivityDef, parameters: unknown): string | undefined {
  const parsed = def.parameters.safeParse(parameters);
  return parsed.success ? canonicalJson(dropEmpty(parsed.data)) : undefined;
}

function dropEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropEmpty);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (field === undefined || field === null || field === "") continue;
      out[key] = dropEmpty(field);
    }
    return out;
  }
  return value;
}

/** True when `activity` waits for consensus, or completed with approvals of more than one user. */
export function wentThroughConsensus(activity: Activity): boolean {
  if (activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED") return true;
  if (activity.status !== "ACTIVITY_STATUS_COMPLETED") return false;
  const approvers = new Set(activity.votes.filter((v) => v.selection === "VOTE_SELECTION_APPROVED").map((v) => v.userId));
  return approvers.size > 1;
}

/**
 * The activities of `activities` (newest first) that express the same intent as `parameters`:
 * same type, created within the window before `nowMs`, equal parameters, and through consensus.
 * A COMPLETED one comes with the id its result names (one without an id does not match).
 */
export function matchingActivities<I>(
  declared: CreateActivity<I>,
  parameters: unknown,
  activities: readonly Activity[],
  nowMs: number,
): EarlierActivity[] {
  const def = operations[declared.operation] as ActivityDef;
  const wanted = intentKey(def, parameters);
  if (wanted === undefined) return [];
  const found: EarlierActivity[] = [];
  for (const activity of activities) {
    if (activity.type !== def.type || !wentThroughConsensus(activity)) continue;
    const createdMs = Number(activity.createdAt);
    if (!Number.isFinite(createdMs) || nowMs - createdMs > LOOKUP_WINDOW_MS) continue;
    if (intentKey(def, activity.intent[def.intentKey]) !== wanted) continue;
    if (activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED") {
      found.push({ activity });
      continue;
    }
    const result = def.result.safeParse(activity.result[def.resultKey]);
    const createdId = result.success ? declared.createdId(result.data as never) : undefined;
    if (createdId !== undefined) found.push({ activity, createdId });
  }
  return found;
}

/**
 * Reads one page of recent activities of the create's type that are waiting for consensus or
 * completed, and returns those with the same intent as `parameters` (newest first).
 */
export async function findEarlierActivities<I>(
  session: Session,
  declared: CreateActivity<I>,
  parameters: unknown,
): Promise<EarlierActivity[]> {
  const def = operations[declared.operation] as ActivityDef;
  let activities: Activity[];
  try {
    ({ activities } = await session.client.listActivities({
      filterByType: [def.type],
      filterByStatus: ["ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_COMPLETED"],
      paginationOptions: { limit: String(LOOKUP_PAGE_SIZE) },
    }));
  } catch (error) {
    if (error instanceof PermissionDeniedError || error instanceof NotImplementedError) return [];
    throw error;
  }
  return matchingActivities(declared, parameters, activities, Date.now());
}
