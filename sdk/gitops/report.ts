/**
 * @module gitops/report
 * A GitOps report as files: `<out>/<operation>.md` (the pull request comment) and
 * `<out>/<operation>.json` (for machines).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ClearedOperation } from "./recovery";
import type { GitopsReport } from "./run";
import { renderMarkdown } from "./summary";

/** The recovery section: what an `up` cleared from the state and adopted. */
function recoveryMarkdown(recovery: { cleared: readonly ClearedOperation[]; adopted: readonly string[] }): string {
  return [
    "",
    `**Recovered from an interrupted run**: ${recovery.cleared.length} pending operation(s) cleared from the state, ${recovery.adopted.length} object(s) adopted.`,
    "",
    ...recovery.cleared.map((op) => `- cleared: ${op.type} \`${op.urn}\``),
    ...recovery.adopted.map((message) => `- ${message.replace(/^keyform: /u, "")}`),
    "",
  ].join("\n");
}

/** The whole comment: changes, recovery, access section, and the gate's verdict when it failed. */
export function reportMarkdown(report: GitopsReport): string {
  return (
    renderMarkdown(report) +
    (report.recovery ? recoveryMarkdown(report.recovery) : "") +
    (report.accessDiff ? `\n${report.accessDiff}` : "") +
    (report.accessFailure ? `\n**Access gate failed**: ${report.accessFailure}\n` : "")
  );
}

/** Writes `<out>/<name>.md` and `<out>/<name>.json`; returns the Markdown. */
export function writeReport(out: string, name: string, report: object, markdown: string): string {
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, `${name}.md`), markdown);
  fs.writeFileSync(path.join(out, `${name}.json`), JSON.stringify(report, null, 2) + "\n");
  return markdown;
}
