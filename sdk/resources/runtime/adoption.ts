/**
 * @module resources/runtime/adoption
 * An adoption as an event: a create that took over an existing object (made by an earlier run)
 * instead of creating it again reports an {@link AdoptionEvent}. The engine carries a provider's
 * diagnostics as text only, so the event travels as its message ({@link adoptionMessage}) and is
 * read back into the event on the other side ({@link adoptionOf}): both in this module, so the
 * GitOps runner (`sdk/gitops/run.ts`) reads events and no caller parses the wording.
 */
import { warnEngine } from "./engine-log";

/** How the adopted object came to be this resource's. */
export const ADOPTED_HOW = {
  /** Found by its unique name (409) or its create activity: an earlier run made it and did not record it. */
  unrecorded: "made by an earlier run that did not record it",
  /** This stack's journal holds its singular create (`ownership.ts`). */
  journaled: "its create was journaled by an earlier run of this stack",
  /** This stack's journal holds the batch it was created in (`batch-journal.ts`). */
  batchJournaled: "its batched create was journaled by an earlier run of this stack",
} as const;

/** A create that adopted an existing object. */
export interface AdoptionEvent {
  readonly event: "adopted";
  /** The resource class, e.g. `UserTag`. */
  readonly resourceType: string;
  /** The resource's label, e.g. its name. */
  readonly label: string;
  /** The adopted object's id. */
  readonly id: string;
  /** How it came to be this resource's (one of {@link ADOPTED_HOW}, as said). */
  readonly how: string;
  /** The resource's URN, when the create knew it. */
  readonly urn?: string;
}

/** The start of every adoption's message. */
export const ADOPTED_PREFIX = "keyform: adopted";

/** The message the engine shows for `event`. */
export function adoptionMessage(event: AdoptionEvent): string {
  return `${ADOPTED_PREFIX} ${event.resourceType} ${event.label} (${event.id}), ${event.how}${event.urn === undefined ? "" : ` [${event.urn}]`}`;
}

const ADOPTION = /^keyform: adopted (\S+) (.*) \(([^()]+)\), (.+?)(?: \[(urn:pulumi:[^\]]+)\])?$/su;

/** The adoption an engine diagnostic reports, or `undefined` when it reports none. */
export function adoptionOf(message: string): AdoptionEvent | undefined {
  const match = ADOPTION.exec(message.trimEnd());
  if (match === null) return undefined;
  const [, resourceType, label, id, how, urn] = match;
  return { event: "adopted", resourceType: resourceType!, label: label!, id: id!, how: how!, ...(urn === undefined ? {} : { urn }) };
}

/** Reports `event` to the engine, attached to the resource whose call is running. */
export function reportAdoption(event: Omit<AdoptionEvent, "event">): Promise<void> {
  return warnEngine(adoptionMessage({ event: "adopted", ...event }));
}
