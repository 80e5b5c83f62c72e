/**
 * @module resources/runtime/ownership
 * Each stack owns what it created, proven rather than inferred from equal names and inputs.
 *
 * Before a create is submitted, a journal entry bound to the stack and the resource's URN
 * records the `timestampMs` the request is stamped with (with the declared inputs it came
 * from). The service makes a byte-identical submit idempotent (the fingerprint is the SHA-256
 * of the exact body), so a killed run's successor, finding the entry for the same URN and the
 * same inputs, submits the same body again and gets back its own activity: the object that
 * activity made is this stack's (while it exists; one deleted since makes the create a new one,
 * under a new entry). The entry stays after a create succeeds, because the engine records the
 * create in state only after the provider answers, and a run killed in between must still find
 * it; a create that failed for good removes it.
 *
 * Without such proof an object holding the declared name is not this stack's: another stack's,
 * or made by hand. The framework then fails the create naming the object, its id, and the
 * `importId` that adopts it deliberately, instead of taking it over.
 *
 * Where: `<journalDir>/<stack>/<sha256 of the URN>.json`, `journalDir` being the setting
 * `keyform:journalDir` (`KEYFORM_JOURNAL_DIR`), default `.keyform/journal` in the directory the
 * provider runs in (the Pulumi project's). A pipeline that runs each `up` on a fresh machine
 * keeps that folder with the stack's state (a cache, or a shared volume).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  ActivityPollTimeoutError,
  AuthenticatorsNeededError,
  BadRequestError,
  ConnectionError,
  ConsensusNeededError,
  SubmitOutcomeUnknownError,
  TimeoutError,
} from "../../client/errors";
import { operations } from "../../wire/registry";
import type { Session } from "./client";
import { canonicalJson } from "./values";

/** One create in flight. */
export interface JournalEntry {
  readonly urn: string;
  readonly kind: string;
  readonly organizationId: string;
  /** SHA-256 of the canonical declared inputs: a replay only stands for the same inputs. */
  readonly inputsKey: string;
  /** The timestamp every activity of this create is stamped with. */
  readonly timestampMs: string;
  /**
   * Set when the create went out in a plural activity (`batch-journal.ts`): the batch record
   * holding the exact body, and this item's index in it. Such an entry is replayed by resending
   * that batch, never as a singular create.
   */
  readonly batch?: { readonly record: string; readonly index: number };
}

/** The stack a URN belongs to (`urn:pulumi:<stack>::...`). */
export function stackOfUrn(urn: string): string {
  return urn.slice("urn:pulumi:".length).split("::")[0] ?? "unknown";
}

/** The folder of the journal of the stack `urn` belongs to. */
export function stackFolder(journalDir: string, urn: string): string {
  return path.join(journalDir, stackOfUrn(urn).replace(/[^A-Za-z0-9._-]/g, "_"));
}

function entryPath(journalDir: string, urn: string): string {
  return path.join(stackFolder(journalDir, urn), `${createHash("sha256").update(urn).digest("hex")}.json`);
}

/** The key of declared inputs (the hidden URN input left out). */
export function inputsKeyOf(inputs: Record<string, unknown>): string {
  const { __urn: _urn, __provider: _provider, ...rest } = inputs;
  return createHash("sha256").update(canonicalJson(rest)).digest("hex");
}

/** The entry recorded for `urn`, if any (an unreadable one counts as none). */
export function readEntry(journalDir: string, urn: string): JournalEntry | undefined {
  try {
    const entry = JSON.parse(fs.readFileSync(entryPath(journalDir, urn), "utf8")) as JournalEntry;
    return entry.urn === urn ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Records `entry` durably (written, flushed, then renamed into place) before the submit. */
export function writeEntry(journalDir: string, entry: JournalEntry): void {
  writeDurably(entryPath(journalDir, entry.urn), JSON.stringify(entry));
}

/** Writes `text` to `file` durably: written, flushed, then renamed into place. */
export function writeDurably(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(temporary, "w");
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}

/** Removes the entry of `urn` (the create ended). */
export function removeEntry(journalDir: string, urn: string): void {
  fs.rmSync(entryPath(journalDir, urn), { force: true });
}

/**
 * How far before now a create of `urn` dates its request: 0-999 ms, fixed per URN (and so per
 * stack). Why: the service takes byte-identical bodies as one request (the fingerprint), and two
 * stacks declaring the same object (an invitation has no unique name) that submit in the same
 * millisecond would otherwise send identical bodies and share one object. With the offset they
 * coincide only when their clocks differ by exactly the difference of their offsets; that makes
 * it rare, not impossible, which the journal alone cannot rule out.
 */
function timestampOffsetMs(urn: string): number {
  return createHash("sha256").update(urn).digest().readUInt16BE(0) % 1000;
}

/**
 * The request timestamp of a plural create of `urns`, dated by an offset fixed by all of them
 * (and so by the stack), for the reason {@link timestampOffsetMs} gives.
 */
export function batchTimestampFor(urns: readonly string[]): string {
  return timestampFor(urns.join("\n"));
}

/** A request timestamp for a create of `urn` that is not before `notBefore`. */
function timestampFor(urn: string, notBefore = 0): string {
  return String(Math.max(Date.now() - timestampOffsetMs(urn), notBefore));
}

/**
 * The entry a create of `urn` with `inputs` submits under: the recorded one when it stands for
 * the same inputs (a replay), else a new one, written before anything is sent.
 */
export function entryForCreate(journalDir: string, urn: string, kind: string, organizationId: string, inputs: Record<string, unknown>): { entry: JournalEntry; replay: boolean } {
  const inputsKey = inputsKeyOf(inputs);
  const recorded = readEntry(journalDir, urn);
  // An entry of a batched create is replayed by resending its batch (batch-journal.ts), not here.
  if (recorded !== undefined && recorded.batch === undefined && recorded.inputsKey === inputsKey && recorded.organizationId === organizationId) return { entry: recorded, replay: true };
  const entry: JournalEntry = { urn, kind, organizationId, inputsKey, timestampMs: timestampFor(urn) };
  writeEntry(journalDir, entry);
  return { entry, replay: false };
}

/** A new entry for the same create (a new timestamp), written before anything is sent. */
export function renewEntry(journalDir: string, entry: JournalEntry): JournalEntry {
  const { batch: _batch, ...singular } = entry;
  const renewed = { ...singular, timestampMs: timestampFor(entry.urn, Number(entry.timestampMs) + 1) };
  writeEntry(journalDir, renewed);
  return renewed;
}

const activityNames = new Set(Object.entries(operations).filter(([, def]) => (def as { kind: string }).kind === "activity").map(([name]) => name));

/** Sends an activity on: the client's own `callActivity` / `submitActivity` with `options`. */
export type ForwardActivity = (operation: string, parameters: unknown, options: Record<string, unknown>) => Promise<unknown>;

/**
 * `session` with a client whose every activity call (by its operation method, `callActivity` or
 * `submitActivity`) goes through `intercept`, which may change its parameters and options before
 * forwarding it; queries pass unchanged.
 */
export function interceptActivities(
  session: Session,
  intercept: (operation: string, parameters: unknown, options: Record<string, unknown>, forward: ForwardActivity) => Promise<unknown>,
): Session {
  const via = (method: "callActivity" | "submitActivity"): ForwardActivity => (operation, parameters, options) =>
    (session.client[method] as (n: string, p: unknown, o?: unknown) => Promise<unknown>).call(session.client, operation, parameters, options);
  const client = new Proxy(session.client, {
    get(target, property) {
      if (typeof property === "string" && activityNames.has(property)) {
        return (parameters: unknown, options?: Record<string, unknown>) => intercept(property, parameters, options ?? {}, via("callActivity"));
      }
      if (property === "callActivity" || property === "submitActivity") {
        return (name: string, parameters: unknown, options?: Record<string, unknown>) => intercept(name, parameters, options ?? {}, via(property));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...session, client };
}

/**
 * `session` with a client whose activity submits are stamped with `timestampMs`: the create
 * sends the same bytes as the journaled one, so the service answers with the same activity.
 */
export function stampedSession(session: Session, timestampMs: string): Session {
  return interceptActivities(session, (operation, parameters, options, forward) => forward(operation, parameters, { ...options, timestampMs }));
}

/**
 * Whether a create that failed with `error` may still make (or have made) its object: the
 * outcome is unknown, or the activity waits for approvals. Its entry is kept so that the next
 * run gets that activity back; after any other failure the entry is removed.
 */
export function mayStillApply(error: unknown): boolean {
  return [SubmitOutcomeUnknownError, ConsensusNeededError, AuthenticatorsNeededError, ActivityPollTimeoutError, ConnectionError, TimeoutError].some((type) => error instanceof type);
}

/**
 * Whether the service refused a journaled body without running it. The service looks a body's
 * fingerprint up before it validates anything, so a refusal of a resent body means it holds no
 * activity for it: the earlier run never got it through (typically its `timestampMs` is now too
 * old). Told by the error's class, never its wording: a body refused for another reason is
 * refused again once renewed, which costs one request and makes nothing.
 */
export function refusedUnrun(error: unknown): boolean {
  return error instanceof BadRequestError;
}
