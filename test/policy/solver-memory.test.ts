/**
 * The solver's memory stays bounded in a process that runs many diffs and queries: what Z3
 * holds after each one comes back to what it held after the first (every term, solver and model
 * of a diff is freed when it ends, not when the garbage collector gets to its wrapper). Without
 * that, Z3's WebAssembly heap grew with every diff until its 2 GB cap and the solver's thread
 * aborted. The build reserves the whole 2 GB heap up front (its size never changes), so the
 * measure is Z3's own count of the bytes it holds.
 */
import { describe, expect, it } from "vitest";
import { canQuery, policyFindings } from "../../sdk/policy/smt/properties";
import { diffPolicies, solverMemory } from "../../sdk/policy/smt/diff";
import { seededRandom } from "../support/seeded-random";
import { randomPair } from "./oracle";

const DIFFS = Number(process.env.KEYFORM_MEMORY_DIFFS ?? 200);
/** Growth allowed over the level after the first diff: Z3's tables (symbols, hash tables) settle at their size. */
const SLACK_BYTES = 4 * 1024 * 1024;

describe("the solver's memory", () => {
  it(`${DIFFS} diffs with their whole change search, and the properties, in one process: Z3 holds no more than after the first`, { timeout: 1_800_000 }, async () => {
    const next = seededRandom(2027);
    let baseline: number | undefined;
    let highest = 0;
    for (let i = 0; i < DIFFS; i++) {
      const [before, after] = randomPair(next);
      const diff = await diffPolicies(before, after);
      // Each pair is used by a property query too, every tenth time (they build their own proofs).
      if (i % 10 === 0) {
        await policyFindings(after);
        await canQuery(after, { tag: "tag-a" }, "SIGN_TRANSACTION");
      }
      expect(diff.typeCount).toBeGreaterThan(0);
      const { allocated } = await solverMemory();
      baseline ??= allocated;
      highest = Math.max(highest, allocated);
    }
    console.log(`[solver memory] after the first diff ${(baseline! / 1e6).toFixed(1)} MB, at most ${(highest / 1e6).toFixed(1)} MB over ${DIFFS} diffs`);
    expect(highest).toBeLessThanOrEqual(baseline! + SLACK_BYTES);
  });

  it("diffs started at once (a dashboard serving two requests) run one after another and answer as they do alone", { timeout: 600_000 }, async () => {
    const next = seededRandom(31);
    const pairs = Array.from({ length: 6 }, () => randomPair(next));
    // The rows in any order (the solver's models, and so the order rows are found in, depend on what the context made before).
    const summary = (d: Awaited<ReturnType<typeof diffPolicies>>) => ({ proved: d.proved, changes: d.changes.map((c) => JSON.stringify([c.direction, c.how, c.kinds, c.target, c.confirmed])).sort() });
    const alone: ReturnType<typeof summary>[] = [];
    for (const [before, after] of pairs) alone.push(summary(await diffPolicies(before, after)));
    const together = await Promise.all(pairs.map(([before, after]) => diffPolicies(before, after)));
    expect(together.map(summary)).toEqual(alone);
    expect(alone.some((d) => d.changes.length > 0)).toBe(true);
  });
});
