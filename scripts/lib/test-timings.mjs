// Prints how long each test file took, slowest first, from vitest's JSON report (the
// `startTime`/`endTime` of each file), with the totals: the files' durations added up, the
// run's wall time, and each test folder's share. scripts/test prints it at the end of a run so
// that a file that turns slow is seen when it lands.
//
//   node scripts/lib/test-timings.mjs <report.json> [how many files, default 15]
import * as fs from "node:fs";
import * as path from "node:path";

const [reportPath, topArgument] = process.argv.slice(2);
if (!reportPath) {
  console.error("usage: node scripts/lib/test-timings.mjs <report.json> [how many files]");
  process.exit(2);
}
const top = Number(topArgument ?? 15);
const report = JSON.parse(fs.readFileSync(reportPath, "utf8"));
const root = process.cwd();
const files = (report.testResults ?? [])
  .filter((file) => Number.isFinite(file.startTime) && Number.isFinite(file.endTime))
  .map((file) => ({
    name: path.relative(root, file.name),
    seconds: (file.endTime - file.startTime) / 1000,
    tests: file.assertionResults?.length ?? 0,
    failed: file.status !== "passed",
  }))
  .sort((a, b) => b.seconds - a.seconds);
if (files.length === 0) process.exit(0);

const sum = files.reduce((total, file) => total + file.seconds, 0);
const wall = (Math.max(...report.testResults.map((f) => f.endTime)) - Math.min(...report.testResults.map((f) => f.startTime))) / 1000;
const seconds = (s) => s.toFixed(1).padStart(7);
const total = (s) => (s < 100 ? s.toFixed(1) : s.toFixed(0));
const share = (s) => `${((100 * s) / sum).toFixed(1)}%`.padStart(6);

console.log(`\nTest files by duration (${files.length} files; their durations add up to ${total(sum)} s over ${total(wall)} s of wall time):`);
console.log(`${"seconds".padStart(7)}  ${"share".padStart(6)}  tests  file`);
for (const file of files.slice(0, top)) {
  console.log(`${seconds(file.seconds)}  ${share(file.seconds)}  ${String(file.tests).padStart(5)}  ${file.name}${file.failed ? "  (failed)" : ""}`);
}
if (files.length > top) {
  const rest = files.slice(top).reduce((total, file) => total + file.seconds, 0);
  console.log(`${seconds(rest)}  ${share(rest)}  ${"".padStart(5)}  the other ${files.length - top} files`);
}

// The folder two levels down (test/engine, test/emulator …) is where a slow area shows.
const byFolder = new Map();
for (const file of files) {
  const folder = path.dirname(file.name).split(path.sep).slice(0, 2).join("/");
  byFolder.set(folder, (byFolder.get(folder) ?? 0) + file.seconds);
}
const folders = [...byFolder.entries()].sort((a, b) => b[1] - a[1]);
console.log(`by folder: ${folders.map(([folder, s]) => `${folder} ${total(s)} s (${((100 * s) / sum).toFixed(0)}%)`).join(", ")}`);
