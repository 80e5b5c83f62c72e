/**
 * What a user installs: the root entry exports the public API only (resources, data functions,
 * the client and its errors, the emulator's entry), the lower layers stay behind their subpath
 * exports, and the packed tarballs (`scripts/pack-packages.ts`) hold no test-only code and no
 * stale output of a module that no longer exists. Loads dist/ (build first).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { registeredSpecs } from "../../sdk/resources/runtime";
import { DATA_FUNCTIONS } from "../../sdk/resources/runtime/queries";
import { repoRoot } from "../support/engine";
import { outputOf } from "../support/child-process";

const out = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-published-"));
afterAll(() => fs.rmSync(out, { recursive: true, force: true }));

/** Internals the root entry used to leak: each stays reachable from `keyform/client` only. */
const INTERNALS = ["Transport", "recoverSubmit", "pollActivity", "verifyStamp", "opensslVerifier", "nobleVerifier", "paginateQuery", "validateArguments", "sleep", "backoffDelay", "programSettings", "dynamicResourceArguments", "providerCode", "SimulatedAuthenticator"];

describe("the root entry", () => {
  const root = require(path.join(repoRoot, "dist", "sdk", "index.js")) as Record<string, unknown>;
  const names = Object.keys(root);

  it("exports every resource class and data function, the client, its errors and the emulator entry", () => {
    for (const spec of registeredSpecs()) expect(names, spec.kind).toContain(spec.kind);
    for (const fn of DATA_FUNCTIONS) expect(names, fn.name).toContain(fn.name);
    for (const name of ["KeyformClient", "AuthProxyClient", "ApiKeyStamper", "generateApiKeyPair", "KeyformError", "ApiError", "ConsensusNeededError", "verifyWebhookSignature", "startEmulator"]) {
      expect(names).toContain(name);
    }
  });

  it("exports no internals; they stay behind keyform/client", () => {
    expect(names.filter((n) => INTERNALS.includes(n))).toEqual([]);
    const client = require(path.join(repoRoot, "dist", "sdk", "client", "index.js")) as Record<string, unknown>;
    for (const name of ["Transport", "recoverSubmit", "pollActivity", "verifyStamp"]) expect(Object.keys(client)).toContain(name);
    // Every value export is a resource, a data function, part of the client, or an error.
    expect(names.length).toBeLessThan(100);
  });
});

describe("the packed tarballs", () => {
  it("hold no test-only code and no output without a source", { timeout: 300_000 }, async () => {
    // A module that no longer exists but whose old output is still in dist/ must not ship.
    const stale = path.join(repoRoot, "dist", "sdk", "resources", "removed-module-probe.js");
    fs.writeFileSync(stale, "exports.stale = true;\n");
    let tarballs: string[];
    try {
      tarballs = (await outputOf(process.execPath, [path.join(repoRoot, "dist", "scripts", "pack-packages.js"), "--out", out])).trim().split("\n");
    } finally {
      fs.rmSync(stale, { force: true });
    }
    expect(tarballs).toHaveLength(2);
    for (const tarball of tarballs) {
      const dir = fs.mkdtempSync(path.join(out, "unpacked-"));
      await outputOf("tar", ["-xzf", tarball, "-C", dir]);
      const files = fs.readdirSync(path.join(dir, "package"), { recursive: true, encoding: "utf8" });
      expect(files.filter((f) => /smoke-probe|removed-module-probe|\.map$|\.test\./.test(f)), tarball).toEqual([]);
      for (const file of files.filter((f) => f.endsWith(".js") || f.endsWith(".d.ts"))) {
        const text = fs.readFileSync(path.join(dir, "package", file), "utf8");
        expect(text.includes("SimulatedAuthenticator"), `${file} holds the test authenticator`).toBe(false);
      }
    }
  });
});

interface PackedFiles {
  name: string;
  files: Array<{ path: string }>;
}

/** `npm pack --dry-run --json` in `cwd`: the files npm would put in the tarball. */
async function dryRunPack(cwd: string): Promise<PackedFiles> {
  return (JSON.parse(await outputOf("npm", ["pack", "--dry-run", "--json", "--loglevel=error"], { cwd })) as PackedFiles[])[0]!;
}

describe("the two packages", () => {
  it("split keyform's files from the emulator's: none in both, the emulator depends on keyform", { timeout: 300_000 }, async () => {
    const tarballs = (await outputOf(process.execPath, [path.join(repoRoot, "dist", "scripts", "pack-packages.js"), "--out", out])).trim().split("\n");
    const keyform = await dryRunPack(repoRoot);
    const keyformFiles = keyform.files.map((f) => f.path).sort();
    const emulatorPackage = fs.mkdtempSync(path.join(out, "emulator-"));
    await outputOf("tar", ["-xzf", tarballs[1]!, "-C", emulatorPackage]);
    const emulatorRoot = path.join(emulatorPackage, "package");
    const emulatorFiles = fs.readdirSync(emulatorRoot, { recursive: true, encoding: "utf8" }).filter((f) => fs.statSync(path.join(emulatorRoot, f)).isFile()).sort();
    const manifest = JSON.parse(fs.readFileSync(path.join(emulatorRoot, "package.json"), "utf8")) as { name: string; dependencies: Record<string, string> };
    expect([keyform.name, manifest.name]).toEqual(["keyform", "keyform-emulator"]);

    // A plain `npm pack` at the root is the keyform tarball the script ships, file for file.
    const listed = async (tarball: string) => (await outputOf("tar", ["-tzf", tarball])).trim().split("\n").map((f) => f.replace(/^package\//, "")).sort();
    expect(await listed(tarballs[0]!)).toEqual(keyformFiles);

    // No file in both but the three every package has; keyform without the emulator or source maps.
    expect(keyformFiles.filter((f) => emulatorFiles.includes(f))).toEqual(["LICENSE", "README.md", "package.json"]);
    expect(keyformFiles.filter((f) => f.startsWith("dist/sdk/emulator/") || f.endsWith(".map"))).toEqual([]);
    expect(keyformFiles).toContain("dist/sdk/protocol/verify-stamp.js");
    expect(keyformFiles).toContain("dist/sdk/emulator-contract.d.ts");
    // The GitOps kit: the commands, the action, the GitLab template and the Pulumi installer.
    for (const file of ["dist/sdk/cli/gitops.js", "dist/sdk/gitops/index.js", "action.yml", ".gitlab/keyform.gitlab-ci.yml", "scripts/install-pulumi", "scripts/pulumi-language-nodejs/main.go"]) {
      expect(keyformFiles).toContain(file);
    }
    // The emulator holds its own code only.
    expect(emulatorFiles.filter((f) => !f.startsWith("dist/sdk/emulator/") && !["LICENSE", "README.md", "package.json"].includes(f))).toEqual([]);
    expect(emulatorFiles).toContain("dist/sdk/emulator/index.js");

    // It depends on keyform at a range of this version, and on every package its code requires.
    const root = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string; dependencies: Record<string, string> };
    expect(manifest.dependencies.keyform).toBe(`^${root.version}`);
    const required = new Set<string>();
    for (const file of emulatorFiles.filter((f) => f.endsWith(".js"))) {
      const text = fs.readFileSync(path.join(emulatorRoot, file), "utf8");
      for (const [, id] of text.matchAll(/require\("([^".][^"]*)"\)/g)) {
        if (id!.startsWith("node:")) continue;
        required.add(id!.startsWith("@") ? id!.split("/").slice(0, 2).join("/") : id!.split("/")[0]!);
      }
    }
    expect(required.has("keyform")).toBe(true);
    expect([...required].filter((name) => manifest.dependencies[name] === undefined)).toEqual([]);
    // keyform itself installs none of the server's packages.
    for (const name of ["fastify", "better-sqlite3", "pino"]) expect(root.dependencies[name], name).toBeUndefined();
  });
});
