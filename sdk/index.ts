/**
 * @module keyform
 * The package entry: the Pulumi resources and data functions, the typed client, and
 * `startEmulator` (the emulator itself ships in the `keyform-emulator` package and is loaded on
 * first use, so a Pulumi program importing keyform never loads a server or a database).
 *
 * @example
 * import * as keyform from "keyform";
 * const ops = new keyform.UserTag("ops", { userIds: [aliceId] });
 */
export * from "./resources";
export * from "./client";
export type {
  Bootstrap,
  EmulatorLogLevel,
  EmulatorStartOptions,
  EmulatorStartOptions as EmulatorOptions,
  IpAllowlistConfig,
  RunningEmulator,
} from "./emulator-contract";
export { EMULATOR_PACKAGE, startEmulator } from "./emulator-loader";
