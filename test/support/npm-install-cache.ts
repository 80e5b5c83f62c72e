/**
 * @module test/support/npm-install-cache
 * `npm install` of packages into a scratch project, its node_modules kept so that the test
 * files (and the next runs, fresh clones too) that install the same thing start from it: on a
 * loaded machine a fresh install of keyform, @pulumi/pulumi and TypeScript took 54 s, a copy of
 * the kept node_modules 5 s and npm's own install over it 9 s; the copy is now hard links.
 *
 * npm still runs every time, over the copy: it checks the tree against what was asked for,
 * removes what nothing asked for, and writes the project's package.json and package-lock.json.
 * The packages of the tarball arguments (keyform's packed packages, new with every build) are
 * never taken from the copy: they are deleted from it first, so npm unpacks each from its
 * tarball, and a test sees what the tarball holds, not an earlier build's files. The key is
 * the Node.js version and the arguments (a tarball by its file name), so an install of the
 * same packages at the same versions starts from the kept tree whatever the tarballs' content.
 * One node_modules is kept per `label` (a changed key replaces the one before), per user
 * under `${XDG_CACHE_HOME:-~/.cache}/keyform/npm-installs/`, next to the Pulumi CLI
 * (scripts/install-pulumi) and the checkout's own node_modules (scripts/lib/npm-deps.sh).
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { outputOf } from "./child-process";

/** A folder of keyform's per-user cache (`${XDG_CACHE_HOME:-~/.cache}/keyform/<name>`), where what the tests keep across runs and checkouts lives. */
export function userCacheFolder(name: string): string {
  return path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "keyform", name);
}

const CACHE = userCacheFolder("npm-installs");

const isTarball = (arg: string) => arg.endsWith(".tgz");

/** The cache key of an install: Node.js and the arguments, a tarball by its file name. */
function installKey(args: readonly string[]): string {
  const hash = createHash("sha256").update(process.version);
  for (const arg of args) hash.update("\0" + (isTarball(arg) ? path.basename(arg) : arg));
  return hash.digest("hex").slice(0, 24);
}

/** The package name in a tarball's package.json. */
async function tarballPackageName(tarball: string): Promise<string> {
  return (JSON.parse(await outputOf("tar", ["-xzOf", tarball, "package/package.json"])) as { name: string }).name;
}

/**
 * Copies the kept `from` to `to`, as hard links where both are on one file system (a copy of its
 * 114 MB cost 5 s of CPU): npm replaces a package's files rather than writing into them, so the
 * kept tree stays as it was. The one file npm writes in place, its record of the tree
 * (`.package-lock.json`), is copied. False, and nothing left at `to`, when the copy fails.
 */
async function copied(from: string, to: string): Promise<boolean> {
  for (const flags of ["-al", "-a"]) {
    try {
      await outputOf("cp", [flags, from, to]);
      const record = path.join(to, ".package-lock.json");
      if (flags === "-al" && fs.existsSync(record)) {
        fs.rmSync(record);
        fs.copyFileSync(path.join(from, ".package-lock.json"), record);
      }
      return true;
    } catch {
      // Links across file systems fail (then a copy); a copy fails when another checkout
      // replaced this install while it was copied (the cache is per user).
      fs.rmSync(to, { recursive: true, force: true });
    }
  }
  return false;
}

/**
 * Runs `npm install <args>` in `project` (its package.json written), starting from the
 * node_modules an earlier install of the same arguments left when there is one, without the
 * packages of its tarball arguments; keeps the result when there was none.
 */
export async function npmInstallCached(label: string, project: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const kept = path.join(CACHE, label, installKey(args));
  const modules = path.join(project, "node_modules");
  const hit = fs.existsSync(path.join(kept, "node_modules")) && (await copied(path.join(kept, "node_modules"), modules));
  // The tarballs' packages come from the tarballs, never from the copy.
  for (const tarball of hit ? args.filter(isTarball) : []) {
    fs.rmSync(path.join(modules, await tarballPackageName(path.resolve(project, tarball))), { recursive: true, force: true });
  }
  await outputOf("npm", ["install", ...args], { cwd: project, env });
  if (hit) return;
  // Keeping it is a saving, not part of the test: a failure here only means the next file installs too.
  // Another file may be storing the same install: each writes its own folder, the first rename wins.
  const staging = `${kept}.${process.pid}`;
  try {
    fs.mkdirSync(staging, { recursive: true });
    await outputOf("cp", ["-a", modules, path.join(staging, "node_modules")]);
    // The installs of other arguments under this label (not another file's folder being written).
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
