/**
 * @module resources/runtime/batch-journal
 * A plural create under the ownership journal (`ownership.ts`): what lets the creates of a batch
 * keep the guarantees of a journaled singular create.
 *
 * Before a plural activity is submitted, one record of the batch is written: the activity, its
 * exact parameters, the `timestampMs` it is stamped with, and the URNs and inputs of its items in
 * order. Then each item's journal entry is written, pointing at the record and its index there,
 * and only then is the activity sent. After a lost answer or a `kill -9`, a create of one of
 * those URNs (same inputs) finds its entry, and the record's body is sent again byte-identical:
 * same fingerprint, so the service answers with the activity it already has, and each item takes
 * its object from that activity's result by its index. Every item of a batch shares one resend
 * per process. Nothing is adopted that this stack did not submit: the record lives in the stack's
 * own journal folder, and its timestamp is dated by an offset fixed by the batch's URNs (which
 * name the stack), so two stacks declaring the same objects do not send one identical body.
 *
 * A record whose body the service never ran (refused, or too old for a new activity, which means
 * it was never sent) stands for nothing: its items are created afresh.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { ActivityFailedError, ActivityRejectedError, ApiError } from "../../client/errors";
import type { Session } from "./client";
import { directContext, type ProviderContext } from "./context";
import { batchTimestampFor, interceptActivities, stackFolder, writeEntry, writeDurably, type JournalEntry } from "./ownership";

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
export function journaledBatchSession(session: Session, owners: readonly BatchOwner[], items: readonly unknown[]): { session: Session; forget(): void } {
  const first = owners[0]!;
  const timestampMs = batchTimestampFor(owners.map((o) => o.urn));
  const name = `batch-${createHash("sha256").update(`${timestampMs}\n${owners.map((o) => o.urn).join("\n")}`).digest("hex")}.json`;
  let written = false;
  const journaled = interceptActivities(session, (operation, parameters, options, forward) => {
    if (written) throw new Error(`a batch form submitted a second activity (${operation}) in one plural create`);
    const record: BatchRecord = {
      kind: first.kind,
      organizationId: first.organizationId,
      operation,
      timestampMs,
      parameters,
      urns: owners.map((o) => o.urn),
      items,
    };
    writeDurably(recordPath(first.journalDir, first.urn, name), JSON.stringify(record));
    owners.forEach((owner, index) => {
      const entry: JournalEntry = { urn: owner.urn, kind: owner.kind, organizationId: owner.organizationId, inputsKey: owner.inputsKey, timestampMs, batch: { record: name, index } };
      writeEntry(owner.journalDir, entry);
    });
    written = true;
    return forward(operation, parameters, { ...options, timestampMs });
  });
  return {
    session: journaled,
    forget: () => {
      if (written) fs.rmSync(recordPath(first.journalDir, first.urn, name), { force: true });
    },
  };
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
  let record: BatchRecord;
  try {
    record = JSON.parse(fs.readFileSync(file, "utf8")) as BatchRecord;
  } catch {
    return undefined;
  }
  if (record.urns[pointer.index] !== entry.urn || record.organizationId !== session.organizationId) return undefined;
  const item = record.items[pointer.index];
  // A replay in flight or done, per record file: every item of a batch shares one resend.
  const replays = session.context.batchReplays;
  let replay = replays.get(file);
  if (replay === undefined) {
    replay = resend(session, form, record);
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
export function forgetBatchReplays(context: ProviderContext = directContext()): void {
  context.batchReplays.clear();
}
