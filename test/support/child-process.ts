/**
 * @module test/support/child-process
 * Runs a command without blocking the test worker. A blocked worker cannot read vitest's
 * acknowledgements of its progress reports, and after 60 s vitest fails the run with
 * `Timeout calling "onTaskUpdate"` although every test passed: long child processes (npm, go,
 * the SDK generators) go through here instead of `execFileSync`/`spawnSync`.
 */
import { spawn, type SpawnOptions } from "node:child_process";

/** How a child process ended and what it printed. */
export interface Finished {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end; never rejects for a non-zero exit (check `status`). */
export function runChild(command: string, args: readonly string[], options: Omit<SpawnOptions, "stdio"> = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
}

/** Runs `command` and returns its standard output; rejects naming the command and its error output when it fails. */
export async function outputOf(command: string, args: readonly string[], options: Omit<SpawnOptions, "stdio"> = {}): Promise<string> {
  const finished = await runChild(command, args, options);
  if (finished.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} exited with ${finished.status ?? finished.signal}:\n${finished.stderr.slice(-4000)}`);
  }
  return finished.stdout;
}
