/**
 * A vitest reporter that writes how long each test file took to `.keyform/test-files.json`, for
 * the table scripts/test prints at its end (scripts/lib/test-timings.mjs).
 *
 * Why not the JSON report's per-file times: they run from the file's first test to its last,
 * so they leave out importing the file and its `beforeAll`/`afterAll` hooks, which is where an
 * engine test builds its project and starts its emulator (a minute of a four-minute file).
 * Here a file's time is its import (collect), its setup file and its run, hooks included.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { RunnerTestFile } from "vitest";
import type { Reporter } from "vitest/reporters";

export const FILE_TIMINGS = ".keyform/test-files.json";

/** One file's line of the table. */
export interface FileTiming {
  readonly file: string;
  readonly ms: number;
  readonly tests: number;
  readonly failed: boolean;
}

function testCount(task: { type: string; tasks?: readonly unknown[] }): number {
  if (task.type === "test") return 1;
  return (task.tasks ?? []).reduce<number>((sum, child) => sum + testCount(child as { type: string; tasks?: readonly unknown[] }), 0);
}

export class FileTimingsReporter implements Reporter {
  private startedMs = Date.now();
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.startedMs = Date.now();
    this.root = vitest.config.root;
  }

  onFinished(files: readonly RunnerTestFile[] = []): void {
    const timings: FileTiming[] = files.map((file) => ({
      file: path.relative(this.root, file.filepath),
      ms: (file.collectDuration ?? 0) + (file.setupDuration ?? 0) + (file.result?.duration ?? 0),
      tests: testCount(file),
      failed: file.result?.state === "fail",
    }));
    const out = path.join(this.root, FILE_TIMINGS);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ wallMs: Date.now() - this.startedMs, files: timings }, null, 1));
  }
}
