/**
 * @module crypto/webauthn
 * WebAuthn for the emulator's passkey authenticators:
 *
 * - **Registration** ({@link parseWebAuthnRegistration}): the `attestation` of a sign-up or
 *   create-authenticators request (base64url `attestationObject`, `clientDataJson`). The
 *   attestation object is CBOR `{fmt, attStmt, authData}`; authenticator data holds the
 *   credential id and a COSE_Key that must be EC2 / ES256 (-7) / P-256. The attestation
 *   statement itself is not verified: any `fmt` is accepted, as the service does not
 *   require attested authenticators.
 * - **Stamp** ({@link verifyWebAuthnStamp}): header `X-Stamp-WebAuthn`, whose value is plain
 *   JSON `{authenticatorData, clientDataJson, credentialId, signature}` of base64url strings
 *   (as `@turnkey/webauthn-stamper` sends it). The challenge is the UTF-8 bytes of the
 *   lowercase hex SHA-256 of the exact request body; clientDataJSON carries it base64url
 *   encoded. The signature is DER ECDSA P-256 over SHA-256(authenticatorData ||
 *   SHA-256(clientDataJSON)) (WebAuthn §7.2).
 *
 * Written here rather than with `@simplewebauthn/server`: its checks are asynchronous while the
 * emulator authenticates synchronously, and it would bring 25 packages into `keyform`
 * (README.md, "Dependencies").
 */
import { sha256 } from "@noble/hashes/sha2";
import { base64UrlDecode, base64UrlEncode, bytesEqual, bytesToHex, concatBytes, fromUtf8, utf8 } from "./encoding";
import { CryptoError } from "./errors";
import { decodeCbor, decodeCborPrefix, type CborValue } from "./cbor";
import { parsePublicKey, verifySha256 } from "./p256";

/** Header name of a WebAuthn stamp (HTTP header names are case-insensitive). */
export const WEBAUTHN_STAMP_HEADER = "X-Stamp-WebAuthn";

/** Authenticator-data flag bits (WebAuthn §6.1). */
/** Authenticator data flags: user present, user verified, attested credential data, extensions. */
export const FLAG_UP = 0x01;
export const FLAG_UV = 0x04;
export const FLAG_AT = 0x40;
export const FLAG_ED = 0x80;

/** Parsed authenticator data. */
export interface AuthenticatorData {
  /** SHA-256 of the RP id, hex. */
  rpIdHash: string;
  userPresent: boolean;
  userVerified: boolean;
  signCount: number;
  /** Present when the AT flag is set (registrations). */
  attestedCredential?: {
    /** 16 bytes, hex. */
    aaguid: string;
    credentialId: Uint8Array;
    /** The COSE key as decoded CBOR. */
    coseKey: Map<CborValue, CborValue>;
  };
}

/**
 * Parses authenticator data (WebAuthn §6.1).
 * @throws {CryptoError} if it is truncated or malformed
 */
export function parseAuthenticatorData(bytes: Uint8Array, field = "authenticatorData"): AuthenticatorData {
  if (bytes.length < 37) throw new CryptoError(`${field} is too short (${bytes.length} bytes, at least 37)`, field);
  const flags = bytes[32] as number;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: AuthenticatorData = {
    rpIdHash: bytesToHex(bytes.subarray(0, 32)),
    userPresent: (flags & FLAG_UP) !== 0,
    userVerified: (flags & FLAG_UV) !== 0,
    signCount: view.getUint32(33),
  };
  let offset = 37;
  if (flags & FLAG_AT) {
    if (bytes.length < offset + 18) throw new CryptoError(`${field} attested credential data is truncated`, field);
    const aaguid = bytesToHex(bytes.subarray(offset, offset + 16));
    const idLength = view.getUint16(offset + 16);
    offset += 18;
    if (bytes.length < offset + idLength) throw new CryptoError(`${field} credential id is truncated`, field);
    const credentialId = new Uint8Array(bytes.subarray(offset, offset + idLength));
    offset += idLength;
    const { value, length } = decodeCborPrefix(bytes.subarray(offset), `${field}.credentialPublicKey`);
    if (!(value instanceof Map)) throw new CryptoError(`${field}.credentialPublicKey is not a CBOR map`, field);
    offset += length;
    out.attestedCredential = { aaguid, credentialId, coseKey: value };
  }
  if (flags & FLAG_ED) {
    // Extensions are a CBOR map; parse only to check the data ends where it should.
    offset += decodeCborPrefix(bytes.subarray(offset), `${field}.extensions`).length;
  }
  if (offset !== bytes.length) throw new CryptoError(`${field} has ${bytes.length - offset} unexpected trailing bytes`, field);
  return out;
}

/**
 * Converts a COSE_Key (RFC 9053) to an uncompressed P-256 point.
 * @throws {CryptoError} unless it is kty EC2 (2), alg ES256 (-7) when present, crv P-256 (1)
 *   with 32-byte x and y on the curve
 */
export function coseKeyToP256(coseKey: Map<CborValue, CborValue>, field = "credentialPublicKey"): Uint8Array {
  const kty = coseKey.get(1);
  const alg = coseKey.get(3);
  const crv = coseKey.get(-1);
  const x = coseKey.get(-2);
  const y = coseKey.get(-3);
  if (kty !== 2) throw new CryptoError(`${field}: key type ${String(kty)} is not EC2 (2)`, field);
  if (alg !== undefined && alg !== -7) throw new CryptoError(`${field}: algorithm ${String(alg)} is not ES256 (-7)`, field);
  if (crv !== 1) throw new CryptoError(`${field}: curve ${String(crv)} is not P-256 (1)`, field);
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || x.length !== 32 || y.length !== 32) {
    throw new CryptoError(`${field}: x and y must be 32-byte strings`, field);
  }
  return parsePublicKey(concatBytes(new Uint8Array([0x04]), x, y), false, field);
}

interface ClientData {
  type: string;
  challenge: string;
  origin: string;
  raw: Uint8Array;
}

function parseClientData(clientDataJson: string, field: string): ClientData {
  const raw = base64UrlDecode(clientDataJson, field);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fromUtf8(raw, field));
  } catch {
    throw new CryptoError(`${field} is not base64url of JSON`, field);
  }
  const obj = parsed as Record<string, unknown>;
  if (typeof obj !== "object" || obj === null || typeof obj.type !== "string" || typeof obj.challenge !== "string") {
    throw new CryptoError(`${field} lacks string fields type and challenge`, field);
  }
  return { type: obj.type, challenge: obj.challenge, origin: typeof obj.origin === "string" ? obj.origin : "", raw };
}

/** A registration as a sign-up `authenticators[].attestation` carries it. */
export interface WebAuthnAttestation {
  /** base64url credential id. */
  credentialId: string;
  /** base64url clientDataJSON. */
  clientDataJson: string;
  /** base64url attestation object (CBOR). */
  attestationObject: string;
  /** Spec 2.11 transport values. */
  transports: string[];
}

/** Inputs of {@link parseWebAuthnRegistration}. */
export interface ParseRegistrationParams {
  attestationObject: string;
  clientDataJson: string;
  /** When given, must name the credential inside the authenticator data. */
  credentialId?: string;
  /** When given, must equal clientDataJSON's challenge (base64url; padding ignored). */
  expectedChallenge?: string;
  /** When given, the authenticator data's RP id hash must be SHA-256 of it. */
  expectedRpId?: string;
}

/** What a registration yields for the authenticator record. */
export interface ParsedRegistration {
  /** base64url (no padding) of the credential id. */
  credentialId: string;
  /** Compressed P-256 public key, hex. */
  publicKey: string;
  /** Uncompressed P-256 public key, hex. */
  publicKeyUncompressed: string;
  /** Attestation statement format, e.g. `none`, `packed`. */
  fmt: string;
  aaguid: string;
  signCount: number;
  userVerified: boolean;
}

function sameBase64Url(a: string, b: string, field: string): boolean {
  return bytesEqual(base64UrlDecode(a, field), base64UrlDecode(b, field));
}

/**
 * Parses and checks a WebAuthn registration (clientData type `webauthn.create`).
 * @throws {TypeError} if an argument is not a string
 * @throws {CryptoError} naming the field that is malformed or does not match
 */
export function parseWebAuthnRegistration(params: ParseRegistrationParams): ParsedRegistration {
  const { attestationObject, clientDataJson, credentialId, expectedChallenge, expectedRpId } = params;
  const clientData = parseClientData(clientDataJson, "clientDataJson");
  if (clientData.type !== "webauthn.create") {
    throw new CryptoError(`clientDataJson.type is ${JSON.stringify(clientData.type)}, expected "webauthn.create"`, "clientDataJson.type");
  }
  if (expectedChallenge !== undefined && !sameBase64Url(clientData.challenge, expectedChallenge, "challenge")) {
    throw new CryptoError("clientDataJson.challenge does not match the challenge", "challenge");
  }
  const attestation = decodeCbor(base64UrlDecode(attestationObject, "attestationObject"), "attestationObject");
  if (!(attestation instanceof Map)) throw new CryptoError("attestationObject is not a CBOR map", "attestationObject");
  const fmt = attestation.get("fmt");
  const authDataBytes = attestation.get("authData");
  if (typeof fmt !== "string" || !(authDataBytes instanceof Uint8Array)) {
    throw new CryptoError("attestationObject lacks fmt (text) or authData (bytes)", "attestationObject");
  }
  const authData = parseAuthenticatorData(authDataBytes, "attestationObject.authData");
  const credential = authData.attestedCredential;
  if (!credential) throw new CryptoError("attestationObject.authData has no attested credential (AT flag unset)", "attestationObject.authData");
  if (expectedRpId !== undefined && authData.rpIdHash !== bytesToHex(sha256(utf8(expectedRpId)))) {
    throw new CryptoError("attestationObject.authData is for another RP id", "attestationObject.authData.rpIdHash");
  }
  if (credentialId !== undefined && !bytesEqual(base64UrlDecode(credentialId, "credentialId"), credential.credentialId)) {
    throw new CryptoError("credentialId does not match the credential in attestationObject", "credentialId");
  }
  const point = coseKeyToP256(credential.coseKey, "attestationObject.authData.credentialPublicKey");
  return {
    credentialId: base64UrlEncode(credential.credentialId),
    publicKey: bytesToHex(parsePublicKey(point, true)),
    publicKeyUncompressed: bytesToHex(point),
    fmt,
    aaguid: credential.aaguid,
    signCount: authData.signCount,
    userVerified: authData.userVerified,
  };
}

/** The decoded value of an `X-Stamp-WebAuthn` header; all fields base64url. */
export interface WebAuthnStamp {
  authenticatorData: string;
  clientDataJson: string;
  credentialId: string;
  signature: string;
}

/**
 * Parses an `X-Stamp-WebAuthn` header value (plain JSON text).
 * @throws {CryptoError} if it is not JSON with the four string fields
 */
export function parseWebAuthnStamp(headerValue: string): WebAuthnStamp {
  if (typeof headerValue !== "string") throw new TypeError("headerValue must be a string");
  let parsed: unknown;
  try {
    parsed = JSON.parse(headerValue);
  } catch {
    throw new CryptoError(`${WEBAUTHN_STAMP_HEADER} is not JSON`, WEBAUTHN_STAMP_HEADER);
  }
  const obj = parsed as Record<string, unknown>;
  if (typeof obj !== "object" || obj === null) {
    throw new CryptoError(`${WEBAUTHN_STAMP_HEADER} is not a JSON object`, WEBAUTHN_STAMP_HEADER);
  }
  for (const name of ["authenticatorData", "clientDataJson", "credentialId", "signature"]) {
    if (typeof obj[name] !== "string" || obj[name] === "") {
      throw new CryptoError(`${WEBAUTHN_STAMP_HEADER}.${name} is missing or not a string`, `${WEBAUTHN_STAMP_HEADER}.${name}`);
    }
  }
  return {
    authenticatorData: obj.authenticatorData as string,
    clientDataJson: obj.clientDataJson as string,
    credentialId: obj.credentialId as string,
    signature: obj.signature as string,
  };
}

/** The raw challenge of a request body: UTF-8 bytes of the lowercase hex SHA-256 of the body. */
export function webAuthnChallengeForBody(body: string | Uint8Array): Uint8Array {
  return utf8(bytesToHex(sha256(typeof body === "string" ? utf8(body) : body)));
}

/** Inputs of {@link verifyWebAuthnStamp}. */
export interface VerifyWebAuthnStampParams {
  /** The header value, or the stamp already parsed. */
  stamp: string | WebAuthnStamp;
  /** The exact request body. */
  body: string | Uint8Array;
  /** The registered credential's public key, hex (compressed or uncompressed). */
  publicKeyHex: string;
  /** When given, the stamp must name this credential (base64url). */
  expectedCredentialId?: string;
  /** When given, the RP id hash must be SHA-256 of it. */
  expectedRpId?: string;
  /** When given, clientData.origin must be one of these. */
  expectedOrigins?: readonly string[];
  /** Require the UV flag (default false; UP is always required). */
  requireUserVerification?: boolean;
}

/** What a verified stamp tells the server. */
export interface VerifiedWebAuthnStamp {
  credentialId: string;
  signCount: number;
  userVerified: boolean;
}

/**
 * Verifies an `X-Stamp-WebAuthn` assertion over a request body.
 * @throws {TypeError} on wrong argument types
 * @throws {CryptoError} naming what failed: malformed stamp, wrong type or challenge, wrong
 *   credential, RP id or origin, missing user presence, or a bad signature
 */
export function verifyWebAuthnStamp(params: VerifyWebAuthnStampParams): VerifiedWebAuthnStamp {
  const stamp = typeof params.stamp === "string" ? parseWebAuthnStamp(params.stamp) : params.stamp;
  const publicKey = parsePublicKey(params.publicKeyHex, false, "publicKeyHex");
  if (params.expectedCredentialId !== undefined && !sameBase64Url(stamp.credentialId, params.expectedCredentialId, "credentialId")) {
    throw new CryptoError("stamp is for another credential", "credentialId");
  }
  const clientData = parseClientData(stamp.clientDataJson, "clientDataJson");
  if (clientData.type !== "webauthn.get") {
    throw new CryptoError(`clientDataJson.type is ${JSON.stringify(clientData.type)}, expected "webauthn.get"`, "clientDataJson.type");
  }
  if (!bytesEqual(base64UrlDecode(clientData.challenge, "clientDataJson.challenge"), webAuthnChallengeForBody(params.body))) {
    throw new CryptoError("clientDataJson.challenge is not the SHA-256 of the request body", "clientDataJson.challenge");
  }
  if (params.expectedOrigins !== undefined && !params.expectedOrigins.includes(clientData.origin)) {
    throw new CryptoError(`clientDataJson.origin ${JSON.stringify(clientData.origin)} is not allowed`, "clientDataJson.origin");
  }
  const authDataBytes = base64UrlDecode(stamp.authenticatorData, "authenticatorData");
  const authData = parseAuthenticatorData(authDataBytes);
  if (params.expectedRpId !== undefined && authData.rpIdHash !== bytesToHex(sha256(utf8(params.expectedRpId)))) {
    throw new CryptoError("authenticatorData is for another RP id", "authenticatorData.rpIdHash");
  }
  if (!authData.userPresent) throw new CryptoError("authenticatorData lacks the user-present flag", "authenticatorData.flags");
  if (params.requireUserVerification && !authData.userVerified) {
    throw new CryptoError("authenticatorData lacks the user-verified flag", "authenticatorData.flags");
  }
  const signature = base64UrlDecode(stamp.signature, "signature");
  const signed = concatBytes(authDataBytes, sha256(clientData.raw));
  if (!verifySha256(signature, signed, publicKey, "der")) {
    throw new CryptoError("signature does not verify for this credential", "signature");
  }
  return {
    credentialId: base64UrlEncode(base64UrlDecode(stamp.credentialId, "credentialId")),
    signCount: authData.signCount,
    userVerified: authData.userVerified,
  };
}
