/**
 * @module test/support/npm-install-cache
 * `npm install` of the packed packages into a scratch project, its node_modules kept by content
 * so that the test files that install the same thing install it once: on a loaded machine a
 * fresh install of keyform, @pulumi/pulumi and TypeScript took 54 s, a copy of the kept
 * node_modules 5 s and npm's own install over it 9 s.
 *
 * npm still runs every time, over the copy: it checks the tree against what was asked for, and
 * writes the project's package.json and package-lock.json. The key is the Node.js version, the
 * arguments and the bytes of every tarball among them, so a changed source (a new tarball)
 * installs afresh. One node_modules is kept per `label` (a changed key replaces the one before),
 * under `.keyform/npm-installs/` (git-ignored).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { outputOf } from "./child-process";
import { repoRoot } from "./repo-copy";

const CACHE = path.join(repoRoot, ".keyform", "npm-installs");

/** The cache key of an install: Node.js, the arguments, and the content of each tarball argument. */
function installKey(args: readonly string[], cwd: string): string {
  const hash = createHash("sha256").update(process.version);
  for (const arg of args) {
    hash.update("\0" + (arg.endsWith(".tgz") ? path.basename(arg) : arg));
    if (arg.endsWith(".tgz")) hash.update(fs.readFileSync(path.resolve(cwd, arg)));
  }
  return hash.digest("hex").slice(0, 24);
}

/**
 * Runs `npm install <args>` in `project` (its package.json written), starting from the
 * node_modules an earlier identical install left when there is one; keeps the result when
 * there was none.
 */
export async function npmInstallCached(label: string, project: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kept = path.join(CACHE, label, installKey(args, project));
  const modules = path.join(project, "node_modules");
  const hit = fs.existsSync(path.join(kept, "node_modules"));
  if (hit) await outputOf("cp", ["-a", path.join(kept, "node_modules"), modules]);
  await outputOf("npm", ["install", ...args], { cwd: project, env });
  if (hit) return;
  // Keeping it is a saving, not part of the test: a failure here only means the next file installs too.
  // Another file may be storing the same install: each writes its own folder, the first rename wins.
  const staging = `${kept}.${process.pid}`;
  try {
    fs.mkdirSync(staging, { recursive: true });
    await outputOf("cp", ["-a", modules, path.join(staging, "node_modules")]);
    // The installs of earlier sources under this label (not another file's folder being written).
    for (const other of fs.readdirSync(path.dirname(kept))) {
      if (!other.includes(".") && other !== path.basename(kept)) fs.rmSync(path.join(path.dirname(kept), other), { recursive: true, force: true });
    }
    fs.renameSync(staging, kept);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** What `pulumi new typescript` installs, at the versions keyform is tested with. */
export const PULUMI_NEW_TYPESCRIPT = ["@pulumi/pulumi@3.248.0", "typescript@~5.9.3", "@types/node@^20"] as const;

/** The light keyform tarball and what `pulumi new typescript` installs, into `project`: a team's Pulumi project. */
export function installKeyformProject(project: string, keyformTarball: string): Promise<void> {
  return npmInstallCached("keyform-pulumi-typescript", project, ["--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", keyformTarball, ...PULUMI_NEW_TYPESCRIPT]);
}
