/**
 * @module client
 * The client layer: the request pipeline with retries and typed
 * errors, activity polling, pagination, `KeyformClient` and `AuthProxyClient`.
 */
// Stamps, keys and client signatures live in the protocol layer (below the client and the
// emulator); keyform/client keeps exporting them.
export * from "../protocol";
export * from "./errors";
export * from "./retry";
export * from "./rate-limiter";
export * from "./service-pace";
export * from "./transport";
export * from "./submit-recovery";
export * from "./activity-poller";
export * from "./pagination";
export * from "./client";
export * from "./auth-proxy-client";
export {
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type VerifyWebhookSignatureParams,
} from "../crypto/webhook-signature";
