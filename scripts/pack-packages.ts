/**
 * Packs the two npm packages from the one build in dist/ (run `npx tsc -p .` first, or use
 * `npm run pack:packages`):
 *
 * - `keyform`: `npm pack` of the repository root, as it is published: the root package.json's
 *   `files` leave out the emulator and the source maps, and its dependencies are keyform's
 *   own (the emulator's are devDependencies of the repository).
 * - `keyform-emulator`: dist/sdk/emulator and nothing else. It reaches the layers below it
 *   (wire, protocol, crypto, policy) through `keyform/...` imports, so it depends on `keyform`
 *   and ships none of its files; `keyform serve` and `startEmulator` load it when it is installed.
 *
 * Compiled output whose TypeScript source is gone (a module deleted or moved since an earlier
 * build) is deleted from dist/sdk first (`scripts/prune-build.ts`), so that neither package
 * ships it. The emulator's manifest
 * comes from packages/keyform-emulator/package.json; its version and dependency versions are
 * taken from the root package.json, so they are written in one place. Prints the paths of the
 * two tarballs, one per line.
 *
 *   node dist/scripts/pack-packages.js [--out <dir>]   (default dist/packages)
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pruneStaleOutput } from "./prune-build";

const repoRoot = path.resolve(__dirname, "..", "..");
const dist = path.join(repoRoot, "dist");

type Manifest = Record<string, unknown> & {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

function readManifest(file: string): Manifest {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Manifest;
}

function pack(cwd: string, out: string): string {
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd, encoding: "utf8" })) as Array<{ filename: string }>;
  return path.join(out, packed[0]!.filename);
}

/**
 * The emulator's manifest: the template's fields, the root's version, `keyform` at a range of
 * the root's version, and every other dependency at the root's range unless the template names
 * its own (better-sqlite3: 12 for Node 20, 13 for Node 22 and later; npm picks by `engines`).
 */
export function emulatorManifest(root: Manifest, template: Manifest): Manifest {
  const known = { ...(root.devDependencies ?? {}), ...(root.dependencies ?? {}) };
  const dependencies: Record<string, string> = { [root.name]: `^${root.version}` };
  for (const [name, own] of Object.entries(template.dependencies ?? {})) {
    if (name === root.name) continue;
    const version = own || known[name];
    if (version === undefined) throw new Error(`packages/keyform-emulator/package.json: ${name} is not a dependency of the root package.json`);
    dependencies[name] = version;
  }
  return { ...template, version: root.version, dependencies };
}

function main(): void {
  const outFlag = process.argv.indexOf("--out");
  const out = path.resolve(outFlag >= 0 ? process.argv[outFlag + 1]! : path.join(dist, "packages"));
  fs.mkdirSync(out, { recursive: true });
  const emulatorBuild = path.join(dist, "sdk", "emulator");
  if (!fs.existsSync(emulatorBuild)) throw new Error(`${emulatorBuild} is missing: build first (npx tsc -p .)`);
  // Before the root's `npm pack` too (its prepack), so that the emulator's stage is clean as well.
  pruneStaleOutput();

  const root = readManifest(path.join(repoRoot, "package.json"));
  const manifest = emulatorManifest(root, readManifest(path.join(repoRoot, "packages", "keyform-emulator", "package.json")));
  // A stage of this run's own: two packs at the same time (test files do that) must not empty
  // each other's.
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-emulator-stage-"));
  try {
    fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
    // Its own README (the emulator's), and the license every package carries.
    fs.copyFileSync(path.join(repoRoot, "sdk", "emulator", "README.md"), path.join(stage, "README.md"));
    fs.copyFileSync(path.join(repoRoot, "LICENSE"), path.join(stage, "LICENSE"));
    fs.cpSync(emulatorBuild, path.join(stage, "dist", "sdk", "emulator"), { recursive: true, filter: (source) => !source.endsWith(".map") });

    process.stdout.write(pack(repoRoot, out) + "\n");
    process.stdout.write(pack(stage, out) + "\n");
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

if (require.main === module) main();
