/**
 * @module resources/runtime/stages/journal
 * The create of a resource with a URN, whose ownership is proven (`ownership.ts`): journaled
 * before it is submitted, and submitted with the journaled timestamp, so a killed run's successor
 * sends the same bytes and gets its own activity (and object) back. A 409 then means the name is
 * held by an object this stack did not create: the create fails with {@link NotOwnedError},
 * naming it and the `importId` that adopts it. With a plural form, the create goes out in a batch
 * whose exact body is journaled (`batch-journal.ts`), unless this URN's entry is a singular
 * create to replay.
 */
import { ConflictError } from "../../../client/errors";
import { reportAdoption, ADOPTED_HOW } from "../adoption";
import { replayBatchItem } from "../batch-journal";
import type { Session } from "../client";
import { warnEngine } from "../engine-log";
import { isNotFound } from "../errors";
import { NotOwnedError } from "../object-errors";
import { entryForCreate, inputsKeyOf, mayStillApply, readEntry, refusedUnrun, removeEntry, renewEntry, stampedSession } from "../ownership";
import type { BaseInputs, BaseOutputs, CreateOutcome, Hint, ResourceSpec } from "../resource-spec";
import { submit } from "./submit";

/** Where the create's journal entry lives, and what it is for. */
export interface JournaledCreate<I> {
  readonly inputs: I;
  /** The inputs as declared (what the entry's key is made of). */
  readonly raw: Record<string, unknown>;
  readonly urn: string;
  readonly journalDir: string;
  readonly what: string;
}

/**
 * The created object (or the one this URN's journal says an earlier run made), without reading
 * it back unless a replay needs to. The journal entry stays: the engine records this create in
 * state after it returns, and a run killed in between must still find it.
 */
export async function journaledCreate<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, create: JournaledCreate<I>): Promise<CreateOutcome<O, L>> {
  const { inputs, raw, urn, journalDir } = create;
  const form = spec.batch?.create;
  const recorded = readEntry(journalDir, urn);
  const sameCreate = recorded !== undefined && recorded.inputsKey === inputsKeyOf(raw) && recorded.organizationId === s.organizationId;
  const label = spec.label(inputs);
  if (form === undefined || (sameCreate && recorded.batch === undefined)) {
    const outcome = await submitJournaled(spec, s, create);
    if (outcome.replay) await reportAdoption({ resourceType: spec.kind, label, id: outcome.created.id, how: ADOPTED_HOW.journaled, urn });
    return outcome.created;
  }
  // The batch an earlier run of this stack journaled for this URN, sent again byte-identical.
  const replayed = sameCreate ? await replayBatchItem(s, form, journalDir, recorded) : undefined;
  if (replayed !== undefined && !replayed.adoptable) {
    // This stack's own object, made with a secret that was never journaled (a generated
    // key pair): unusable, so it is deleted and made anew rather than left behind.
    await spec.remove(s, replayed.result.id, inputs as unknown as Partial<O>).catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
    await warnEngine(`keyform: replaced ${spec.kind} ${label} (${replayed.result.id}), made by an earlier run of this stack with a generated secret that run never recorded [${urn}]`);
  }
  // Its object, unless deleted since (a destroy, then an up of the same inputs): then a new create.
  const live = replayed === undefined || !replayed.adoptable ? undefined : await spec.fetch(s, replayed.result.id, inputs as unknown as Hint<I, O>);
  if (replayed !== undefined && live !== undefined) {
    const created = { ...replayed.result, live };
    await reportAdoption({ resourceType: spec.kind, label, id: created.id, how: ADOPTED_HOW.batchJournaled, urn });
    return created;
  }
  const owner = { urn, journalDir, kind: spec.kind, organizationId: s.organizationId, inputsKey: inputsKeyOf(raw) };
  // Waiting creates of this kind go out as one journaled plural activity; alone, or split out
  // of a refused batch, this one takes the journaled singular path.
  return submit(spec, s, { create: inputs, owner }, async () => (await submitJournaled(spec, s, create)).created);
}

/**
 * The journaled singular create: submitted under this URN's entry (a replay when the entry is
 * an earlier run's for the same inputs). `replay` says the object was that earlier run's.
 */
async function submitJournaled<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, create: JournaledCreate<I>): Promise<{ created: CreateOutcome<O, L>; replay: boolean }> {
  const { inputs, raw, urn, journalDir, what } = create;
  let created: CreateOutcome<O, L>;
  let { entry, replay } = entryForCreate(journalDir, urn, spec.kind, s.organizationId, raw);
  try {
    try {
      created = await spec.create(stampedSession(s, entry.timestampMs), inputs);
    } catch (error) {
      // The service holds no activity for the journaled bytes (it looks the fingerprint up
      // first) and refuses them as new (this old): the earlier run never got to send it.
      if (!(replay && refusedUnrun(error))) throw error;
      entry = renewEntry(journalDir, entry);
      replay = false;
      created = await spec.create(stampedSession(s, entry.timestampMs), inputs);
    }
    if (replay) {
      // The journaled request's object, unless it was deleted since (a destroy, then an
      // up of the same inputs): then this is a new create under a new entry.
      const live = await spec.fetch(s, created.id, inputs as unknown as Hint<I, O>);
      if (live === undefined) {
        entry = renewEntry(journalDir, entry);
        replay = false;
        created = await spec.create(stampedSession(s, entry.timestampMs), inputs);
      } else created = { ...created, live };
    }
  } catch (error) {
    if (!mayStillApply(error)) removeEntry(journalDir, urn);
    if (!(error instanceof ConflictError)) throw error;
    const existing = await spec.findExisting?.(s, inputs);
    if (existing === undefined) throw error;
    throw new NotOwnedError(what, spec.kind, existing.id, s.organizationId, error.serverMessage || error.message);
  }
  return { created, replay };
}
