/**
 * The client against the real emulator: stamps accepted, activities run, queries parsed by
 * the same schemas, errors typed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, AuthenticationError, generateApiKeyPair, KeyformClient, NotFoundError } from "../../sdk/client";
import { startEmulator, type RunningEmulator } from "../../sdk/emulator";

let emulator: RunningEmulator | undefined;
let dataDir: string | undefined;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "keyform-client-"));
  emulator = await startEmulator({ port: 0, dataDir, logLevel: "silent" });
});

afterAll(async () => {
  await emulator?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function client(stamper?: ApiKeyStamper) {
  const bootstrap = emulator!.bootstrap;
  return new KeyformClient({
    baseUrl: emulator!.url,
    organizationId: bootstrap.organizationId,
    stamper: stamper ?? new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
  });
}

describe("client against the emulator", () => {
  it("creates a user tag, lists it, and reads its activity", async () => {
    const c = client();
    const created = await c.createUserTag({ userTagName: `ops-${Date.now()}`, userIds: [] });
    const { userTags } = await c.listUserTags();
    expect(userTags.map((t) => t.tagId)).toContain(created.userTagId);

    const raw = await c.submitActivity("createUserTag", { userTagName: `dev-${Date.now()}`, userIds: [] });
    const { activity } = await c.getActivity({ activityId: raw.id });
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.fingerprint).toBe(raw.fingerprint);
  });

  it("maps the emulator's errors to typed errors", async () => {
    await expect(client().getActivity({ activityId: "00000000-0000-4000-8000-00000000dead" })).rejects.toBeInstanceOf(NotFoundError);
    const stranger = generateApiKeyPair();
    await expect(
      client(new ApiKeyStamper({ apiPublicKey: stranger.publicKey, apiPrivateKey: stranger.privateKey })).listUserTags(),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });
});
