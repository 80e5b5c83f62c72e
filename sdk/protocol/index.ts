/**
 * @module protocol
 * What both ends of the wire compute the same way: API-key stamps (making and verifying them),
 * key encodings, client signatures and activity fingerprints. It sits on the wire schemas and
 * below both the client and the emulator, so the emulator needs nothing from the client.
 */
export * from "./stamper";
export * from "./keys";
export * from "./api-key-stamper";
export * from "./verify-stamp";
export * from "./client-signature";
export * from "./fingerprint";
