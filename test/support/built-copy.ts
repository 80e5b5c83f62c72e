/**
 * @module test/support/built-copy
 * This checkout's build (dist/, as `npm run build` left it before the tests) carried into a clean
 * copy of the repository (test/support/repo-copy), so that the copy's own `npm run build` or
 * `tsc -p tsconfig.json` (scripts/org-up runs it) is the incremental build of an unchanged tree,
 * not a compile from nothing. The compile still runs, and compiles what differs: tsc compares
 * each source's hash with the one its build record (dist/tsconfig.tsbuildinfo) holds.
 *
 * The record names the files it compiled by paths relative to dist/, and tsc resolves
 * node_modules to its real path: the copy links this checkout's node_modules, so those paths
 * are rewritten to lead from the copy's dist/ to the same files (left as they are, tsc finds
 * every declaration file "new" and compiles everything again).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "./repo-copy";

/** Folders of dist/ that are not the compiler's output (packed tarballs, generated SDKs). */
const NOT_COMPILED = new Set(["packages", "stage", "sdks"]);
const BUILD_RECORD = "tsconfig.tsbuildinfo";

/**
 * Copies this checkout's dist/ (the compiler's output and its build record, with their mtimes)
 * into `copy`, a clean copy made by `cleanCopy`. Does nothing when this checkout is not built.
 */
export function copyBuild(copy: string): void {
  const from = path.join(repoRoot, "dist");
  const record = path.join(from, BUILD_RECORD);
  if (!fs.existsSync(record)) return;
  const to = path.join(copy, "dist");
  for (const entry of fs.readdirSync(from)) {
    if (NOT_COMPILED.has(entry) || entry === BUILD_RECORD) continue;
    fs.cpSync(path.join(from, entry), path.join(to, entry), { recursive: true, preserveTimestamps: true });
  }
  const build = JSON.parse(fs.readFileSync(record, "utf8")) as { fileNames?: string[] };
  const fromDist = fs.realpathSync(from);
  const modules = fs.realpathSync(path.join(repoRoot, "node_modules"));
  build.fileNames = (build.fileNames ?? []).map((name) => {
    const file = path.resolve(fromDist, name);
    // The sources are the copy's own, at the same place relative to its dist/.
    return file.startsWith(modules + path.sep) ? path.relative(to, file) : name;
  });
  fs.writeFileSync(path.join(to, BUILD_RECORD), JSON.stringify(build));
  const { atime, mtime } = fs.statSync(record);
  fs.utimesSync(path.join(to, BUILD_RECORD), atime, mtime);
}
