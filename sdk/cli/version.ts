/**
 * @module cli/version
 * keyform's version, from the package's own package.json (compiled code sits in
 * `dist/sdk/cli/`, three levels below the package root, in the repository and in the tarball).
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The `version` of the package this CLI belongs to. */
export function packageVersion(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "..", "package.json"), "utf8")) as { version?: string };
  return manifest.version ?? "unknown";
}
