/**
 * @module emulator-loader
 * Finds the emulator at run time. The `keyform` package is light (no server, no native
 * database); the emulator ships as the `keyform-emulator` package. In this repository (and
 * any build with both) it sits next to this file. Loading it lazily keeps Pulumi programs,
 * which import `keyform`, from loading a server they never run.
 */
import type { EmulatorStartOptions, RunningEmulator } from "./emulator-contract";

/** The npm package the emulator ships in. */
export const EMULATOR_PACKAGE = "keyform-emulator";

interface EmulatorModule {
  startEmulator(options: EmulatorStartOptions): Promise<RunningEmulator>;
}

/** True when `error` says that `id` itself (not something it requires) could not be found. */
function isMissing(error: unknown, id: string): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e?.code === "MODULE_NOT_FOUND" && typeof e.message === "string" && e.message.includes(`'${id}'`);
}

/**
 * The emulator module: the copy built alongside, else the installed `keyform-emulator`.
 * @throws Error naming the package to install when neither is there.
 */
export function loadEmulator(): EmulatorModule {
  for (const id of ["./emulator", EMULATOR_PACKAGE]) {
    try {
      // A plain require keeps this CommonJS and lazy.
      return require(id) as EmulatorModule;
    } catch (error) {
      if (!isMissing(error, id)) throw error;
    }
  }
  throw new Error(
    `the emulator is not installed: it ships in its own package, so install it next to keyform ` +
      `(npm install --save-dev ${EMULATOR_PACKAGE})`,
  );
}

/**
 * Starts the emulator; a database module that was never compiled (install scripts skipped)
 * fails with the command that fixes it instead of node's "Could not locate the bindings file".
 */
export async function startEmulator(options: EmulatorStartOptions): Promise<RunningEmulator> {
  const emulator = loadEmulator();
  try {
    return await emulator.startEmulator(options);
  } catch (error) {
    if (error instanceof Error && /Could not locate the bindings file|NODE_MODULE_VERSION/.test(error.message)) {
      throw new Error(
        `the emulator's database module (better-sqlite3) is not compiled for this Node.js: run ` +
          `\`npm rebuild better-sqlite3\` (with npm 11, approve its install script first: ` +
          `\`npm install-scripts approve better-sqlite3\`)`,
      );
    }
    throw error;
  }
}
