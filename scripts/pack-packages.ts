/**
 * Packs the two npm packages from the one build in dist/ (run `npx tsc -p .` first, or use
 * `npm run pack:packages`):
 *
 * - `keyform`: the wire schemas, the client, the resources, the data functions, the CLI and
 *   the provider plugin (`pulumi-resource-keyform`).
 *   No server, no native code: its dependencies are the root package.json's minus those only
 *   the emulator uses.
 * - `keyform-emulator`: the emulator (server and database) with the modules it imports
 *   (wire, client, crypto, policy, … found from its compiled requires); `keyform serve` and
 *   `startEmulator` load it when it is installed.
 *
 * The manifests come from the root package.json (keyform) and
 * packages/keyform-emulator/package.json (the emulator; dependency versions are taken from
 * the root, so they are written in one place). Source maps are left out: the sources are not
 * shipped. Prints the paths of the two tarballs, one per line.
 *
 *   node dist/scripts/pack-packages.js [--out <dir>]   (default dist/packages)
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "..", "..");
const dist = path.join(repoRoot, "dist");

type Manifest = Record<string, unknown> & { name: string; version: string; dependencies?: Record<string, string> };

function readManifest(file: string): Manifest {
  return JSON.parse(fs.readFileSync(file, "utf8")) as Manifest;
}

/**
 * Whether the compiled file `file` (under dist/) still has its TypeScript source: a module
 * deleted or moved since an earlier build leaves its output behind, which must not ship.
 */
function hasSource(file: string): boolean {
  const compiled = /\.(d\.ts|js)$/.exec(file);
  if (compiled === null || fs.statSync(file).isDirectory()) return true;
  const source = path.join(repoRoot, path.relative(dist, file)).replace(/\.(d\.ts|js)$/, ".ts");
  return fs.existsSync(source);
}

/** Copies the compiled files of `dirs` (relative to dist/sdk) into `<stage>/dist/sdk`, without source maps or stale output. */
function copyBuild(stage: string, entries: readonly string[]): void {
  for (const entry of entries) {
    const from = path.join(dist, "sdk", entry);
    if (!fs.existsSync(from)) throw new Error(`${from} is missing: build first (npx tsc -p .)`);
    if (!hasSource(from)) continue;
    fs.cpSync(from, path.join(stage, "dist", "sdk", entry), {
      recursive: true,
      filter: (source) => !source.endsWith(".map") && hasSource(source),
    });
  }
}

/**
 * The entries of dist/sdk (folders or files) that `start` needs: it and everything its compiled
 * code and declarations refer to by relative path, transitively. The emulator package ships exactly these, so a
 * module the emulator starts to import is packed without editing this script.
 */
function sdkClosure(start: string): string[] {
  const sdk = path.join(dist, "sdk");
  const found = new Set<string>([start]);
  const pending = [start];
  while (pending.length > 0) {
    const entry = path.join(sdk, pending.pop()!);
    const files = fs.statSync(entry).isDirectory()
      ? fs.readdirSync(entry, { recursive: true, encoding: "utf8" }).filter((f) => /\.(js|d\.ts)$/.test(f)).map((f) => path.join(entry, f))
      : [`${entry.replace(/\.js$/, "")}.js`, `${entry.replace(/\.js$/, "")}.d.ts`];
    // Requires of the code, and imports of the declarations (type-only modules have no require).
    for (const file of files) {
      for (const [, specifier] of fs.readFileSync(file, "utf8").matchAll(/(?:require\(|from |import\()"(\.{1,2}\/[^"]+)"/g)) {
        const target = path.relative(sdk, path.resolve(path.dirname(file), specifier!));
        if (target.startsWith("..")) throw new Error(`${file} requires ${specifier}, outside dist/sdk`);
        const top = target.split(path.sep)[0]!;
        const name = fs.existsSync(path.join(sdk, top)) && fs.statSync(path.join(sdk, top)).isDirectory() ? top : `${top}.js`;
        if (!found.has(name)) {
          found.add(name);
          pending.push(name);
        }
      }
    }
  }
  // Each .js file comes with its declarations.
  return [...found].flatMap((name) => (name.endsWith(".js") ? [name, name.replace(/\.js$/, ".d.ts")] : [name]));
}

function stagePackage(stage: string, manifest: Manifest): void {
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  fs.writeFileSync(path.join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  for (const file of ["LICENSE", "README.md"]) fs.copyFileSync(path.join(repoRoot, file), path.join(stage, file));
}

function pack(stage: string, out: string): string {
  const packed = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" })) as Array<{ filename: string }>;
  return path.join(out, packed[0]!.filename);
}

function main(): void {
  const outFlag = process.argv.indexOf("--out");
  const out = path.resolve(outFlag >= 0 ? process.argv[outFlag + 1]! : path.join(dist, "packages"));
  fs.mkdirSync(out, { recursive: true });
  const root = readManifest(path.join(repoRoot, "package.json"));
  const emulatorTemplate = readManifest(path.join(repoRoot, "packages", "keyform-emulator", "package.json"));
  const rootDependencies = root.dependencies ?? {};

  // keyform-emulator: every dependency at the root's version, unless the template names its own
  // range (better-sqlite3: 12 for Node 20, 13 for Node 22 and later; npm picks by `engines`).
  const emulatorDependencies: Record<string, string> = {};
  for (const [name, own] of Object.entries(emulatorTemplate.dependencies ?? {})) {
    const version = own || rootDependencies[name];
    if (version === undefined) throw new Error(`packages/keyform-emulator/package.json: ${name} is not a dependency of the root package.json`);
    emulatorDependencies[name] = version;
  }
  const emulatorManifest: Manifest = { ...emulatorTemplate, version: root.version, dependencies: emulatorDependencies };

  // keyform: the root manifest, without the emulator's own dependencies, its export and dev fields.
  const emulatorOnly = new Set(["@scure/bip32", "@scure/bip39", "@ton/core", "@ton/crypto", "better-sqlite3", "fastify", "pino"]);
  const { devDependencies: _dev, scripts: _scripts, allowScripts: _allow, ...published } = root;
  const exportsMap = { ...(root.exports as Record<string, unknown>) };
  delete exportsMap["./emulator"];
  const lightManifest: Manifest = {
    ...published,
    exports: exportsMap,
    files: ["dist/sdk", "bin/pulumi-resource-keyform", "LICENSE", "README.md"],
    dependencies: Object.fromEntries(Object.entries(rootDependencies).filter(([name]) => !emulatorOnly.has(name))),
    peerDependencies: { ...(root.peerDependencies as Record<string, string>), [emulatorManifest.name]: root.version },
    peerDependenciesMeta: { [emulatorManifest.name]: { optional: true } },
  };

  const stages = path.join(dist, "stage");
  const lightStage = path.join(stages, "keyform");
  stagePackage(lightStage, lightManifest);
  copyBuild(
    lightStage,
    fs.readdirSync(path.join(dist, "sdk")).filter((entry) => entry !== "emulator"),
  );
  // The provider plugin's launcher (its `bin` entry): it runs dist/sdk/plugin/main.js.
  fs.mkdirSync(path.join(lightStage, "bin"));
  fs.copyFileSync(path.join(repoRoot, "bin", "pulumi-resource-keyform"), path.join(lightStage, "bin", "pulumi-resource-keyform"));
  fs.chmodSync(path.join(lightStage, "bin", "pulumi-resource-keyform"), 0o755);

  const emulatorStage = path.join(stages, "keyform-emulator");
  stagePackage(emulatorStage, emulatorManifest);
  copyBuild(emulatorStage, sdkClosure("emulator"));

  for (const stage of [lightStage, emulatorStage]) process.stdout.write(pack(stage, out) + "\n");
}

main();
