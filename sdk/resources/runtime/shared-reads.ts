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
import { directContext } from "./context";
import { perRun } from "./run-state";
import type { RunContext, Session } from "./run-types";

/** One shared read: the read generation it was made in, and its answer. */
export interface SharedReadEntry {
  readonly generation: number;
  readonly value: Promise<unknown>;
}

/** The shared reads of a configuration, per client: collection name → entry; and the read generation. */
const readsOfRun = perRun(() => ({
  byClient: new WeakMap<object, Map<string, SharedReadEntry>>(),
  /** Bumped by every write through the configuration's clients; a shared read of an earlier generation is stale. */
  generation: 0,
}));

/** The organization's collections as this run first read them (`before`), per client; part of the plan's census. */
const readsBeforeOfRun = perRun(() => new Map<object, Map<string, SharedReadEntry>>(), "census");

/** Reads kept per client (one per base URL, organization and API key): collection name → entry. */
interface ReadsByClient {
  get(client: object): Map<string, SharedReadEntry> | undefined;
  set(client: object, reads: Map<string, SharedReadEntry>): unknown;
}

/**
 * The result of `load` kept in `byClient` for `session`'s client and `collection` while it is of
 * `generation`; a failure is reported to the callers waiting for it, then forgotten, so the next
 * read retries.
 */
function keptRead<T>(byClient: ReadsByClient, session: Session, collection: string, generation: number, load: () => Promise<T>): Promise<T> {
  let byCollection = byClient.get(session.client);
  if (byCollection === undefined) {
    byCollection = new Map();
    byClient.set(session.client, byCollection);
  }
  const cached = byCollection.get(collection);
  if (cached !== undefined && cached.generation === generation) return cached.value as Promise<T>;
  const value = load();
  const entry: SharedReadEntry = { generation, value };
  byCollection.set(collection, entry);
  value.catch(() => {
    if (byCollection.get(collection) === entry) byCollection.delete(collection);
  });
  return value;
}

/**
 * The result of `load`, shared with every other read of the same `collection` through the same
 * client since the last write.
 * @param collection names the request, parameters included (e.g. `list_users`).
 */
export function sharedRead<T>(session: Session, collection: string, load: () => Promise<T>): Promise<T> {
  // Bumped by every write through the configuration's clients; an entry of an earlier generation is stale.
  const reads = readsOfRun.of(session.context);
  return keptRead(reads.byClient, session, collection, reads.generation, load);
}

/** Makes every shared read of the configuration stale (called on each write). */
export function forgetSharedReads(context: RunContext = directContext()): void {
  readsOfRun.of(context).generation += 1;
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
export function observeWrites(context: RunContext, path: string): void {
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

/**
 * One read of `collection` per client for the whole run, never made stale by writes: the
 * organization as this run first saw it (`before`). A failed read is not kept.
 */
function readBefore<T>(session: Session, collection: string, load: () => Promise<T>): Promise<T> {
  return keptRead(readsBeforeOfRun.of(session.context), session, collection, 0, load);
}

/**
 * The organization before this run changed it: what the plan's census (`plan-census.ts`) and the
 * lockout checks count and decide against, as preview does, while the objects the plan makes are
 * counted as declared. The first read is the settings check (`verify.ts`), which comes before any
 * write of the run, so one `get_organization` serves the settings check, every limit of the
 * census and every lockout check: its record holds the users (with their API keys), the
 * policies, the invitations, the tags and the root quorum. A part the service leaves out of the
 * record is read from its own list instead, once per run, so nothing is counted from an absent
 * field. Through the shared read, a read already made since the last write serves it too.
 */
export const before = {
  organization: (s: Session) => readBefore(s, "get_organization", () => collections.organization(s)),
  users: async (s: Session) => (await before.organization(s)).organizationData.users ?? (await readBefore(s, "list_users", () => collections.users(s))).users,
  policies: async (s: Session) =>
    (await before.organization(s)).organizationData.policies ?? (await readBefore(s, "list_policies", () => collections.policies(s))).policies,
  /** The user tags (the record's `tags` hold private key tags too). */
  userTags: async (s: Session) => {
    const tags = (await before.organization(s)).organizationData.tags ?? (await readBefore(s, "list_user_tags", () => collections.userTags(s))).userTags;
    return tags.filter((t) => t.tagType === "TAG_TYPE_USER");
  },
};
