/**
 * The example organization, brought up once per door as the examples' READMEs say, and every
 * promise about it proven on the organizations those runs leave (each used to bring the example
 * up again):
 *
 * - The READMEs: the `sh` block of examples/org/README.md (the TypeScript program, the root
 *   Pulumi.yaml) and of examples/org-yaml/README.md (Pulumi YAML through the provider plugin),
 *   extracted from the files and run in a clean copy of the repository. The emulator deploys the
 *   Earn wrapper itself (`keyform serve --earn-wrapper`): no scripts/org-up, no test code in
 *   between. The runs print no deprecation warning, and the organization then holds the wrapper
 *   with deposits disabled, as both programs declare.
 * - The two programs declare the same organization: equal once ids, generated keys and
 *   addresses are replaced by the names they stand for.
 * - The main job, on the TypeScript README's organization and stack: the organization holds
 *   every declared object; a second run (`node dist/examples/main.js`, the job scripts/org-up
 *   ends in, pointed at that organization through KEYFORM_*) changes nothing, starts no emulator
 *   and masks the secret outputs; the treasury's signing policy; the GitOps runner detects drift
 *   (exit 3), sets it back (`up`), then plans a code change and nothing else; `--destroy` leaves
 *   the organization without anything the stack created. `npm start` (scripts/org-up: install check, build, then `exec node
 *   dist/examples/main.js "$@"`) brings the example up on the embedded emulator of a fresh data
 *   folder, on the Free plan's rate limit, in a clean copy of its own: it runs beside the others
 *   from the start, since it spends its time waiting for its request budget, not on the machine.
 * - `keyform export` covers every resource class: the YAML example's organization, with objects
 *   made by hand added to it (a user with API keys on two curves, one expiring, a tag with
 *   members, a policy with a condition and a consensus, an invitation with a tag, a contract
 *   interface, and the classes the example has no object of: a private key, its tag, a session
 *   profile), exported as TypeScript and as Pulumi YAML, is adopted by each export applied in a
 *   new stack (every object, the same ids) without a single activity or any change to the
 *   organization, and the next preview reports no changes. (It is the YAML example's: the main
 *   job changes the other one, and destroys it.)
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
import { runChild, type Finished } from "../support/child-process";
import { linkedTypeScriptProject } from "../support/typescript-project";
import { comparableOrganization } from "./examples-snapshot";
import { copyBuild } from "../support/built-copy";
import { cleanCopy, markdownBlocks } from "../support/repo-copy";
import { checkTreasurySigning } from "../support/treasury-signing";

const run = promisify(execFile);

const DRIFT_EXIT_CODE = 3;

let work: string;
let copy: string;
let env: NodeJS.ProcessEnv;
/** Each example's run: its emulator (started with `&`) serves until afterAll. */
const ran = new Map<string, { dataDir: string; block: string; stop: () => void }>();
/** `npm start` on the Free plan, in a clean copy of its own, started by beforeAll. */
let freePlanRun: Promise<Finished> | undefined;

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-examples-readme-"));
  copy = path.join(work, "repo");
  const freeCopy = path.join(work, "free-plan-repo");
  for (const dir of [copy, freeCopy]) {
    cleanCopy(dir);
    // The build the test command made: the blocks' `npm run build` and scripts/org-up's tsc compile incrementally.
    copyBuild(dir);
  }
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_"))),
    PATH: `${pulumiBinDir()}:${process.env.PATH}`,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_SKIP_UPDATE_CHECK: "true",
  };
  // A fresh organization on the embedded emulator under the Free plan, and a stack of its own (the copy's state).
  const freeData = path.join(work, "free-plan-data");
  freePlanRun = runChild("npm", ["start", "--", "--data-dir", freeData, "--plan", "free"], { cwd: freeCopy, env: { ...env, PULUMI_HOME: path.join(work, "pulumi-home-free") } });
});

afterAll(async () => {
  for (const { stop } of ran.values()) stop();
  await freePlanRun;
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

/** The settings a README block exported: its state backend (under the copy) and passphrase. */
function stateOf(block: string): { PULUMI_BACKEND_URL: string; PULUMI_CONFIG_PASSPHRASE: string } {
  const backend = /PULUMI_BACKEND_URL="file:\/\/\$PWD\/([^"]+)"/.exec(block)?.[1];
  const passphrase = /PULUMI_CONFIG_PASSPHRASE=(\S+)/.exec(block)?.[1];
  expect(backend && passphrase, "the block's PULUMI_BACKEND_URL and PULUMI_CONFIG_PASSPHRASE").toBeTruthy();
  return { PULUMI_BACKEND_URL: `file://${path.join(copy, backend!)}`, PULUMI_CONFIG_PASSPHRASE: passphrase! };
}

function changesOf(stdout: string): Record<string, number> {
  const line = stdout.split("\n").find((l) => l.startsWith("Changes: "));
  if (!line) throw new Error(`no change summary in the output:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice("Changes: ".length));
}

describe("main job: the example organization (the TypeScript README's organization and dev stack)", () => {
  /** The KEYFORM_* settings of the TypeScript README's emulator and its stack's backend. */
  let target: Record<string, string> = {};
  let client: KeyformClient;

  /** The job scripts/org-up ends in (`exec node dist/examples/main.js "$@"`), on the copy's build, pointed at `target`. */
  const mainJob = (args: string[]) => runChild("node", ["dist/examples/main.js", ...args], { cwd: copy, env: { ...env, ...target } });

  async function runner(operation: string) {
    const out = path.join(work, `reports-${operation}-${Date.now()}`);
    const result = await runChild("node", ["dist/examples/gitops/runner.js", operation, "--stack", "dev", "--out", out], { cwd: copy, env: { ...env, ...target } });
    const summary = JSON.parse(fs.readFileSync(path.join(out, `${operation}.json`), "utf8"));
    const markdown = fs.readFileSync(path.join(out, `${operation}.md`), "utf8");
    return { status: result.status, summary, markdown, stderr: result.stderr };
  }

  beforeAll(() => {
    const ts = ran.get("org");
    if (!ts) return;
    target = { ...settingsOf(ts.dataDir), ...stateOf(ts.block) };
    client = clientOf(ts.dataDir);
  });

  it("holds every declared object; a second run, pointed at it through KEYFORM_*, changes nothing and starts no emulator", { timeout: 600_000 }, async () => {
    expect(client, "examples/org ran").toBeDefined();
    const { users } = await client.listUsers();
    const idOf = (name: string) => users.find((u) => u.userName === name)!.userId;
    const { userTags } = await client.listUserTags();
    const tagByName = new Map(userTags.map((t) => [t.tagName, t.tagId]));
    expect([...tagByName.keys()].sort()).toEqual(expect.arrayContaining(["admins", "engineering", "treasury"]));
    const membersOf = (tag: string) =>
      users
        .filter((u) => u.userTags.includes(tagByName.get(tag)!))
        .map((u) => u.userName)
        .sort();
    expect(membersOf("admins")).toEqual(["alice"]);
    expect(membersOf("engineering")).toEqual(["carol", "dave"]);

    const { policies } = await client.listPolicies();
    const names = policies.map((p) => p.policyName);
    expect(names).toEqual(expect.arrayContaining(["Treasury pays its payee", "Treasury signing needs admin approvals", "Nobody exports keys"]));
    const quorum = policies.find((p) => p.policyName === "Treasury signing needs admin approvals")!;
    expect(quorum.consensus).toContain(tagByName.get("admins"));
    const payments = policies.find((p) => p.policyName === "Treasury pays its payee")!;
    expect(payments.consensus).toContain(tagByName.get("treasury"));

    const deployerKeys = (await client.getApiKeys({ userId: idOf("ci-deployer") })).apiKeys;
    expect(deployerKeys.map((k) => k.apiKeyName)).toContain("ci-deployer-dev");
    const auditorKeys = (await client.getApiKeys({ userId: idOf("ci-auditor") })).apiKeys;
    expect(auditorKeys.map((k) => k.credential.publicKey)).toContain("02cfaa97b92f948e541b1ba8dd830cde7eb1a87d372ad13548800bdf512248a93c");

    const { organizationData } = await client.getOrganization();
    const invited = (organizationData.invitations ?? []).map((i) => i.receiverUserName).sort();
    expect(invited).toEqual(["erin", "frank"]);

    const { smartContractInterfaces } = await client.listSmartContractInterfaces();
    expect(smartContractInterfaces.map((s) => s.label).sort()).toEqual(["Payroll program", "USDC (ERC-20)"]);

    const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
    expect(enabledVaults).toHaveLength(1);
    expect(enabledVaults[0]!.depositsDisabled).toBe(true);

    // The users are the program's (no seeding behind Pulumi's back), and so is the rest.
    expect(users.find((u) => u.userName === "alice")?.userEmail).toBe("alice@example.com");
    expect(users.map((u) => u.userName).sort()).toEqual(["alice", "bob", "carol", "ci-auditor", "ci-deployer", "dave", "root"]);
    const root = users.find((u) => u.userName === "root")!.userId;
    expect(organizationData.rootQuorum?.threshold).toBe(1);
    expect([...(organizationData.rootQuorum?.userIds ?? [])].sort()).toEqual([idOf("alice"), root].sort());
    const { webhookEndpoints } = await client.listWebhookEndpoints();
    expect(webhookEndpoints).toMatchObject([{ name: "activity-updates-dev", isActive: true, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }] }]);
    const deployerKey = deployerKeys.find((k) => k.apiKeyName === "ci-deployer-dev")!;
    expect((await client.getIpAllowlist({ publicKey: deployerKey.credential.publicKey })).allowlist.rules).toMatchObject([{ cidr: "203.0.113.0/24" }]);
    const { wallets } = await client.listWallets();
    expect(wallets.map((w) => w.walletName)).toEqual(["treasury-dev"]);
    const { accounts } = await client.listWalletAccounts({ walletId: wallets[0]!.walletId });
    expect(accounts.map((a) => a.addressFormat)).toEqual(["ADDRESS_FORMAT_ETHEREUM", "ADDRESS_FORMAT_SOLANA"]);

    // The second run is the job scripts/org-up ends in (scripts/org-up itself is `npm start`, the
    // Free plan's run below), pointed at the same organization and stack through KEYFORM_* and
    // the README's backend: it uses that server, starts no emulator, and changes nothing.
    const mustNotExist = path.join(work, "must-not-exist");
    const second = await mainJob(["--data-dir", mustNotExist]);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).not.toContain("keyform emulator listening");
    expect(fs.existsSync(mustNotExist)).toBe(false);
    expect(changesOf(second.stdout)).toEqual({ same: 24 });
    // The job prints the stack's outputs with the secret ones masked.
    expect(second.stdout).toContain("ciDeployerPrivateKey: [secret]");
    expect((await client.listUserTags()).userTags.map((t) => t.tagName).sort()).toEqual(["admins", "engineering", "treasury"]);
  });

  it("the treasury's signing policy: a non-root member signs to the payee, is refused elsewhere, and a large payment is approved in the dashboard", { timeout: 600_000 }, async () => {
    const { users } = await client.listUsers();
    const idOf = (name: string) => users.find((u) => u.userName === name)!.userId;
    const { wallets } = await client.listWallets();
    const { accounts } = await client.listWalletAccounts({ walletId: wallets[0]!.walletId });
    await checkTreasurySigning({
      baseUrl: target.KEYFORM_BASE_URL!,
      organizationId: target.KEYFORM_ORGANIZATION_ID!,
      root: client,
      treasuryMemberId: idOf("bob"),
      adminId: idOf("alice"),
      treasuryEthAddress: accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM")!.address,
      // The dev stack keeps the example's default payee.
      payee: "0x4675c7e5baafbffbca748158becba61ef3b0a263",
    });
  });

  it("GitOps runner: drift exits with its code after an out-of-band change; runner up corrects it", { timeout: 600_000 }, async () => {
    // No drift run before the change: the drifted run's change list is exactly the one change
    // (nothing else drifted).
    const { userTags } = await client.listUserTags();
    const treasury = userTags.find((t) => t.tagName === "treasury")!;
    await client.updateUserTag({ userTagId: treasury.tagId, newUserTagName: "treasury-renamed", addUserIds: [], removeUserIds: [] });

    const drifted = await runner("drift");
    expect(drifted.status).toBe(DRIFT_EXIT_CODE);
    expect(drifted.summary.changes).toEqual([expect.objectContaining({ name: "treasury", kind: "drift", fields: expect.arrayContaining(["userTagName"]) })]);

    // `runner up` reads the live organization first and sets the name back; drift is clean again.
    const fixed = await runner("up");
    expect(fixed.status, fixed.stderr.slice(-2000)).toBe(0);
    expect(fixed.summary.changes).toEqual([expect.objectContaining({ name: "treasury", kind: "update", fields: ["userTagName"] })]);
    expect(fixed.markdown).toContain("1 updated in place");
    expect((await client.listUserTags()).userTags.map((t) => t.tagName)).toContain("treasury");
    // That nothing is left drifted is the next test's preview: it reads the live organization
    // first, and lists exactly the two resources the code changes. (`drift` exiting 0 on a
    // clean organization: test/engine/gitops-platform-repo.test.ts, the same command.)
  });

  it("GitOps runner: preview lists exactly the changed resources and fields (after runner up, nothing drifted is left)", { timeout: 600_000 }, async () => {
    const stackFile = path.join(copy, "Pulumi.dev.yaml");
    const original = fs.readFileSync(stackFile, "utf8");
    expect(original).toContain('keyform-org:treasuryApprovals: "1"');
    fs.writeFileSync(
      stackFile,
      original.replace('keyform-org:treasuryApprovals: "1"', 'keyform-org:treasuryApprovals: "2"').replace("engineering: [carol, dave]", "engineering: [carol]"),
    );
    try {
      const { status, summary, markdown } = await runner("preview");
      expect(status).toBe(0);
      const changed = summary.changes
        .map((c: { name: string; kind: string; fields: string[] }) => [c.name, c.kind, c.fields])
        .sort((a: string[], b: string[]) => String(a[0]).localeCompare(String(b[0])));
      expect(changed).toEqual([
        ["engineering", "update", ["userIds"]],
        ["treasury-quorum", "update", expect.arrayContaining(["consensus", "notes"])],
      ]);
      expect(markdown).toContain("| update in place | `treasury-quorum` |");
    } finally {
      fs.writeFileSync(stackFile, original);
    }
  });

  it("--destroy leaves the organization without anything the stack created", { timeout: 600_000 }, async () => {
    const destroyed = await mainJob(["--destroy"]);
    expect(destroyed.status, destroyed.stderr).toBe(0);
    expect((await client.listUserTags()).userTags).toEqual([]);
    expect((await client.listPolicies()).policies).toEqual([]);
    expect((await client.listSmartContractInterfaces()).smartContractInterfaces).toEqual([]);
    const { organizationData } = await client.getOrganization();
    expect(organizationData.invitations ?? []).toEqual([]);
    // The root quorum stays as it was, and so does its member alice; every other declared user goes.
    const { users } = await client.listUsers();
    expect(users.map((u) => u.userName).sort()).toEqual(["alice", "root"]);
    expect(organizationData.rootQuorum?.userIds).toHaveLength(2);
    expect(destroyed.stdout).toMatch(/leaves the root quorum as it is/);
    expect((await client.listWebhookEndpoints()).webhookEndpoints).toEqual([]);
    // The dev stack declares its treasury wallet disposable.
    expect((await client.listWallets()).wallets).toEqual([]);
    // Deleting an EarnWrapperState re-enables deposits: the wrapper itself is not ours to remove.
    const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
    expect(enabledVaults[0]!.depositsDisabled).toBe(false);
  });

  it("npm start (scripts/org-up) in a clean copy brings the example up on the embedded emulator, on the Free plan's rate limit (1 request/s) first time, meeting no 429", { timeout: 900_000 }, async () => {
    const result = await freePlanRun!;
    expect(result.status, result.stderr + result.stdout.slice(-3000)).toBe(0);
    expect(result.stdout).toMatch(/keyform emulator listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(result.stdout).toContain("ciDeployerPrivateKey: [secret]");
    expect(changesOf(result.stdout).create).toBeGreaterThan(20);
    const limit = /Rate limit: 1 requests\/s per address; (\d+) requests admitted, (\d+) refused \(429\)/.exec(result.stdout);
    expect(limit, result.stdout.slice(-2000)).not.toBeNull();
    expect(Number(limit![1])).toBeGreaterThan(0);
    expect(Number(limit![2])).toBe(0);
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

describe("keyform export of the example organization (the YAML example's, as its README made it, with objects made by hand)", () => {
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
    const yaml = ran.get("org-yaml");
    if (!yaml) return;
    settings = settingsOf(yaml.dataDir);
    client = clientOf(yaml.dataDir);
    // The state backend and passphrase the README's block exported; its project is examples/org-yaml.
    const { stdout } = await run(path.join(pulumiBinDir(), "pulumi"), ["stack", "export", "--stack", "dev"], {
      cwd: path.join(copy, "examples", "org-yaml"),
      env: { ...env, ...stateOf(yaml.block) },
      maxBuffer: 64 * 1024 * 1024,
    });
    declared = objectsIn(JSON.parse(stdout).deployment);
    const rootUserId = JSON.parse(fs.readFileSync(path.join(yaml.dataDir, "bootstrap.json"), "utf8")).userId as string;
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
