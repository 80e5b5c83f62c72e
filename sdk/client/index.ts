/**
 * @module client
 * The client layer: stamping and key handling, the request pipeline with retries and typed
 * errors, activity polling, pagination, `KeyformClient` and `AuthProxyClient`.
 */
export * from "./stamper";
export * from "./keys";
export * from "./api-key-stamper";
export * from "./verify-stamp";
export * from "./client-signature";
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
