/**
 * @module emulator/handlers/stored-attestation
 * Reads the credential out of an authenticator's attestation as `create_users` and
 * `signup_v2` store it (JSON of the request's `attestation` object).
 */
import { parseWebAuthnRegistration, type ParsedRegistration } from "keyform/crypto";

/**
 * The registered credential (compressed P-256 public key, attestation format, AAGUID), or
 * `undefined` when the stored attestation does not decode: `create_users` accepts
 * attestations without requiring that they do.
 */
export function readStoredRegistration(attestationJson: string): ParsedRegistration | undefined {
  try {
    const attestation = JSON.parse(attestationJson) as { attestationObject?: unknown; clientDataJson?: unknown };
    if (typeof attestation.attestationObject !== "string" || typeof attestation.clientDataJson !== "string") return undefined;
    return parseWebAuthnRegistration({ attestationObject: attestation.attestationObject, clientDataJson: attestation.clientDataJson });
  } catch {
    return undefined;
  }
}

/** Formats a 16-byte AAGUID given in hex as the usual 8-4-4-4-12 UUID text. */
export function aaguidText(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
