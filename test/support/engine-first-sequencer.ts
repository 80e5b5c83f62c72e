/**
 * The order vitest starts test files in: those that drive the Pulumi engine or the provider
 * plugin (test/engine, test/plugin) first, each group in vitest's own order (the longest first
 * when it has timings from an earlier run, else the largest file first).
 *
 * Why: two files run at a time, and the engine files take minutes each while most others take
 * seconds. Ordered by size alone (a fresh clone has no timings), some of the slowest engine files
 * are among the smallest and started last, so one worker ran a long file alone at the end while
 * the other sat idle. Started first, the long files overlap, and the short ones fill the end.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

const DRIVES_THE_ENGINE = /[\\/]test[\\/](engine|plugin)[\\/]/;

export class EngineFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    return [...ordered.filter((file) => DRIVES_THE_ENGINE.test(file.moduleId)), ...ordered.filter((file) => !DRIVES_THE_ENGINE.test(file.moduleId))];
  }
}
