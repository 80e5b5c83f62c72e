/**
 * @module emulator/handlers/auth-webauthn
 * `X-Stamp-WebAuthn` (docs/service-facts.md#13-webauthn-stamp): a passkey assertion whose challenge is the lowercase
 * hex SHA-256 of the exact body. The credential is found by id among the authenticators of
 * the organization in the body or of its parent, and the assertion is verified with the
 * credential public key taken from its registration (attestation object).
 *
 * Not modelled: sign-counter checks (a cloned authenticator is not detected), RP id and
 * origin checks (the emulator serves any RP).
 */
import {
  base64UrlDecode,
  base64UrlEncode,
  CryptoError,
  parseWebAuthnStamp,
  verifyWebAuthnStamp,
  WEBAUTHN_STAMP_HEADER,
  type WebAuthnStamp,
} from "keyform/crypto";
import { notFound, permissionDenied, unauthenticated } from "../errors";
import type { Store } from "../store";
import { authStoreOf } from "../store/auth-store";
import { readStoredRegistration } from "./stored-attestation";
import type { Caller } from "./types";

interface Candidate {
  authenticatorId: string;
  orgId: string;
  userId: string;
  /** Undefined when the stored attestation cannot be parsed. */
  publicKey: string | undefined;
}

function reason(error: unknown): string {
  return error instanceof CryptoError ? error.message : "invalid stamp";
}

/** Public key of an authenticator created without sign-up (create_users): from its attestation. */
function candidates(store: Store, credentialId: string, rawId: string): Candidate[] {
  const auth = authStoreOf(store.db);
  const found: Candidate[] = auth.credentials(credentialId).map((c) => ({
    authenticatorId: c.authenticator_id,
    orgId: c.org_id,
    userId: c.user_id,
    publicKey: c.public_key,
  }));
  const known = new Set(found.map((c) => c.authenticatorId));
  for (const a of auth.authenticatorsByCredentialId(credentialId, rawId)) {
    if (known.has(a.id)) continue;
    found.push({ authenticatorId: a.id, orgId: a.org_id, userId: a.user_id, publicKey: readStoredRegistration(a.attestation_json)?.publicKey });
  }
  return found;
}

/**
 * Authenticates a request by its `X-Stamp-WebAuthn` header.
 * @throws EmulatorError 401 code 16 (malformed, unknown credential, bad assertion), 403 code 7
 *   (a credential of another organization), 404 code 5 (unknown organization)
 */
export function authenticateWebAuthn(store: Store, headerValue: string, rawBody: Uint8Array, organizationId: string): Caller {
  let stamp: WebAuthnStamp;
  let credentialId: string;
  try {
    stamp = parseWebAuthnStamp(headerValue);
    credentialId = base64UrlEncode(base64UrlDecode(stamp.credentialId, "credentialId"));
  } catch (error) {
    throw unauthenticated(`${WEBAUTHN_STAMP_HEADER}: ${reason(error)}`);
  }
  const all = candidates(store, credentialId, stamp.credentialId);
  if (all.length === 0) {
    throw unauthenticated(`${WEBAUTHN_STAMP_HEADER}: could not find credential ${credentialId} in organization or its parent organization`);
  }
  const org = store.organizations.get(organizationId);
  if (!org) throw notFound(`organizationId: no organization found with id ${organizationId}`);
  const orgIds = [org.id, ...(org.parent_id ? [org.parent_id] : [])];
  const match = orgIds.map((id) => all.find((c) => c.orgId === id)).find((c) => c !== undefined);
  if (!match) {
    throw permissionDenied(`organizationId: the credential ${credentialId} does not belong to organization ${organizationId} or its parent organization`);
  }
  if (match.publicKey === undefined) {
    throw unauthenticated(`${WEBAUTHN_STAMP_HEADER}: the registration of credential ${credentialId} holds no readable public key`);
  }
  try {
    verifyWebAuthnStamp({ stamp, body: rawBody, publicKeyHex: match.publicKey });
  } catch (error) {
    throw unauthenticated(`${WEBAUTHN_STAMP_HEADER}: ${reason(error)}`);
  }
  return { userId: match.userId, organizationId: match.orgId, apiKeyId: match.authenticatorId, publicKey: match.publicKey };
}
