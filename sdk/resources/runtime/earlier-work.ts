/**
 * @module resources/runtime/earlier-work
 * What one provider process remembers so that a create recognises work an earlier run did
 * (a run killed mid-`up`, a response lost on the way back, an activity approved by a quorum
 * since) without paying a lookup on every create:
 *
 * - Which objects this process has already created or adopted ("claims"), so that two
 *   resources never take over the same object.
 * - Whether an organization can hold activities back for consensus (a root quorum above one,
 *   or a policy with a consensus expression): read once per process with `get_organization`.
 * - The recent create activities of a type (one `list_activities` page), read once per
 *   process and type the first time a create needs them.
 *
 * When a create reads the history (see {@link needsHistory}): resources with no unique name
 * (Invitation: nothing else tells a repeat apart), and every resource of an organization that
 * can hold activities back (a create may be waiting for approval, or approved since). The
 * other resources learn about earlier work from the service's 409 "already exists" on their
 * unique name (`ResourceSpec.findExisting`), which costs nothing when nothing went wrong.
 */
import type { Activity } from "../../wire/activity";
import type { ActivityDef } from "../../wire/define";
import { operations } from "../../wire/registry";
import { directContext } from "./context";
import { readRecentCreates, type CreateActivity } from "./earlier-activity";
import { perRun } from "./run-state";
import type { Session } from "./client";
import type { RunContext } from "./run-types";
import { collections } from "./shared-reads";

/** What a configuration remembers of earlier work. */
const earlierWorkOfRun = perRun(() => ({
  /** `kind|organization|id` of every object a resource of this run stands for (created or adopted). */
  claims: new Set<string>(),
  /** Whether an organization can hold activities back for approval, read once. */
  consensusByOrg: new Map<string, Promise<boolean>>(),
  /** Recent create activities by organization and type, read once. */
  historyByType: new Map<string, Promise<Activity[]>>(),
}));


function claimKey(kind: string, organizationId: string, id: string): string {
  return `${kind}|${organizationId}|${id}`;
}

/** Records that a resource of this run stands for the object (created or adopted it). */
export function claim(session: Session, kind: string, id: string): void {
  earlierWorkOfRun.of(session.context).claims.add(claimKey(kind, session.organizationId, id));
}

/** Whether a resource of this run already stands for the object. */
export function isClaimed(session: Session, kind: string, id: string): boolean {
  return earlierWorkOfRun.of(session.context).claims.has(claimKey(kind, session.organizationId, id));
}

/**
 * Whether the organization can hold an activity back for approval: a root quorum with a
 * threshold above one, or a policy with a consensus expression. Read once per process.
 */
export function mayNeedConsensus(session: Session): Promise<boolean> {
  const { consensusByOrg } = earlierWorkOfRun.of(session.context);
  const cached = consensusByOrg.get(session.organizationId);
  if (cached !== undefined) return cached;
  const reading = collections.organization(session).then(({ organizationData }) =>
    (organizationData.rootQuorum?.threshold ?? 1) > 1 || (organizationData.policies ?? []).some((p) => (p.consensus ?? "") !== ""),
  );
  // A failed read is not remembered: the next create asks again.
  reading.catch(() => consensusByOrg.delete(session.organizationId));
  consensusByOrg.set(session.organizationId, reading);
  return reading;
}

/**
 * Whether a create should look for its own earlier work in the activity history: when the
 * resource has no unique name that would make the service answer a repeat with 409, or when
 * the organization can hold creates back for consensus.
 */
export async function needsHistory(session: Session, hasUniqueName: boolean): Promise<boolean> {
  return !hasUniqueName || (await mayNeedConsensus(session));
}

/**
 * The recent create activities of the declared type (waiting for consensus or completed),
 * newest first; read once per process, organization and type.
 */
export function recentCreates<I>(session: Session, declared: CreateActivity<I>): Promise<Activity[]> {
  const type = (operations[declared.operation] as ActivityDef).type;
  const key = `${session.organizationId}|${type}`;
  const { historyByType } = earlierWorkOfRun.of(session.context);
  const cached = historyByType.get(key);
  if (cached !== undefined) return cached;
  const reading = readRecentCreates(session, declared);
  reading.catch(() => historyByType.delete(key));
  historyByType.set(key, reading);
  return reading;
}

/** Forgets everything the configuration knows of earlier work (tests). */
export function forgetEarlierWork(context: RunContext = directContext()): void {
  earlierWorkOfRun.forget(context);
}
