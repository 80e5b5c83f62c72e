// Prints how long each test file took, slowest first, with the totals: the files' durations
// added up, the run's wall time, and each test folder's share. It reads what
// test/support/file-timings-reporter.ts wrote (a file's import, setup and run, its hooks
// included). scripts/test prints it at the end of a run so that a file that turns slow is seen
// when it lands.
//
//   node scripts/lib/test-timings.mjs [.keyform/test-files.json] [how many files, default 15]
import * as fs from "node:fs";
import * as path from "node:path";

const [timingsPath = ".keyform/test-files.json", topArgument] = process.argv.slice(2);
const top = Number(topArgument ?? 15);
if (!fs.existsSync(timingsPath)) process.exit(0);
const { wallMs, files: recorded } = JSON.parse(fs.readFileSync(timingsPath, "utf8"));
const files = recorded.map((file) => ({ ...file, seconds: file.ms / 1000 })).sort((a, b) => b.seconds - a.seconds);
if (files.length === 0) process.exit(0);

const sum = files.reduce((total, file) => total + file.seconds, 0);
const total = (s) => (s < 100 ? s.toFixed(1) : s.toFixed(0));
const seconds = (s) => s.toFixed(1).padStart(7);
const share = (s) => `${sum > 0 ? ((100 * s) / sum).toFixed(1) : "0.0"}%`.padStart(6);

console.log(`\nTest files by duration (${files.length} files; their durations add up to ${total(sum)} s over ${total(wallMs / 1000)} s of wall time):`);
console.log(`${"seconds".padStart(7)}  ${"share".padStart(6)}  tests  file`);
for (const file of files.slice(0, top)) {
  console.log(`${seconds(file.seconds)}  ${share(file.seconds)}  ${String(file.tests).padStart(5)}  ${file.file}${file.failed ? "  (failed)" : ""}`);
}
if (files.length > top) {
  const rest = files.slice(top).reduce((subtotal, file) => subtotal + file.seconds, 0);
  console.log(`${seconds(rest)}  ${share(rest)}  ${"".padStart(5)}  the other ${files.length - top} files`);
}

// The folder two levels down (test/engine, test/emulator …) is where a slow area shows.
const byFolder = new Map();
for (const file of files) {
  const folder = path.dirname(file.file).split(/[\\/]/).slice(0, 2).join("/");
  byFolder.set(folder, (byFolder.get(folder) ?? 0) + file.seconds);
}
const folders = [...byFolder.entries()].sort((a, b) => b[1] - a[1]);
console.log(`by folder: ${folders.map(([folder, s]) => `${folder} ${total(s)} s (${sum > 0 ? ((100 * s) / sum).toFixed(0) : 0}%)`).join(", ")}`);
