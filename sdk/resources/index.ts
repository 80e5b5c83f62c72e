/**
 * @module resources
 * The Pulumi dynamic resources of keyform and its data functions.
 */
export * from "./user-tag";
export * from "./policy";
export * from "./api-key";
export * from "./invitation";
export * from "./smart-contract-interface";
export * from "./earn-wrapper-state";
export * from "./user";
export * from "./root-quorum";
export * from "./webhook-endpoint";
export * from "./ip-allowlist";
export * from "./wallet";
export * from "./private-key";
export * from "./private-key-tag";
export * from "./session-profile";
export * from "./data";
export { KeyformProvider } from "./provider";
export { SETTING_ENV, SETTING_NAMES, DEFAULT_BASE_URL, DEFAULT_AUTH_PROXY_URL, type SettingName } from "./runtime/settings";
