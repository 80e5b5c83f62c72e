/**
 * @module protocol/verify-stamp
 * Checks an `X-Stamp` header against the exact request body (docs/service-facts.md#11-api-key-stamp-x-stamp, #12-other-api-key-curves-and-schemes): the
 * server side of {@link ApiKeyStamper}, used by the emulator on every request.
 *
 * Accepted input, deliberately a little wider than what the stampers emit:
 * - base64url with or without `=` padding (the official stamper strips it);
 * - ECDSA signatures with high or low S (the official Node stamper does not normalise S);
 * - public keys in either hex case, compressed or uncompressed SEC1 for the ECDSA curves.
 *
 * Speed: the emulator calls this for every request. Public keys are decoded and validated
 * once with noble and cached (bounded); the signature check itself runs in Node's OpenSSL
 * (`node:crypto`), about 40 times faster than pure-JS P-256 verification. Where OpenSSL lacks
 * a curve (some embedded runtimes have no secp256k1) the noble verifier is used instead; both
 * give the same answers (the unit tests cross-check them).
 *
 * Nothing here logs, and error messages never contain the header value.
 */
import { createPublicKey, verify as opensslVerify, type KeyObject } from "node:crypto";
import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/p256";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils";
import { base64urlnopad } from "@scure/base";
import type { ApiKeyCurve, StampScheme } from "../wire/enums";
import { curveForScheme } from "./keys";

/** Why a stamp was rejected. */
export type StampFailureReason =
  /** Not base64url, not JSON, not an object, or a field missing / not a string. */
  | "malformed"
  /** A scheme string this service does not know. */
  | "unknown_scheme"
  /** A known scheme that is not an API key scheme (`SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191`). */
  | "unsupported_scheme"
  /** `publicKey` is not hex or not a point of the scheme's curve. */
  | "bad_public_key"
  /** `signature` is not hex, or not DER (ECDSA) / not 64 bytes (ed25519). */
  | "bad_signature"
  /** Well-formed, but the signature does not verify over the body with that key. */
  | "signature_mismatch";

/** Thrown by {@link verifyStamp}; `reason` says which check failed. */
export class StampVerificationError extends Error {
  readonly reason: StampFailureReason;
  /** The stamp's public key (lowercase hex), once it has been read. Public data. */
  readonly publicKey: string | undefined;

  constructor(reason: StampFailureReason, message: string, publicKey?: string) {
    super(message);
    this.name = "StampVerificationError";
    this.reason = reason;
    this.publicKey = publicKey;
  }
}

/** What a valid stamp proves: the holder of this key signed this body. */
export interface VerifiedStamp {
  /** Lowercase hex, as found in the stamp; look the API key up by it. */
  publicKey: string;
  scheme: StampScheme;
  curve: ApiKeyCurve;
}

/** Headers are about 370 characters; anything this long is not a stamp. */
const MAX_HEADER_LENGTH = 4096;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const utf8Decoder = new TextDecoder("utf-8", { fatal: true });

const CURVE_LABEL: Readonly<Record<ApiKeyCurve, string>> = {
  API_KEY_CURVE_P256: "P-256",
  API_KEY_CURVE_SECP256K1: "secp256k1",
  API_KEY_CURVE_ED25519: "ed25519",
};

/**
 * Verifies an `X-Stamp` header value over the exact request body.
 *
 * @param headerValue the header as received
 * @param body the raw request body: the string as sent, or its bytes
 * @returns the stamp's public key, scheme and curve
 * @throws {StampVerificationError} with `reason` and a message saying what is wrong
 */
export function verifyStamp(headerValue: string, body: string | Uint8Array): VerifiedStamp {
  const stamp = decodeStamp(headerValue);
  const curve = curveForScheme(stamp.scheme);
  if (curve === undefined) {
    if (stamp.scheme === "SIGNATURE_SCHEME_TK_API_SECP256K1_EIP191") {
      throw new StampVerificationError(
        "unsupported_scheme",
        `X-Stamp scheme ${stamp.scheme} is a wallet scheme and is not accepted for API keys`,
      );
    }
    throw new StampVerificationError(
      "unknown_scheme",
      `X-Stamp scheme ${JSON.stringify(stamp.scheme.slice(0, 80))} is unknown; expected SIGNATURE_SCHEME_TK_API_P256, ` +
        "SIGNATURE_SCHEME_TK_API_SECP256K1 or SIGNATURE_SCHEME_TK_API_ED25519",
    );
  }
  const scheme = stamp.scheme as StampScheme;

  if (!HEX.test(stamp.publicKey)) {
    throw new StampVerificationError("bad_public_key", "X-Stamp publicKey must be hex");
  }
  const publicKey = stamp.publicKey.toLowerCase();
  const verifier = verifierFor(curve, publicKey);

  if (!HEX.test(stamp.signature)) {
    throw new StampVerificationError("bad_signature", "X-Stamp signature must be hex", publicKey);
  }
  const signature = hexToBytes(stamp.signature);
  if (curve === "API_KEY_CURVE_ED25519") {
    if (signature.length !== 64) {
      throw new StampVerificationError("bad_signature", "X-Stamp signature must be 64 bytes (ed25519)", publicKey);
    }
  } else if (!isStrictDerSignature(curve, signature)) {
    throw new StampVerificationError(
      "bad_signature",
      "X-Stamp signature must be an ASN.1 DER ECDSA signature in hex",
      publicKey,
    );
  }

  const message = typeof body === "string" ? utf8ToBytes(body) : body;
  if (!verifier(signature, message)) {
    throw new StampVerificationError(
      "signature_mismatch",
      `X-Stamp signature does not match the request body for ${CURVE_LABEL[curve]} public key ${publicKey}`,
      publicKey,
    );
  }
  return { publicKey, scheme, curve };
}

/** Base64url (padded or not) → JSON → the three string fields. */
function decodeStamp(headerValue: unknown): { publicKey: string; scheme: string; signature: string } {
  if (typeof headerValue !== "string" || headerValue.length === 0) {
    throw new StampVerificationError("malformed", "X-Stamp header is missing or empty");
  }
  if (headerValue.length > MAX_HEADER_LENGTH) {
    throw new StampVerificationError("malformed", `X-Stamp header is longer than ${MAX_HEADER_LENGTH} characters`);
  }
  let parsed: unknown;
  try {
    const unpadded = headerValue.replace(/={1,2}$/, "");
    parsed = JSON.parse(utf8Decoder.decode(base64urlnopad.decode(unpadded)));
  } catch {
    throw new StampVerificationError("malformed", "X-Stamp header is not base64url-encoded JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new StampVerificationError("malformed", "X-Stamp header must encode a JSON object");
  }
  const fields = parsed as Record<string, unknown>;
  for (const field of ["publicKey", "scheme", "signature"] as const) {
    if (typeof fields[field] !== "string" || fields[field] === "") {
      throw new StampVerificationError("malformed", `X-Stamp field ${field} is missing or not a non-empty string`);
    }
  }
  return fields as { publicKey: string; scheme: string; signature: string };
}

/**
 * Strict DER check through noble's parser (rejects trailing bytes, non-minimal integers and
 * r, s outside [1, n-1]), so that both verification engines see the same inputs.
 */
function isStrictDerSignature(curve: ApiKeyCurve, der: Uint8Array): boolean {
  if (der.length < 8 || der.length > 72) return false;
  try {
    (curve === "API_KEY_CURVE_P256" ? p256 : secp256k1).Signature.fromDER(der);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Verifiers, cached per (curve, public key)

/** Checks a (format-checked) signature over the body bytes. */
export type SignatureVerifier = (signature: Uint8Array, message: Uint8Array) => boolean;

/** Bounded so that a flood of random keys cannot grow memory; real servers see few keys. */
const MAX_CACHED_KEYS = 1024;
const verifierCache = new Map<string, SignatureVerifier>();

function verifierFor(curve: ApiKeyCurve, publicKeyHex: string): SignatureVerifier {
  const cacheKey = `${curve}:${publicKeyHex}`;
  const cached = verifierCache.get(cacheKey);
  if (cached) return cached;
  const publicKey = parsePublicKey(curve, publicKeyHex);
  const verifier = opensslVerifier(curve, publicKey) ?? nobleVerifier(curve, publicKey);
  if (verifierCache.size >= MAX_CACHED_KEYS) {
    // Maps iterate in insertion order: drop the oldest entry.
    const oldest = verifierCache.keys().next().value;
    if (oldest !== undefined) verifierCache.delete(oldest);
  }
  verifierCache.set(cacheKey, verifier);
  return verifier;
}

/**
 * Decodes a public key and checks that it is a point of the curve.
 * @internal exported for tests
 * @throws {StampVerificationError} `bad_public_key`
 */
export function parsePublicKey(curve: ApiKeyCurve, publicKeyHex: string): Uint8Array {
  const bytes = hexToBytes(publicKeyHex);
  const sizes = curve === "API_KEY_CURVE_ED25519" ? [32] : [33, 65];
  let valid = sizes.includes(bytes.length);
  if (valid) {
    try {
      if (curve === "API_KEY_CURVE_ED25519") ed25519.Point.fromHex(bytes, false).assertValidity();
      else (curve === "API_KEY_CURVE_P256" ? p256 : secp256k1).Point.fromHex(bytes).assertValidity();
    } catch {
      valid = false;
    }
  }
  if (!valid) {
    const form = curve === "API_KEY_CURVE_ED25519" ? "32-byte ed25519 key" : "compressed (33-byte) or uncompressed (65-byte) SEC1 point";
    throw new StampVerificationError(
      "bad_public_key",
      `X-Stamp publicKey ${publicKeyHex.slice(0, 140)} is not a valid ${CURVE_LABEL[curve]} public key (expected a ${form} in hex)`,
    );
  }
  return bytes;
}

/** DER SubjectPublicKeyInfo prefixes (algorithm identifier + BIT STRING header) per curve and key size. */
function spkiPrefix(curve: ApiKeyCurve, keyLength: number): string {
  switch (curve) {
    case "API_KEY_CURVE_ED25519":
      return "302a300506032b6570032100";
    case "API_KEY_CURVE_P256": // id-ecPublicKey, prime256v1
      return keyLength === 33
        ? "3039301306072a8648ce3d020106082a8648ce3d030107032200"
        : "3059301306072a8648ce3d020106082a8648ce3d030107034200";
    case "API_KEY_CURVE_SECP256K1": // id-ecPublicKey, secp256k1
      return keyLength === 33
        ? "3036301006072a8648ce3d020106052b8104000a032200"
        : "3056301006072a8648ce3d020106052b8104000a034200";
  }
}

/**
 * A verifier backed by OpenSSL, or `undefined` if this runtime's OpenSSL lacks the curve.
 * OpenSSL's ECDSA accepts high and low S.
 * @internal exported for tests
 */
export function opensslVerifier(curve: ApiKeyCurve, publicKey: Uint8Array): SignatureVerifier | undefined {
  let key: KeyObject;
  try {
    key = createPublicKey({
      key: Buffer.from(spkiPrefix(curve, publicKey.length) + bytesToHex(publicKey), "hex"),
      format: "der",
      type: "spki",
    });
  } catch {
    return undefined;
  }
  if (curve === "API_KEY_CURVE_ED25519") {
    return (signature, message) => safely(() => opensslVerify(null, message, key, signature));
  }
  return (signature, message) =>
    safely(() => opensslVerify("sha256", message, { key, dsaEncoding: "der" }, signature));
}

/**
 * A pure-JS verifier (noble). ECDSA: SHA-256 of the message computed here, `prehash: false`
 * so it is hashed once, `lowS: false` so that high S verifies (secp256k1 defaults to true).
 * Ed25519: RFC 8032 rules (`zip215: false`), as OpenSSL applies them.
 * @internal exported for tests
 */
export function nobleVerifier(curve: ApiKeyCurve, publicKey: Uint8Array): SignatureVerifier {
  switch (curve) {
    case "API_KEY_CURVE_P256":
      return (signature, message) =>
        safely(() => p256.verify(signature, sha256(message), publicKey, { prehash: false, lowS: false, format: "der" }));
    case "API_KEY_CURVE_SECP256K1":
      return (signature, message) =>
        safely(() =>
          secp256k1.verify(signature, sha256(message), publicKey, { prehash: false, lowS: false, format: "der" }),
        );
    case "API_KEY_CURVE_ED25519":
      return (signature, message) => safely(() => ed25519.verify(signature, message, publicKey, { zip215: false }));
  }
}

/** A verification that throws is a verification that failed. */
function safely(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}
