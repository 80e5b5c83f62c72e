/**
 * @module crypto
 * Cryptographic building blocks shared by the client and the emulator: HPKE bundles, App
 * Proofs, WebAuthn, OTP-flow tokens. Imports nothing from the other layers.
 */
export * from "./errors";
export * from "./encoding";
export * from "./p256";
export * from "./hpke";
export * from "./bundles";
export * from "./app-proofs";
export * from "./cbor";
export * from "./webauthn";
export * from "./session-token";
export * from "./webhook-signature";
