/**
 * @module emulator/handlers/common
 * Lookups every area needs, each failing with the error the service gives (404 code 5 naming
 * the field and the id).
 */
import { randomUUID } from "node:crypto";
import { encryptExportBundle } from "keyform/crypto/bundles";
import { invalidArgument, notFound } from "../errors";
import type { TagRow, UserRow } from "../store";
import type { QueryContext } from "./types";

/** A new object id (UUID v4, like the service's). */
export function newId(): string {
  return randomUUID();
}

/** The user `userId` of the context's organization. @throws 404 naming `field`. */
export function requireUser(ctx: QueryContext, userId: string, field: string): UserRow {
  const user = ctx.store.users.get(ctx.organizationId, userId);
  if (!user) throw notFound(`${field}: no user with id ${userId} in organization ${ctx.organizationId}`);
  return user;
}

/** The user tag `tagId` of the context's organization. @throws 404 naming `field`. */
export function requireUserTag(ctx: QueryContext, tagId: string, field: string): TagRow {
  const tag = ctx.store.tags.get(ctx.organizationId, tagId);
  if (!tag || tag.tag_type !== "TAG_TYPE_USER") {
    throw notFound(`${field}: no user tag with id ${tagId} in organization ${ctx.organizationId}`);
  }
  return tag;
}

/** Refuses an id listed twice in one request. @throws 400 naming `field`. */
export function requireDistinct(values: readonly string[], field: string): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw invalidArgument(`${field}: ${value} is listed more than once`);
    seen.add(value);
  }
}

/** The longest name the emulator accepts (user, user tag, policy and API key names), in characters. */
export const MAX_NAME_LENGTH = 256;

/**
 * Refuses a name that is not in Unicode NFC or is longer than {@link MAX_NAME_LENGTH}. Names
 * are unique per organization (per user for API keys) and compared as stored, so two spellings
 * of one name (a precomposed "é" and "e" + combining accent) must not both get in: only the
 * NFC form is accepted, which makes comparing stored names comparing their NFC forms.
 * @throws EmulatorError 400 code 3 naming `field`
 */
export function requireName(name: string, field: string): void {
  if (name.normalize("NFC") !== name) {
    throw invalidArgument(`${field}: must be in Unicode normalization form NFC (compose accents: ${JSON.stringify(name.normalize("NFC"))})`);
  }
  if ([...name].length > MAX_NAME_LENGTH) {
    throw invalidArgument(`${field}: must be at most ${MAX_NAME_LENGTH} characters, got ${[...name].length}`);
  }
}

/**
 * `plaintext` (a key or a mnemonic) in an HPKE export bundle to `targetPublicKey`, signed by the
 * emulator's signing key, as export_wallet, export_wallet_account and export_private_key return it.
 * @throws 400 naming `targetPublicKey` when it is not a P-256 public key
 */
export function exportBundleFor(ctx: QueryContext, plaintext: Uint8Array, targetPublicKey: string): string {
  try {
    return encryptExportBundle({ plaintext, targetPublicKeyHex: targetPublicKey, organizationId: ctx.organizationId, signerPrivateKeyHex: ctx.signer.privateKey });
  } catch {
    throw invalidArgument("targetPublicKey: expected a P-256 public key, hex (compressed or uncompressed)");
  }
}
