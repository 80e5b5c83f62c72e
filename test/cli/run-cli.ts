/**
 * Runs the compiled `keyform` CLI in a child process, as a project's CI does, and writes JSON
 * fixtures for it.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";

const CLI = path.resolve(__dirname, "../../dist/sdk/cli/main.js");

/** `keyform …args` with no KEYFORM_BASE_URL inherited; resolves with the exit code and output. */
export function keyform(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, KEYFORM_BASE_URL: "" } }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Writes `value` (JSON unless a string) to `dir/name` and returns the path. */
export function writeFixture(dir: string, name: string, value: unknown): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
  return file;
}
