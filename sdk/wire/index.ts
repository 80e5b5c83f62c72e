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
