/**
 * Every example runs on a fresh emulator exactly as its README says: the `sh` block of
 * examples/org/README.md (the TypeScript program) and examples/org-yaml/README.md (Pulumi YAML
 * through the provider plugin), extracted from the files and run in a clean copy of the
 * repository. The emulator deploys the Earn wrapper itself (`keyform serve --earn-wrapper`): no
 * scripts/org-up, no test code in between. The runs print no deprecation warning, and the
 * organization then holds the wrapper with deposits disabled, as both programs declare.
 *
 * The two organizations those engine runs leave are then the proof of two more promises, each
 * on the organizations as the programs made them (before, each brought the examples up again):
 * - the two programs declare the same organization: equal once ids, generated keys and
 *   addresses are replaced by the names they stand for;
 * - `keyform export` covers every resource class: the TypeScript example's organization, with
 *   objects made by hand added to it (a user with API keys on two curves, one expiring, a tag with
 *   members, a policy with a condition and a consensus, an invitation with a tag, a contract
 *   interface, and the classes the example has no object of: a private key, its tag, a session
 *   profile), exported as TypeScript and as Pulumi YAML, is adopted by each export applied in a
 *   new stack (every object, the same ids) without a single activity or any change to the
 *   organization, and the next preview reports no changes. (An organization of its own for the
 *   hand-made objects cost two more adoptions and previews.)
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { KeyformClient } from "../../sdk/client/client";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { organizationSnapshot } from "../support/organization-snapshot";
import { createWorkDirStack, pulumiBinDir, repoRoot, type WorkDirStackOptions } from "../support/engine";
import { changes } from "../resources/harness/engine-harness";
import { linkedTypeScriptProject } from "../support/typescript-project";
import { comparableOrganization } from "./examples-snapshot";
import { copyBuild } from "../support/built-copy";
import { cleanCopy, markdownBlocks } from "../support/repo-copy";

const run = promisify(execFile);

let work: string;
let copy: string;
let env: NodeJS.ProcessEnv;
/** Each example's run: its emulator (started with `&`) serves until afterAll. */
const ran = new Map<string, { dataDir: string; block: string; stop: () => void }>();

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-examples-readme-"));
  copy = path.join(work, "repo");
  cleanCopy(copy);
  // The build the test command made: the blocks' `npm run build` compiles incrementally.
  copyBuild(copy);
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_"))),
    PATH: `${pulumiBinDir()}:${process.env.PATH}`,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
});

afterAll(() => {
  for (const { stop } of ran.values()) stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Runs a shell block in its own process group; `stop` ends the group (the emulator started with `&` too). */
function runBlock(block: string, cwd: string): Promise<{ code: number | null; output: string; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-c", block], { cwd, env, detached: true });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    // "exit", not "close": the emulator in the background keeps the pipes open.
    child.on("exit", (code) =>
      resolve({
        code,
        output,
        stop: () => {
          try {
            process.kill(-child.pid!, "SIGTERM");
          } catch {
            // already gone
          }
        },
      }),
    );
  });
}

/** The KEYFORM_* settings of the emulator whose data folder is `dataDir`, from its bootstrap.json. */
function settingsOf(dataDir: string): Record<string, string> {
  const b = JSON.parse(fs.readFileSync(dataDir + "/bootstrap.json", "utf8"));
  return { KEYFORM_BASE_URL: b.baseUrl, KEYFORM_ORGANIZATION_ID: b.organizationId, KEYFORM_API_PUBLIC_KEY: b.apiPublicKey, KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey };
}

/** A client of the emulator whose data folder is `dataDir`. */
function clientOf(dataDir: string): KeyformClient {
  const s = settingsOf(dataDir);
  return new KeyformClient({
    baseUrl: s.KEYFORM_BASE_URL!,
    organizationId: s.KEYFORM_ORGANIZATION_ID!,
    stamper: new ApiKeyStamper({ apiPublicKey: s.KEYFORM_API_PUBLIC_KEY!, apiPrivateKey: s.KEYFORM_API_PRIVATE_KEY! }),
  });
}

const EXAMPLES = [
  { example: "org", heading: "Run it", dataDir: ".keyform/emulator-ts" },
  { example: "org-yaml", heading: "Run it on a fresh emulator", dataDir: ".keyform/emulator-yaml" },
];

describe("the examples, as their READMEs say", () => {
  for (const { example, heading, dataDir } of EXAMPLES) {
    it(`examples/${example}`, { timeout: 1_200_000 }, async () => {
      const block = markdownBlocks(path.join(copy, "examples", example, "README.md"), "sh", heading)[0]!;
      expect(block).toContain("--earn-wrapper");
      expect(block).not.toContain("org-up");
      const result = await runBlock(block, copy);
      ran.set(example, { dataDir: path.join(copy, dataDir), block, stop: result.stop });
      expect(result.code, result.output.slice(-6000)).toBe(0);
      expect(result.output).toMatch(/Earn wrapper 0x[0-9a-fA-F]{40} for vault 0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183 \(deployed\)/);
      expect(result.output).not.toMatch(/deprecated/i);
      const client = clientOf(path.join(copy, dataDir));
      const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
      expect(enabledVaults.map((v) => v.depositsDisabled)).toEqual([true]);
      const { users } = await client.listUsers({});
      expect(users.length).toBeGreaterThan(3);
    });
  }

  it("examples/org and examples/org-yaml declare the same organization", async () => {
    const [ts, yaml] = [ran.get("org"), ran.get("org-yaml")];
    expect(ts && yaml, "both examples ran").toBeTruthy();
    // Both READMEs select the stack `dev`.
    const fromTypescript = await comparableOrganization(clientOf(ts!.dataDir), "dev");
    const fromYaml = await comparableOrganization(clientOf(yaml!.dataDir), "dev");
    expect(fromYaml).toEqual(fromTypescript);
    // Not vacuous: the organization holds what both programs declare.
    const snapshot = JSON.stringify(fromTypescript);
    for (const thing of ["user:alice", "tag:engineering", "Nobody exports keys", "203.0.113.0/24", "activity-updates-<stack>", "treasury-<stack>-sol", "Payroll program", "erin@example.com"]) {
      expect(snapshot).toContain(thing);
    }
  });
});

/** `<class> <id>` of the keyform resources of an exported deployment (dynamic resources or the plugin's). */
function objectsIn(deployment: unknown): string[] {
  const resources = (deployment as { resources?: Array<{ type: string; id?: string }> }).resources ?? [];
  return resources
    .map((r) => ({ kind: /^(?:pulumi-nodejs:dynamic\/keyform|keyform:index):(\w+)$/.exec(r.type)?.[1], id: r.id }))
    .filter((r) => r.kind !== undefined)
    .map((r) => `${r.kind} ${r.id}`)
    .sort();
}

/**
 * Adds to the organization behind `client` objects made by hand: a user with API keys on two
 * curves (one expiring), a tag with members, a policy with a condition and a consensus, an
 * invitation with a tag, a contract interface, and the classes the example has no object of (a
 * private key, its tag, a session profile). Returns their `<class> <id>`.
 */
async function buildByHand(client: KeyformClient, rootUserId: string): Promise<string[]> {
  const dana = generateApiKeyPair("API_KEY_CURVE_P256");
  const { userIds } = await client.createUsers({
    users: [{ userName: "dana", apiKeys: [{ apiKeyName: "laptop", publicKey: dana.publicKey, curveType: "API_KEY_CURVE_P256" }], authenticators: [], oauthProviders: [], userTags: [] }],
  });
  const danaId = userIds[0]!;
  const bot = generateApiKeyPair("API_KEY_CURVE_SECP256K1");
  await client.createApiKeys({ userId: danaId, apiKeys: [{ apiKeyName: "ci", publicKey: bot.publicKey, curveType: "API_KEY_CURVE_SECP256K1", expirationSeconds: "86400" }] });
  const { userTagId } = await client.createUserTag({ userTagName: "ops team", userIds: [rootUserId, danaId] });
  const { policyId } = await client.createPolicy({
    policyName: "Ops approve signing",
    effect: "EFFECT_ALLOW",
    condition: "activity.action == 'SIGN'",
    consensus: `approvers.any(user, user.tags.contains('${userTagId}'))`,
    notes: "made by hand",
  });
  const { invitationIds } = await client.createInvitations({
    invitations: [{ receiverUserName: "Gina", receiverUserEmail: "gina@example.com", receiverUserTags: [userTagId], accessType: "ACCESS_TYPE_WEB", senderUserId: rootUserId }],
  });
  const { privateKeys } = await client.createPrivateKeys({
    privateKeys: [{ privateKeyName: "signer", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
  });
  const { privateKeyTagId } = await client.createPrivateKeyTag({ privateKeyTagName: "hot keys", privateKeyIds: [privateKeys[0]!.privateKeyId] });
  const { sessionProfileId } = await client.createSessionProfile({ sessionProfileName: "read only", scope: "activity.action == 'READ'", expirationSeconds: "3600" });
  const { smartContractInterfaceId } = await client.createSmartContractInterface({
    smartContractAddress: "0x" + "a1".repeat(20),
    smartContractInterface: JSON.stringify([{ type: "function", name: "transfer", inputs: [{ name: "to", type: "address" }] }]),
    type: "SMART_CONTRACT_INTERFACE_TYPE_ETHEREUM",
    label: "Token",
  });
  const { apiKeys } = await client.getApiKeys({ userId: danaId });
  return [
    `User ${danaId}`,
    ...apiKeys.map((k) => `ApiKey ${k.apiKeyId}`),
    `UserTag ${userTagId}`,
    `Policy ${policyId}`,
    `Invitation ${invitationIds[0]}`,
    `PrivateKey ${privateKeys[0]!.privateKeyId}`,
    `PrivateKeyTag ${privateKeyTagId}`,
    `SessionProfile ${sessionProfileId}`,
    `SmartContractInterface ${smartContractInterfaceId}`,
  ];
}

describe("keyform export of the example organization (the TypeScript example's, as its README made it, with objects made by hand)", () => {
  /** `<class> <id>` of every object the example program manages, from its README stack's state. */
  let declared: string[] = [];
  /** `<class> <id>` of the objects made by hand in the same organization. */
  let handMade: string[] = [];
  /** Every object an exported program must adopt. */
  let exported: string[] = [];
  let settings: Record<string, string> = {};
  let client: KeyformClient;
  /** The organization before any adoption, read with the official client. */
  let organizationBefore: unknown;

  const organizationNow = () =>
    organizationSnapshot({
      baseUrl: settings.KEYFORM_BASE_URL!,
      organizationId: settings.KEYFORM_ORGANIZATION_ID!,
      apiPublicKey: settings.KEYFORM_API_PUBLIC_KEY!,
      apiPrivateKey: settings.KEYFORM_API_PRIVATE_KEY!,
    });

  /** Every activity id of the organization: an adoption that changed anything would add one. */
  async function activityIds(): Promise<string[]> {
    const { activities } = await client.listActivities({ paginationOptions: { limit: "100" } });
    return activities.map((a) => a.id);
  }

  async function exportTo(file: string, format: string): Promise<string> {
    const cli = path.join(repoRoot, "dist", "sdk", "cli", "main.js");
    await run(process.execPath, [cli, "export", "--format", format, "--out", file], { env: { ...env, ...settings } });
    return fs.readFileSync(file, "utf8");
  }

  /**
   * Brings up the exported `program` in a new stack: it records every object, with the same
   * ids, without an activity or any change to the organization, and the next preview reports
   * no changes.
   */
  async function expectAdoptedUnchanged(program: string, options: WorkDirStackOptions): Promise<void> {
    const before = await activityIds();
    const { stack, cleanup } = await createWorkDirStack(options);
    try {
      const up = await stack.up();
      expect(changes(up.summary.resourceChanges, { stack: true }), program).toEqual({ create: exported.length });
      expect(objectsIn((await stack.exportStack()).deployment)).toEqual(exported);
      expect(await activityIds()).toEqual(before);
      expect(await organizationNow()).toEqual(organizationBefore);
      expect(changes((await stack.preview()).changeSummary)).toEqual({});
    } finally {
      await cleanup();
    }
  }

  beforeAll(async () => {
    const ts = ran.get("org");
    if (!ts) return;
    settings = settingsOf(ts.dataDir);
    client = clientOf(ts.dataDir);
    // The state backend and passphrase the README's block exported.
    const backend = /PULUMI_BACKEND_URL="file:\/\/\$PWD\/([^"]+)"/.exec(ts.block)?.[1];
    const passphrase = /PULUMI_CONFIG_PASSPHRASE=(\S+)/.exec(ts.block)?.[1];
    expect(backend && passphrase, "the block's PULUMI_BACKEND_URL and PULUMI_CONFIG_PASSPHRASE").toBeTruthy();
    const { stdout } = await run(path.join(pulumiBinDir(), "pulumi"), ["stack", "export", "--stack", "dev"], {
      cwd: copy,
      env: { ...env, PULUMI_BACKEND_URL: `file://${path.join(copy, backend!)}`, PULUMI_CONFIG_PASSPHRASE: passphrase! },
      maxBuffer: 64 * 1024 * 1024,
    });
    declared = objectsIn(JSON.parse(stdout).deployment);
    const rootUserId = JSON.parse(fs.readFileSync(path.join(ts.dataDir, "bootstrap.json"), "utf8")).userId as string;
    handMade = await buildByHand(client, rootUserId);
    exported = [...declared, ...handMade].sort();
    organizationBefore = await organizationNow();
  }, 600_000);

  it("declares every class the example uses", () => {
    const kinds = new Set(declared.map((d) => d.split(" ")[0]));
    expect([...kinds].sort()).toEqual(
      ["ApiKey", "EarnWrapperState", "Invitation", "IpAllowlist", "Policy", "RootQuorum", "SmartContractInterface", "User", "UserTag", "Wallet", "WebhookEndpoint"].sort(),
    );
    expect(declared.length).toBeGreaterThanOrEqual(22);
    // With the objects made by hand, the exports cover every class.
    expect([...new Set(exported.map((d) => d.split(" ")[0]))].sort()).toEqual(registeredSpecs().map((spec) => spec.kind).sort());
  });

  it("as TypeScript: a new stack adopts every object unchanged and the next preview is empty", { timeout: 900_000 }, async () => {
    expect(declared.length).toBeGreaterThan(0);
    const project = linkedTypeScriptProject(repoRoot, "exported-example");
    try {
      const program = await exportTo(path.join(project, "index.ts"), "typescript");
      // Objects refer to each other as the example does: by the outputs of the exported resources.
      expect(program).toMatch(/senderUserId: alice\.userId,/);
      expect(program).toMatch(/userIds: \[(\w+\.userId, )*alice\.userId/);
      expect(program).toMatch(/publicKey: \w+\.publicKey,/);
      expect(program).toMatch(/privateKeyIds: \[signer\.privateKeyId\]/);
      expect(program).toContain('new keyform.Policy("ops-approve-signing"');
      // Not the root user's key the export ran with.
      expect(program).not.toContain(settings.KEYFORM_API_PUBLIC_KEY!);
      // The program type-checks as a user's project would: the engine runs index.ts through
      // ts-node, which type-checks it with the project's tsconfig.json (PULUMI_NODEJS_TRANSPILE_ONLY
      // is not set), so a type error fails the up. (A separate `tsc --noEmit` checked it a third time;
      // keyform's declaration files without skipLibCheck: test/engine/consumer-package.test.ts.)
      await expectAdoptedUnchanged(program, { workDir: project, envVars: settings });
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });

  it("as Pulumi YAML (through the provider plugin): a new stack adopts every object unchanged and the next preview is empty", { timeout: 900_000 }, async () => {
    expect(declared.length).toBeGreaterThan(0);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-export-example-yaml-"));
    try {
      const program = await exportTo(path.join(dir, "Pulumi.yaml"), "yaml");
      expect(program).toContain('senderUserId: "${alice.userId}"');
      expect(program).toContain('privateKeyIds: ["${signer.privateKeyId}"]');
      await expectAdoptedUnchanged(program, {
        workDir: dir,
        config: {
          "keyform:baseUrl": settings.KEYFORM_BASE_URL!,
          "keyform:organizationId": settings.KEYFORM_ORGANIZATION_ID!,
          "keyform:apiPublicKey": settings.KEYFORM_API_PUBLIC_KEY!,
          "keyform:apiPrivateKey": { value: settings.KEYFORM_API_PRIVATE_KEY!, secret: true },
        },
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
