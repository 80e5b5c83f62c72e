/**
 * The example organization's signing policy end to end, without the main job's heavier steps:
 * examples/org brought up by the real engine on a fresh emulator, then the treasury checks of
 * test/support/treasury-signing.ts (signed, refused, held and approved in the dashboard).
 */
import { afterAll, beforeAll, describe, it } from "vitest";
import { deployEarnWrapper } from "../../examples/org/seed";
import { emulatorEnv } from "../resources/harness/engine-harness";
import { createWorkDirStack, repoRoot, type TestStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { checkTreasurySigning } from "../support/treasury-signing";
import { exampleSettings, exampleStackConfig } from "./plugin-support";

let t: TestEmulator;
let handle: TestStack;
let outputs: Record<string, { value: any }>;
const settings = exampleSettings();

beforeAll(async () => {
  t = await startTestEmulator();
  await deployEarnWrapper(t.client, settings);
  handle = await createWorkDirStack({ workDir: repoRoot, envVars: emulatorEnv(t.emulator), config: exampleStackConfig() });
  outputs = (await handle.stack.up()).outputs as Record<string, { value: any }>;
}, 900_000);
afterAll(async () => {
  await handle?.cleanup();
  await t?.stop();
});

describe("the example's treasury policies", () => {
  it("a non-root treasury member signs through @turnkey/viem: to the payee signed, elsewhere refused, above the limit held and approved in the dashboard", async () => {
    await checkTreasurySigning({
      baseUrl: t.emulator.url,
      organizationId: t.emulator.bootstrap.organizationId,
      root: t.client,
      treasuryMemberId: outputs.userIdsByName!.value.bob,
      adminId: outputs.userIdsByName!.value.alice,
      treasuryEthAddress: outputs.treasuryAddresses!.value[0],
      payee: settings.treasuryPayee,
    });
  });
});
