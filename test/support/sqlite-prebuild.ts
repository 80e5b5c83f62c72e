/**
 * @module test/support/sqlite-prebuild
 * The prebuilt better-sqlite3 binary an install downloads, made from this checkout's own build.
 *
 * better-sqlite3's install script is `prebuild-install || node-gyp rebuild`: on a machine with
 * network, prebuild-install downloads the release's prebuilt binary
 * (`better-sqlite3-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`, holding
 * build/Release/better_sqlite3.node) and nothing is compiled. Without network the download
 * fails and node-gyp compiles SQLite from source: about 45 s of CPU for each scratch install of
 * the emulator package. prebuild-install looks in its `local-prebuilds` folder before it
 * downloads (node_modules/prebuild-install/download.js), and loads what it unpacks before it
 * accepts it; so a test that installs the emulator points that folder at the file made here from
 * this checkout's compiled module, which stands in for the download.
 *
 * The file is made only for the version and the Node.js ABI this checkout's module was built for:
 * an install that resolves another better-sqlite3, or runs on another Node.js, asks for another
 * file name, finds none, and compiles as before.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { outputOf } from "./child-process";
import { repoRoot } from "./repo-copy";

const FOLDER = path.join(repoRoot, ".keyform", "prebuilds");

/**
 * The file name prebuild-install downloads for the better-sqlite3 in `module` on this Node.js
 * and machine, by prebuild-install's own naming (its util.js and, for the libc part, rc.js).
 */
function downloadName(module: string, pkg: { name: string; version: string }): string {
  const prebuildInstall = path.dirname(require.resolve("prebuild-install/package.json", { paths: [module] }));
  const util = require(path.join(prebuildInstall, "util.js")) as { getDownloadUrl(opts: Record<string, unknown>): string };
  const detectLibc = require(require.resolve("detect-libc", { paths: [prebuildInstall] })) as { isNonGlibcLinuxSync(): boolean; familySync(): string | null };
  const libc = process.platform === "linux" && detectLibc.isNonGlibcLinuxSync() ? (detectLibc.familySync() ?? "") : "";
  const url = util.getDownloadUrl({ pkg, runtime: "node", abi: process.versions.modules, platform: process.platform, arch: process.arch, libc, "tag-prefix": "v" });
  return path.basename(url);
}

/**
 * The folder holding this checkout's better-sqlite3 as its prebuilt binary, made once; undefined
 * when the checkout has no compiled module to make it from.
 */
export async function localSqlitePrebuilds(): Promise<string | undefined> {
  const module = path.dirname(require.resolve("better-sqlite3/package.json", { paths: [repoRoot] }));
  const binary = path.join(module, "build", "Release", "better_sqlite3.node");
  if (!fs.existsSync(binary)) return undefined;
  const pkg = JSON.parse(fs.readFileSync(path.join(module, "package.json"), "utf8")) as { name: string; version: string };
  const file = path.join(FOLDER, downloadName(module, pkg));
  if (fs.existsSync(file)) return FOLDER;
  fs.mkdirSync(FOLDER, { recursive: true });
  // Another file may be making it too: each writes its own, the rename puts a whole one in place.
  const writing = `${file}.${process.pid}`;
  await outputOf("tar", ["-czf", writing, "-C", module, "build/Release/better_sqlite3.node"]);
  fs.renameSync(writing, file);
  return FOLDER;
}

/**
 * Points the better-sqlite3 installs of the projects under `folder` at {@link localSqlitePrebuilds}:
 * a `.prebuild-installrc` in `folder`, which prebuild-install's settings (rc) find by walking up
 * from the package it installs. A file above the projects, not a variable: npm runs install
 * scripts with /bin/sh, and dash drops `prebuild-install_local-prebuilds` (not a shell name),
 * while an `npm_config_*` name makes every npm command warn of an unknown setting. Writes
 * nothing when there is nothing to point at.
 */
export async function useLocalSqlitePrebuild(folder: string): Promise<void> {
  const prebuilds = await localSqlitePrebuilds();
  if (prebuilds) fs.writeFileSync(path.join(folder, ".prebuild-installrc"), `local-prebuilds=${prebuilds}\n`);
}
