/**
 * @module resources/runtime/shared-reads
 * Reads of a whole collection, shared by every resource of one provider process.
 *
 * Why: the service has no "get" for several objects (user tags, invitations, wrapper state), and
 * its lists are not paginated, so reading one object means reading its whole collection. A
 * refresh or destroy of N resources that each read their collection costs N requests whose
 * bytes grow with N, i.e. N² bytes in all. Pulumi runs every resource of a stack through one
 * dynamic-provider process, so one list per collection can serve them all.
 *
 * A shared read stays valid until the next write: every activity submitted (and every poll of
 * one) through a client observed by {@link observeWrites} makes later reads fetch afresh, so a
 * read after a create, update or delete always sees that change. Reads already in flight are
 * shared too (the engine runs resources in parallel). A failed read is not kept.
 */
import type { Session } from "./client";
import { directContext, type ProviderContext } from "./context";

/** One shared read: the read generation it was made in, and its answer. */
export interface SharedReadEntry {
  readonly generation: number;
  readonly value: Promise<unknown>;
}


/**
 * The result of `load`, shared with every other read of the same `collection` through the same
 * client since the last write.
 * @param collection names the request, parameters included (e.g. `list_users`).
 */
export function sharedRead<T>(session: Session, collection: string, load: () => Promise<T>): Promise<T> {
  // Per client of the context (one per base URL, organization and API key).
  let byCollection = session.context.sharedReads.get(session.client);
  if (byCollection === undefined) {
    byCollection = new Map();
    session.context.sharedReads.set(session.client, byCollection);
  }
  const cached = byCollection.get(collection);
  // Bumped by every write through the configuration's clients; an entry of an earlier generation is stale.
  const generation = session.context.readGeneration;
  if (cached !== undefined && cached.generation === generation) return cached.value as Promise<T>;
  const value = load();
  const entry: SharedReadEntry = { generation, value };
  byCollection.set(collection, entry);
  // A failure is reported to the callers waiting for it, then forgotten, so the next read retries.
  value.catch(() => {
    if (byCollection.get(collection) === entry) byCollection.delete(collection);
  });
  return value;
}

/** Makes every shared read of the configuration stale (called on each write). */
export function forgetSharedReads(context: ProviderContext = directContext()): void {
  context.readGeneration += 1;
}

/** True for requests that change the organization or report an activity's progress. */
function isWrite(path: string): boolean {
  return path.includes("/submit/") || path.endsWith("/query/get_activity");
}

/**
 * A client's `onRequest` observer: each write request (an activity submit, or a poll of one)
 * makes the shared reads stale, both when it is sent and when its answer arrives, so a read
 * that started in between cannot be served to a caller that comes after the write.
 */
export function observeWrites(context: ProviderContext, path: string): void {
  if (isWrite(path)) forgetSharedReads(context);
}

/**
 * The collections the resources read, each one request shared as above. None is paginated
 * (the service returns every item), so one answer holds every object of its kind.
 */
export const collections = {
  users: (s: Session) => sharedRead(s, "list_users", () => s.client.listUsers({})),
  userTags: (s: Session) => sharedRead(s, "list_user_tags", () => s.client.listUserTags({})),
  policies: (s: Session) => sharedRead(s, "list_policies", () => s.client.listPolicies({})),
  /** Invitations are only listed in the organization record. */
  organization: (s: Session) => sharedRead(s, "get_organization", () => s.client.getOrganization({})),
  smartContractInterfaces: (s: Session) =>
    sharedRead(s, "list_smart_contract_interfaces", () => s.client.listSmartContractInterfaces({})),
  wallets: (s: Session) => sharedRead(s, "list_wallets", () => s.client.listWallets({})),
  privateKeys: (s: Session) => sharedRead(s, "list_private_keys", () => s.client.listPrivateKeys({})),
  privateKeyTags: (s: Session) => sharedRead(s, "list_private_key_tags", () => s.client.listPrivateKeyTags({})),
  sessionProfiles: (s: Session) => sharedRead(s, "get_session_profiles", () => s.client.getSessionProfiles({})),
  earnEnabledVaults: (s: Session) => sharedRead(s, "list_earn_enabled_vaults", () => s.client.listEarnEnabledVaults({})),
};
