/**
 * @module resources/runtime/batch
 * Plural activities: creates (or deletes) of one kind that wait at the same time go out as one
 * activity (`create_policies`, `create_users`, `delete_api_keys`, …) instead of one each.
 *
 * Why: the service limits requests, not objects (1 request/s on the Free plan), and the engine
 * runs every ready resource of a stack at once in one provider process. One activity per kind
 * per wave of ready objects is the fewest requests the service allows.
 *
 * How items meet: the first item of a group opens a batch that is sent when the process's pace
 * (`client/service-pace.ts`) would let a request start, and no sooner than {@link GATHER_MS}
 * after it opened; every item of the group that arrives meanwhile joins, up to the most one
 * activity takes. On an unlimited service that is a few milliseconds; on a limited plan the
 * wait for the next slot gathers the whole wave, and the batch also waits (within
 * {@link EXPECTED_GATHER_MS}) for the creates the engine announced by checking new resources of
 * its kind ({@link announceCreate}) and has not handed over yet, unless none of them can come:
 * when every operation slot of the engine is held by an item waiting in a batch, the engine
 * starts nothing more until a batch goes, so it goes (`engine-slots.ts`).
 *
 * Exactly once: a batch is one submit through the client, so a lost answer is recovered like
 * any other (the byte-identical body is resent, same fingerprint, and the service answers with
 * the activity it already has: every object of the batch is adopted, none made twice). Creates
 * of resources with a URN are journaled (`batch-journal.ts`): the batch's exact body is recorded
 * for this stack before it is sent, so a killed run's successor resends it and adopts each item
 * from the activity the service kept, as a journaled singular create does (`ownership.ts`). The
 * service runs a plural activity all or nothing, so a refused batch left nothing behind; it is
 * then split, the item the refusal names (`policies[3].policyName: …`) alone and the others
 * together, or in halves when it names none, down to single items that take the resource's own
 * singular path: the refused item fails on its own resource with its own message (or is adopted
 * there, as a 409 "already exists" is), and the others complete. A failure without a definite
 * answer fails every item of the batch with it.
 *
 * Not under consensus: where the organization can hold activities back for approval
 * (`earlier-work.ts`), every item takes the singular path, so each resource's own activity can
 * be reported and found again.
 */
import { ApiError } from "../../client/errors";
import { journaledBatchSession, type BatchOwner } from "./batch-journal";
import { stackOfUrn } from "./ownership";
import { mayNeedConsensus } from "./earlier-work";
import { everySlotWaits } from "./engine-slots";
import { perRun } from "./run-state";
import type { Session } from "./client";
import type { RunContext } from "./run-types";

/** What the batches of one configuration keep during its run. */
export interface RunBatches {
  /** The batches gathering items now, by kind, client, group and journal. */
  readonly batchGroups: Map<string, BatchGroup>;
  /**
   * Requests the batches made, by plural and singular submits and splits, and how many batches
   * went because every engine slot was held by a waiting item (benchmarks, tests).
   */
  readonly batchCounts: { plural: number; singular: number; split: number; everySlotWaiting: number };
  /** The URNs checked as new (a create is coming) that have not joined their batch yet, by kind and group. */
  readonly expectedCreates: Map<string, Set<string>>;
  /** When a create of each kind and group was last announced (epoch ms). */
  readonly lastAnnounced: Map<string, number>;
}

const batchesOfRun = perRun<RunBatches>(() => ({
  batchGroups: new Map(),
  batchCounts: { plural: 0, singular: 0, split: 0, everySlotWaiting: 0 },
  expectedCreates: new Map(),
  lastAnnounced: new Map(),
}));

/** The batches of `context`: what they gather, expect and counted (benchmarks, tests). */
export function batchesOf(context: RunContext): RunBatches {
  return batchesOfRun.of(context);
}

/** The shortest time a batch stays open for more items (ms). */
export const GATHER_MS = 10;
/**
 * On a limited service, a batch whose slot has come stays open while items keep joining (one
 * joined within this many ms, or within one slot of the plan when that is longer), up to
 * {@link MAX_GATHER_MS}: the engine hands over a wave of ready resources over a while, and every
 * extra activity costs a whole slot of the plan.
 */
export const IDLE_MS = 300;
export const MAX_GATHER_MS = 5_000;
/**
 * How long a batch on a limited service may wait for creates the engine has announced (checked
 * as new resources of its kind and group) but not handed over yet: under load the engine hands
 * a wave over across several seconds, and each item that misses the batch costs a slot of its
 * own. Bounded, because an announced create may never come (a failed dependency, `--target`).
 */
export const EXPECTED_GATHER_MS = 10_000;
/**
 * …and only while one of them joined (or was announced) within this many ms: after a longer pause
 * the rest are late, and the batch goes. On a loaded 2-core machine the engine was seen handing
 * over the creates of one wave up to 4.4 s apart (a user's create 3.6 s after its check, one of a
 * user's ten keys 2 s before the other nine): with a shorter pause each straggler cost an
 * activity, a whole slot, of its own.
 */
export const EXPECTED_IDLE_MS = 5_000;

/** A plural activity of one kind, as a resource declares it. */
export interface BatchForm<Item, Result> {
  /** The most items one activity takes. */
  readonly max: number;
  /** Items of different groups never share an activity (e.g. the API keys of different users). */
  group?(item: Item): string;
  /**
   * Submits one plural activity for `items` (two or more) and returns each item's result, in
   * order. Must throw, and apply nothing, when the service refuses any item.
   */
  submit(session: Session, items: readonly Item[]): Promise<Result[]>;
  /**
   * Whether an item's result can be taken from the same batch sent again (`batch-journal.ts`);
   * not when the create made something it does not journal (a generated private key). Default: yes.
   */
  replayable?(item: Item): boolean;
}

interface Waiting<Item, Result> {
  readonly item: Item;
  readonly single: () => Promise<Result>;
  /** Set for a create journaled for its stack: the batch is recorded before it is sent. */
  readonly owner?: BatchOwner;
  resolve(result: Result): void;
  reject(error: unknown): void;
}

/** The items of one kind, client and group gathering for their activity; kept in their configuration's {@link RunBatches}. */
export interface BatchGroup {
  readonly session: Session;
  /** The key of the creates announced for this group in the context's `expectedCreates`. */
  readonly expectKey: string;
  readonly waiting: Array<Waiting<unknown, unknown>>;
  scheduled: boolean;
  /** When the last item joined (epoch ms). */
  lastJoin: number;
}

/**
 * The result of `item`, made in one activity with the other items of `name` waiting now; or by
 * `single` (the resource's singular path) when alone, after a refusal, or under consensus.
 */
export async function batched<Item, Result>(
  name: string,
  form: BatchForm<Item, Result>,
  session: Session,
  item: Item,
  single: () => Promise<Result>,
  owner?: BatchOwner,
): Promise<Result> {
  const expectKey = expectedKey(name, form.group?.(item) ?? "");
  if (owner !== undefined) arrived(session.context, expectKey, owner.urn);
  if (await mayNeedConsensus(session)) return runSingle(session, single);
  // Journaled items share a batch only with items of the same stack's journal.
  const journal = owner === undefined ? "" : `${owner.journalDir}|${stackOfUrn(owner.urn)}`;
  const key = [name, session.client.baseUrl, session.organizationId, session.credentialPublicKey, form.group?.(item) ?? "", journal].join("|");
  const groups = batchesOf(session.context).batchGroups;
  let group = groups.get(key);
  if (group === undefined) {
    group = { session, expectKey, waiting: [], scheduled: false, lastJoin: 0 };
    groups.set(key, group);
  }
  const joined = new Promise<Result>((resolve, reject) => {
    group.waiting.push({ item, single, owner, resolve, reject } as Waiting<unknown, unknown>);
  });
  group.lastJoin = Date.now();
  if (!group.scheduled) {
    group.scheduled = true;
    void flushWhenFree(group, form as BatchForm<unknown, unknown>);
  }
  return joined;
}

/** Waits for the pace's next slot (gathering items meanwhile), then sends what waits. */
async function flushWhenFree(group: BatchGroup, form: BatchForm<unknown, unknown>): Promise<void> {
  const opened = Date.now();
  await new Promise((resolve) => setTimeout(resolve, GATHER_MS));
  await group.session.pace?.whenFree();
  const rate = group.session.pace?.rate;
  if (rate !== undefined && rate !== Infinity) {
    // Waiting for one more item is worth up to what one more activity would cost: a slot.
    const idleMs = Math.max(IDLE_MS, rate > 0 ? 1000 / rate : IDLE_MS);
    const context = group.session.context;
    const announced = () => batchesOf(context).expectedCreates.get(group.expectKey)?.size ?? 0;
    for (;;) {
      if (group.waiting.length >= form.max) break;
      // No announced create can still join: the engine's slots are all held by waiting items.
      if (everySlotWaits(context, waitingItems(context))) {
        batchesOf(context).batchCounts.everySlotWaiting += 1;
        break;
      }
      const now = Date.now();
      const open = now - opened;
      const idle = now - group.lastJoin;
      // Creates the engine announced and has not handed over yet are worth waiting for, up to a
      // bound; so are those it is still announcing (checks of this kind keep coming: the engine
      // is still registering the program's resources).
      const lastAnnounced = batchesOf(context).lastAnnounced.get(group.expectKey) ?? 0;
      const coming = announced() > 0 || now - lastAnnounced < idleMs;
      if (coming && open < EXPECTED_GATHER_MS && now - Math.max(group.lastJoin, lastAnnounced) < Math.max(EXPECTED_IDLE_MS, idleMs)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      if (idle >= idleMs || open >= MAX_GATHER_MS) break;
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 3));
    }
    // Other requests may have taken the slots meanwhile (singular deletes of invitations take
    // one each): the items are taken when a slot is free now, so those arriving until the batch
    // can really start travel with it instead of in a batch of their own.
    for (;;) {
      const before = Date.now();
      await group.session.pace?.whenFree();
      if (Date.now() - before < 5) break;
    }
  }
  group.scheduled = false;
  const taken = group.waiting.splice(0, Math.max(1, form.max));
  // More than one activity's worth: the rest go in the next slot.
  if (group.waiting.length > 0) {
    group.scheduled = true;
    void flushWhenFree(group, form);
  }
  await send(group.session, form, taken);
}

/** The items waiting in every batch of `context`, of every kind and group. */
function waitingItems(context: RunContext): number {
  let count = 0;
  for (const group of batchesOf(context).batchGroups.values()) count += group.waiting.length;
  return count;
}

function expectedKey(name: string, group: string): string {
  return `${name}|${group}`;
}

/**
 * Announces that the resource `urn` was checked as new: its create (of the batch `name`,
 * `group`) is coming, and a batch of that group gathering now may wait for it.
 */
export function announceCreate(context: RunContext, name: string, group: string, urn: string): void {
  const key = expectedKey(name, group);
  let urns = batchesOf(context).expectedCreates.get(key);
  if (urns === undefined) {
    urns = new Set();
    batchesOf(context).expectedCreates.set(key, urns);
  }
  urns.add(urn);
  batchesOf(context).lastAnnounced.set(key, Date.now());
}

/** The announced create of `urn` has come (joined its batch, or went another way): no batch waits for it. */
export function createArrived(context: RunContext, name: string, group: string, urn: string): void {
  arrived(context, expectedKey(name, group), urn);
}

function arrived(context: RunContext, key: string, urn: string): void {
  const urns = batchesOf(context).expectedCreates.get(key);
  if (urns === undefined) return;
  urns.delete(urn);
  if (urns.size === 0) batchesOf(context).expectedCreates.delete(key);
}

/** Sends `items` as one activity, splitting a refused batch as the module says. */
async function send(session: Session, form: BatchForm<unknown, unknown>, items: Array<Waiting<unknown, unknown>>): Promise<void> {
  if (items.length === 1) {
    const [only] = items;
    return runSingle(session, only!.single).then(only!.resolve, only!.reject);
  }
  let results: unknown[];
  const owners = items.map((w) => w.owner).filter((o): o is BatchOwner => o !== undefined);
  // Journaled: the record of this batch is written before its activity is sent (batch-journal.ts).
  const journaled = owners.length === items.length ? journaledBatchSession(session, owners, items.map((w) => w.item)) : undefined;
  try {
    batchesOf(session.context).batchCounts.plural += 1;
    results = await form.submit(journaled?.session ?? session, items.map((w) => w.item));
  } catch (error) {
    if (!isRefusal(error)) {
      for (const w of items) w.reject(error);
      return;
    }
    // Nothing of a refused batch was applied: its record stands for nothing.
    journaled?.forget();
    batchesOf(session.context).batchCounts.split += 1;
    const named = refusedIndex(error, items.length);
    const parts =
      named !== undefined
        ? [[items[named]!], items.filter((_, i) => i !== named)]
        : [items.slice(0, Math.ceil(items.length / 2)), items.slice(Math.ceil(items.length / 2))];
    await Promise.all(parts.filter((part) => part.length > 0).map((part) => send(session, form, part)));
    return;
  }
  if (results.length !== items.length) {
    const error = new Error(`a plural activity answered ${results.length} results for ${items.length} items`);
    for (const w of items) w.reject(error);
    return;
  }
  journaled?.answered(results);
  items.forEach((w, i) => w.resolve(results[i]));
}

function runSingle<Result>(session: Session, single: () => Promise<Result>): Promise<Result> {
  batchesOf(session.context).batchCounts.singular += 1;
  return single();
}

/**
 * A definite refusal: the service answered and ran nothing (a 4xx other than 408 and 429).
 * Anything else (no answer, 5xx, rate limit) says nothing about a single item.
 */
export function isRefusal(error: unknown): boolean {
  return error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

/** The item a refusal names (`policies[3].policyName: …`, `userIds[2]: …`), when it names one in range. */
export function refusedIndex(error: unknown, count: number): number | undefined {
  const message = error instanceof ApiError ? error.serverMessage || error.message : String(error);
  const match = /^[A-Za-z]+\[(\d+)\]/.exec(message);
  if (match === null) return undefined;
  const index = Number(match[1]);
  return index < count ? index : undefined;
}
