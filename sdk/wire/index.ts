/**
 * @module wire
 * The wire layer: one zod schema per request and response, the single source of truth for
 * the client, the emulator and the resources.
 */
export * from "./enums";
export * from "./shared";
export * from "./activity";
export * from "./define";
export * from "./registry";
export * from "./operations/user-tags";
export * from "./operations/users";
export * from "./operations/organization";
export * from "./operations/activities";
export * from "./operations/policies";
export * from "./operations/api-keys";
export * from "./operations/invitations";
export * from "./operations/smart-contract-interfaces";
export * from "./operations/earn";
export * from "./operations/wallets";
export * from "./operations/private-keys";
export * from "./operations/private-key-tags";
export * from "./operations/history";
export * from "./operations/webhooks";
export * from "./operations/session-profiles";
export * from "./operations/auth";
export * from "./operations/ip-allowlists";
export * from "./operations/signing";
