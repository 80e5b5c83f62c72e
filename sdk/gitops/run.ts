/**
 * @module gitops/run
 * The three GitOps operations on a stack, as `keyform gitops preview|up|drift` runs them:
 *
 * - `preview` reads the live organization (unless `refresh` is off) and plans; it fails when the
 *   plan deletes the API key keyform signs with or its user (`credential-check.ts`), or an
 *   object whose delete locks the deploying key out, such as its own ALLOW
 *   (`access-delete-check.ts`): the engine plans such a delete without the provider, so a plain
 *   `pulumi preview` cannot see it. It adds the access table of planned policy changes
 *   (`access-diff.ts`), which `noNewAccess` and `breakGlassTag` turn into a gate.
 * - `up` first clears the pending operations a killed run left in the state (`recovery.ts`),
 *   previews, and applies only when the preview passes the same checks; so what was changed by
 *   hand is set back to the code.
 * - `drift` is a refresh-only preview: did someone change the organization by hand?
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { adoptionMessage, adoptionOf, type AdoptionEvent } from "../resources/runtime/adoption";
import { accessCheck, PlannedPolicies, type AccessGate } from "./access-diff";
import { accessLosingDeletes, PlannedSteps } from "./access-delete-check";
import { credentialLockouts, PlannedCredentialDeletes } from "./credential-check";
import { clearPendingOperations, type ClearedOperation } from "./recovery";
import { RunLog } from "./run-log";
import { ID_PATTERN, SummaryCollector, type ChangeSummary } from "./summary";
import { stackClient } from "./stack-client";

export const OPERATIONS = ["preview", "up", "drift"] as const;
export type Operation = (typeof OPERATIONS)[number];

/** What an `up` recovered from a killed run: the pending operations it cleared, the objects it adopted. */
export interface Recovery {
  cleared: ClearedOperation[];
  adopted: string[];
}

/** The report of one operation: the change summary, the access section and gate, the recovery. */
export type GitopsReport = ChangeSummary & { accessDiff?: string; accessFailure?: string; recovery?: Recovery };

export interface RunOptions {
  /** Read the live organization before planning (default true). */
  readonly refresh?: boolean;
  readonly gate?: AccessGate;
  /** Where the run's log goes (default stderr). */
  readonly write?: (text: string) => void;
}

/** Runs `operation` on `stack` and returns its report; errors are in the report, never thrown. */
export async function runOperation(operation: Operation, stack: Stack, options: RunOptions = {}): Promise<GitopsReport> {
  const refresh = options.refresh ?? true;
  const log = new RunLog(options.write ?? ((text) => process.stderr.write(text)));
  let cleared: ClearedOperation[] = [];
  const collector = new SummaryCollector(operation, stack.name);
  const planned = new PlannedPolicies();
  const deletes = new PlannedCredentialDeletes();
  const steps = new PlannedSteps();
  const onEvent: typeof collector.onEvent = (event) => {
    collector.onEvent(event);
    planned.onEvent(event);
    deletes.onEvent(event);
    steps.onEvent(event);
    log.onEvent(event);
  };
  /** Why the plan the preview saw would lock the deploying credential out through what it deletes. */
  const lockoutsOfDeletes = async () => [...(await credentialLockouts(stack, deletes)), ...(await accessLosingDeletes(stack, steps))];
  let access: { markdown: string; failure?: string } | undefined;
  try {
    if (operation === "preview") {
      await stack.preview({ onEvent, refresh });
      for (const lockout of await lockoutsOfDeletes()) collector.addError(lockout);
      access = await accessCheck(stack, planned, options.gate);
    } else if (operation === "up") {
      cleared = await clearPendingOperations(stack);
      // As `pulumi up` does, a preview first: a plan that would lock the stack out (a policy
      // denying what the plan needs, a delete of the deploying key or user) stops before any
      // write. Its errors (a settings error, a broken policy) are the report's; its steps are not.
      await stack.preview({ onEvent: (event) => (deletes.onEvent(event), steps.onEvent(event), log.onEvent(event), event.diagnosticEvent && collector.onEvent(event)), refresh });
      const lockouts = await lockoutsOfDeletes();
      for (const lockout of lockouts) collector.addError(lockout);
      if (lockouts.length === 0) await stack.up({ onEvent, refresh });
    } else await stack.previewRefresh({ onEvent });
  } catch (error) {
    // The engine's failure repeats every diagnostic already collected: only a failure nothing explained is reported.
    if (collector.summary().errors.length === 0) collector.addError(firstLine(error));
  }
  const summary: GitopsReport = collector.summary();
  await nameIds(stack, summary);
  if (access !== undefined) Object.assign(summary, { accessDiff: access.markdown }, access.failure ? { accessFailure: access.failure } : {});
  if (cleared.length > 0) summary.recovery = { cleared, adopted: adoptionsIn(summary.warnings).map(adoptionMessage) };
  return summary;
}

/** The adoptions the run's warnings report, as events (the providers' diagnostics, read back by `adoption.ts`). */
function adoptionsIn(warnings: readonly string[]): AdoptionEvent[] {
  return warnings.flatMap((warning) => adoptionOf(warning) ?? []);
}

/**
 * Gives each changed field the names of the users and tags whose ids its values hold, read from
 * the organization; best effort: without the names (settings wrong, service down) the report
 * shows the ids alone, and its errors say why.
 */
async function nameIds(stack: Stack, summary: ChangeSummary): Promise<void> {
  const fields = summary.changes.flatMap((c) => c.values).filter((v) => (`${v.before ?? ""} ${v.after ?? ""}`.match(ID_PATTERN) ?? []).length > 0);
  if (fields.length === 0 || summary.errors.length > 0) return;
  let known: Map<string, string>;
  try {
    const client = await stackClient(stack, "the names in the report");
    known = new Map([
      ...(await client.listUsers()).users.map((u) => [u.userId, u.userName] as const),
      ...(await client.listUserTags()).userTags.map((t) => [t.tagId, t.tagName] as const),
    ]);
  } catch {
    return;
  }
  for (const field of fields) {
    const ids = new Set(`${field.before ?? ""} ${field.after ?? ""}`.match(ID_PATTERN) ?? []);
    const names = Object.fromEntries([...ids].filter((id) => known.has(id)).map((id) => [id, known.get(id)!]));
    if (Object.keys(names).length > 0) field.names = names;
  }
}

/** An error's message without the CLI output the Automation API appends to it. */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const stderr = /\nstderr: ([\s\S]*)$/u.exec(message)?.[1]?.trim();
  const text = stderr && stderr !== "" ? stderr : message;
  return text.split("\n").filter((l) => l.trim() !== "").slice(0, 3).join("\n");
}

/** Exit code of `drift` (and `compare`) when the two sides differ. */
export const DRIFT_EXIT_CODE = 3;

/** 1 on errors or a failed access gate, 3 on drift, else 0. */
export function exitCodeOf(operation: Operation, report: GitopsReport): number {
  if (report.errors.length > 0 || report.accessFailure) return 1;
  if (operation === "drift" && report.changes.length > 0) return DRIFT_EXIT_CODE;
  return 0;
}
