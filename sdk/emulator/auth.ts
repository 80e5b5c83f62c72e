/**
 * @module emulator/auth
 * Authenticates main-API requests (docs/service-facts.md#11-api-key-stamp-x-stamp): the `X-Stamp` header must verify over the
 * exact body bytes, and its public key must be an unexpired API key (or P-256 session / OTP-auth
 * key) of a user of the organization named in the body or of that organization's parent. An
 * `X-Stamp-WebAuthn` passkey assertion is checked by `handlers/auth-webauthn.ts`.
 *
 * Outcomes: 401 code 16 for a missing, malformed, forged, unknown or expired credential;
 * 403 code 7 for a valid key of another organization; 404 code 5 for an organization that
 * does not exist. Messages never contain the header value.
 */
import { verifyStamp } from "keyform/protocol/verify-stamp";
import { notFound, permissionDenied, unauthenticated } from "./errors";
import { credentialAcceptsStamp } from "./handlers/auth-common";
import { authenticateWebAuthn } from "./handlers/auth-webauthn";
import type { Caller } from "./handlers/types";
import { apiKeyExpiresAtMs, type Store } from "./store";

/** Request headers as Node gives them (lower-case names). */
export type Headers = Readonly<Record<string, string | string[] | undefined>>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Authenticates one request.
 * @param rawBody the exact body bytes the stamp signed
 * @param organizationId the organization named in the body
 * @throws EmulatorError (401, 403 or 404) when the request may not proceed
 */
export function authenticate(store: Store, headers: Headers, rawBody: Uint8Array, organizationId: string, nowMs: number): Caller {
  const stampHeader = header(headers, "x-stamp");
  if (stampHeader === undefined) {
    const webAuthn = header(headers, "x-stamp-webauthn");
    if (webAuthn !== undefined) return authenticateWebAuthn(store, webAuthn, rawBody, organizationId);
    throw unauthenticated("missing credential: send an X-Stamp header signed with an API key");
  }

  let stamp;
  try {
    stamp = verifyStamp(stampHeader, rawBody);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "invalid stamp";
    throw unauthenticated(`X-Stamp: ${reason}`);
  }

  const org = store.organizations.get(organizationId);
  const orgIds = org ? [org.id, ...(org.parent_id ? [org.parent_id] : [])] : [];
  let key = undefined;
  for (const id of orgIds) {
    key = store.apiKeys.findInOrg(id, stamp.publicKey);
    if (key) break;
  }
  if (!key) {
    const elsewhere = store.apiKeys.findAnywhere(stamp.publicKey);
    if (!elsewhere) {
      throw unauthenticated(`could not find public key in organization or its parent organization: ${stamp.publicKey}`);
    }
    if (!org) throw notFound(`organizationId: no organization found with id ${organizationId}`);
    throw permissionDenied(
      `organizationId: the API key ${elsewhere.id} does not belong to organization ${organizationId} or its parent organization`,
    );
  }

  const expiresAt = apiKeyExpiresAtMs(key);
  if (expiresAt !== undefined && nowMs >= expiresAt) {
    throw unauthenticated(`API key ${key.id} expired at ${new Date(expiresAt).toISOString()}`);
  }
  if (!credentialAcceptsStamp(key.credential_type, stamp.curve)) {
    throw unauthenticated(`X-Stamp scheme ${stamp.scheme} does not match the API key's credential type ${key.credential_type}`);
  }
  return { userId: key.user_id, organizationId: key.org_id, apiKeyId: key.id, publicKey: key.public_key };
}
