/**
 * Real engine, real emulators: what the provider plugin adds over the dynamic resources.
 * - `pulumi import` of a tag, a policy and an API key made with the client, then a preview
 *   with no changes against a program that declares them;
 * - CheckConfig refusing a misspelled setting (`keyform:baseurl`) by name;
 * - a preview failing at the settings check (not by a timeout), naming the setting, with a wrong
 *   API key or an unreachable base URL;
 * - two explicit providers on two organizations (two emulators) in one program, with no
 *   credential of either in plain text in state.
 */
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createWorkDirStack, repoRoot, storedState } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { settingsConfig } from "./plugin-support";

const fixtures = path.join(repoRoot, "test", "engine", "fixtures");

let emuA: TestEmulator;
let emuB: TestEmulator;

beforeAll(async () => {
  [emuA, emuB] = await Promise.all([startTestEmulator(), startTestEmulator()]);
});

afterAll(async () => {
  await Promise.all([emuA?.stop(), emuB?.stop()]);
});

/** The message of a rejected promise (the CLI's output for a failed command). */
async function failure(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error("expected the command to fail");
}

describe("provider plugin", () => {
  it("pulumi import of a tag, a policy and an API key, then no changes; settings checked by name", { timeout: 600_000 }, async () => {
    const client = emuA.client;
    const userId = emuA.emulator.bootstrap.userId;
    const pair = generateApiKeyPair();
    const { userTagId } = await client.createUserTag({ userTagName: "ops-imported", userIds: [userId] });
    const { policyId } = await client.createPolicy({
      policyName: "ops may sign",
      effect: "EFFECT_ALLOW",
      condition: "activity.action == 'SIGN'",
      notes: "made by hand",
    });
    const { apiKeyIds } = await client.createApiKeys({
      userId,
      apiKeys: [{ apiKeyName: "bot-imported", publicKey: pair.publicKey, curveType: "API_KEY_CURVE_P256" }],
    });

    const { stack, cleanup } = await createWorkDirStack({
      workDir: path.join(fixtures, "plugin-import"),
      config: { ...settingsConfig(emuA), "kf-plugin-import:userId": userId, "kf-plugin-import:publicKey": pair.publicKey },
    });
    try {
      const imported = await stack.import({
        resources: [
          { type: "keyform:index:UserTag", name: "ops", id: userTagId },
          { type: "keyform:index:Policy", name: "allow-ops", id: policyId },
          { type: "keyform:index:ApiKey", name: "bot-key", id: apiKeyIds[0]! },
        ],
        protect: false,
        generateCode: false,
      });
      expect(imported.summary.resourceChanges?.import).toBe(3);
      const state = (await stack.exportStack()).deployment.resources as Array<{ type: string; id?: string; outputs?: Record<string, unknown> }>;
      const policy = state.find((r) => r.type === "keyform:index:Policy")!;
      expect(policy.id).toBe(policyId);
      expect(policy.outputs).toMatchObject({ policyName: "ops may sign", condition: "activity.action == 'SIGN'", notes: "made by hand" });
      expect(state.find((r) => r.type === "keyform:index:ApiKey")?.outputs).toMatchObject({ userId, publicKey: pair.publicKey });

      // The program declares exactly what was imported: nothing to do.
      const quiet = await stack.preview({ expectNoChanges: true });
      expect(quiet.changeSummary.same).toBe(4);

      // A misspelled setting is refused by name, with the right spelling.
      await stack.setConfig("keyform:baseurl", { value: emuA.emulator.url });
      const misspelled = await failure(stack.preview());
      expect(misspelled).toContain("keyform:baseurl is not a keyform setting; did you mean keyform:baseUrl?");
      await stack.removeConfig("keyform:baseurl");

      // No organization anywhere: the preview fails naming the setting.
      await stack.removeConfig("keyform:organizationId");
      const noOrganization = await failure(stack.preview());
      expect(noOrganization).toContain('needs the setting "organizationId"');
      await stack.setConfig("keyform:organizationId", { value: emuA.emulator.bootstrap.organizationId });

      // A key the service does not know: the preview fails, naming the key settings.
      const stranger = generateApiKeyPair();
      await stack.setAllConfig({
        "keyform:apiPublicKey": { value: stranger.publicKey },
        "keyform:apiPrivateKey": { value: stranger.privateKey, secret: true },
      });
      const wrongKey = await failure(stack.preview());
      // The settings check's own failure, from the service's answer (it refused the key), not a
      // timeout: it names the key and the settings to check.
      expect(wrongKey).toContain(`keyform: the provider settings do not work: the service at ${emuA.emulator.url} refused the API key ${stranger.publicKey}`);
      expect(wrongKey).toContain("keyform:apiPublicKey");
      expect(wrongKey).not.toMatch(/did not answer within|sent nothing within/);
      expect(wrongKey).not.toContain(stranger.privateKey);

      // A base URL where nothing listens: the preview fails, naming keyform:baseUrl.
      await stack.setAllConfig(Object.fromEntries(Object.entries(settingsConfig(emuA)).map(([k, v]) => [k, typeof v === "string" ? { value: v } : v])));
      await stack.setConfig("keyform:baseUrl", { value: "http://127.0.0.1:9" });
      const wrongUrl = await failure(stack.preview());
      // The settings check's reachability probe: the refused connection by its code, not a timeout.
      expect(wrongUrl).toContain("keyform: the provider settings do not work: keyform:baseUrl http://127.0.0.1:9 cannot be reached: it refuses connections (ECONNREFUSED)");
      expect(wrongUrl).not.toMatch(/did not answer within|sent nothing within/);

      await stack.setConfig("keyform:baseUrl", { value: emuA.emulator.url });
      const destroy = await stack.destroy();
      expect(destroy.summary.result).toBe("succeeded");
      expect((await client.listUserTags({})).userTags.map((t) => t.tagId)).not.toContain(userTagId);
    } finally {
      await cleanup();
    }
  });

  it("two explicit providers manage two organizations in one program", { timeout: 600_000 }, async () => {
    const config: Record<string, string | { value: string; secret: boolean }> = {};
    for (const [prefix, emu] of [["a", emuA], ["b", emuB]] as const) {
      const b = emu.emulator.bootstrap;
      config[`kf-plugin-two-orgs:${prefix}BaseUrl`] = emu.emulator.url;
      config[`kf-plugin-two-orgs:${prefix}OrganizationId`] = b.organizationId;
      config[`kf-plugin-two-orgs:${prefix}ApiPublicKey`] = b.apiPublicKey;
      config[`kf-plugin-two-orgs:${prefix}ApiPrivateKey`] = { value: b.apiPrivateKey, secret: true };
    }
    const { stack, cleanup } = await createWorkDirStack({ workDir: path.join(fixtures, "plugin-two-orgs"), config });
    try {
      const up = await stack.up();
      const teamA = up.outputs.teamA!.value as { id: string; organizationId: string };
      const teamB = up.outputs.teamB!.value as { id: string; organizationId: string };
      expect(teamA.organizationId).toBe(emuA.emulator.bootstrap.organizationId);
      expect(teamB.organizationId).toBe(emuB.emulator.bootstrap.organizationId);
      const tagsA = (await emuA.client.listUserTags({})).userTags.map((t) => t.tagName);
      const tagsB = (await emuB.client.listUserTags({})).userTags.map((t) => t.tagName);
      expect(tagsA).toContain("team-a");
      expect(tagsA).not.toContain("team-b");
      expect(tagsB).toContain("team-b");
      expect(tagsB).not.toContain("team-a");

      const stored = storedState(stack);
      expect(stored).not.toContain(emuA.emulator.bootstrap.apiPrivateKey);
      expect(stored).not.toContain(emuB.emulator.bootstrap.apiPrivateKey);

      await stack.preview({ expectNoChanges: true });
      const destroy = await stack.destroy();
      expect(destroy.summary.result).toBe("succeeded");
      expect((await emuB.client.listUserTags({})).userTags.map((t) => t.tagName)).not.toContain("team-b");
    } finally {
      await cleanup();
    }
  });
});
