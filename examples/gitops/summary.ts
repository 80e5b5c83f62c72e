/**
 * Turns the engine's event stream into a change summary per resource, rendered as Markdown
 * (for a pull request comment) and JSON (for machines).
 *
 * Dynamic providers send no detailed diff to the engine, so the changed fields are computed
 * here from the old and new inputs (or, for a refresh, the old and new outputs) of each step.
 */
import type { EngineEvent, OpType, StepEventMetadata } from "@pulumi/pulumi/automation";

export type ChangeKind = "create" | "update" | "replace" | "delete" | "drift";

export interface ResourceChange {
  kind: ChangeKind;
  urn: string;
  type: string;
  name: string;
  /** Top-level properties whose value changes (or drifted); empty for creates and deletes. */
  fields: string[];
}

export interface ChangeSummary {
  operation: "preview" | "up" | "drift";
  stack: string;
  changes: ResourceChange[];
  counts: Record<ChangeKind, number>;
  errors: string[];
}

/** Engine step kinds that change something, mapped to the summary's kinds. */
const STEP_KINDS: Partial<Record<OpType, ChangeKind>> = {
  create: "create",
  update: "update",
  replace: "replace",
  delete: "delete",
  refresh: "drift",
};

/** Properties the engine or the dynamic provider machinery adds: never a user's change. */
const INTERNAL_KEYS = new Set(["__provider", "__inputs"]);

function changedFields(before: Record<string, unknown> = {}, after: Record<string, unknown> = {}): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys]
    .filter((key) => !INTERNAL_KEYS.has(key))
    .filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]))
    .sort();
}

function changeFromStep(meta: StepEventMetadata, operation: ChangeSummary["operation"]): ResourceChange | undefined {
  const stepKind = STEP_KINDS[meta.op];
  if (!stepKind || meta.type.startsWith("pulumi:")) return undefined;
  const name = meta.urn.split("::").pop() ?? meta.urn;
  if (operation === "drift") {
    // A refresh reports a drifted resource as an update (or a refresh step) whose outputs
    // differ, and one deleted by hand as a delete.
    if (stepKind === "delete" || (meta.new === undefined && meta.op === "refresh")) {
      return { kind: "delete", urn: meta.urn, type: meta.type, name, fields: [] };
    }
    const fields = changedFields(meta.old?.outputs, meta.new?.outputs);
    return fields.length > 0 ? { kind: "drift", urn: meta.urn, type: meta.type, name, fields } : undefined;
  }
  let fields: string[] = [];
  if (stepKind === "update" || stepKind === "replace") {
    fields = meta.diffs?.length ? [...meta.diffs].sort() : changedFields(meta.old?.inputs, meta.new?.inputs);
  }
  return { kind: stepKind, urn: meta.urn, type: meta.type, name, fields };
}

/** Collects engine events of one operation; `summary()` gives the result. */
export class SummaryCollector {
  private readonly changes = new Map<string, ResourceChange>();
  private readonly errors: string[] = [];

  constructor(
    private readonly operation: ChangeSummary["operation"],
    private readonly stack: string,
  ) {}

  /** Pass as the Automation API's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const meta = event.resourcePreEvent?.metadata ?? event.resOutputsEvent?.metadata;
    if (meta) {
      const change = changeFromStep(meta, this.operation);
      if (change) this.changes.set(`${change.urn}`, change);
    }
    const diag = event.diagnosticEvent;
    if (diag && diag.severity === "error" && !diag.ephemeral) this.errors.push(diag.message.trim());
  };

  summary(): ChangeSummary {
    const changes = [...this.changes.values()].sort((a, b) => a.urn.localeCompare(b.urn));
    const counts: Record<ChangeKind, number> = { create: 0, update: 0, replace: 0, delete: 0, drift: 0 };
    for (const change of changes) counts[change.kind] += 1;
    return { operation: this.operation, stack: this.stack, changes, counts, errors: this.errors };
  }
}

const HEADINGS: Record<ChangeSummary["operation"], string> = {
  preview: "Planned changes",
  up: "Applied changes",
  drift: "Drift between the code and the live organization",
};

const VERBS: Record<ChangeKind, string> = {
  create: "create",
  update: "update in place",
  replace: "replace",
  delete: "delete",
  drift: "drifted",
};

/** Renders a summary as Markdown for a pull request comment. */
export function renderMarkdown(summary: ChangeSummary): string {
  const lines = [`### ${HEADINGS[summary.operation]} (stack \`${summary.stack}\`)`, ""];
  const total = summary.changes.length;
  if (total === 0 && summary.errors.length === 0) {
    lines.push(summary.operation === "drift" ? "No drift: the organization matches the code." : "No changes.");
  } else if (total > 0) {
    const counts = (Object.keys(summary.counts) as ChangeKind[])
      .filter((kind) => summary.counts[kind] > 0)
      .map((kind) => `${summary.counts[kind]} to ${VERBS[kind]}`);
    lines.push(counts.join(", "), "", "| change | resource | type | fields |", "|---|---|---|---|");
    for (const change of summary.changes) {
      const type = change.type.replace("pulumi-nodejs:dynamic/", "");
      const fields = change.fields.length > 0 ? change.fields.map((f) => `\`${f}\``).join(", ") : "";
      lines.push(`| ${VERBS[change.kind]} | \`${change.name}\` | ${type} | ${fields} |`);
    }
  }
  if (summary.errors.length > 0) {
    lines.push("", "**Errors**", "", ...summary.errors.map((e) => `- ${e.replace(/\n+/g, " ")}`));
  }
  return lines.join("\n") + "\n";
}
