/**
 * The TypeScript of the docs compiles against the built SDK: every ```ts and ```typescript
 * block of README.md and every page under docs/ is written to a project of its own (an ES module, so the
 * client examples may `await` at the top level) that installs `keyform` from this repository's
 * `dist/`, as a program that depends on the package does, and `tsc --noEmit` must pass. A block
 * that does not import `keyform` or `@pulumi/pulumi` itself gets both imports, as docs/resources.md
 * says every example assumes. A renamed class, input or method, a misspelt
 * enum value or a variable used before it is declared in an example fails here.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../support/engine";
import { markdownFiles } from "../support/markdown";

/** One TypeScript block of a Markdown file, with where it starts. */
interface CodeBlock {
  readonly file: string;
  readonly line: number;
  readonly code: string;
}

/** Every ```ts and ```typescript block of `file` (relative to the repository root). */
function typescriptBlocks(file: string): CodeBlock[] {
  const text = fs.readFileSync(path.join(repoRoot, file), "utf8");
  return [...text.matchAll(/^```(?:ts|typescript)\n([\s\S]*?)^```/gm)].map((match) => ({
    file,
    line: text.slice(0, match.index).split("\n").length,
    code: match[1]!,
  }));
}

const DOCS = markdownFiles(repoRoot);
const blocks = DOCS.flatMap(typescriptBlocks);

/** `block` as a module of its own, the imports it assumes added. */
function moduleOf(block: CodeBlock): string {
  const imports = [
    ...(/from "keyform"/.test(block.code) ? [] : ['import * as keyform from "keyform";']),
    ...(/from "@pulumi\/pulumi"/.test(block.code) ? [] : ['import * as pulumi from "@pulumi/pulumi";']),
  ];
  return [`// ${block.file}:${block.line}`, ...imports, block.code, "export {};", ""].join("\n");
}

let project: string;

beforeAll(() => {
  if (!fs.existsSync(path.join(repoRoot, "dist", "sdk", "index.d.ts"))) throw new Error("dist/ is not built: run `npm run build` first");
  project = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-readme-ts-"));
  // `keyform` resolves through this repository's package.json (its exports point into dist/);
  // `@pulumi/pulumi` and the Node types are this repository's.
  fs.mkdirSync(path.join(project, "node_modules", "@pulumi"), { recursive: true });
  fs.symlinkSync(repoRoot, path.join(project, "node_modules", "keyform"), "dir");
  fs.symlinkSync(path.join(repoRoot, "node_modules", "@pulumi", "pulumi"), path.join(project, "node_modules", "@pulumi", "pulumi"), "dir");
  // The signing guide shows the service's own signer packages against the emulator.
  for (const dependency of ["@turnkey", "viem"]) {
    fs.symlinkSync(path.join(repoRoot, "node_modules", dependency), path.join(project, "node_modules", dependency), "dir");
  }
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "readme-examples", private: true, type: "module" }));
  fs.writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: "nodenext",
        moduleResolution: "nodenext",
        target: "es2022",
        // The examples are checked here, not the libraries' own declarations (consumer-package does that).
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [path.join(repoRoot, "node_modules", "@types")],
      },
      include: ["*.ts"],
    }),
  );
  blocks.forEach((block, index) => fs.writeFileSync(path.join(project, `block-${String(index + 1).padStart(2, "0")}.ts`), moduleOf(block)));
});

afterAll(() => {
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

describe("the TypeScript of README.md and docs/", () => {
  it("has blocks to check: the front page's, and the generated resource examples among them", () => {
    expect(blocks.length).toBeGreaterThan(14);
    expect(blocks.filter((b) => b.file === "README.md").length).toBeGreaterThan(1);
    expect(blocks.filter((b) => b.file === "docs/resources/sessionprofile.md" && b.code.includes("new keyform.SessionProfile(")).length).toBeGreaterThan(0);
  });

  it("type-checks against the built SDK", { timeout: 600_000 }, async () => {
    const tsc = path.join(repoRoot, "node_modules", ".bin", "tsc");
    const result = await promisify(execFile)(tsc, ["-p", project], { cwd: project }).then(
      () => ({ failed: false, output: "" }),
      (error: { stdout?: string; stderr?: string }) => ({ failed: true, output: `${error.stdout ?? ""}${error.stderr ?? ""}` }),
    );
    // Each error is named by the block's file and line (the first line of every module says it).
    const located = result.output.replace(/^(block-\d+)\.ts\((\d+),(\d+)\)/gm, (_all, name: string, line: string, column: string) => {
      const source = fs.readFileSync(path.join(project, `${name}.ts`), "utf8").split("\n")[0]!.slice(3);
      return `${source} (${name}.ts:${line}:${column})`;
    });
    expect(result.failed ? located : "").toBe("");
  });
});
