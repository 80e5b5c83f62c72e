/**
 * Real engine, real emulators, Pulumi YAML program on the provider plugin: the same faults as
 * the TypeScript path. A mistyped organization and the settings of another service fail the
 * preview and `up` without a replace or a delete; a wrong private key names
 * `keyform:apiPrivateKey`. The organization's objects are read back with the official client.
 */
import * as path from "node:path";
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createWorkDirStack, repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, since } from "../resources/harness/engine-harness";
import { commandOutcome, organizationSnapshot, plainConfig } from "./fail-closed-support";
import { settingsConfig } from "./plugin-support";

let emuA: TestEmulator;
let emuB: TestEmulator;
let official: TurnkeyClient;
const figures: Record<string, number> = {};

beforeAll(async () => {
  [emuA, emuB] = await Promise.all([startTestEmulator(), startTestEmulator()]);
  const b = emuA.emulator.bootstrap;
  official = new TurnkeyClient({ baseUrl: emuA.emulator.url }, new TurnkeyApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }));
});

afterAll(async () => {
  await Promise.all([emuA?.stop(), emuB?.stop()]);
  console.log(`plugin-fail-closed figures (ms, loaded machine): ${JSON.stringify(figures)}`);
});

describe("provider plugin fails closed", () => {
  it("a mistyped organization or another service plans no delete; a wrong private key is named", { timeout: 900_000 }, async () => {
    const good = plainConfig({ ...settingsConfig(emuA), "keyform:timeoutMs": "3000" });
    const { stack, cleanup } = await createWorkDirStack({ workDir: path.join(repoRoot, "test", "engine", "fixtures", "plugin-fail-closed"), config: good });
    const organizationId = emuA.emulator.bootstrap.organizationId;
    try {
      await stack.up();
      const before = await organizationSnapshot(official, organizationId);
      expect(before.walletNames).toEqual(["treasury"]);
      const other = emuB.emulator.bootstrap;
      const cases = [
        {
          name: "mistyped organization",
          config: { "keyform:organizationId": { value: "11111111-1111-4111-8111-111111111111" } },
          message: /keyform:organizationId \(KEYFORM_ORGANIZATION_ID\)/,
        },
        {
          name: "another service",
          // Every setting of the other emulator: the key and organization are valid there.
          config: plainConfig(settingsConfig(emuB)),
          message: new RegExp(`lives in organization ${organizationId} \\(recorded in state\\), but the setting keyform:organizationId`),
        },
        {
          name: "wrong private key",
          config: { "keyform:apiPrivateKey": { value: generateApiKeyPair().privateKey, secret: true } },
          message: /keyform:apiPrivateKey \(KEYFORM_API_PRIVATE_KEY\) is not the private key of keyform:apiPublicKey/,
        },
      ];
      for (const fault of cases) {
        await stack.setAllConfig({ ...good, ...fault.config });
        const t0 = performance.now();
        const preview = await commandOutcome(stack.preview());
        figures[`${fault.name} preview`] = since(t0);
        expect(preview.exitCode, fault.name).not.toBe(0);
        expect(preview.output, fault.name).toMatch(fault.message);
        expect(preview.output, fault.name).not.toContain("TypeError");
        if (fault.name !== "wrong private key") {
          // up stops at the same place: no step runs, nothing is replaced or deleted anywhere.
          const upAttempt = await commandOutcome(stack.up());
          expect(upAttempt.exitCode, fault.name).not.toBe(0);
          expect(upAttempt.output, fault.name).toMatch(fault.message);
          expect((await emuB.client.listWallets()).wallets, fault.name).toEqual([]);
        }
        expect(await organizationSnapshot(official, organizationId), fault.name).toEqual(before);
      }
      await stack.setAllConfig(good);
      // The engine destroys with the provider settings recorded by the last up (the failed one
      // recorded the faulty settings): an up with the right ones changes nothing and records them.
      expect(changes((await stack.up()).summary.resourceChanges)).toEqual({});
      expect(await organizationSnapshot(official, organizationId)).toEqual(before);
      expect((await stack.destroy()).summary.result).toBe("succeeded");
    } finally {
      await cleanup();
    }
  });
});
