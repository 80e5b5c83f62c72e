/**
 * @module resources/runtime/lockout
 * No self-lockout: a plan that would shut the credentials keyform deploys with out of the
 * organization fails, naming the resource and the reason, unless the setting `allowLockout`
 * says the hand-over is deliberate.
 *
 * - What the deploying key can still do after the plan (read, carry out and apply the plan
 *   again, destroy what the stack manages), with the IP allowlists, policies, tags and root
 *   quorum the plan leaves: one proof over the organization after the plan
 *   (`deployer-access.ts`). The address the service sees this client from is the one it echoes
 *   on every answer (`x-rate-limit-request-remote-addr`).
 * - Deleting, or replacing, the API key keyform signs with, or deleting the user it belongs to:
 *   here. A delete of a resource removed from the program is planned by the engine without
 *   asking the provider, so the provider refuses to delete the deploying key or user at `up`,
 *   before the request is sent; the preview of the GitOps runner and `scripts/org-up` finds it
 *   in the engine's planned steps (`credential-deletes.ts`).
 */
import { BlockList, isIP } from "node:net";
import type { Session } from "./client";
import { ProviderError } from "./errors";
import { before } from "./shared-reads";
import type { Settings } from "./settings";

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
