/**
 * Deletes compiled output in dist/sdk whose TypeScript source no longer exists (a module deleted
 * or moved since an earlier build), so that `npm pack` ships only what the sources build. It is
 * the root package's `prepack` script and the first step of `scripts/pack-packages.ts`.
 *
 *   node dist/scripts/prune-build.js
 */
import * as fs from "node:fs";
import * as path from "node:path";

const repoRoot = path.resolve(__dirname, "..", "..");
const dist = path.join(repoRoot, "dist");

/** The TypeScript source of a compiled file under dist/, or undefined when it is not compiled output. */
function sourceOf(file: string): string | undefined {
  if (!/\.(d\.ts|js)(\.map)?$/.test(file)) return undefined;
  return path.join(repoRoot, path.relative(dist, file)).replace(/\.(d\.ts|js)(\.map)?$/, ".ts");
}

/** Deletes compiled output under `dir` (inside dist/) whose source is gone; returns the files deleted. */
export function pruneStaleOutput(dir: string = path.join(dist, "sdk")): string[] {
  if (!fs.existsSync(dir)) throw new Error(`${dir} is missing: build first (npm run build)`);
  const removed: string[] = [];
  for (const name of fs.readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const file = path.join(dir, name);
    const source = sourceOf(file);
    if (source !== undefined && fs.statSync(file).isFile() && !fs.existsSync(source)) {
      fs.rmSync(file);
      removed.push(path.relative(repoRoot, file));
    }
  }
  return removed;
}

if (require.main === module) {
  for (const file of pruneStaleOutput()) process.stderr.write(`prune-build: deleted ${file} (its source is gone)\n`);
}
