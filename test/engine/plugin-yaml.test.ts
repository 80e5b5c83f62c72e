/**
 * Real engine, real emulator, Pulumi YAML: the example organization of examples/org-yaml/
 * through the provider plugin (`pulumi-resource-keyform`, from bin/ on PATH) and the official
 * YAML language host. Settings are stack config (`keyform:*`, the private key a secret), so
 * Configure, secrets and the settings check are all on the path.
 *
 * up → a no-change preview → an out-of-band change found by refresh, shown by a preview as a
 * detailed diff naming the property, undone by up → destroy; the state never holds the API
 * private key or the generated private key in plain text.
 */
import * as path from "node:path";
import type { EngineEvent } from "@pulumi/pulumi/automation";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkDirStack, repoRoot, storedState, type TestStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { deployEarnWrapper } from "../../examples/org/seed";
import { exampleSettings, settingsConfig, yamlConfig } from "./plugin-support";

const workDir = path.join(repoRoot, "examples", "org-yaml");

let emu: TestEmulator;
let handle: TestStack;
let wrapperAddress: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  // The one thing deployed outside configuration, as for the TypeScript example: the program
  // declares the users itself.
  wrapperAddress = (await deployEarnWrapper(emu.client, exampleSettings())).deployedWrapper!;
  handle = await createWorkDirStack({ workDir, config: { ...settingsConfig(emu), ...yamlConfig({ treasuryWalletDisposable: "true" }) } });
});

afterAll(async () => {
  await handle?.cleanup();
  await emu?.stop();
});

/** The detailed diff of each resource a preview would change, by resource name. */
function detailedDiffs(events: EngineEvent[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of events) {
    const meta = e.resourcePreEvent?.metadata;
    if (!meta || meta.op === "same") continue;
    const name = meta.urn.split("::").pop()!;
    out[name] = Object.keys(meta.detailedDiff ?? {}).sort();
  }
  return out;
}

describe("examples/org-yaml through the provider plugin", () => {
  it("up, no-change preview, refresh after an out-of-band change, detailed diff, destroy", { timeout: 900_000 }, async () => {
    const { stack } = handle;
    const up = await stack.up();
    expect(up.summary.result).toBe("succeeded");
    const outputs = up.outputs;
    expect(Object.keys(outputs.userTagIds!.value)).toEqual(["admins", "engineering", "treasury"]);
    expect(outputs.ciDeployerPrivateKey!.secret).toBe(true);
    const generatedPrivateKey = outputs.ciDeployerPrivateKey!.value as string;
    expect(generatedPrivateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(outputs.earnWrapper!.value).toEqual({ address: wrapperAddress, depositsDisabled: true });
    const userIds = outputs.userIdsByName!.value as Record<string, string>;

    // The objects exist on the service as declared.
    const { policy } = await emu.client.getPolicy({ policyId: outputs.policyIds!.value.denyExports });
    expect(policy.effect).toBe("EFFECT_DENY");
    const { users } = await emu.client.listUsers({});
    const engineers = users.filter((u) => u.userTags.includes(outputs.userTagIds!.value.engineering)).map((u) => u.userId).sort();
    expect(engineers).toEqual([userIds.carol, userIds.dave].sort());

    // Secrets: neither the configured API private key nor the generated one is stored in plain text.
    const stored = storedState(stack);
    expect(stored).not.toContain(emu.emulator.bootstrap.apiPrivateKey);
    expect(stored).not.toContain(generatedPrivateKey);
    expect(stored).toContain("keyform:index:Policy");

    const quiet = await stack.preview({ expectNoChanges: true });
    expect(quiet.changeSummary.update ?? 0).toBe(0);

    // Out of band: someone edits a policy's notes and renames a tag in the console.
    await emu.client.updatePolicy({ policyId: outputs.policyIds!.value.denyExports, policyNotes: "edited by hand" });
    await emu.client.updateUserTag({ userTagId: outputs.userTagIds!.value.treasury, newUserTagName: "treasury-renamed", addUserIds: [], removeUserIds: [] });
    const refresh = await stack.refresh();
    expect(refresh.summary.resourceChanges?.update).toBe(2);

    const events: EngineEvent[] = [];
    const drift = await stack.preview({ onEvent: (e) => events.push(e) });
    expect(drift.changeSummary.update).toBe(2);
    expect(detailedDiffs(events)).toEqual({ "deny-exports": ["notes"], treasury: ["userTagName"] });

    const fix = await stack.up();
    expect(fix.summary.resourceChanges?.update).toBe(2);
    expect((await emu.client.getPolicy({ policyId: outputs.policyIds!.value.denyExports })).policy.notes).toMatch(/^Managed by keyform/);

    // Still no plain-text secret after refresh and update rewrote the state.
    const rewritten = storedState(stack);
    expect(rewritten).not.toContain(emu.emulator.bootstrap.apiPrivateKey);
    expect(rewritten).not.toContain(generatedPrivateKey);
    expect((await stack.outputs()).ciDeployerPrivateKey).toEqual({ value: generatedPrivateKey, secret: true });

    const destroy = await stack.destroy();
    expect(destroy.summary.result).toBe("succeeded");
    const { userTags } = await emu.client.listUserTags({});
    expect(userTags.map((t) => t.tagId)).not.toContain(outputs.userTagIds!.value.admins);
  });
});
