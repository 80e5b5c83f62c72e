/**
 * @module emulator
 * The local, persistent, wire-compatible emulator of the service (`keyform serve`).
 */
export { startEmulator, type EmulatorOptions, type RunningEmulator } from "./emulator";
export { BOOTSTRAP_FILE, type Bootstrap } from "./bootstrap";
export { TIMESTAMP_WINDOW_MS } from "./dispatch";
export { MAX_BODY_BYTES, type LogLevel } from "./server";
export { EmulatorError, GrpcCode, httpStatusForCode } from "./errors";
export type {
  EmulatorModule,
  Handlers,
  HandlerOf,
  ModuleEnv,
  QueryContext,
  ActivityContext,
  AuthProxyContext,
  Caller,
  SignerKey,
} from "./handlers/types";
export { Store, openDatabase, DATABASE_FILE, timestampOf } from "./store";
