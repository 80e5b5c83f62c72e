/**
 * @module test/support/kept-type-check
 * `tsc --noEmit` of a project, incremental, with tsc's record of the check kept per user, so a
 * later check of a project with the same installed packages re-checks only the files whose
 * text changed (and the files they affect) and takes the diagnostics of the rest from the
 * record. In a project that installs keyform, @pulumi/pulumi, TypeScript and @types/node and
 * checks them without skipLibCheck, the check from nothing took about 9 s of CPU, nearly all of
 * it checking Pulumi's and Node's declaration files; from the record, 2 s (4 s when keyform's
 * declaration files changed since).
 *
 * The record is tsc's own (`--incremental --tsBuildInfoFile`): it holds each file's content
 * hash, the compiler options and tsc's version, and tsc checks again whatever differs (a file
 * changed, another TypeScript, other options); its paths are relative to the record, which
 * sits in the project, so a project made anywhere with the same layout can use it. Errors are
 * reported whether found now or kept (tsc keeps a file's diagnostics with it). Only a check
 * that passed is kept, per `label`, under `${XDG_CACHE_HOME:-~/.cache}/keyform/type-checks/`,
 * next to the kept npm installs (test/support/npm-install-cache.ts).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { runChild } from "./child-process";
import { userCacheFolder } from "./npm-install-cache";

const CACHE = userCacheFolder("type-checks");

/** Runs the project's own `tsc --noEmit -p <project>`, incremental from the record kept for `label`; rejects with tsc's output when it fails. */
export async function typeCheckKept(label: string, project: string): Promise<void> {
  const kept = path.join(CACHE, `${label}.tsbuildinfo`);
  const record = path.join(project, ".type-check", "tsconfig.tsbuildinfo");
  fs.mkdirSync(path.dirname(record), { recursive: true });
  if (fs.existsSync(kept)) fs.copyFileSync(kept, record);
  const tsc = await runChild(path.join(project, "node_modules/.bin/tsc"), ["--noEmit", "-p", project, "--incremental", "--tsBuildInfoFile", record]);
  // tsc prints its errors on stdout.
  if (tsc.status !== 0) throw new Error(`tsc --noEmit -p ${project} exited with ${tsc.status ?? tsc.signal}:\n${(tsc.stdout + tsc.stderr).slice(-4000)}`);
  // Keeping it is a saving, not part of the test. Another file may keep one at the same time: each writes its own, the last rename wins.
  try {
    fs.mkdirSync(CACHE, { recursive: true });
    fs.copyFileSync(record, `${kept}.${process.pid}`);
    fs.renameSync(`${kept}.${process.pid}`, kept);
  } catch {
    fs.rmSync(`${kept}.${process.pid}`, { force: true });
  }
}
