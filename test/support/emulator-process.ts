/**
 * @module test/support/emulator-process
 * The emulator as its own process (`keyform serve` from dist/), so a test can `kill -9` it in
 * the middle of a run and start it again on the same data directory.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { readBootstrap } from "../../sdk/cli/env";
import type { Bootstrap } from "../../sdk/emulator-contract";

/**
 * The package root: the nearest folder above this module with a package.json. Tests load this
 * module from test/support, the benchmarks from its compiled copy in dist/test/support.
 */
function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, "package.json")) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

export interface EmulatorProcess {
  readonly url: string;
  readonly bootstrap: Bootstrap;
  readonly pid: number;
  /** `kill -9`; resolves once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts `keyform serve --port 0 --data <dataDir> [...options]` and waits for the line with its URL.
 * @throws Error when it exits or prints no URL within 30 s.
 */
export async function startEmulatorProcess(dataDir: string, options: readonly string[] = []): Promise<EmulatorProcess> {
  const child: ChildProcess = spawn(process.execPath, [path.join(packageRoot(), "dist", "sdk", "cli", "main.js"), "serve", "--port", "0", "--data", dataDir, ...options], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`keyform serve printed no URL in 30 s: ${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+?)[\s(]/.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`keyform serve exited with ${String(code)}: ${output}`));
    });
  });
  const bootstrap = readBootstrap(dataDir);
  return {
    url,
    bootstrap,
    pid: child.pid!,
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
