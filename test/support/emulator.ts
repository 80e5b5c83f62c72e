/**
 * Test helper: an emulator on a free port over a fresh temporary data directory, plus a
 * `KeyformClient` signed with the bootstrap key.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../sdk/emulator";

export interface TestEmulator {
  emulator: RunningEmulator;
  /** Client of the root organization, stamped with the bootstrap API key. */
  client: KeyformClient;
  dataDir: string;
  /** Closes the emulator and removes the data directory. */
  stop(): Promise<void>;
}

/**
 * Starts an emulator (port 0, log level `silent`) in a new temp directory.
 * @param options.dataDir reuse this directory instead of a new one (it is then not removed);
 *   any other emulator option (fixtures, webhooks, allowlists) is passed through
 */
export async function startTestEmulator(
  options: Partial<Omit<EmulatorOptions, "port" | "logLevel">> = {},
): Promise<TestEmulator> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "keyform-emulator-"));
  const emulator = await startEmulator({ ...options, port: 0, dataDir, logLevel: "silent" });
  const { bootstrap } = emulator;
  const client = new KeyformClient({
    baseUrl: emulator.url,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
    poll: { intervalMs: 50 },
  });
  return {
    emulator,
    client,
    dataDir,
    stop: async () => {
      await emulator.close();
      if (options.dataDir === undefined) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
