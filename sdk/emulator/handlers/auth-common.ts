/**
 * @module emulator/handlers/auth-common
 * Pieces the authentication area shares: the auth proxy's config-id check, the bootstrap
 * (parent) organization, which credential types a P-256 stamp may use, client signatures,
 * OIDC identities and finding a user by a verified contact.
 */
import { p256 } from "@noble/curves/p256";
import { sha256 } from "@noble/hashes/sha2";
import { hexToBytes, utf8ToBytes } from "@noble/hashes/utils";
import { verifyClientSignature, CLIENT_SIGNATURE_SCHEME } from "keyform/protocol/client-signature";
import type { Headers } from "../auth";
import type { ApiKeyCurve } from "keyform/wire/enums";
import type { ClientSignature } from "keyform/wire/shared";
import { unauthenticated } from "../errors";
import type { Store } from "../store";
import { AUTH_PROXY_CONFIG_HEADER } from "keyform/wire/operations/auth";

/** What the auth area needs of the bootstrap: the proxy's parent organization and config id. */
export interface AuthProxyConfig {
  /** Sub-organizations created by sign-up hang off this organization. */
  readonly parentOrganizationId: string;
  readonly authProxyConfigId: string;
}

/** Reads the bootstrap record written at first start. */
export function authProxyConfig(store: Store): AuthProxyConfig {
  const raw = store.meta.get("bootstrap");
  if (raw === undefined) throw new Error("the data directory has no bootstrap record");
  const parsed = JSON.parse(raw) as { organizationId: string; authProxyConfigId: string };
  return { parentOrganizationId: parsed.organizationId, authProxyConfigId: parsed.authProxyConfigId };
}

/**
 * Every auth proxy request names the configuration with `X-Auth-Proxy-Config-Id` (spec 5.3).
 * @throws EmulatorError 401 code 16 if the header is missing or names another configuration
 */
export function requireAuthProxyConfig(store: Store, headers: Headers): void {
  const raw = headers[AUTH_PROXY_CONFIG_HEADER.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === "") {
    throw unauthenticated(`${AUTH_PROXY_CONFIG_HEADER}: required on every auth proxy request (see authProxyConfigId in bootstrap.json)`);
  }
  if (value !== authProxyConfig(store).authProxyConfigId) {
    throw unauthenticated(`${AUTH_PROXY_CONFIG_HEADER}: unknown auth proxy configuration ${JSON.stringify(value)}`);
  }
}

/** Credential types whose key is a P-256 key that stamps like an API key. */
const P256_STAMP_CREDENTIALS: ReadonlySet<string> = new Set([
  "CREDENTIAL_TYPE_API_KEY_P256",
  "CREDENTIAL_TYPE_READ_WRITE_SESSION_KEY_P256",
  "CREDENTIAL_TYPE_OTP_AUTH_KEY_P256",
  "CREDENTIAL_TYPE_EMAIL_AUTH_KEY_P256",
  "CREDENTIAL_TYPE_OAUTH_KEY_P256",
  "CREDENTIAL_TYPE_RECOVER_USER_KEY_P256",
]);

/**
 * Whether a stored credential of `credentialType` may sign an `X-Stamp` on `curve`: API keys
 * of their own curve, and every P-256 key credential (sessions, OTP-auth keys …) for P-256.
 */
export function credentialAcceptsStamp(credentialType: string, curve: ApiKeyCurve): boolean {
  switch (curve) {
    case "API_KEY_CURVE_P256":
      return P256_STAMP_CREDENTIALS.has(credentialType);
    case "API_KEY_CURVE_SECP256K1":
      return credentialType === "CREDENTIAL_TYPE_API_KEY_SECP256K1";
    case "API_KEY_CURVE_ED25519":
      return credentialType === "CREDENTIAL_TYPE_API_KEY_ED25519";
  }
}

/**
 * Checks a `clientSignature` (spec 2.1). Official clients sign with DER (keyform's
 * `signClientMessage`) or compact `r||s` hex (`@turnkey/core`), so both are accepted.
 */
export function clientSignatureValid(sig: ClientSignature): boolean {
  if (verifyClientSignature(sig)) return true;
  if (sig.scheme !== CLIENT_SIGNATURE_SCHEME || !/^[0-9a-fA-F]{128}$/.test(sig.signature)) return false;
  try {
    return p256.verify(hexToBytes(sig.signature), sha256(utf8ToBytes(sig.message)), hexToBytes(sig.publicKey), {
      prehash: false,
      lowS: false,
      format: "compact",
    });
  } catch {
    return false;
  }
}

/** The usage statement inside a client signature's message (`@turnkey/core` format). */
export interface SignedUsage {
  tokenId?: unknown;
  type?: unknown;
  [key: string]: unknown;
}

/** Parses a client signature's message as the JSON usage statement, or undefined. */
export function signedUsage(message: string): SignedUsage | undefined {
  try {
    const value: unknown = JSON.parse(message);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as SignedUsage) : undefined;
  } catch {
    return undefined;
  }
}

/** `OTP_TYPE_EMAIL` → the user's e-mail; `OTP_TYPE_SMS` → the phone number. */
export function contactKind(otpType: string): "email" | "phone" {
  return otpType === "OTP_TYPE_SMS" ? "phone" : "email";
}

/** Normalises a contact for comparison: e-mail addresses are case-insensitive. */
export function sameContact(kind: "email" | "phone", a: string | null | undefined, b: string): boolean {
  if (a === null || a === undefined) return false;
  return kind === "email" ? a.trim().toLowerCase() === b.trim().toLowerCase() : a.trim() === b.trim();
}
