/**
 * Reading the documentation as GitHub renders it: which Markdown files it is (README.md and every
 * page under docs/), the links of a page outside code, and the anchors its headings get.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** README.md and every `.md` file under docs/, relative to `root`, docs/ sorted. */
export function markdownFiles(root: string): string[] {
  const under = (dir: string): string[] =>
    fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const file = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return under(file);
      return entry.name.endsWith(".md") ? [file] : [];
    });
  return ["README.md", ...under("docs").sort()];
}

/** `text` with fenced code blocks blanked (their lines kept, so line numbers stay right). */
function withoutFences(text: string): string[] {
  let fenced = false;
  return text.split("\n").map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return "";
    }
    return fenced ? "" : line;
  });
}

/** One link of a page: its target as written and the line it is on. */
export interface MarkdownLink {
  readonly target: string;
  readonly line: number;
}

/** The inline links and images of `text` (`[text](target)`), outside code blocks and code spans. */
export function markdownLinks(text: string): MarkdownLink[] {
  return withoutFences(text).flatMap((line, index) =>
    [...line.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({ target: match[1]!, line: index + 1 })),
  );
}

/** The anchors GitHub gives the headings of `text`, in order: a repeated one gets `-1`, `-2`, …. */
export function headingAnchors(text: string): string[] {
  const seen = new Map<string, number>();
  return withoutFences(text)
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) => {
      const slug = line
        .replace(/^#+ /, "")
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .replace(/\s/g, "-");
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      return count === 0 ? slug : `${slug}-${count}`;
    });
}
