/**
 * @module keyform
 * The package entry: the Pulumi resources and data functions, the typed client, and the
 * local emulator.
 *
 * @example
 * import * as keyform from "keyform";
 * const ops = new keyform.UserTag("ops", { userIds: [aliceId] });
 */
import type { EmulatorOptions, RunningEmulator } from "./emulator";

export * from "./resources";
export * from "./client";
export type { Bootstrap, EmulatorOptions, RunningEmulator } from "./emulator";

/**
 * Starts the local emulator of the service (see `keyform/emulator`). Loaded on first use, so
 * that a Pulumi program importing keyform does not load the emulator's server and database.
 */
export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  // A plain require keeps this CommonJS and lazy; the type comes from the module itself.
  const emulator: typeof import("./emulator") = require("./emulator");
  return emulator.startEmulator(options);
}
