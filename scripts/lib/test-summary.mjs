// Prints one line of counts for a vitest JSON report, then each failed test with the first
// lines of its error. scripts/test prints the summaries of both of its parts last, so the
// failures are in the last screen of a long log (a CI page often shows only that screen).
//
//   node scripts/lib/test-summary.mjs <report.json> <label>
import * as fs from "node:fs";
import * as path from "node:path";

const [reportPath, label = `tests on node ${process.version}`] = process.argv.slice(2);
if (!reportPath || !fs.existsSync(reportPath)) {
  console.log(`${label}: no report (the run ended before vitest wrote ${reportPath})`);
  process.exit(0);
}
const report = JSON.parse(fs.readFileSync(reportPath, "utf8"));
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));

const ERROR_LINES = 6;
for (const file of report.testResults ?? []) {
  // A file that failed outside its tests (an import or a hook) has a message and no failed test.
  const failedTests = (file.assertionResults ?? []).filter((test) => test.status === "failed");
  if (file.status === "failed" && failedTests.length === 0 && file.message) {
    console.log(`  FAILED ${path.relative(process.cwd(), file.name)}\n${indent(file.message)}`);
  }
  for (const test of failedTests) {
    console.log(`  FAILED ${path.relative(process.cwd(), file.name)} > ${test.fullName}\n${indent((test.failureMessages ?? []).join("\n"))}`);
  }
}

function indent(text) {
  return text.split("\n").slice(0, ERROR_LINES).map((line) => `      ${line}`).join("\n");
}
