/**
 * keyform as a user installs it: the two packages are packed from the build
 * (`scripts/pack-packages.ts`), and a project made the `pulumi new typescript` way (index.ts,
 * no build step, the template's tsconfig) installs the light `keyform` tarball and
 * @pulumi/pulumi outside the repository. The install brings none of the emulator's
 * dependencies, `tsc --noEmit` passes without skipLibCheck (incremental from the record of an
 * earlier check: test/support/kept-type-check.ts), and the program (all six resources
 * and a data function) runs up / preview / destroy against the emulator through ts-node
 * (transpiled only: `tsc` has checked it). The CLI names the emulator package when it is
 * missing, and the fix when its native module was never built. This also proves the serialized
 * providers find keyform's runtime in the user's node_modules.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KeyformClient } from "../../sdk/client/client";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { createWorkDirStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { changes, emulatorEnv, keyformResources, since, storedState } from "../resources/harness/engine-harness";
import { outputOf } from "../support/child-process";
import { installKeyformProject } from "../support/npm-install-cache";
import { typeCheckKept } from "../support/kept-type-check";
import { writeTypeScriptProject } from "../support/typescript-project";

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, "../..");
let emu: TestEmulator;
let client: KeyformClient;
let project: string;
let emulatorTarball: string;
const figures: Record<string, number> = {};

/** What only the emulator needs; none of it may reach a project that installs keyform. */
const EMULATOR_ONLY = ["fastify", "pino", "better-sqlite3", "@ton/core", "@ton/crypto", "@scure/bip32", "@scure/bip39"];

const PROGRAM = `
import * as pulumi from "@pulumi/pulumi";
import * as keyform from "keyform";

const env = process.env;
const tag = new keyform.UserTag("tag", { userTagName: "consumers", userIds: [env.TEST_USER_ID!] });
const policy = new keyform.Policy("policy", {
  policyName: "consumers approve",
  effect: "EFFECT_ALLOW",
  consensus: pulumi.interpolate\`approvers.any(user, user.tags.contains('\${tag.userTagId}'))\`,
});
const key = new keyform.ApiKey("key", { userId: env.TEST_BOT_ID!, apiKeyName: "consumer-ci", curveType: "API_KEY_CURVE_SECP256K1" });
const invite = new keyform.Invitation("invite", {
  receiverUserName: "Erin", receiverUserEmail: "erin@example.com", receiverUserTags: [tag.userTagId],
  accessType: "ACCESS_TYPE_ALL", senderUserId: env.TEST_USER_ID!,
});
const sci = new keyform.SmartContractInterface("sci", {
  smartContractAddress: "0x${"e5".repeat(20)}",
  smartContractInterface: '[{"type":"function","name":"ping","inputs":[]}]',
  type: "ETHEREUM", label: "Ping",
});
const earn = new keyform.EarnWrapperState("earn", { wrapperAddress: env.TEST_WRAPPER!, depositsDisabled: true });
const botKeys = keyform.getApiKeysOutput({ userId: key.userId });

export const tagId = tag.userTagId;
export const policyId = policy.policyId;
export const apiKeyId = key.apiKeyId;
export const privateKey = key.privateKey;
export const invitationId = invite.invitationId;
export const sciId = sci.smartContractInterfaceId;
export const depositsDisabled = earn.depositsDisabled;
export const botKeyNames = botKeys.apply((r) => r.apiKeys.map((k) => k.apiKeyName).sort());
`;

async function npmInstall(args: string[]): Promise<void> {
  // Install scripts are skipped: the emulator's native build is what the last test checks the message for.
  await outputOf("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error", ...args], { cwd: project });
}

beforeAll(async () => {
  const t0 = performance.now();
  emu = await startTestEmulator();
  client = emu.client;
  project = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-consumer-"));
  // What `npm publish` would ship of each package (dist/ must be built: `npx tsc -p .`).
  const [lightTarball, emulatorPackage] = (await outputOf(process.execPath, [path.join(repoRoot, "dist/scripts/pack-packages.js"), "--out", project]))
    .trim()
    .split("\n");
  emulatorTarball = emulatorPackage!;
  writeTypeScriptProject(project, "keyform-consumer");
  fs.writeFileSync(path.join(project, "index.ts"), PROGRAM);
  // The same install as a platform team's project (test/engine/gitops-platform-repo.test.ts): done once.
  await installKeyformProject(project, lightTarball!);
  figures.packAndInstall = since(t0);
}, 900_000);

afterAll(async () => {
  await emu?.stop();
  if (project) fs.rmSync(project, { recursive: true, force: true });
  console.log(`consumer-package figures (ms): ${JSON.stringify(figures)}`);
});

describe("keyform installed from a tarball", () => {
  it("installs without the emulator's dependencies and type-checks without skipLibCheck", { timeout: 600_000 }, async () => {
    for (const name of EMULATOR_ONLY) expect(fs.existsSync(path.join(project, "node_modules", name)), name).toBe(false);
    expect(fs.existsSync(path.join(project, "node_modules/keyform/dist/sdk/emulator"))).toBe(false);
    expect(fs.existsSync(path.join(project, "node_modules/keyform/LICENSE"))).toBe(true);
    const maps = await outputOf("find", [path.join(project, "node_modules/keyform"), "-name", "*.map"]);
    expect(maps).toBe("");
    // tsc's own incremental check, its record kept per user: the declaration files unchanged
    // since an earlier run (Pulumi's, Node's; keyform's when its build is the same) keep their
    // diagnostics, and whatever changed is checked again.
    await typeCheckKept("keyform-consumer", project);
    const tsconfig = JSON.parse(fs.readFileSync(path.join(project, "tsconfig.json"), "utf8"));
    expect(tsconfig.compilerOptions.skipLibCheck).toBeUndefined();
  });

  it("runs all six resources from index.ts: up, preview, destroy", { timeout: 600_000 }, async () => {
    const t0 = performance.now();
    expect(fs.realpathSync(path.join(project, "node_modules/keyform")).startsWith(repoRoot)).toBe(false);
    const bot = generateApiKeyPair();
    const { userIds } = await client.createUsers({
      users: [{ userName: "consumer-bot", apiKeys: [{ apiKeyName: "anchor", publicKey: bot.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
    });
    const { wrapperAddress } = await client.earnDeployWrapper({ vaultAddress: "0x" + "f6".repeat(20), chainCaip2: "eip155:8453", clientFeeBps: "10", clientFeeWallet: "0x" + "f7".repeat(20) });
    const { stack, cleanup } = await createWorkDirStack({
      workDir: project,
      envVars: {
        ...emulatorEnv(emu.emulator),
        TEST_USER_ID: emu.emulator.bootstrap.userId,
        TEST_BOT_ID: userIds[0]!,
        TEST_WRAPPER: wrapperAddress,
        // The program runs through ts-node without its type-check (Pulumi's own setting): the
        // test before this one type-checked the same index.ts with the same tsconfig, and more
        // (keyform's declaration files, without skipLibCheck), with `tsc --noEmit`. ts-node's
        // check of the installed package through `pulumi up` is the quick start's
        // (quick-start.test.ts). Each check here cost about 2 s of CPU, once for up, once for preview.
        PULUMI_NODEJS_TRANSPILE_ONLY: "true",
      },
    });
    try {
      const up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 6 });
      const out = Object.fromEntries(Object.entries(up.outputs).map(([k, v]) => [k, v.value]));
      expect(up.outputs.privateKey!.secret).toBe(true);
      expect(out.botKeyNames).toEqual(["anchor", "consumer-ci"]);
      expect((await client.listUserTags()).userTags.map((t) => t.tagId)).toEqual([out.tagId]);
      expect((await client.getPolicy({ policyId: out.policyId as string })).policy.consensus).toContain(out.tagId as string);
      expect((await client.getOrganization()).organizationData.invitations?.map((i) => i.invitationId)).toEqual([out.invitationId]);
      expect((await client.listSmartContractInterfaces()).smartContractInterfaces.map((s) => s.smartContractInterfaceId)).toEqual([out.sciId]);
      expect((await client.listEarnEnabledVaults()).enabledVaults?.[0]?.depositsDisabled).toBe(true);

      // The state points at the package by name only, never at this repository.
      const state = storedState(stack);
      expect(state).not.toContain(repoRoot);
      expect(state).not.toContain(out.privateKey as string);
      expect(state).not.toContain(emu.emulator.bootstrap.apiPrivateKey);

      expect(changes((await stack.preview()).changeSummary)).toEqual({});

      const destroyed = await stack.destroy();
      expect(changes(destroyed.summary.resourceChanges, { stack: true })).toEqual({ delete: 6 });
      expect(await keyformResources(stack)).toEqual([]);
      expect((await client.listUserTags()).userTags).toEqual([]);
      expect((await client.listPolicies()).policies).toEqual([]);
      expect((await client.getApiKeys({ userId: userIds[0]! })).apiKeys.map((k) => k.apiKeyName)).toEqual(["anchor"]);
      expect((await client.getOrganization()).organizationData.invitations ?? []).toEqual([]);
      expect((await client.listSmartContractInterfaces()).smartContractInterfaces).toEqual([]);
      expect((await client.listEarnEnabledVaults()).enabledVaults?.[0]?.depositsDisabled).toBe(false);
    } finally {
      await cleanup();
      figures.upPreviewDestroy = since(t0);
    }
  });

  it("keyform serve names the emulator package when it is missing, and the fix when its database module is not built", { timeout: 600_000 }, async () => {
    const cli = path.join(project, "node_modules/.bin/keyform");
    const { stdout: version } = await run(cli, ["--version"]);
    expect(version.trim()).toBe(JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version);
    const serve = () => run(cli, ["serve", "--port", "0", "--data", path.join(project, ".emulator")]).then(
      () => "",
      (error: { stderr: string }) => error.stderr,
    );
    expect(await serve()).toMatch(/the emulator is not installed: .*npm install --save-dev keyform-emulator/);
    await npmInstall([emulatorTarball]);
    expect(await serve()).toMatch(/better-sqlite3\) is not compiled for this Node\.js: run `npm rebuild better-sqlite3`/);
  });
});
