/**
 * The two packages installed side by side from their tarballs (`scripts/pack-packages.ts`) into a
 * scratch project: the emulator finds the layers below it in the installed keyform (it ships none
 * of keyform's files), `keyform serve` starts from the installed bin, and the installed client's
 * call is answered. Loads dist/ (build first).
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outputOf } from "../support/child-process";
import { repoRoot } from "../support/repo-copy";

let work: string;
let project: string;
let server: ChildProcess | undefined;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-packages-"));
  const [keyformTarball, emulatorTarball] = (await outputOf(process.execPath, [path.join(repoRoot, "dist/scripts/pack-packages.js"), "--out", work])).trim().split("\n");
  project = path.join(work, "project");
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch", version: "1.0.0", private: true }));
  await outputOf("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", keyformTarball!, emulatorTarball!], {
    cwd: project,
    // This machine builds native modules offline, from the running Node.js's own headers.
    env: { ...process.env, npm_config_nodedir: path.resolve(path.dirname(process.execPath), "..") },
  });
}, 1_800_000);

afterAll(() => {
  server?.kill("SIGTERM");
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** Starts the installed `keyform serve`; resolves with its URL once it prints that it listens. */
function serve(dataDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_")));
    server = spawn(path.join(project, "node_modules/.bin/keyform"), ["serve", "--port", "0", "--data", dataDir], { cwd: project, env });
    let output = "";
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /keyform emulator listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) resolve(url);
    };
    server.stdout!.on("data", read);
    server.stderr!.on("data", read);
    server.on("exit", (code) => reject(new Error(`keyform serve exited (${code}) before listening:\n${output}`)));
  });
}

describe("keyform and keyform-emulator installed from their tarballs", () => {
  it("install as two packages: the emulator has no copy of keyform and no keyform of its own", () => {
    const emulator = path.join(project, "node_modules/keyform-emulator");
    expect(fs.readdirSync(path.join(emulator, "dist/sdk"))).toEqual(["emulator"]);
    // Its dependency on keyform is met by the keyform the project installed, so both share one copy.
    expect(fs.existsSync(path.join(emulator, "node_modules/keyform"))).toBe(false);
    expect(fs.existsSync(path.join(project, "node_modules/keyform/dist/sdk/emulator"))).toBe(false);
  });

  it("every installed package accepts Node 20.17, keyform's lowest (npm warns EBADENGINE for none)", () => {
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

  it("keyform serve starts and the installed client's calls are answered", { timeout: 300_000 }, async () => {
    const dataDir = path.join(work, "emulator");
    const url = await serve(dataDir);
    const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8")) as Record<string, string>;
    expect(bootstrap.baseUrl).toBe(url);
    // The client as the project loads it, from node_modules/keyform.
    const keyform = require(path.join(project, "node_modules/keyform")) as typeof import("../../sdk");
    const client = new keyform.KeyformClient({
      baseUrl: url,
      organizationId: bootstrap.organizationId!,
      stamper: new keyform.ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey!, apiPrivateKey: bootstrap.apiPrivateKey! }),
    });
    const { userTagId } = await client.createUserTag({ userTagName: "installed", userIds: [] });
    const { userTags } = await client.listUserTags();
    expect(userTags.map((t) => [t.tagId, t.tagName])).toEqual([[userTagId, "installed"]]);
  });
});
