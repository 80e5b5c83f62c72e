/**
 * @module test/support/typescript-project
 * A Pulumi TypeScript project laid out as `pulumi new typescript` makes it: Pulumi.yaml without
 * `main`, package.json whose `main` is index.ts, and the template's tsconfig.json. The program
 * runs through ts-node, without a build step.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/**
 * The compiler options of `pulumi new typescript`, plus the one keyform's types need: zod 4's
 * declarations default-import CommonJS modules (README, "TypeScript projects"). No skipLibCheck.
 */
export const PULUMI_TEMPLATE_COMPILER_OPTIONS = {
  strict: true,
  outDir: "bin",
  target: "es2020",
  module: "commonjs",
  moduleResolution: "node",
  sourceMap: true,
  experimentalDecorators: true,
  pretty: true,
  noFallthroughCasesInSwitch: true,
  noImplicitReturns: true,
  forceConsistentCasingInFileNames: true,
  allowSyntheticDefaultImports: true,
};

/** Writes Pulumi.yaml, package.json and tsconfig.json of project `name` into `dir`. */
export function writeTypeScriptProject(dir: string, name: string): void {
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, private: true, main: "index.ts" }, null, 2));
  fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions: PULUMI_TEMPLATE_COMPILER_OPTIONS, files: ["index.ts"] }, null, 2));
}

/**
 * A new TypeScript project `name` in a temporary folder, with this checkout linked in as its
 * `keyform` dependency (and Pulumi's and TypeScript's packages from the checkout's
 * node_modules). The program goes into `index.ts`.
 */
export function linkedTypeScriptProject(repoRoot: string, name: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-`));
  writeTypeScriptProject(dir, name);
  fs.mkdirSync(path.join(dir, "node_modules"));
  for (const dependency of ["@pulumi", "@types", "typescript"]) {
    fs.symlinkSync(path.join(repoRoot, "node_modules", dependency), path.join(dir, "node_modules", dependency));
  }
  fs.symlinkSync(repoRoot, path.join(dir, "node_modules", "keyform"));
  return dir;
}
