/**
 * @module protocol/fingerprint
 * The activity fingerprint: what the client sends to recognise a retried submit and what the
 * emulator keys idempotency on, so both compute it here.
 */
import { createHash } from "node:crypto";

/**
 * `"sha256:" + hex(sha256(body))`, the activity fingerprint of an exact request body
 * (docs/service-facts.md#2-request-and-response-envelope).
 */
export function activityFingerprint(body: string | Uint8Array): string {
  return `sha256:${createHash("sha256").update(body).digest("hex")}`;
}
