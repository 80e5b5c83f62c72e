/**
 * Turns the engine's event stream into a change summary per resource, rendered as Markdown
 * (for a pull request comment) and JSON (for machines).
 *
 * Dynamic providers send no detailed diff to the engine, so the changed fields are computed
 * here from the old and new inputs (or, for a refresh, the old and new outputs) of each step.
 */
import type { EngineEvent, OpType, StepEventMetadata } from "@pulumi/pulumi/automation";
import { URN_INPUT } from "../resources/runtime/plan-census";

export type ChangeKind = "create" | "update" | "replace" | "delete" | "drift";

export interface ResourceChange {
  kind: ChangeKind;
  urn: string;
  type: string;
  name: string;
  /** Top-level properties whose value changes (or drifted); empty for creates and deletes. */
  fields: string[];
  /** Each changed field's value before and after, as shown to a reader (secrets masked). */
  values: FieldChange[];
}

/** One changed field, its values as text: `before` absent when the field was unset, `after` when it is removed. */
export interface FieldChange {
  field: string;
  before?: string;
  after?: string;
  /** The organization's names of ids the values hold (users, tags), for the reader. */
  names?: Record<string, string>;
}

/** An id of the service (a UUID). */
export const ID_PATTERN = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/giu;

/** Errors with the same cause, folded into one entry. */
export interface ErrorGroup {
  /** The message without the resource it was about. */
  cause: string;
  /** How many errors had this cause. */
  count: number;
  /** The resources they were about (names from their URNs), when known. */
  resources: string[];
}

export interface ChangeSummary {
  operation: "preview" | "up" | "drift";
  stack: string;
  changes: ResourceChange[];
  counts: Record<ChangeKind, number>;
  /** Every error, as the engine reported it; a settings error once, however many resources met it. */
  errors: string[];
  /** The errors grouped by cause, most frequent first. */
  errorGroups: ErrorGroup[];
  /** Warnings (policy lints, deprecations), each once. */
  warnings: string[];
}

/** Engine step kinds that change something, mapped to the summary's kinds. */
const STEP_KINDS: Partial<Record<OpType, ChangeKind>> = {
  create: "create",
  update: "update",
  replace: "replace",
  delete: "delete",
  refresh: "drift",
};

/**
 * Properties that are never a user's change: what the engine or the dynamic provider machinery
 * adds (the provider code, the URN a dynamic resource passes to the plan census), and `organizationId`, which a refresh records among the inputs while the program
 * usually leaves it unset; a real change of organization fails the plan (the organization
 * guard), so it never shows up as a change that runs.
 */
const INTERNAL_KEYS = new Set(["__provider", "__inputs", URN_INPUT, "organizationId"]);

/** What a masked value reads as, in the report and the log. */
export const MASKED = "[secret]";

/**
 * Fields whose values never appear in a report: private keys, passphrases, tokens. Pulumi masks
 * the values it knows are secret (its signature object); these names catch the rest.
 */
const SECRET_FIELD = /private|secret|password|passphrase|token|mnemonic|credential/iu;

/** Pulumi's marker of a secret value in a serialized property. */
const SECRET_SIGNATURE = "4dabf18193072939515e22adb298388d";

/** A value as the report shows it: a string as is, anything else as JSON, a secret masked. */
export function displayValue(field: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (SECRET_FIELD.test(field)) return MASKED;
  const text = typeof value === "string" ? value : JSON.stringify(value, (_key, v: unknown) => (isSecretValue(v) ? MASKED : v));
  return text === `"${MASKED}"` ? MASKED : text;
}

function isSecretValue(value: unknown): boolean {
  return typeof value === "object" && value !== null && SECRET_SIGNATURE in value;
}

/** The before and after of each of `fields`. */
function fieldValues(fields: readonly string[], before: Record<string, unknown> = {}, after: Record<string, unknown> = {}): FieldChange[] {
  return fields.map((field) => {
    const old = isSecretValue(before[field]) ? MASKED : displayValue(field, before[field]);
    const next = isSecretValue(after[field]) ? MASKED : displayValue(field, after[field]);
    return { field, ...(old !== undefined ? { before: old } : {}), ...(next !== undefined ? { after: next } : {}) };
  });
}

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
  // A preview or up that refreshes first sends a refresh step per resource; the steps that
  // follow (the update that corrects a drifted object, the create of a deleted one) are what the
  // report is about, and an output that changes by itself (a user's key list) is not a change.
  if (operation !== "drift" && meta.op === "refresh") return undefined;
  if (operation === "drift") {
    // A refresh reports a drifted resource as an update (or a refresh step) whose outputs
    // differ, and one deleted by hand as a delete.
    if (stepKind === "delete" || (meta.new === undefined && meta.op === "refresh")) {
      return { kind: "delete", urn: meta.urn, type: meta.type, name, fields: [], values: [] };
    }
    const fields = changedFields(meta.old?.outputs, meta.new?.outputs);
    const values = fieldValues(fields, meta.old?.outputs, meta.new?.outputs);
    return fields.length > 0 ? { kind: "drift", urn: meta.urn, type: meta.type, name, fields, values } : undefined;
  }
  let fields: string[] = [];
  if (stepKind === "update" || stepKind === "replace") {
    fields = meta.diffs?.length ? meta.diffs.filter((key) => !INTERNAL_KEYS.has(key)).sort() : changedFields(meta.old?.inputs, meta.new?.inputs);
  }
  return { kind: stepKind, urn: meta.urn, type: meta.type, name, fields, values: fieldValues(fields, meta.old?.inputs, meta.new?.inputs) };
}

/**
 * The cause of an error without the resource it is about: keyform's messages start with
 * `<Class> <label or id>: <operation>: `, and ids, addresses, keys and quoted names inside the
 * message are replaced by placeholders, so 23 resources failing for one reason share one cause.
 */
export function causeOf(message: string): string {
  return normalizeIdentifiers(withoutSubject(message));
}

/**
 * The message without `error:`, the engine's `Preview failed: ` (a refresh step's failure during
 * a preview or up), and the `<Class> <label or id>: <operation>: ` it starts with.
 */
function withoutSubject(message: string): string {
  return message
    .trim()
    .replace(/^error:\s*/u, "")
    .replace(/^(?:preview|update|refresh|destroy) failed: /iu, "")
    .replace(/^[A-Z]\w* (?:"[^"]*"|\S+): (?:create|read|update|delete|check|diff): /u, "")
    .replace(/\s+/gu, " ");
}

/** Ids, addresses, keys and quoted names, each replaced by what it is. */
function normalizeIdentifiers(text: string): string {
  return text
    .replace(ID_PATTERN, "<id>")
    .replace(/\b0x[0-9a-f]+\b/giu, "<address>")
    .replace(/\bsha256:[0-9a-f]+\b/giu, "<fingerprint>")
    .replace(/\b[0-9a-f]{16,}\b/giu, "<key>")
    .replace(/"[^"]*"/gu, '"<name>"')
    .replace(/'[^']*'/gu, "'<name>'");
}

/**
 * Whether a message is the failed settings check (or a setting missing): the same for every
 * resource of the run, so the report gives it once, not once per resource.
 */
export function isSettingsError(message: string): boolean {
  return /keyform: the provider settings do not work:|keyform: the stack config is wrong:|needs the setting "\w+"|the API key settings are (?:wrong|not usable)|keyform:apiPrivateKey \(KEYFORM_API_PRIVATE_KEY\) is not the private key/u.test(message);
}

/** The engine's closing line of a failed run, which says nothing the resource errors do not. */
const ENGINE_CLOSING = /^(?:error:\s*)?(?:preview|update|refresh|destroy) failed$/u;

/**
 * Folds `errors` (with the URN each was about, if any) into one group per cause. A settings
 * error is one group of count 1, whatever the number of resources that met it; the engine's
 * closing "preview failed" is dropped when anything else explains the failure.
 */
export function groupErrors(errors: ReadonlyArray<{ message: string; urn?: string }>): ErrorGroup[] {
  const explained = errors.some((e) => !ENGINE_CLOSING.test(e.message.trim()));
  const groups = new Map<string, ErrorGroup>();
  for (const { message, urn } of errors) {
    if (explained && ENGINE_CLOSING.test(message.trim())) continue;
    if (isSettingsError(message)) {
      const cause = settingsCause(message);
      if (![...groups.values()].some((g) => g.cause === cause)) groups.set(`settings:${cause}`, { cause, count: 1, resources: [] });
      continue;
    }
    const cause = causeOf(message);
    const group = groups.get(cause) ?? { cause, count: 0, resources: [] };
    group.count += 1;
    const name = urn?.split("::").pop();
    if (name !== undefined && name !== "" && !group.resources.includes(name)) group.resources.push(name);
    groups.set(cause, group);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/**
 * A settings error as the report shows it: the URL and key it names stay (they are what to
 * check), the resource it happened to be met by goes.
 */
export function settingsCause(message: string): string {
  return withoutSubject(message);
}

/** The errors as the report keeps them: each once, a settings error once per run. */
function distinctErrors(errors: ReadonlyArray<{ message: string }>): string[] {
  const kept: string[] = [];
  const settings = new Set<string>();
  for (const { message } of errors) {
    if (isSettingsError(message)) {
      const cause = settingsCause(message);
      if (settings.has(cause)) continue;
      settings.add(cause);
      kept.push(cause);
    } else kept.push(message);
  }
  return kept;
}

/** Collects engine events of one operation; `summary()` gives the result. */
export class SummaryCollector {
  private readonly changes = new Map<string, ResourceChange>();
  private readonly errors: Array<{ message: string; urn?: string }> = [];
  private readonly warnings = new Set<string>();

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
    if (diag && !diag.ephemeral) {
      const message = diag.message.trim();
      if (diag.severity === "error") this.errors.push({ message, ...(diag.urn ? { urn: diag.urn } : {}) });
      else if (diag.severity === "warning" && message !== "") this.warnings.add(message.replace(/^warning:\s*/u, ""));
    }
  };

  /** Records an error that did not come as an engine event (the run itself failed). */
  addError(message: string): void {
    this.errors.push({ message });
  }

  summary(): ChangeSummary {
    const changes = [...this.changes.values()].sort((a, b) => a.urn.localeCompare(b.urn));
    const counts: Record<ChangeKind, number> = { create: 0, update: 0, replace: 0, delete: 0, drift: 0 };
    for (const change of changes) counts[change.kind] += 1;
    return {
      operation: this.operation,
      stack: this.stack,
      changes,
      counts,
      errors: distinctErrors(this.errors),
      errorGroups: groupErrors(this.errors),
      warnings: [...this.warnings],
    };
  }
}

const HEADINGS: Record<ChangeSummary["operation"], string> = {
  preview: "Planned changes",
  up: "Applied changes",
  drift: "Drift between the code and the live organization",
};

/** How each change reads in the table: a plan, a result, or a finding. */
const VERBS: Record<ChangeSummary["operation"], Record<ChangeKind, string>> = {
  preview: { create: "create", update: "update in place", replace: "replace", delete: "delete", drift: "drifted" },
  up: { create: "created", update: "updated in place", replace: "replaced", delete: "deleted", drift: "drifted" },
  drift: { create: "missing", update: "drifted", replace: "drifted", delete: "deleted outside keyform", drift: "drifted" },
};

/** The count line: "2 to create, 1 to delete" for a plan, "2 created" after up, "2 drifted" for drift. */
function countLine(summary: ChangeSummary): string {
  const verbs = VERBS[summary.operation];
  return (Object.keys(summary.counts) as ChangeKind[])
    .filter((kind) => summary.counts[kind] > 0)
    .map((kind) => `${summary.counts[kind]} ${summary.operation === "preview" ? `to ${verbs[kind]}` : verbs[kind]}`)
    .join(", ");
}

/** A value as inline code, whatever backticks it holds; "(unset)" when absent. */
function code(value: string | undefined): string {
  if (value === undefined) return "_(unset)_";
  const text = value.replace(/\n+/gu, " ");
  const fence = text.includes("`") ? "``" : "`";
  return `${fence}${fence === "``" ? " " : ""}${text}${fence === "``" ? " " : ""}${fence}`;
}

/** "`field`: `before` → `after`", and the names of the ids they hold. */
export function fieldLine(change: FieldChange): string {
  const named = Object.entries(change.names ?? {}).map(([id, name]) => `\`${id.slice(0, 8)}…\` = ${name}`);
  return `\`${change.field}\`: ${code(change.before)} → ${code(change.after)}${named.length > 0 ? ` (${named.join(", ")})` : ""}`;
}

/** Renders a summary as Markdown for a pull request comment. */
export function renderMarkdown(summary: ChangeSummary): string {
  const lines = [`### ${HEADINGS[summary.operation]} (stack \`${summary.stack}\`)`, ""];
  const total = summary.changes.length;
  const verbs = VERBS[summary.operation];
  if (total === 0 && summary.errors.length === 0) {
    lines.push(summary.operation === "drift" ? "No drift: the organization matches the code." : "No changes.");
  } else if (total > 0) {
    lines.push(countLine(summary), "", "| change | resource | type | fields |", "|---|---|---|---|");
    for (const change of summary.changes) {
      const type = change.type.replace("pulumi-nodejs:dynamic/", "");
      const fields = change.fields.length > 0 ? change.fields.map((f) => `\`${f}\``).join(", ") : "";
      lines.push(`| ${verbs[change.kind]} | \`${change.name}\` | ${type} | ${fields} |`);
    }
  }
  const detailed = summary.changes.filter((c) => c.values.length > 0);
  if (detailed.length > 0) {
    lines.push("", "**Changed fields** (before → after)", "");
    for (const change of detailed) {
      for (const v of change.values) lines.push(`- \`${change.name}\` ${fieldLine(v)}`);
    }
  }
  if (summary.warnings.length > 0) {
    lines.push("", "**Warnings**", "", ...summary.warnings.map((w) => `- ${w.replace(/\n+/g, " ")}`));
  }
  if (summary.errorGroups.length > 0) {
    lines.push(
      "",
      "**Errors**",
      "",
      ...summary.errorGroups.map((g) => {
        const shown = g.resources.slice(0, 5).map((r) => `\`${r}\``).join(", ");
        const more = g.resources.length > 5 ? ` and ${g.resources.length - 5} more` : "";
        return `- ${g.count > 1 ? `${g.count}× ` : ""}${g.cause}${shown !== "" ? ` (${shown}${more})` : ""}`;
      }),
    );
  }
  return lines.join("\n") + "\n";
}
