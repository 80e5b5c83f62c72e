/**
 * @module crypto/webhook-signature
 * The signature of webhook deliveries made by the keyform emulator.
 *
 * Each delivery carries `X-Keyform-Timestamp: <epoch ms>` and
 * `X-Keyform-Signature: v1=<hex DER ECDSA P-256 signature>` over SHA-256 of the UTF-8 bytes of
 * `<timestamp>.<raw body>`. The signing key is the emulator's signing key, whose public key
 * `bootstrap.json` gives as `signerPublicKey`. Binding the timestamp lets a receiver refuse
 * replays of old deliveries.
 */
import { hexToBytes, utf8 } from "./encoding";
import { parsePrivateKey, parsePublicKey, signSha256, verifySha256 } from "./p256";

/** Header carrying the signature. */
export const WEBHOOK_SIGNATURE_HEADER = "x-keyform-signature";
/** Header carrying the signing time, epoch milliseconds. */
export const WEBHOOK_TIMESTAMP_HEADER = "x-keyform-timestamp";

function signedBytes(timestamp: string, body: string | Uint8Array): Uint8Array {
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  return utf8(`${timestamp}.${text}`);
}

/**
 * Signs a delivery body.
 * @param signerPrivateKeyHex the emulator's 32-byte P-256 signing key, hex
 * @returns the value of the `X-Keyform-Signature` header (`v1=<hex DER>`)
 */
export function signWebhookPayload(body: string, timestamp: string, signerPrivateKeyHex: string): string {
  const secret = parsePrivateKey(signerPrivateKeyHex, "signerPrivateKeyHex");
  return `v1=${Buffer.from(signSha256(signedBytes(timestamp, body), secret, "der")).toString("hex")}`;
}

/** Parameters of {@link verifyWebhookSignature}. */
export interface VerifyWebhookSignatureParams {
  /** The raw request body, exactly as received. */
  body: string | Uint8Array;
  /** `X-Keyform-Timestamp` header value. */
  timestamp: string | undefined;
  /** `X-Keyform-Signature` header value. */
  signature: string | undefined;
  /** The emulator's `signerPublicKey` (bootstrap.json), hex, compressed or uncompressed. */
  signerPublicKey: string;
  /** Largest accepted age (and future skew) of the timestamp; default 5 minutes; 0 disables. */
  toleranceMs?: number;
  /** Current time, epoch ms (tests); default `Date.now()`. */
  nowMs?: number;
}

/**
 * Verifies a webhook delivery of the emulator. Never throws on untrusted input.
 * @returns true only when the signature verifies under `signerPublicKey` and the timestamp is
 *   within the tolerance
 */
export function verifyWebhookSignature(params: VerifyWebhookSignatureParams): boolean {
  const { body, timestamp, signature, signerPublicKey } = params;
  if (typeof timestamp !== "string" || !/^\d{1,16}$/u.test(timestamp)) return false;
  if (typeof signature !== "string" || !signature.startsWith("v1=")) return false;
  const tolerance = params.toleranceMs ?? 5 * 60 * 1000;
  if (tolerance > 0 && Math.abs((params.nowMs ?? Date.now()) - Number(timestamp)) > tolerance) return false;
  try {
    const publicKey = parsePublicKey(signerPublicKey, false, "signerPublicKey");
    return verifySha256(hexToBytes(signature.slice(3), "signature"), signedBytes(timestamp, body), publicKey, "der");
  } catch {
    return false;
  }
}
