/**
 * @module resources/runtime/listing
 * What each resource says about finding its objects in an organization: the capability
 * `keyform export` is built on, so a new resource is exported as soon as it is registered.
 */
import type { Session } from "./client";

/** One object of a resource class, as found in the organization. */
export interface ListedObject {
  /** The object's id: what `importId` takes. */
  readonly id: string;
  /** What `read` needs besides the id to find the object (e.g. the user of an API key). */
  readonly hint?: Readonly<Record<string, unknown>>;
  /** A label for people, which the exported resource is named after (e.g. the object's name). */
  readonly label: string;
}

/**
 * The objects of one resource class in the session's organization. The API key the session
 * signs with (`session.credentialPublicKey`), and the user it belongs to, are left out: a program
 * that adopted them would delete its own credential on destroy.
 */
export type ListObjects = (session: Session) => Promise<ListedObject[]>;

/** True when `publicKey` is the key the session signs with. */
export const isOwnKey = (session: Session, publicKey: string | undefined): boolean =>
  publicKey !== undefined && publicKey.toLowerCase() === session.credentialPublicKey.toLowerCase();
