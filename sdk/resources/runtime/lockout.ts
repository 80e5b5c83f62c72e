/**
 * @module resources/runtime/lockout
 * No self-lockout: a plan that would shut the credentials keyform deploys with out of the
 * organization fails, naming the resource and the reason, unless the setting `allowLockout`
 * says the hand-over is deliberate.
 *
 * - IP allowlists, and what policies, tags and the root quorum leave the deploying user to do:
 *   one proof over the organization after the plan (`deployer-access.ts`). The address the
 *   service sees this client from is the one it echoes on every answer
 *   (`x-rate-limit-request-remote-addr`).
 * - A root quorum that no longer holds the deploying user while it holds it today, or that raises
 *   the threshold above 1 while that user alone is the quorum today: keyform does not prove that
 *   a policy lets the user in instead, so this fails as not proved.
 * - Policies that deny the deploying user an activity the rest of the plan needs: `policy-lockout.ts`.
 * - Deleting, or replacing, the API key keyform signs with, or deleting the user it belongs to.
 *
 * The check on root quorums runs at `check`, so preview fails. A delete of a
 * resource removed from the program is planned by the engine without asking the provider, so
 * the provider refuses to delete the deploying key or user at `up`, before the request is sent;
 * the preview of the GitOps runner and `scripts/org-up` finds it in the engine's planned steps
 * (`credential-deletes.ts`).
 */
import { BlockList, isIP } from "node:net";
import type { CheckFailure } from "./check";
import type { Session } from "./client";
import { ProviderError } from "./errors";
import { before } from "./shared-reads";
import type { Settings } from "./settings";
import { containsUnknown } from "./values";

export const OPT_OUT = "set keyform:allowLockout (KEYFORM_ALLOW_LOCKOUT) to true for a deliberate hand-over";

/** Whether two public keys (hex, any case) are the same key. */
export const sameKey = (a: unknown, b: unknown): boolean => typeof a === "string" && typeof b === "string" && a.toLowerCase() === b.toLowerCase();

/** The address the service sees this client from: from the last answer, else one `whoami`. */
export async function callerAddress(session: Session): Promise<string | undefined> {
  if (session.client.remoteAddress === undefined) await session.client.callQuery("whoami", {});
  return session.client.remoteAddress;
}

/** Whether `address` falls in one of the CIDR blocks (or single addresses) of `rules`. */
export function allowedBy(rules: ReadonlyArray<{ cidr: string }>, address: string): boolean {
  const bare = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  const family = isIP(bare) === 6 ? "ipv6" : "ipv4";
  const list = new BlockList();
  for (const { cidr } of rules) {
    const [block, prefix] = cidr.split("/");
    const blockFamily = isIP(block ?? "") === 6 ? "ipv6" : isIP(block ?? "") === 4 ? "ipv4" : undefined;
    if (blockFamily === undefined) continue;
    if (prefix === undefined) list.addAddress(block!, blockFamily);
    else list.addSubnet(block!, Number(prefix), blockFamily);
  }
  return list.check(bare, family);
}

/** The user the deploying API key belongs to, as policies see it. */
export interface DeployingUser {
  readonly userId: string;
  readonly userName: string;
  readonly userEmail?: string;
  /** Tag ids. */
  readonly userTags: readonly string[];
}

/**
 * The user the deploying API key belongs to, when the session can see it, from the organization
 * as this run first read it (`before`): a key never moves to another user.
 */
export async function deployingUser(session: Session): Promise<DeployingUser | undefined> {
  const users = await before.users(session);
  const user = users.find((u) => u.apiKeys.some((k) => sameKey(k.credential.publicKey, session.credentialPublicKey)));
  return user === undefined ? undefined : { userId: user.userId, userName: user.userName, userEmail: user.userEmail || undefined, userTags: user.userTags ?? [] };
}

/** The root quorum's members and threshold, as the organization record gives them. */
export interface QuorumToday {
  readonly userIds?: readonly string[];
  readonly threshold?: number;
}

/**
 * The root quorum before this run changes it (`before`): every write of the run makes the shared
 * organization read stale, and a check of each Policy or RootQuorum reading it again would cost
 * one request per resource for an answer the run itself does not change before the plan's own
 * RootQuorum (whose declared value the checks use).
 */
export async function rootQuorumToday(session: Session): Promise<QuorumToday | undefined> {
  const { organizationData } = await before.organization(session);
  return organizationData.rootQuorum as QuorumToday | undefined;
}

/** Why the declared root quorum would shut the deploying user out, if it would. */
async function rootQuorumLockout(session: Session, inputs: Record<string, unknown>): Promise<CheckFailure[]> {
  const userIds = inputs.userIds;
  if (containsUnknown(userIds) || !Array.isArray(userIds)) return [];
  const user = await deployingUser(session);
  if (user === undefined) return [];
  const today = await rootQuorumToday(session);
  if (!(today?.userIds ?? []).includes(user.userId)) return [];
  if (userIds.includes(user.userId)) {
    // Still a member, but no longer the quorum alone: what no policy allows waits for approvals.
    const threshold = inputs.threshold;
    if (typeof threshold !== "number" || threshold <= 1 || (today?.threshold ?? 1) > 1) return [];
    return [
      {
        property: "threshold",
        reason:
          `the root quorum's threshold ${threshold} takes from user ${JSON.stringify(user.userName)} (${user.userId}), whom the deploying API key belongs to, the power to act alone as the root quorum: ` +
          `not proved that a policy lets the user run alone what keyform deploys in organization ${session.organizationId}; every other activity would wait for ${threshold} approvals. Keep threshold 1, or ${OPT_OUT}`,
      },
    ];
  }
  return [
    {
      property: "userIds",
      reason:
        `the root quorum leaves out user ${JSON.stringify(user.userName)} (${user.userId}), whom the deploying API key belongs to and who is in it today: ` +
        `not proved that a policy lets the user in afterwards, so keyform could lose its way into organization ${session.organizationId}. Keep the user in userIds, or ${OPT_OUT}`,
    },
  ];
}

/** The lockout failures of one checked resource (none with `allowLockout`). */
export async function lockoutFailures(kind: string, session: Session, inputs: Record<string, unknown>, settings: Settings): Promise<CheckFailure[]> {
  if (settings.allowLockout) return [];
  if (kind === "RootQuorum") return rootQuorumLockout(session, inputs);
  return [];
}

/**
 * Refuses to replace the API key keyform signs with (the replacement deletes it).
 * @throws {ProviderError} naming the key.
 */
export function refuseOwnKeyReplace(kind: string, id: string, olds: Record<string, unknown>, settings: Settings): void {
  if (settings.allowLockout || kind !== "ApiKey" || !sameKey(olds.publicKey, settings.apiPublicKey)) return;
  throw new ProviderError(
    `ApiKey ${id}: replacing it deletes the API key keyform signs with (keyform:apiPublicKey), which would lock this stack out; ` +
      `sign with another key first, or ${OPT_OUT}`,
  );
}

/**
 * Refuses to delete the API key keyform signs with, or the user it belongs to.
 * @throws {ProviderError} naming the object.
 */
export async function refuseOwnCredentialDelete(kind: string, session: Session, id: string, props: Record<string, unknown>, settings: Settings): Promise<void> {
  if (settings.allowLockout) return;
  if (kind === "ApiKey" && sameKey(props.publicKey, session.credentialPublicKey)) {
    throw new ProviderError(`ApiKey ${id}: it is the API key keyform signs with (keyform:apiPublicKey); deleting it would lock this stack out. Sign with another key first, or ${OPT_OUT}`);
  }
  if (kind === "User") {
    const user = await deployingUser(session);
    if (user?.userId === id) {
      throw new ProviderError(`User ${id}: the API key keyform signs with belongs to this user; deleting the user would lock this stack out. Sign with another user's key first, or ${OPT_OUT}`);
    }
  }
}
