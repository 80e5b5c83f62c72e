/**
 * @module resources/runtime/earlier-activity
 * Finds an earlier activity that expresses the same intent as a create about to be submitted.
 *
 * Why: an earlier run may have made the object without recording it. Under consensus the
 * first `pulumi up` only submits the activity, which completes when other quorum members
 * approve it; a run killed mid-`up` leaves creates the service applied and the state does not
 * know; a response lost on the way back does the same. Submitting again would make a new
 * activity (a new `timestampMs`, so a new fingerprint): a duplicate object, a second pending
 * request, or a 409 on every later run. So a create looks for an earlier activity of the same
 * type whose parameters are exactly the ones it would send. A pending one is reported again
 * (approve it); a completed one whose object still exists is adopted. When the framework looks
 * is decided in `earlier-work.ts`.
 *
 * The search is bounded: one page of {@link LOOKUP_PAGE_SIZE} activities of that type (newest
 * first, filtered by status on the service), and only activities created within
 * {@link LOOKUP_WINDOW_MS} (7 days). Older requests are not considered the same intent.
 *
 * A COMPLETED activity by any API key of the organization matches, as does one waiting for
 * consensus: a stack is often applied with several keys (a developer's, the pipeline's), and
 * what identifies the work is the type and every parameter, within the window. The framework
 * adopts a completed one only while its object exists and no other resource of the run holds
 * it (`earlier-work.ts`).
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
  /**
   * For a plural operation whose creates are batched (`batch.ts`): the parameter holding the
   * items, and the id the result names for item `index`. With it, this resource's single-item
   * parameters also match one item of an earlier batched activity (the other parameters equal).
   */
  readonly items?: { readonly key: string; createdIdAt(result: ResultOf<K>, index: number): string | undefined };
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

/**
 * The activities of `activities` (newest first) that express the same intent as `parameters`:
 * same type, created within the window before `nowMs`, equal parameters, completed or waiting
 * for consensus.
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
    if (activity.type !== def.type) continue;
    if (activity.status !== "ACTIVITY_STATUS_COMPLETED" && activity.status !== "ACTIVITY_STATUS_CONSENSUS_NEEDED") continue;
    const createdMs = Number(activity.createdAt);
    if (!Number.isFinite(createdMs) || nowMs - createdMs > LOOKUP_WINDOW_MS) continue;
    const intent = activity.intent[def.intentKey];
    if (intentKey(def, intent) === wanted) {
      if (activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED") {
        found.push({ activity });
        continue;
      }
      const result = def.result.safeParse(activity.result[def.resultKey]);
      const createdId = result.success ? declared.createdId(result.data as never) : undefined;
      if (createdId !== undefined) found.push({ activity, createdId });
      continue;
    }
    // One item of a batched create (completed only: batches are not sent under consensus).
    if (declared.items === undefined || activity.status !== "ACTIVITY_STATUS_COMPLETED") continue;
    const { key, createdIdAt } = declared.items;
    const items = (intent as Record<string, unknown> | undefined)?.[key];
    if (!Array.isArray(items) || items.length < 2) continue;
    const result = def.result.safeParse(activity.result[def.resultKey]);
    if (!result.success) continue;
    items.forEach((item, index) => {
      if (intentKey(def, { ...(intent as object), [key]: [item] }) !== wanted) return;
      const createdId = createdIdAt(result.data as never, index);
      if (createdId !== undefined) found.push({ activity, createdId });
    });
  }
  return found;
}

/**
 * Reads one page of recent activities of the create's type that are waiting for consensus or
 * completed (newest first); none when the key may not list them (403) or the service cannot.
 */
export async function readRecentCreates<I>(session: Session, declared: CreateActivity<I>): Promise<Activity[]> {
  const def = operations[declared.operation] as ActivityDef;
  try {
    const { activities } = await session.client.listActivities({
      filterByType: [def.type],
      filterByStatus: ["ACTIVITY_STATUS_CONSENSUS_NEEDED", "ACTIVITY_STATUS_COMPLETED"],
      paginationOptions: { limit: String(LOOKUP_PAGE_SIZE) },
    });
    return activities;
  } catch (error) {
    if (error instanceof PermissionDeniedError || error instanceof NotImplementedError) return [];
    throw error;
  }
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
  return matchingActivities(declared, parameters, await readRecentCreates(session, declared), Date.now());
}
