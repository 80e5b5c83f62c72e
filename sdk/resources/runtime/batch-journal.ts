/**
 * @module resources/runtime/batch-journal
 * A plural create under the ownership journal (`ownership.ts`): what lets the creates of a batch
 * keep the guarantees of a journaled singular create.
 *
 * Before a plural activity is submitted, one record of the batch is written: the activity, its
 * exact parameters, the `timestampMs` it is stamped with, and the URNs and inputs of its items in
 * order. Each item's journal entry, pointing at the record and its index there, is written
 * before the record, and the activity is sent only after both. After a lost answer or a
 * `kill -9`, a create of one of those URNs (same inputs) finds its entry, and the record's body
 * is sent again byte-identical: same fingerprint, so the service answers with the activity it
 * already has, and each item takes its object from that activity's result by its index. Every
 * item of a batch shares one resend per process. Nothing is adopted that this stack did not
 * submit: the record lives in the stack's own journal folder, and its timestamp is dated by an
 * offset fixed by the batch's URNs (which name the stack), so two stacks declaring the same
 * objects do not send one identical body.
 *
 * A record whose body the service never ran (refused, or too old for a new activity, which means
 * it was never sent) stands for nothing: its items are created afresh.
 *
 * Clean-up: once the activity answered, the record also keeps the id each item was given. The
 * engine records a create in state only after the provider answers, so the provider learns that
 * an item is settled when the engine next hands it the object from state (a diff or a delete)
 * with that very id: the item's entry is then removed, and the record with the last entry that
 * points at it ({@link settleBatchItem}). Until then both stay, so a run killed before the state
 * was written still finds them (a killed run's resend records the ids too).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ActivityFailedError, ActivityRejectedError, ApiError } from "../../client/errors";
import { directContext } from "./context";
import { perRun } from "./run-state";
import type { Session } from "./client";
import type { RunContext } from "./run-types";
import { batchTimestampFor, interceptActivities, readEntry, removeEntry, stackFolder, writeEntry, writeDurably, type JournalEntry } from "./ownership";

/** Resends of journaled batches of a configuration, in flight or done, by record file. */
const replaysOfRun = perRun(() => new Map<string, Promise<unknown[] | undefined>>());

/** Who an item of an owned batch belongs to: its resource's URN, and the journal it is recorded in. */
export interface BatchOwner {
  readonly urn: string;
  readonly journalDir: string;
  readonly kind: string;
  readonly organizationId: string;
  /** SHA-256 of the declared inputs (`inputsKeyOf`): a replay stands only for the same inputs. */
  readonly inputsKey: string;
}

/** One plural create as it was sent. */
export interface BatchRecord {
  readonly kind: string;
  readonly organizationId: string;
  /** The client operation, e.g. `createPolicies`. */
  readonly operation: string;
  readonly timestampMs: string;
  /** The activity's parameters exactly as submitted. */
  readonly parameters: unknown;
  readonly urns: readonly string[];
  /** Each item as the batch form received it (normalized inputs; no secrets). */
  readonly items: readonly unknown[];
  /** The id each item was given, in order: written once the activity answered. */
  readonly ids?: ReadonlyArray<string | undefined>;
}

/** The pointer a journal entry of a batched create holds. */
export interface BatchPointer {
  /** The record's file name in the stack's journal folder. */
  readonly record: string;
  readonly index: number;
}

function recordPath(journalDir: string, urn: string, record: string): string {
  return path.join(stackFolder(journalDir, urn), record);
}

/**
 * `session` for submitting the plural create of `items`: its one activity call first writes the
 * batch record and every item's entry (durably), then sends the parameters stamped with the
 * record's timestamp. `forget` removes the record after a refusal (nothing of it was applied).
 */
export function journaledBatchSession(
  session: Session,
  owners: readonly BatchOwner[],
  items: readonly unknown[],
): { session: Session; forget(): void; answered(results: readonly unknown[]): void } {
  const first = owners[0]!;
  const timestampMs = batchTimestampFor(owners.map((o) => o.urn));
  const name = `batch-${createHash("sha256").update(`${timestampMs}\n${owners.map((o) => o.urn).join("\n")}`).digest("hex")}.json`;
  let written: BatchRecord | undefined;
  const journaled = interceptActivities(session, (operation, parameters, options, forward) => {
    if (written !== undefined) throw new Error(`a batch form submitted a second activity (${operation}) in one plural create`);
    const record: BatchRecord = {
      kind: first.kind,
      organizationId: first.organizationId,
      operation,
      timestampMs,
      parameters,
      urns: owners.map((o) => o.urn),
      items,
    };
    // The entries first, the record last: a record stands for every item it lists, so it may
    // exist only once each of them has its entry. Written the other way, a run killed between two
    // entries left a record whose later items had none: the next run resent the record for the
    // items with an entry (creating every item, since it had never been sent) and created the
    // others afresh, twice. An entry whose record is missing stands for nothing (never sent).
    owners.forEach((owner, index) => {
      const entry: JournalEntry = { urn: owner.urn, kind: owner.kind, organizationId: owner.organizationId, inputsKey: owner.inputsKey, timestampMs, batch: { record: name, index } };
      writeEntry(owner.journalDir, entry);
    });
    writeDurably(recordPath(first.journalDir, first.urn, name), JSON.stringify(record));
    written = record;
    return forward(operation, parameters, { ...options, timestampMs });
  });
  return {
    session: journaled,
    forget: () => {
      if (written !== undefined) fs.rmSync(recordPath(first.journalDir, first.urn, name), { force: true });
    },
    answered: (results) => {
      if (written !== undefined) recordIds(recordPath(first.journalDir, first.urn, name), written, results);
    },
  };
}

/** Adds the ids the activity gave its items to the record (what {@link settleBatchItem} compares with state). */
function recordIds(file: string, record: BatchRecord, results: readonly unknown[]): void {
  const ids = results.map((result) => {
    const id = (result as { id?: unknown } | undefined)?.id;
    return typeof id === "string" ? id : undefined;
  });
  try {
    writeDurably(file, JSON.stringify({ ...record, ids }));
  } catch {
    // Only the clean-up needs them: without ids the record stays, as before.
  }
}

/** Per journal folder: the id of every item of a record that has ids, and where it is (read once per process). */
const settledIndex = new Map<string, Map<string, { file: string; urn: string; index: number }>>();

function indexOf(journalDir: string): Map<string, { file: string; urn: string; index: number }> {
  let index = settledIndex.get(journalDir);
  if (index !== undefined) return index;
  index = new Map();
  settledIndex.set(journalDir, index);
  let stacks: string[] = [];
  try {
    stacks = fs.readdirSync(journalDir);
  } catch {
    return index;
  }
  for (const stack of stacks) {
    let files: string[] = [];
    try {
      files = fs.readdirSync(path.join(journalDir, stack)).filter((name) => name.startsWith("batch-") && name.endsWith(".json"));
    } catch {
      continue;
    }
    for (const name of files) {
      const file = path.join(journalDir, stack, name);
      const record = readRecord(file);
      record?.ids?.forEach((id, i) => {
        if (id !== undefined && record.urns[i] !== undefined) index.set(id, { file, urn: record.urns[i]!, index: i });
      });
    }
  }
  return index;
}

/**
 * Called when the engine hands over the object `id` from its state (a diff or a delete): if a
 * batch record of `journalDir` gave an item this very id, that create is recorded in state and
 * its entry has done its job: the entry is removed (when it still points at that item), and so
 * is the record once no entry points at it any more. Anything else (a singular entry, a record
 * without ids, an id no record holds) is left as it is. Never throws: only tidiness is at stake.
 */
export function settleBatchItem(journalDir: string, id: string): void {
  try {
    const index = indexOf(journalDir);
    const item = index.get(id);
    if (item === undefined) return;
    index.delete(id);
    const name = path.basename(item.file);
    const entry = readEntry(journalDir, item.urn);
    if (entry?.batch?.record === name && entry.batch.index === item.index) removeEntry(journalDir, item.urn);
    const record = readRecord(item.file);
    if (record === undefined) return;
    const pending = record.urns.some((urn) => readEntry(journalDir, urn)?.batch?.record === name);
    if (!pending) fs.rmSync(item.file, { force: true });
  } catch {
    // A journal that cannot be read or changed keeps its files, as before.
  }
}

/** Forgets the index of settled items (tests that restart "a run" in one process). */
export function forgetSettledIndex(): void {
  settledIndex.clear();
}

function readRecord(file: string): BatchRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as BatchRecord;
  } catch {
    return undefined;
  }
}

/** What replaying needs of a batch form. */
export interface ReplayForm<Result> {
  submit(session: Session, items: readonly never[]): Promise<Result[]>;
  /** Whether an item's result can be taken from a resent batch (not when the create made a secret it did not journal). */
  replayable?(item: never): boolean;
}

/** What a journaled batch item's replay found. */
export interface ReplayedItem<Result> {
  /** The item's result from the activity the service kept for the record's body. */
  readonly result: Result;
  /**
   * False when the result cannot stand for the resource (the create made a secret it never
   * journaled): the object is this stack's own, but unusable, and is to be replaced.
   */
  readonly adoptable: boolean;
}

/**
 * The journaled batch item `entry` points at, from the activity the service already has for the
 * record's exact body; `undefined` when there is nothing of it: the record is gone, or the
 * service never ran that body (refused, or too old to be new: never sent). A failure without a
 * definite answer is thrown (the entry stays).
 */
export async function replayBatchItem<Result>(session: Session, form: ReplayForm<Result>, journalDir: string, entry: JournalEntry): Promise<ReplayedItem<Result> | undefined> {
  const pointer = entry.batch;
  if (pointer === undefined) return undefined;
  const file = recordPath(journalDir, entry.urn, pointer.record);
  const record = readRecord(file);
  if (record === undefined) return undefined;
  if (record.urns[pointer.index] !== entry.urn || record.organizationId !== session.organizationId) return undefined;
  const item = record.items[pointer.index];
  // A replay in flight or done, per record file: every item of a batch shares one resend.
  const replays = replaysOfRun.of(session.context);
  let replay = replays.get(file);
  if (replay === undefined) {
    replay = resend(session, form, record).then((results) => {
      if (results !== undefined && record.ids === undefined) recordIds(file, record, results);
      return results;
    });
    replays.set(file, replay);
    // A failure is reported to every item waiting for it, then forgotten, so a later create retries.
    replay.catch(() => replays.delete(file));
  }
  const results = await replay;
  const result = results?.[pointer.index] as Result | undefined;
  if (result === undefined) return undefined;
  return { result, adoptable: form.replayable === undefined || form.replayable(item as never) };
}

/** Sends the record's body again, byte-identical; each item's result in order, or `undefined` when the service never ran it. */
async function resend<Result>(session: Session, form: ReplayForm<Result>, record: BatchRecord): Promise<Result[] | undefined> {
  const exact = interceptActivities(session, (operation, _built, options, forward) => {
    if (operation !== record.operation) throw new Error(`a batch replay of ${record.operation} submitted ${operation}`);
    return forward(operation, record.parameters, { ...options, timestampMs: record.timestampMs });
  });
  try {
    const results = await form.submit(exact, record.items as never[]);
    return results.length === record.items.length ? results : undefined;
  } catch (error) {
    if (isNotRun(error)) return undefined;
    throw error;
  }
}

/** The service answered that it ran nothing: a refusal (4xx other than 408 and 429), or an activity that failed or was rejected. */
function isNotRun(error: unknown): boolean {
  if (error instanceof ActivityFailedError || error instanceof ActivityRejectedError) return true;
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

/** Forgets every replay of `context` (tests that restart "a run" in one process). */
export function forgetBatchReplays(context: RunContext = directContext()): void {
  replaysOfRun.forget(context);
}
