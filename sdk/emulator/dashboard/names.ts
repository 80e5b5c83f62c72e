/**
 * @module emulator/dashboard/names
 * Policies name users, tags, wallets and keys by id; the dashboard shows their names. A
 * directory of the organization's ids, and the references an expression makes to them.
 */
import type { Store } from "../store";
import { privateKeyStoreOf } from "../store/private-keys";
import { walletStoreOf } from "../store/wallets";

/** What an id in a policy stands for. */
export interface NamedReference {
  readonly id: string;
  /** `user`, `user tag`, `private key tag`, `wallet`, `private key`. */
  readonly kind: string;
  readonly name: string;
}

/** The organization's (and its parent's) users, tags, wallets and private keys by id. */
export function nameDirectory(store: Store, organizationId: string): ReadonlyMap<string, NamedReference> {
  const directory = new Map<string, NamedReference>();
  const add = (id: string, kind: string, name: string) => directory.set(id, { id, kind, name });
  const parent = store.organizations.get(organizationId)?.parent_id;
  for (const orgId of [...(parent ? [parent] : []), organizationId]) {
    for (const user of store.users.list(orgId)) add(user.id, "user", user.name);
  }
  for (const tag of store.tags.listAll(organizationId)) add(tag.id, tag.tag_type === "TAG_TYPE_USER" ? "user tag" : "private key tag", tag.name);
  for (const wallet of walletStoreOf(store.db).listWallets(organizationId)) add(wallet.id, "wallet", wallet.name);
  for (const key of privateKeyStoreOf(store.db).list(organizationId)) add(key.id, "private key", key.name);
  return directory;
}

/** Every id of `directory` that `expression` mentions, in order of first mention. */
export function referencesIn(expression: string | null | undefined, directory: ReadonlyMap<string, NamedReference>): NamedReference[] {
  if (!expression) return [];
  const found: { at: number; ref: NamedReference }[] = [];
  for (const ref of directory.values()) {
    const at = expression.indexOf(ref.id);
    if (at >= 0) found.push({ at, ref });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.ref);
}

/** `expression` with each id of `directory` it mentions replaced by `<kind> <name>`, for a sentence. */
export function withNames(expression: string, directory: ReadonlyMap<string, NamedReference>): string {
  let text = expression;
  for (const ref of referencesIn(expression, directory)) text = text.split(`'${ref.id}'`).join(`${ref.kind} ${ref.name}`).split(ref.id).join(`${ref.kind} ${ref.name}`);
  return text;
}
