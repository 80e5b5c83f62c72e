/**
 * @module keyform
 * The package entry, its public API: the Pulumi resources and data functions, the typed client
 * and its errors, webhook signature verification, and `startEmulator` (the emulator itself
 * ships in the `keyform-emulator` package and is loaded on first use, so a Pulumi program
 * importing keyform never loads a server or a database).
 *
 * Lower layers have their own entry points, for the few programs that need them:
 * `keyform/client` (transport, retries, polling, pagination, stamp verification, auth helpers),
 * `keyform/protocol` (stamps, keys, client signatures, fingerprints), `keyform/crypto`,
 * `keyform/wire` (the request and response schemas), `keyform/policy` (the policy language).
 * The emulator is the `keyform-emulator` package's entry.
 *
 * @example
 * import * as keyform from "keyform";
 * const ops = new keyform.UserTag("ops", { userIds: [aliceId] });
 */
export * from "./resources";
export { KeyformClient, type KeyformClientOptions, type ActivityCallOptions, type SubmitActivityOptions, type QueryRequest } from "./client/client";
export { AuthProxyClient, type AuthProxyClientOptions } from "./client/auth-proxy-client";
export { decryptCredentialBundleToApiKey, sessionStamper, stamperFromCredentialBundle } from "./client/auth-helpers";
export { ApiKeyStamper, type ApiKeyStamperOptions } from "./protocol/api-key-stamper";
export type { Stamper, StampHeader } from "./protocol/stamper";
export { generateApiKeyPair, publicKeyFromPrivateKey, type ApiKeyPair } from "./protocol/keys";
export type { RetryOptions } from "./client/retry";
export * from "./client/errors";
export {
  verifyWebhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  type VerifyWebhookSignatureParams,
} from "./crypto/webhook-signature";
export type {
  Bootstrap,
  EmulatorLogLevel,
  EmulatorStartOptions,
  EmulatorStartOptions as EmulatorOptions,
  IpAllowlistConfig,
  RunningEmulator,
} from "./emulator-contract";
export { EMULATOR_PACKAGE, startEmulator } from "./emulator-loader";
