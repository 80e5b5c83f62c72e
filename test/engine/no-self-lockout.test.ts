/**
 * No self-lockout, on the real engine against the emulator, TypeScript (dynamic providers) and
 * YAML (the provider plugin) paths:
 *
 * - An enabled organization-level IP allowlist that leaves out the address the emulator echoes
 *   for this client (`x-rate-limit-request-remote-addr`) fails the preview naming that address;
 *   with a rule for it the preview passes; with `keyform:allowLockout` the deliberate
 *   hand-over previews.
 * - A root quorum that leaves out the deploying user, or raises the threshold above 1 while that
 *   user alone is the quorum, fails the preview with one refusal of the lockout proof
 *   (`deployer-access.ts`): the update of the root quorum the deploying user could no longer
 *   submit alone, with its witness naming the user and the RootQuorum; the quorum is unchanged.
 * - Removing from the program the API key keyform signs with (adopted with importId) fails
 *   the `up` before the delete is sent: the key is still there, read with the official client.
 *   A plain preview cannot see that delete (the engine plans it without the provider); the
 *   preview's steps read through the Automation API (`PlannedCredentialDeletes`, what the GitOps
 *   runner and scripts/org-up use) name the key, and the user it belongs to, on both paths;
 *   the runner's `preview` exits 1 with both in its report, and its `up` stops at its preview
 *   with the key and the user still there.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessThrough, typescriptStack as typescriptDeclaredStack, yamlStack as yamlDeclaredStack, type Declared } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { builtScriptOutcome, commandOutcome, lockoutRefusals } from "./fail-closed-support";
import { credentialLockouts, PlannedCredentialDeletes } from "../../sdk/gitops/credential-check";
import { settingsEnv, stackEnv } from "../support/declared-stacks";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { officialClient } from "../support/organization-snapshot";

const TIMEOUT = 600_000;

let emu: TestEmulator;
let work: string;
let official: TurnkeyClient;
let otherUserId: string;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-lockout-"));
  official = officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));
  const key = generateApiKeyPair();
  const { userIds } = await emu.client.createUsers({
    users: [{ userName: "other-root", apiKeys: [{ apiKeyName: "other-root", publicKey: key.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  otherUserId = userIds[0]!;
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
      expect(lockoutRefusals(refused.output)).toBe(1);
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

  it("a root quorum without the deploying user, or above threshold 1, fails the preview with one refusal naming the user", { timeout: TIMEOUT }, async () => {
    const b = emu.emulator.bootstrap;
    const quorumNow = async () => (await official.getOrganization({ organizationId: b.organizationId })).organizationData.rootQuorum;
    const before = await quorumNow();
    expect(before?.userIds).toContain(b.userId);
    const { handle, redeclare } = await make([{ kind: "RootQuorum", name: "root", args: { threshold: 1, userIds: [otherUserId] } }]);
    try {
      const removed = await commandOutcome(handle.stack.preview());
      expect(removed.exitCode).not.toBe(0);
      expect(removed.output).toMatch(/could not apply this plan again in organization [^:]+: ACTIVITY_TYPE_UPDATE_ROOT_QUORUM for RootQuorum "root" would be refused/);
      expect(removed.output).toMatch(new RegExp(`submitted by user "[^"]+" \\(${b.userId}\\) alone: OUTCOME_DENY_IMPLICIT: .*; the root quorum of RootQuorum "root" leaves the user out`));
      expect(lockoutRefusals(removed.output)).toBe(1);
      expect((await commandOutcome(handle.stack.up())).exitCode).not.toBe(0);
      expect(await quorumNow()).toEqual(before);

      redeclare([{ kind: "RootQuorum", name: "root", args: { threshold: 2, userIds: [b.userId, otherUserId] } }]);
      const raised = await commandOutcome(handle.stack.preview());
      expect(raised.exitCode).not.toBe(0);
      expect(raised.output).toMatch(new RegExp(`submitted by user "[^"]+" \\(${b.userId}\\) alone: OUTCOME_[A-Z_]+: it would wait for the root quorum of RootQuorum "root" \\(threshold 2\\)`));
      expect(lockoutRefusals(raised.output)).toBe(1);
      expect(await quorumNow()).toEqual(before);

      // Keeping the user, alone, previews.
      redeclare([{ kind: "RootQuorum", name: "root", args: { threshold: 1, userIds: [b.userId, otherUserId] } }]);
      expect((await commandOutcome(handle.stack.preview())).exitCode).toBe(0);
    } finally {
      await handle.cleanup();
    }
  });
});

/** `node dist/examples/gitops/runner.js <args>` with `env`: its exit code and output. */
const runnerOutcome = (args: string[], env: Record<string, string>) => builtScriptOutcome("dist/examples/gitops/runner.js", args, env);

describe.each([
  { path: "TypeScript", make: typescriptStack },
  { path: "YAML", make: yamlStack },
])("no self-lockout: a planned delete of the deploying key or user, at preview ($path)", ({ path: door, make }) => {
  it("a plain preview passes (the engine does not ask the provider); the preview's steps name the key and the user", { timeout: TIMEOUT }, async () => {
    const b = emu.emulator.bootstrap;
    const { apiKeys } = await official.getApiKeys({ organizationId: b.organizationId, userId: b.userId });
    const own = apiKeys.find((k) => k.credential.publicKey.toLowerCase() === b.apiPublicKey.toLowerCase())!;
    const { user } = await official.getUser({ organizationId: b.organizationId, userId: b.userId });
    const adoptedKey: Declared = {
      kind: "ApiKey",
      name: "deployer-key",
      args: { userId: b.userId, apiKeyName: own.apiKeyName, publicKey: own.credential.publicKey, curveType: "API_KEY_CURVE_P256", importId: own.apiKeyId },
    };
    const adoptedUser: Declared = { kind: "User", name: "deployer", args: { userName: user.userName, importId: b.userId, ...(user.userEmail ? { userEmail: user.userEmail } : {}) } };
    const tag: Declared = { kind: "UserTag", name: "keep", args: { userTagName: `lockout-keep-preview-${door}` } };
    const { handle, redeclare, workDir } = await make([adoptedKey, adoptedUser, tag]);
    try {
      await handle.stack.up();
      redeclare([tag]);
      const deletes = new PlannedCredentialDeletes();
      // The engine's own limit: the preview plans both deletes and passes.
      expect((await commandOutcome(handle.stack.preview({ onEvent: deletes.onEvent }))).exitCode).toBe(0);
      expect(deletes.planned.map((d) => `${d.kind} ${d.id} ${d.op}`).sort()).toEqual([`ApiKey ${own.apiKeyId} delete`, `User ${b.userId} delete`]);
      const env = { ...process.env, ...settingsEnv(access()) };
      const lockouts = await credentialLockouts(handle.stack, deletes, env);
      expect(lockouts).toHaveLength(2);
      expect(lockouts.join("\n")).toMatch(new RegExp(`ApiKey ${own.apiKeyId} \\[urn:pulumi:[^\\]]+::deployer-key\\]: this plan deletes the API key keyform signs with`));
      expect(lockouts.join("\n")).toMatch(new RegExp(`User ${b.userId} \\("[^"]+"\\) \\[urn:pulumi:[^\\]]+::deployer\\]: this plan deletes the user the API key keyform signs with belongs to`));
      expect(await credentialLockouts(handle.stack, deletes, { ...env, KEYFORM_ALLOW_LOCKOUT: "true" })).toEqual([]);

      // The GitOps runner's pull request preview fails on it, and its report names both.
      const out = fs.mkdtempSync(path.join(work, "reports-"));
      const runner = await runnerOutcome(["preview", "--stack", handle.stack.name, "--out", out, "--work-dir", workDir], { ...stackEnv(handle.stack), ...settingsEnv(access()) });
      expect(runner.code, runner.output).toBe(1);
      const report = JSON.parse(fs.readFileSync(path.join(out, "preview.json"), "utf8")) as { errors: string[] };
      expect(report.errors.join("\n")).toMatch(new RegExp(`ApiKey ${own.apiKeyId} \\[[^\\]]+\\]: this plan deletes the API key keyform signs with`));
      expect(report.errors.join("\n")).toMatch(new RegExp(`User ${b.userId} \\("[^"]+"\\) \\[[^\\]]+\\]: this plan deletes the user`));
      expect(fs.readFileSync(path.join(out, "preview.md"), "utf8")).toMatch(/this plan deletes the API key keyform signs with/);

      // Its `up` previews first and stops there: nothing is deleted.
      const up = await runnerOutcome(["up", "--stack", handle.stack.name, "--out", out, "--work-dir", workDir], { ...stackEnv(handle.stack), ...settingsEnv(access()) });
      expect(up.code, up.output).toBe(1);
      expect((JSON.parse(fs.readFileSync(path.join(out, "up.json"), "utf8")) as { errors: string[] }).errors.join("\n")).toMatch(/this plan deletes the API key keyform signs with/);
      const after = await official.getApiKeys({ organizationId: b.organizationId, userId: b.userId });
      expect(after.apiKeys.map((k) => k.apiKeyId)).toContain(own.apiKeyId);
      expect((await official.getUser({ organizationId: b.organizationId, userId: b.userId })).user.userId).toBe(b.userId);
    } finally {
      // Leave the key and the user in the organization: drop them from state instead of destroying them.
      const exported = await handle.stack.exportStack();
      const deployment = exported.deployment as { resources?: Array<{ urn: string }> };
      deployment.resources = (deployment.resources ?? []).filter((r) => !r.urn.endsWith("::deployer-key") && !r.urn.endsWith("::deployer"));
      await handle.stack.importStack(exported);
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
