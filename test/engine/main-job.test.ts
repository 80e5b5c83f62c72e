/**
 * The main job end to end: `bash scripts/org-up` from a clean copy of the repository against
 * a fresh data folder (the embedded emulator), checked through the client; a second run
 * (`npm start`, pointed at the same organization through KEYFORM_*) changes nothing and starts
 * no emulator; the GitOps runner plans a code change and detects drift; `--destroy` leaves the
 * organization without anything the stack created. The run on the Free plan's rate limit has a
 * copy and an organization of its own, so it runs beside the others from the start: it spends
 * its time waiting for its request budget, not on the machine.
 *
 * The script itself (install check, build, then `exec node dist/examples/main.js "$@"`) is
 * proven by the first run and again by `npm start`; `--destroy` and `--plan free` are options of
 * the job, so those runs start the job the script built directly (`mainJob`), without a third
 * and a fourth incremental build of an unchanged tree.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper, KeyformClient, startEmulator, type Bootstrap } from "keyform";
import { copyBuild } from "../support/built-copy";
import { cleanCopy } from "../support/repo-copy";
import { checkTreasurySigning } from "../support/treasury-signing";

const repoRoot = path.resolve(__dirname, "..", "..");
const DRIFT_EXIT_CODE = 3;
/** An org-up compiles the package and the example before its engine run: minutes on a busy machine. */
const MAIN_JOB_TIMEOUT = 600_000;

let work: string; // temp folder holding the copy, the data and the state
let copy: string; // the clean copy of the repository
/** The Free plan's org-up, in its own copy, started by beforeAll. */
let freePlanRun: Promise<Finished> | undefined;
let dataDir: string;
let env: NodeJS.ProcessEnv;


interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command without blocking this process: the emulator of `withEmulator` lives in this
 * process and must keep answering the child's requests.
 */
function run(command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd = copy): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...env, ...extraEnv } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 600_000);
    child.on("error", reject);
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function orgUp(...args: string[]): Promise<Finished> {
  return run("bash", ["scripts/org-up", "--data-dir", dataDir, ...args]);
}

/** The job scripts/org-up ends in (`exec node dist/examples/main.js "$@"`), on the build the copy has. */
function mainJob(args: string[], extraEnv: NodeJS.ProcessEnv = {}, cwd = copy): Promise<Finished> {
  return run("node", ["dist/examples/main.js", ...args], extraEnv, cwd);
}

function changesOf(stdout: string): Record<string, number> {
  const line = stdout.split("\n").find((l) => l.startsWith("Changes: "));
  if (!line) throw new Error(`no change summary in the output:\n${stdout.slice(-2000)}`);
  return JSON.parse(line.slice("Changes: ".length));
}

function clientFor(bootstrap: Bootstrap, baseUrl: string): KeyformClient {
  return new KeyformClient({
    baseUrl,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
  });
}

/** Runs `fn` with an emulator on the main job's data folder, and the KEYFORM_* settings for it. */
async function withEmulator<T>(fn: (client: KeyformClient, keyformEnv: Record<string, string>) => Promise<T>): Promise<T> {
  const emulator = await startEmulator({ port: 0, dataDir, logLevel: "silent" });
  try {
    const b = emulator.bootstrap;
    const keyformEnv = {
      KEYFORM_BASE_URL: emulator.url,
      KEYFORM_ORGANIZATION_ID: b.organizationId,
      KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
    };
    return await fn(clientFor(b, emulator.url), keyformEnv);
  } finally {
    await emulator.close();
  }
}

async function runner(operation: string, keyformEnv: Record<string, string>) {
  const out = path.join(work, `reports-${operation}-${Date.now()}`);
  const result = await run("node", ["dist/examples/gitops/runner.js", operation, "--stack", "dev", "--out", out], keyformEnv);
  const summary = JSON.parse(readFileSync(path.join(out, `${operation}.json`), "utf8"));
  const markdown = readFileSync(path.join(out, `${operation}.md`), "utf8");
  return { status: result.status, summary, markdown, stderr: result.stderr };
}

describe("main job: the example organization on the embedded emulator", () => {
  beforeAll(() => {
    work = mkdtempSync(path.join(tmpdir(), "keyform-main-"));
    copy = path.join(work, "repo");
    dataDir = path.join(work, "emulator");
    const freeCopy = path.join(work, "free-plan-repo");
    for (const dir of [copy, freeCopy]) {
      cleanCopy(dir);
      // The build the test command made: the first org-up compiles incrementally, as its later ones do.
      copyBuild(dir);
    }
    // The Free plan's run starts the job on that build (no org-up, so no compile of its own).
    if (!existsSync(path.join(freeCopy, "dist", "examples", "main.js"))) throw new Error("no dist/ in this checkout: run `npm run build` first");
    const pulumiBin = execFileSync("bash", [path.join(repoRoot, "scripts", "install-pulumi")], { encoding: "utf8" }).trim();
    env = { ...process.env, PATH: `${pulumiBin}:${process.env.PATH}`, PULUMI_HOME: path.join(work, "pulumi-home") };
    for (const key of Object.keys(env)) if (key.startsWith("KEYFORM_")) delete env[key];
    // A fresh organization under the Free plan, and a stack of its own (the copy's state).
    const freeData = path.join(work, "free-plan-data");
    freePlanRun = mainJob(["--data-dir", freeData, "--plan", "free"], { PULUMI_HOME: path.join(work, "pulumi-home-free") }, freeCopy);
  });

  afterAll(async () => {
    await freePlanRun;
    rmSync(work, { recursive: true, force: true });
  });

  it("creates every declared object, then reports no changes on a second run", { timeout: MAIN_JOB_TIMEOUT }, async () => {
    const first = await orgUp();
    expect(first.status, first.stderr + first.stdout.slice(-3000)).toBe(0);
    expect(first.stdout).toMatch(/keyform emulator listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(first.stdout).toContain("ciDeployerPrivateKey: [secret]");
    expect(changesOf(first.stdout).create).toBeGreaterThanOrEqual(11);

    await withEmulator(async (client) => {
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
      expect(auditorKeys.map((k) => k.credential.publicKey)).toContain(
        "02cfaa97b92f948e541b1ba8dd830cde7eb1a87d372ad13548800bdf512248a93c",
      );

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
    });

    // `npm start` is the same job: the second run goes through it, pointed at the same
    // organization through KEYFORM_*: it uses that server, starts no emulator, and changes nothing.
    await withEmulator(async (client, keyformEnv) => {
      const second = await run("npm", ["start", "--", "--data-dir", path.join(work, "must-not-exist")], keyformEnv);
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).not.toContain("keyform emulator listening");
      expect(existsSync(path.join(work, "must-not-exist"))).toBe(false);
      expect(changesOf(second.stdout)).toEqual({ same: 24 });
      const names = (await client.listUserTags()).userTags.map((t) => t.tagName).sort();
      expect(names).toEqual(["admins", "engineering", "treasury"]);
    });
  });

  it("the treasury's signing policy: a non-root member signs to the payee, is refused elsewhere, and a large payment is approved in the dashboard", { timeout: MAIN_JOB_TIMEOUT }, async () => {
    await withEmulator(async (client, keyformEnv) => {
      const { users } = await client.listUsers();
      const idOf = (name: string) => users.find((u) => u.userName === name)!.userId;
      const { wallets } = await client.listWallets();
      const { accounts } = await client.listWalletAccounts({ walletId: wallets[0]!.walletId });
      await checkTreasurySigning({
        baseUrl: keyformEnv.KEYFORM_BASE_URL!,
        organizationId: keyformEnv.KEYFORM_ORGANIZATION_ID!,
        root: client,
        treasuryMemberId: idOf("bob"),
        adminId: idOf("alice"),
        treasuryEthAddress: accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM")!.address,
        // The dev stack keeps the example's default payee.
        payee: "0x4675c7e5baafbffbca748158becba61ef3b0a263",
      });
    });
  });

  it("GitOps runner: preview lists exactly the changed resources and fields", { timeout: MAIN_JOB_TIMEOUT }, async () => {
    const stackFile = path.join(copy, "Pulumi.dev.yaml");
    const original = readFileSync(stackFile, "utf8");
    expect(original).toContain('keyform-org:treasuryApprovals: "1"');
    writeFileSync(
      stackFile,
      original
        .replace('keyform-org:treasuryApprovals: "1"', 'keyform-org:treasuryApprovals: "2"')
        .replace("engineering: [carol, dave]", "engineering: [carol]"),
    );
    try {
      await withEmulator(async (_client, keyformEnv) => {
        const { status, summary, markdown } = await runner("preview", keyformEnv);
        expect(status).toBe(0);
        const changed = summary.changes
          .map((c: { name: string; kind: string; fields: string[] }) => [c.name, c.kind, c.fields])
          .sort((a: string[], b: string[]) => String(a[0]).localeCompare(String(b[0])));
        expect(changed).toEqual([
          ["engineering", "update", ["userIds"]],
          ["treasury-quorum", "update", expect.arrayContaining(["consensus", "notes"])],
        ]);
        expect(markdown).toContain("| update in place | `treasury-quorum` |");
      });
    } finally {
      writeFileSync(stackFile, original);
    }
  });

  it("GitOps runner: drift exits with its code after an out-of-band change; runner up corrects it and drift is 0", { timeout: MAIN_JOB_TIMEOUT }, async () => {
    await withEmulator(async (client, keyformEnv) => {
      // No drift run before the change: the drifted run's change list is exactly the one change
      // (nothing else drifted), and the run after the fix proves exit 0 on a clean organization.
      const { userTags } = await client.listUserTags();
      const treasury = userTags.find((t) => t.tagName === "treasury")!;
      await client.updateUserTag({ userTagId: treasury.tagId, newUserTagName: "treasury-renamed", addUserIds: [], removeUserIds: [] });

      const drifted = await runner("drift", keyformEnv);
      expect(drifted.status).toBe(DRIFT_EXIT_CODE);
      expect(drifted.summary.changes).toEqual([
        expect.objectContaining({ name: "treasury", kind: "drift", fields: expect.arrayContaining(["userTagName"]) }),
      ]);

      // `runner up` reads the live organization first and sets the name back; drift is clean again.
      const fixed = await runner("up", keyformEnv);
      expect(fixed.status, fixed.stderr.slice(-2000)).toBe(0);
      expect(fixed.summary.changes).toEqual([expect.objectContaining({ name: "treasury", kind: "update", fields: ["userTagName"] })]);
      expect(fixed.markdown).toContain("1 updated in place");
      expect((await client.listUserTags()).userTags.map((t) => t.tagName)).toContain("treasury");
      expect((await runner("drift", keyformEnv)).status).toBe(0);
    });
  });

  it("--destroy leaves the organization without anything the stack created", { timeout: MAIN_JOB_TIMEOUT }, async () => {
    const destroyed = await mainJob(["--data-dir", dataDir, "--destroy"]);
    expect(destroyed.status, destroyed.stderr).toBe(0);
    await withEmulator(async (client) => {
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
  });

  it("on the Free plan's rate limit (1 request/s), the example comes up first time and meets no 429", { timeout: MAIN_JOB_TIMEOUT }, async () => {
    const result = await freePlanRun!;
    expect(result.status, result.stderr + result.stdout.slice(-3000)).toBe(0);
    expect(changesOf(result.stdout).create).toBeGreaterThan(20);
    const limit = /Rate limit: 1 requests\/s per address; (\d+) requests admitted, (\d+) refused \(429\)/.exec(result.stdout);
    expect(limit, result.stdout.slice(-2000)).not.toBeNull();
    expect(Number(limit![1])).toBeGreaterThan(0);
    expect(Number(limit![2])).toBe(0);
  });
});
