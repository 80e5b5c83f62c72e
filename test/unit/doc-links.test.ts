/**
 * Every relative link of README.md and docs/ leads somewhere: the file (or folder) exists, and an
 * `#anchor` names a heading of the target page (GitHub's anchors: the heading's text in lower
 * case, punctuation dropped, spaces as `-`, `-1`, `-2`, … for repeats). Links inside code blocks
 * and code spans are not links. The code's citations of the service's facts
 * (`docs/service-facts.md#<anchor>`, a comment's further anchors as `, #<anchor>`) name headings of
 * that page. The front page's size limit is checked here too.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { markdownFiles, markdownLinks, headingAnchors } from "../support/markdown";
import { repoRoot } from "../support/repo-copy";

/** The source files under `dir` (relative to the repository root) that may cite the docs. */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : sourceFiles(file);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [file] : [];
  });
}

const files = markdownFiles(repoRoot);

describe("the links of README.md and docs/", () => {
  it("reads the front page, the Registry pages and every resource page", () => {
    expect(files).toEqual(expect.arrayContaining(["README.md", "docs/_index.md", "docs/installation-configuration.md", "docs/resources/usertag.md"]));
  });

  it.each(files)("%s: every relative link names an existing file and heading", (file) => {
    const broken: string[] = [];
    for (const link of markdownLinks(fs.readFileSync(path.join(repoRoot, file), "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) continue; // https:, mailto:, …
      const [target, anchor] = link.target.split("#", 2) as [string, string | undefined];
      const resolved = target === "" ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(target)));
      const where = `${file}:${link.line}: (${link.target})`;
      if (!fs.existsSync(path.join(repoRoot, resolved))) {
        broken.push(`${where} ${resolved} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === "") continue;
      if (!resolved.endsWith(".md")) {
        broken.push(`${where} an anchor into a file that is not Markdown`);
        continue;
      }
      const anchors = headingAnchors(fs.readFileSync(path.join(repoRoot, resolved), "utf8"));
      if (!anchors.includes(anchor)) broken.push(`${where} ${resolved} has no heading #${anchor}`);
    }
    expect(broken).toEqual([]);
  });

  it("finds a broken file link, a broken anchor and a link in code that is no link", () => {
    const text = ["# Title: `one` two", "", "[a](#title-one-two) [b](#nowhere) `[c](#nope)`", "```", "[d](missing.md)", "```", "## Title: one two"].join("\n");
    expect(markdownLinks(text).map((l) => `${l.line} ${l.target}`)).toEqual(["3 #title-one-two", "3 #nowhere"]);
    expect(headingAnchors(text)).toEqual(["title-one-two", "title-one-two-1"]);
  });

  it("the code's citations of the service's facts name headings of docs/service-facts.md", () => {
    const anchors = headingAnchors(fs.readFileSync(path.join(repoRoot, "docs/service-facts.md"), "utf8"));
    const cited: string[] = [];
    const broken: string[] = [];
    for (const file of ["sdk", "scripts", "test", "examples"].flatMap(sourceFiles)) {
      const text = fs.readFileSync(path.join(repoRoot, file), "utf8");
      for (const match of text.matchAll(/docs\/service-facts\.md#([\w-]+)((?:, #[\w-]+)*)/g)) {
        for (const anchor of [match[1]!, ...[...match[2]!.matchAll(/#([\w-]+)/g)].map((m) => m[1]!)]) {
          cited.push(anchor);
          if (!anchors.includes(anchor)) broken.push(`${file}: #${anchor}`);
        }
      }
      if (/fact sheet/i.test(text) && file !== "test/unit/doc-links.test.ts") broken.push(`${file}: cites a "fact sheet" instead of docs/service-facts.md`);
    }
    expect(cited.length).toBeGreaterThan(60);
    expect(broken).toEqual([]);
  });

  it("keeps README.md a front page of at most 400 lines", () => {
    expect(fs.readFileSync(path.join(repoRoot, "README.md"), "utf8").split("\n").length).toBeLessThanOrEqual(400);
  });
});
