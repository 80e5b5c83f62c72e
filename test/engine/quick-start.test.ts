/**
 * The README's quick start, run as written: its `sh` block (extracted from README.md, so this
 * breaks when the README drifts) in a fresh project made the `pulumi new typescript` way, next to
 * a folder holding the packed packages where the block says a keyform checkout keeps them
 * (`../keyform/dist/packages`), with the README's `index.ts`. The block installs keyform and the
 * emulator from the tarballs, git-ignores `.keyform/`, starts the emulator in the background with
 * quiet logs, exports its settings, runs doctor and `pulumi up`; the organization then holds what
 * the program declares, and no request log reached the terminal.
 *
 * The same install is the packages' own check (what a scratch project of the two tarballs did
 * on its own before, with a second install and a second native build): the emulator package
 * ships none of keyform's files and shares the project's keyform, every installed package
 * accepts keyform's lowest Node.js, and the installed client's calls are answered by the
 * emulator the installed bin serves.
 */
import { execFile, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { KeyformClient } from "../../sdk/client/client";
import { outputOf } from "../support/child-process";
import { npmInstallCached, PULUMI_NEW_TYPESCRIPT } from "../support/npm-install-cache";
import { pulumiBinDir } from "../support/engine";
import { markdownBlocks, repoRoot } from "../support/repo-copy";
import { useLocalSqlitePrebuild } from "../support/sqlite-prebuild";
import { writeTypeScriptProject } from "../support/typescript-project";

let work: string;
let project: string;
let env: NodeJS.ProcessEnv;
/** The quick start's run; its emulator (started with `&`) serves until afterAll. */
let quickStart: { code: number | null; output: string; stop: () => void } | undefined;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-quick-start-"));
  // Where the README says a keyform checkout keeps its packed packages.
  const packages = path.join(work, "keyform", "dist", "packages");
  fs.mkdirSync(packages, { recursive: true });
  await outputOf(process.execPath, [path.join(repoRoot, "dist/scripts/pack-packages.js"), "--out", packages]);
  project = path.join(work, "my-org");
  fs.mkdirSync(project);
  const bin = pulumiBinDir();
  env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_"))),
    PATH: `${bin}:${process.env.PATH}`,
    PULUMI_HOME: path.join(work, "pulumi-home"),
    PULUMI_BACKEND_URL: `file://${path.join(work, "state")}`,
    PULUMI_CONFIG_PASSPHRASE: "quick-start",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    // This machine builds native modules offline, from the running Node.js's own headers.
    npm_config_nodedir: path.resolve(path.dirname(process.execPath), ".."),
  };
  // The emulator's better-sqlite3 from this checkout's build, where a machine with network
  // downloads the release's prebuilt binary instead of compiling SQLite (test/support/sqlite-prebuild.ts).
  await useLocalSqlitePrebuild(work);
  fs.mkdirSync(path.join(work, "state"));
  // What `pulumi new typescript` leaves: the project files, its packages installed, a stack selected.
  writeTypeScriptProject(project, "my-org");
  await npmInstallCached("pulumi-new-typescript", project, ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...PULUMI_NEW_TYPESCRIPT], env);
  await promisify(execFile)(path.join(bin, "pulumi"), ["stack", "init", "dev"], { cwd: project, env });
  fs.writeFileSync(path.join(project, "index.ts"), markdownBlocks(path.join(repoRoot, "README.md"), "ts", "Quick start in your own project")[0]!);
}, 900_000);

afterAll(() => {
  quickStart?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Runs a shell block in its own process group; the group (the emulator in the background too) is ended after. */
function runBlock(block: string, cwd: string, deadlineMs: number): Promise<{ code: number | null; output: string; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-e", "-c", block], { cwd, env, detached: true });
    let output = "";
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        // already gone
      }
    };
    // Past the deadline the group is ended, so that the failure shows the output so far.
    const deadline = setTimeout(stop, deadlineMs);
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    // "exit", not "close": the emulator started with `&` keeps the pipes open.
    child.on("exit", (code) => {
      clearTimeout(deadline);
      resolve({ code, output, stop });
    });
  });
}

describe("the README's quick start", () => {
  it("works as written in a fresh project: install, .gitignore, serve, env, doctor, pulumi up", { timeout: 1_800_000 }, async () => {
    const block = markdownBlocks(path.join(repoRoot, "README.md"), "sh", "Quick start in your own project")[0]!;
    expect(block).toMatch(/^npm install \.\.\/keyform\/dist\/packages\/keyform-\d+\.\d+\.\d+\.tgz/m);
    const result = (quickStart = await runBlock(block, project, 1_700_000));
    expect(result.code, result.output.slice(-6000)).toBe(0);
    expect(result.output).toContain("keyform doctor: everything checks out");
    // The emulator's folder (its root private key in bootstrap.json) is kept out of git.
    expect(fs.readFileSync(path.join(project, ".gitignore"), "utf8").split("\n")).toContain(".keyform/");
    // Its address printed; its info-level log (pino's JSON lines: the request log, two per request) not.
    expect(result.output).toContain("keyform emulator listening on");
    expect(result.output).not.toMatch(/"level":30,/);
    // The packages came from the tarballs, not from this checkout.
    expect(fs.realpathSync(path.join(project, "node_modules/keyform")).startsWith(repoRoot)).toBe(false);
    const { userTags } = await bootstrapClient().listUserTags();
    expect(userTags.map((t) => t.tagName)).toEqual(["ops"]);
  });

  it("installs the emulator as a second package: it has no copy of keyform and no keyform of its own", () => {
    expect(quickStart?.code).toBe(0);
    const emulator = path.join(project, "node_modules/keyform-emulator");
    expect(fs.readdirSync(path.join(emulator, "dist/sdk"))).toEqual(["emulator"]);
    // Its dependency on keyform is met by the keyform the project installed, so both share one copy.
    expect(fs.existsSync(path.join(emulator, "node_modules/keyform"))).toBe(false);
    expect(fs.existsSync(path.join(project, "node_modules/keyform/dist/sdk/emulator"))).toBe(false);
  });

  it("every installed package accepts Node 20.17, keyform's lowest (npm warns EBADENGINE for none)", () => {
    expect(quickStart?.code).toBe(0);
    // cookie 2 (through fastify's light-my-request 6.8) requires Node 22; the emulator pins light-my-request 6.6.
    const semver = require("semver") as { satisfies(version: string, range: string): boolean };
    const lowest = "20.17.0";
    const refused: string[] = [];
    for (const file of fs.readdirSync(path.join(project, "node_modules"), { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith("package.json") || file.split(path.sep).filter((p) => p === "package.json").length !== 1) continue;
      const manifest = JSON.parse(fs.readFileSync(path.join(project, "node_modules", file), "utf8")) as { name?: string; version?: string; engines?: { node?: string } };
      const range = manifest.engines?.node;
      if (manifest.name && range && !semver.satisfies(lowest, range)) refused.push(`${manifest.name}@${manifest.version} (node ${range})`);
    }
    expect(refused).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(project, "node_modules/cookie/package.json"), "utf8")).version).toMatch(/^1\./);
  });

  it("the installed client's calls are answered by the emulator the installed bin serves", async () => {
    expect(quickStart?.code).toBe(0);
    const bootstrap = JSON.parse(fs.readFileSync(path.join(project, ".keyform/emulator/bootstrap.json"), "utf8")) as Record<string, string>;
    // The client as the project loads it, from node_modules/keyform.
    const keyform = require(path.join(project, "node_modules/keyform")) as typeof import("../../sdk");
    const client = new keyform.KeyformClient({
      baseUrl: bootstrap.baseUrl!,
      organizationId: bootstrap.organizationId!,
      stamper: new keyform.ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey!, apiPrivateKey: bootstrap.apiPrivateKey! }),
    });
    const { userTagId } = await client.createUserTag({ userTagName: "installed", userIds: [] });
    const { userTags } = await client.listUserTags();
    expect(userTags.map((t) => [t.tagId, t.tagName])).toContainEqual([userTagId, "installed"]);
  });
});

/** This checkout's client of the quick start's emulator, from its bootstrap.json. */
function bootstrapClient(): KeyformClient {
  const bootstrap = JSON.parse(fs.readFileSync(path.join(project, ".keyform/emulator/bootstrap.json"), "utf8"));
  return new KeyformClient({
    baseUrl: bootstrap.baseUrl,
    organizationId: bootstrap.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey }),
  });
}
