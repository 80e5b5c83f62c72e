/**
 * The access diff against the brute-force oracle (test/policy/oracle.ts): a seeded sample of
 * 500 random policy-set pairs and mutations; every "no change" the solver proves is checked by
 * exhaustive evaluation with the real evaluator over a bounded domain, every change it reports
 * must replay. `npm run bench:policy-oracle` runs 10,000 pairs.
 *
 * A second sample of 500 pairs runs full diffs over the oracle's organization (its users are the
 * principals) and counts the rows that do not replay as the service decides (submission, then
 * votes in turn) or name users or tags the organization lacks, the (user, direction, kind) the
 * exhaustive oracle finds that no row lists, and the wrong `--no-new-access` exits: all 0.
 *
 * The two samples run one after the other in one process of their own (the bench script,
 * compiled, with `--org-pairs`: Z3's start, its compiled code and the oracle's domain serve
 * both): Z3's WebAssembly build has been seen to abort a solver thread under a loaded machine
 * ("memory access out of bounds"), which blocks its process for good. Such a run ends without
 * its summary lines and is killed after {@link SAMPLE_WATCHDOG_MS}; it is run once more, and the
 * crash is printed. A run that reports disagreements is never run again.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { diffPolicies } from "../../sdk/policy/smt/diff";
import { seededRandom } from "../support/seeded-random";
import { domainProblems, exhaustiveDifference, outcomesEachEvaluated, randomPair } from "./oracle";

const PAIRS = Number(process.env.KEYFORM_ORACLE_PAIRS ?? 500);
const ORG_PAIRS = Number(process.env.KEYFORM_ORACLE_ORG_PAIRS ?? 500);
const SAMPLE_WATCHDOG_MS = 900_000;
const BENCH = path.resolve(__dirname, "../../dist/scripts/bench-policy-oracle.js");

/** One run of both seeded samples in their own process: its output, and whether it ended with both summary lines. */
function sampleRun(seed: number): Promise<{ output: string; finished: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BENCH, "--pairs", String(PAIRS), "--org-pairs", String(ORG_PAIRS), "--seed", String(seed)], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const watchdog = setTimeout(() => child.kill("SIGKILL"), SAMPLE_WATCHDOG_MS);
    child.once("exit", () => {
      clearTimeout(watchdog);
      resolve({ output, finished: /^\d+ pairs \(seed \d+\): /m.test(output) && /^\d+ org pairs \(seed \d+\): /m.test(output) });
    });
  });
}

let samples: Promise<{ output: string; finished: boolean }> | undefined;

/** The run of both samples the two tests read, started by the first (and run once more when it ended without its summaries). */
function bothSamples(seed: number): Promise<{ output: string; finished: boolean }> {
  samples ??= (async () => {
    const run = await sampleRun(seed);
    if (run.finished) return run;
    console.log(`[oracle] the samples' process ended without its summaries; run again. Its output ended:\n${run.output.slice(-1500)}`);
    return sampleRun(seed);
  })();
  return samples;
}

describe("policy diff against the exhaustive oracle", () => {
  it("the oracle itself finds a known difference and passes a known equivalence", async () => {
    const base = { policyId: "p", policyName: "p", effect: "EFFECT_ALLOW", condition: "activity.kind == 'SIGN_TRANSACTION'", consensus: "approvers.all(u, 'tag-b' in u.tags)" };
    expect(exhaustiveDifference([base], [{ ...base, consensus: "approvers.any(u, 'tag-b' in u.tags)" }])).toBeDefined();
    expect(exhaustiveDifference([base], [{ ...base, consensus: "approvers.all(u, u.tags.contains('tag-b'))" }])).toBeUndefined();
    // Its domain holds only requests a client could submit.
    expect(domainProblems()).toEqual([]);
    // The solver agrees on both, and the gain is one a client could submit.
    const diff = await diffPolicies([base], [{ ...base, consensus: "approvers.any(u, 'tag-b' in u.tags)" }]);
    expect(diff.changes.some((c) => c.direction === "gains" && c.confirmed && c.how === "with approvers")).toBe(true);
  });

  it("the oracle's outcomes, each policy evaluated once per class of activities it cannot tell apart, are those of evaluating every activity", () => {
    const next = seededRandom(4);
    const all = Array.from({ length: 6 }, () => randomPair(next).flat()).flat();
    const policies = [...new Map(all.map((p) => [JSON.stringify([p.effect, p.condition, p.consensus, p.time]), p])).values()];
    for (const policy of policies) {
      const { memoized, direct } = outcomesEachEvaluated(policy);
      expect(memoized, JSON.stringify(policy)).toEqual(direct);
    }
    // The policies read the request, the approvers and the clock between them.
    const text = JSON.stringify(policies);
    for (const name of ["activity.", "approvers.", "wallet.", "eth.tx", "time.now"]) expect(text).toContain(name);
  });

  it(`${PAIRS} seeded pairs: no disagreement`, { timeout: 2 * SAMPLE_WATCHDOG_MS + 60_000 }, async () => {
    const run = await bothSamples(2027);
    expect(run.finished, run.output.slice(-3000)).toBe(true);
    expect(run.output.split("\n").filter((line) => line.startsWith("DISAGREEMENT"))).toEqual([]);
    console.log(`[oracle] ${/^\d+ pairs \(seed .*$/m.exec(run.output)![0]}`);
    const [, proved, changes, disagreements] = / (\d+) proved no change .*?, (\d+) with a change .*?; (\d+) disagreements/.exec(run.output)!;
    expect(Number(disagreements)).toBe(0);
    // The sample exercises both verdicts.
    expect(Number(proved)).toBeGreaterThan(PAIRS / 10);
    expect(Number(changes)).toBeGreaterThan(PAIRS / 10);
  });

  it(`${ORG_PAIRS} seeded pairs over the organization's users and the catalog's types: no spurious row, no missed user, no wrong --no-new-access exit`, { timeout: 2 * SAMPLE_WATCHDOG_MS + 60_000 }, async () => {
    const run = await bothSamples(2027);
    expect(run.finished, run.output.slice(-3000)).toBe(true);
    expect(run.output.split("\n").filter((line) => line.startsWith("FINDING"))).toEqual([]);
    console.log(`[oracle] ${/^\d+ org pairs \(seed .*$/m.exec(run.output)![0]}`);
    const [, rows, spurious, missed, wrong] = / (\d+) rows, \d+ outsiders' notes; spurious rows (\d+), missed users (\d+), wrong exits (\d+)/.exec(run.output)!;
    expect([Number(spurious), Number(missed), Number(wrong)]).toEqual([0, 0, 0]);
    // The sample has rows to check.
    expect(Number(rows)).toBeGreaterThan(ORG_PAIRS / 2);
  });
});
