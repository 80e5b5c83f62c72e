/**
 * @module resources/runtime/stages/earlier-run
 * A create without a URN (the handlers called outside an engine run, so no journal proves what
 * this stack made) looks for the work of an earlier run instead: the same create activity in the
 * history (`earlier-activity.ts`; when, `earlier-work.ts`), and after a 409 the object holding
 * the unique name ({@link ResourceSpec.findExisting}).
 */
import type { ConflictError } from "../../../client/errors";
import type { Session } from "../client";
import { matchingActivities } from "../earlier-activity";
import { claim, isClaimed, needsHistory, recentCreates } from "../earlier-work";
import { consensusNeededMessage, ProviderError } from "../errors";
import { DiffersFromDeclaredError, HeldByAnotherResourceError } from "../object-errors";
import type { BaseInputs, BaseOutputs, Hint, ResourceSpec } from "../resource-spec";
import { differencesFrom } from "./compare";
import { reconcile } from "./reconcile";

/**
 * The earlier run's object this create stands for, or `undefined` when there is none: before
 * the create (`conflict` unset), the same create activity when `earlier-work.ts` says it is worth
 * looking; after the service refused the create with 409 (`conflict`), that activity, else the
 * object holding the name.
 * @throws {ProviderError} naming a waiting activity, or why the object holding the name is not this resource's.
 */
export async function findEarlierRun<I extends BaseInputs, O extends BaseOutputs, L>(
  spec: ResourceSpec<I, O, L>,
  s: Session,
  inputs: I,
  what: string,
  conflict?: ConflictError,
): Promise<{ id: string; live: L } | undefined> {
  const earlier = await adoptEarlierActivity(spec, s, inputs, what, conflict !== undefined);
  if (earlier !== undefined || conflict === undefined) return earlier;
  return adoptConflicting(spec, s, inputs, conflict, what);
}

/**
 * Why this exists: an earlier run may have made this object without recording it (approved
 * under consensus since, killed mid-`up`, answer lost). Submitting again would be a new
 * activity (new timestamp, new fingerprint): a duplicate, a second pending request, or a 409
 * on every run. So look for the same request made earlier (bounded: one page, 7 days;
 * `earlier-activity.ts`), when `earlier-work.ts` says it is worth it or `afterConflict` (the
 * service just answered 409). One that completed, whose object still exists and that no other
 * resource of this run holds, is adopted like `importId` (including the update when the
 * object changed since); else one still waiting is reported again; else `undefined`.
 * @throws {ProviderError} naming the waiting activity's id and fingerprint.
 */
async function adoptEarlierActivity<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, inputs: I, what: string, afterConflict: boolean): Promise<{ id: string; live: L } | undefined> {
  const declared = spec.createActivity;
  const parameters = declared?.parameters(inputs);
  if (declared === undefined || parameters === undefined) return undefined;
  if (!afterConflict && !(await needsHistory(s, spec.findExisting !== undefined))) return undefined;
  const earlier = matchingActivities(declared, parameters, await recentCreates(s, declared), Date.now());
  for (const { activity, createdId } of earlier) {
    // Held by another resource of this run (two resources with the same parameters).
    if (createdId === undefined || isClaimed(s, spec.kind, createdId)) continue;
    const live = await spec.fetch(s, createdId, inputs as unknown as Hint<I, O>);
    // Deleted since: it does not stand for this resource any more.
    if (live === undefined) continue;
    claim(s, spec.kind, createdId);
    return reconcile(spec, s, inputs, createdId, live, what, { by: "activity", activityId: activity.id });
  }
  const waiting = earlier.find((e) => e.activity.status === "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  if (waiting !== undefined) {
    throw new ProviderError(consensusNeededMessage(what, waiting.activity.id, waiting.activity.fingerprint, true));
  }
  return undefined;
}

/**
 * After a 409 "already exists": the object holding the unique name, adopted when it matches
 * every declared input (an earlier run made it and did not record it). One that differs, or
 * that another resource of this run holds, is an error naming its id and how to adopt it.
 * `undefined` when the resource cannot look it up, or nothing is found.
 * @throws {HeldByAnotherResourceError | DiffersFromDeclaredError} when the existing object is not this resource's.
 */
async function adoptConflicting<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, inputs: I, conflict: ConflictError, what: string): Promise<{ id: string; live: L } | undefined> {
  const existing = await spec.findExisting?.(s, inputs);
  if (existing === undefined) return undefined;
  const { id, live } = existing;
  const differences = differencesFrom(spec, live, inputs);
  const refusal = conflict.serverMessage || conflict.message;
  if (isClaimed(s, spec.kind, id)) throw new HeldByAnotherResourceError(what, spec.kind, id, refusal);
  if (differences.length > 0) throw new DiffersFromDeclaredError(what, spec.kind, id, { by: "conflict", conflict: refusal }, differences, false);
  claim(s, spec.kind, id);
  return { id, live };
}
