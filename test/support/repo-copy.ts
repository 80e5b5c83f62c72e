/**
 * A clean copy of the repository, as a fresh clone would have it (the files git knows, with
 * their mtimes), sharing this checkout's node_modules; and the shell blocks of a Markdown file,
 * for tests that run a README's commands exactly as written.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, symlinkSync, utimesSync } from "node:fs";
import * as path from "node:path";

export const repoRoot = path.resolve(__dirname, "..", "..");

/** Copies the files git knows (tracked and untracked-not-ignored) to `to`, keeping their mtimes. */
export function cleanCopy(to: string): void {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoRoot,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    const target = path.join(to, file);
    mkdirSync(path.dirname(target), { recursive: true });
    try {
      cpSync(path.join(repoRoot, file), target, { preserveTimestamps: true });
    } catch {
      // listed but deleted in the working tree
    }
  }
  // The dependencies are the same; installing them again would only measure the registry.
  // scripts/org-up installs when package-lock.json is newer than node_modules/.package-lock.json,
  // so the copy's lock file is dated well before any install. (The install's own time is not
  // enough: a Date holds whole milliseconds and utimes rounds up, so the copy came out newer by
  // a fraction of a millisecond.) ensure-npm-deps.sh also never installs through a linked
  // node_modules, which `npm ci` would empty.
  symlinkSync(path.join(repoRoot, "node_modules"), path.join(to, "node_modules"));
  const longAgo = new Date("2000-01-01T00:00:00Z");
  utimesSync(path.join(to, "package-lock.json"), longAgo, longAgo);
}

/**
 * The fenced blocks of `language` in a Markdown file, in order; the one after `heading` (a line
 * starting with `#`) when given.
 * @throws Error when there is none: the test must break when the README drifts.
 */
export function markdownBlocks(file: string, language: string, heading?: string): string[] {
  let text = readFileSync(file, "utf8");
  if (heading !== undefined) {
    const at = text.split("\n").findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, "").trim() === heading);
    if (at < 0) throw new Error(`${file} has no heading "${heading}"`);
    text = text.split("\n").slice(at + 1).join("\n");
  }
  const blocks = [...text.matchAll(new RegExp("^```" + language + "\\n([\\s\\S]*?)^```", "gm"))].map((m) => m[1]!);
  if (blocks.length === 0) throw new Error(`${file} has no \`\`\`${language} block${heading ? ` after "${heading}"` : ""}`);
  return blocks;
}
