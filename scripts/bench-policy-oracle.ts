/**
 * Differential test of `keyform policy diff` against a brute-force oracle: seeded random policy
 * sets and mutations (test/policy/oracle.ts), each diff's verdict checked against exhaustive
 * evaluation with the real evaluator over a small bounded domain. Prints the disagreements (must
 * be 0) and the figures. Run with `npm run bench:policy-oracle` (`-- --pairs N --seed S`; `KEYFORM_ORACLE_PAIRS` sets the default count).
 *
 * With `--org`, the full diffs over the organization of the oracle (its users as principals):
 * counts the spurious rows, the users the rows miss and the wrong `--no-new-access` exits, each
 * of which must be 0. With `--org-pairs N` (and no `--org`), the organization's sample of N pairs
 * runs after the first one in the same process (one start of Z3 and of the oracle's domain for
 * both), each printing its summary line.
 */
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { runDifferential, runOracle } from "../test/policy/oracle";
import { gateExitCode } from "../sdk/cli/policy";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { pairs: { type: "string", default: process.env.KEYFORM_ORACLE_PAIRS ?? "10000" }, seed: { type: "string", default: "27" }, org: { type: "boolean", default: false }, "org-pairs": { type: "string" } } });
  const pairs = Number(values.pairs);
  if (values.org) {
    const bad = await orgSample(Number(values.seed), pairs);
    process.stdout.write("", () => process.exit(bad === 0 ? 0 : 1));
    return;
  }
  const disagreements = await sample(Number(values.seed), pairs);
  const orgBad = values["org-pairs"] === undefined ? 0 : await orgSample(Number(values.seed), Number(values["org-pairs"]));
  // Exit once the lines are written (a pipe takes them asynchronously): the solver's threads
  // would keep the process alive otherwise.
  process.stdout.write("", () => process.exit(disagreements === 0 && orgBad === 0 ? 0 : 1));
}

/** The organization's sample: prints its findings and summary line; returns the count of bad rows, users and exits. */
async function orgSample(seed: number, pairs: number): Promise<number> {
  const t0 = performance.now();
  const quiet = { out: () => undefined, err: () => undefined };
  const found = await runDifferential(seed, pairs, (diff) => gateExitCode(diff, true, quiet), (done, r) => {
    if (done % 100 === 0) process.stderr.write(`${done} pairs, ${r.spuriousRows} spurious rows, ${r.missedUsers} missed users, ${r.wrongExits} wrong exits, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  });
  for (const f of found.findings.slice(0, 20)) process.stdout.write(`FINDING: ${f.why}\n  before: ${JSON.stringify(f.before)}\n  after: ${JSON.stringify(f.after)}\n`);
  const bad = found.spuriousRows + found.missedUsers + found.wrongExits;
  process.stdout.write(
    `${found.pairs} org pairs (seed ${seed}): ${found.rows} rows, ${found.notes} outsiders' notes; spurious rows ${found.spuriousRows}, missed users ${found.missedUsers}, wrong exits ${found.wrongExits}; ${found.notProved} not proved; ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return bad;
}

/** The sample of diffs stopping at their first change: prints its disagreements and summary line; returns their count. */
async function sample(seed: number, pairs: number): Promise<number> {
  const t0 = performance.now();
  // The running count of disagreements, so a run stopped early still says what it found.
  const result = await runOracle(seed, pairs, (done, disagreements) => {
    if (done % 250 === 0) process.stderr.write(`${done} pairs, ${disagreements} disagreements, ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  });
  for (const d of result.disagreements) process.stdout.write(`DISAGREEMENT: ${d.why}\n  before: ${JSON.stringify(d.before)}\n  after: ${JSON.stringify(d.after)}\n`);
  process.stdout.write(
    `${result.pairs} pairs (seed ${seed}): ${result.provedNoChange} proved no change (each checked exhaustively), ${result.changes} with a change (each witness replayed), ${result.pairs - result.provedNoChange - result.changes} not proved; ${result.disagreements.length} disagreements; ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
  );
  return result.disagreements.length;
}

void main();
