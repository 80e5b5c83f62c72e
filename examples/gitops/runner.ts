/**
 * A GitOps runner for a keyform program, for CI pipelines:
 *
 *   node dist/examples/gitops/runner.js preview --stack staging --out reports/
 *   node dist/examples/gitops/runner.js up      --stack staging --out reports/
 *   node dist/examples/gitops/runner.js drift   --stack staging --out reports/
 *
 * `preview` fails when the plan deletes the API key keyform signs with or the user it belongs
 * to (`credential-check.ts`): a plain `pulumi preview` cannot see that, the provider refuses it
 * only at `up`.
 * `up` first clears the pending operations a killed run left in the state, and its report
 * names them and the objects the up adopted (`recovery.ts`); then it previews, and applies only
 * when the preview passes those checks.
 * Each writes `<out>/<operation>.md` (a pull request comment) and `<out>/<operation>.json`.
 * `preview` and `up` read the live organization first (`--no-refresh` to plan from state only),
 * so `up` also sets back what was changed by hand and the next `drift` finds nothing.
 * Exit codes: 0 success (and, for drift, no drift), 1 error, 3 drift found. Settings come from
 * the stack config and the KEYFORM_* environment, exactly as for `pulumi up`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { keyformEnvironment, openStack, repoRoot } from "../shared/workspace";
import { accessCheck, PlannedPolicies } from "./access-diff";
import { ADOPTED_PREFIX } from "../../sdk/resources/runtime/framework";
import { credentialLockouts, PlannedCredentialDeletes } from "./credential-check";
import { clearPendingOperations, type ClearedOperation } from "./recovery";
import { renderMarkdown, SummaryCollector, type ChangeSummary } from "./summary";

/** Exit code of `drift` when the live organization differs from the code. */
export const DRIFT_EXIT_CODE = 3;

const OPERATIONS = ["preview", "up", "drift"] as const;
type Operation = (typeof OPERATIONS)[number];

/**
 * Runs `operation`. `refresh` makes `up` read the live organization first, so an object
 * changed by hand is set back to the code (without it the engine compares the code with the
 * last recorded state, sees no change, and the drift stays).
 */
async function run(
  operation: Operation,
  stackName: string,
  workDir: string,
  refresh: boolean,
  gate: { noNewAccess?: boolean; breakGlassTag?: string } = {},
): Promise<ChangeSummary & { accessDiff?: string; accessFailure?: string; recovery?: Recovery }> {
  let cleared: ClearedOperation[] = [];
  const stack = await openStack({ stackName, envVars: keyformEnvironment(), workDir });
  const collector = new SummaryCollector(operation, stackName);
  const planned = new PlannedPolicies();
  const deletes = new PlannedCredentialDeletes();
  const onEvent: typeof collector.onEvent = (event) => {
    collector.onEvent(event);
    planned.onEvent(event);
    deletes.onEvent(event);
  };
  const options = { onEvent, onOutput: (text: string) => process.stderr.write(text) };
  try {
    // A preview also shows who gains or loses access through the planned policy changes.
    if (operation === "preview") {
      await stack.preview({ ...options, refresh });
      // The engine plans a removed resource's delete without the provider: read it from the steps.
      for (const lockout of await credentialLockouts(stack, deletes)) collector.addError(lockout);
      const access = await accessCheck(stack, planned, gate);
      return { ...collector.summary(), accessDiff: access.markdown, ...(access.failure ? { accessFailure: access.failure } : {}) };
    } else if (operation === "up") {
      // A killed run's pending operations are cleared first; this up adopts what it made (recovery.ts).
      cleared = await clearPendingOperations(stack);
      // As `pulumi up` does, a preview first: a plan that would lock the stack out (a policy
      // denying what the plan needs, a delete of the deploying key or user) stops before any write.
      await stack.preview({ onEvent: deletes.onEvent, onOutput: options.onOutput, refresh });
      const lockouts = await credentialLockouts(stack, deletes);
      for (const lockout of lockouts) collector.addError(lockout);
      if (lockouts.length === 0) await stack.up({ ...options, refresh });
    } else await stack.previewRefresh(options);
  } catch (error) {
    if (collector.summary().errors.length === 0) collector.addError(error instanceof Error ? error.message : String(error));
  }
  const summary = collector.summary();
  if (cleared.length === 0) return summary;
  const adopted = summary.warnings.filter((w) => w.startsWith(ADOPTED_PREFIX));
  return { ...summary, recovery: { cleared, adopted } };
}

/** What an `up` recovered from a killed run: the pending operations it cleared, the objects it adopted. */
export interface Recovery {
  cleared: ClearedOperation[];
  adopted: string[];
}

/** The recovery section of the report. */
function recoveryMarkdown(recovery: Recovery): string {
  return [
    "",
    `**Recovered from an interrupted run**: ${recovery.cleared.length} pending operation(s) cleared from the state, ${recovery.adopted.length} object(s) adopted.`,
    "",
    ...recovery.cleared.map((op) => `- cleared: ${op.type} \`${op.urn}\``),
    ...recovery.adopted.map((message) => `- ${message.replace(/^keyform: /u, "")}`),
    "",
  ].join("\n");
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      stack: { type: "string", default: "dev" },
      out: { type: "string", default: "keyform-reports" },
      "work-dir": { type: "string", default: repoRoot },
      // Read the live organization before preview/up (default); --no-refresh plans from state only.
      refresh: { type: "boolean", default: true },
      "no-refresh": { type: "boolean", default: false },
      // Fail the preview when access is gained or the access diff is not proved.
      "no-new-access": { type: "boolean", default: false },
      // Fail the preview when this tag loses its policy-management access.
      "break-glass": { type: "string" },
    },
  });
  const operation = positionals[0] as Operation;
  if (!OPERATIONS.includes(operation)) {
    console.error(`usage: runner <${OPERATIONS.join("|")}> [--stack NAME] [--out DIR] [--work-dir DIR] [--no-refresh] [--no-new-access] [--break-glass TAG]`);
    return 1;
  }
  const refresh = values.refresh === true && values["no-refresh"] !== true;
  const gate = { noNewAccess: values["no-new-access"] === true, ...(values["break-glass"] ? { breakGlassTag: values["break-glass"] } : {}) };
  const summary = await run(operation, values.stack!, path.resolve(values["work-dir"]!), refresh, gate);
  mkdirSync(values.out!, { recursive: true });
  const markdown =
    renderMarkdown(summary) + (summary.recovery ? recoveryMarkdown(summary.recovery) : "") + (summary.accessDiff ? `\n${summary.accessDiff}` : "");
  writeFileSync(path.join(values.out!, `${operation}.md`), markdown);
  writeFileSync(path.join(values.out!, `${operation}.json`), JSON.stringify(summary, null, 2) + "\n");
  process.stdout.write(markdown);
  if (summary.errors.length > 0) return 1;
  if (summary.accessFailure) {
    console.error(summary.accessFailure);
    return 1;
  }
  if (operation === "drift" && summary.changes.length > 0) return DRIFT_EXIT_CODE;
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
