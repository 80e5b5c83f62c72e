/**
 * No self-lockout, on the real engine against the emulator, TypeScript (dynamic providers) and
 * YAML (the provider plugin) paths:
 *
 * - An enabled organization-level IP allowlist that leaves out the address the emulator echoes
 *   for this client (`x-rate-limit-request-remote-addr`) fails the preview naming that address;
 *   with a rule for it the preview passes; with `keyform:allowLockout` the deliberate
 *   hand-over previews.
 * - Removing from the program the API key keyform signs with (adopted with importId) fails
 *   the `up` before the delete is sent: the key is still there, read with the official client.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessThrough, typescriptStack as typescriptDeclaredStack, yamlStack as yamlDeclaredStack, type Declared } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { commandOutcome } from "./fail-closed-support";
import { officialClient } from "../support/organization-snapshot";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lockout-"));
  official = officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));
});

afterAll(async () => {
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

const access = () => accessThrough(emu.emulator.url, emu.emulator.bootstrap);
const typescriptStack = (declared: Declared[]) => typescriptDeclaredStack(work, access(), declared);
const yamlStack = (declared: Declared[]) => yamlDeclaredStack(work, access(), declared);

const organizationAllowlist = async () =>
  official.getIpAllowlist({ organizationId: emu.emulator.bootstrap.organizationId }).then(
    (a) => a.allowlist,
    () => undefined,
  );

describe.each([
  { path: "TypeScript", make: typescriptStack },
  { path: "YAML", make: yamlStack },
])("no self-lockout: $path", ({ make }) => {
  it("an IP allowlist without the echoed address fails the preview; with it, or with allowLockout, it previews", { timeout: TIMEOUT }, async () => {
    const excluding: Declared = { kind: "IpAllowlist", name: "org-ips", args: { rules: [{ cidr: "203.0.113.0/24", label: "elsewhere" }] } };
    const { handle, redeclare } = await make([excluding]);
    const { stack } = handle;
    try {
      const refused = await commandOutcome(stack.preview());
      expect(refused.exitCode).not.toBe(0);
      expect(refused.output).toMatch(/the organization-level IP allowlist leaves out (::ffff:)?127\.0\.0\.1, the address the service sees keyform's requests from/);
      expect(refused.output).toMatch(/keyform:allowLockout/);
      const up = await commandOutcome(stack.up());
      expect(up.exitCode).not.toBe(0);
      expect(await organizationAllowlist()).toBeUndefined();

      redeclare([{ ...excluding, args: { rules: [{ cidr: "203.0.113.0/24" }, { cidr: "127.0.0.0/8", label: "this runner" }] } }]);
      expect((await commandOutcome(stack.preview())).exitCode).toBe(0);

      redeclare([excluding]);
      await stack.setConfig("keyform:allowLockout", { value: "true" });
      expect((await commandOutcome(stack.preview())).exitCode).toBe(0);
      expect(await organizationAllowlist()).toBeUndefined();
    } finally {
      await handle.cleanup();
    }
  });
});

describe("no self-lockout: deleting the API key keyform signs with (TypeScript)", () => {
  it("up refuses the delete before it is sent; the key is still there", { timeout: TIMEOUT }, async () => {
    const b = emu.emulator.bootstrap;
    const { apiKeys } = await official.getApiKeys({ organizationId: b.organizationId, userId: b.userId });
    const own = apiKeys.find((k) => k.credential.publicKey.toLowerCase() === b.apiPublicKey.toLowerCase())!;
    const adopted: Declared = {
      kind: "ApiKey",
      name: "deployer-key",
      args: { userId: b.userId, apiKeyName: own.apiKeyName, publicKey: own.credential.publicKey, curveType: "API_KEY_CURVE_P256", importId: own.apiKeyId },
    };
    const tag: Declared = { kind: "UserTag", name: "keep", args: { userTagName: "lockout-keep" } };
    const { handle, redeclare } = await typescriptStack([adopted, tag]);
    try {
      await handle.stack.up();
      redeclare([tag]);
      const up = await commandOutcome(handle.stack.up());
      expect(up.exitCode).not.toBe(0);
      expect(up.output).toMatch(new RegExp(`ApiKey ${own.apiKeyId}: it is the API key keyform signs with \\(keyform:apiPublicKey\\); deleting it would lock this stack out`));
      const after = await official.getApiKeys({ organizationId: b.organizationId, userId: b.userId });
      expect(after.apiKeys.map((k) => k.apiKeyId)).toContain(own.apiKeyId);
    } finally {
      // Leave the key in the organization: drop it from state instead of destroying it.
      const exported = await handle.stack.exportStack();
      const deployment = exported.deployment as { resources?: Array<{ urn: string }> };
      deployment.resources = (deployment.resources ?? []).filter((r) => !r.urn.endsWith("::deployer-key"));
      await handle.stack.importStack(exported);
      await handle.cleanup();
    }
  });
});
