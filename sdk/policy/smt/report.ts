/**
 * @module policy/smt/report
 * An access diff as a table: who gains or loses what, alone or with approvers, with the witness
 * activity that shows it. Text for a terminal, Markdown for a pull request comment.
 */
import type { AccessChange, AccessDiff } from "./diff";

/** "u-1, u-2 and 40 more". */
function short(items: readonly string[], limit = 4): string {
  return items.length <= limit ? items.join(", ") : `${items.slice(0, limit).join(", ")} and ${items.length - limit} more`;
}

/** The witness in one line: type, approvers beyond the submitter, params and keywords. */
export function describeWitness(change: AccessChange): string {
  const w = change.witness;
  const others = (w.approvers ?? []).slice(1).map((a) => a.alias || a.email || (a.tags?.length ? `${a.id} (tagged ${a.tags.join(", ")})` : a.id));
  const parts = [w.type.replace(/^ACTIVITY_TYPE_/, "")];
  if (others.length > 0) parts.push(`approved by ${short(others, 3)}`);
  if (w.parameters && Object.keys(w.parameters as object).length > 0) parts.push(`params ${JSON.stringify(w.parameters)}`);
  const facts = leaves(w.keywords ?? {}, "");
  if (facts.length > 0) parts.push(facts.join(", "));
  if (w.now !== undefined) parts.push(`now ${String(w.now)}`);
  return parts.join("; ");
}

/** `wallet.id = 'w-1'` for each leaf that says something (empty strings and false left out). */
function leaves(value: unknown, path: string): string[] {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([key, v]) => leaves(v, path ? `${path}.${key}` : key));
  }
  if (value === "" || value === false || value === undefined) return [];
  // Integers decoded from a transaction are bigints: written in decimal.
  if (typeof value === "bigint") return [`${path} = ${value}`];
  return [`${path} = ${typeof value === "string" ? `'${value}'` : JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))}`];
}

function rows(diff: AccessDiff): string[][] {
  return diff.changes.map((c) => [
    c.direction === "gains" ? "gains" : "loses",
    c.users.length > 0 ? short(c.users.map((u) => u.name)) : c.who,
    short(c.kinds, 3),
    c.how === "alone" ? "alone" : "with approvers",
    c.target ?? "",
    `${c.before} → ${c.after}`,
    describeWitness(c),
  ]);
}

const HEADER = ["change", "who", "activity", "how", "target", "decision (before → after)", "witness"];

function footer(diff: AccessDiff): string[] {
  const lines = [`principals: ${diff.principals}; ${diff.typeCount} activity types (the service's catalog: its documented kinds and versions)`];
  for (const o of diff.outsiders ?? []) lines.push(`not a row: ${short(o.kinds, 3)}: ${o.note}; e.g. ${describeWitness({ witness: o.witness } as AccessChange)}`);
  for (const m of diff.migrations ?? []) lines.push(`after a version migration: ${m.note}`);
  if (diff.truncated) lines.push("the search stopped at the change limit: more changes may exist");
  for (const n of diff.notProved) lines.push(`not proved: ${n.clause}: ${n.reason}`);
  return lines;
}

/** What "proved" covers: the principals, every catalog type, any request values. */
function scope(diff: AccessDiff): string {
  const who = diff.symbolic === false ? `the organization's ${diff.userCount} users` : "any user with any tags (symbolic principals)";
  return `${who}, every activity type and version of the service's catalog, and any request values`;
}

/** The verdict line: "proved" only when the diff is. */
export function verdictLine(diff: AccessDiff): string {
  const gains = diff.changes.filter((c) => c.direction === "gains").length;
  if (diff.changes.length === 0) {
    return diff.proved ? `no access changes: proved for ${scope(diff)}` : `NOT PROVED: no access change found, but ${diff.notProved.length} clause${diff.notProved.length === 1 ? "" : "s"} or check${diff.notProved.length === 1 ? "" : "s"} could not be proved (below)`;
  }
  const head = `${diff.changes.length} access change${diff.changes.length === 1 ? "" : "s"} (${gains} gaining access)`;
  return diff.proved ? `${head}; no other change: proved for ${scope(diff)}` : `${head}; NOT PROVED that there are no others (below)`;
}

/** The diff as plain text, one change per line. */
export function formatAccessDiffText(diff: AccessDiff): string {
  const lines = [verdictLine(diff)];
  for (const row of rows(diff)) {
    const [change, who, activity, how, target, decision, witness] = row;
    lines.push(`  ${change!.toUpperCase()} ${who} · ${activity} · ${how}${target ? ` · ${target}` : ""} · ${decision}\n      witness: ${witness}`);
  }
  return `${[...lines, ...footer(diff)].join("\n")}\n`;
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The diff as a Markdown section for a pull request comment. */
export function formatAccessDiffMarkdown(diff: AccessDiff): string {
  const lines = ["### Access changes", ""];
  lines.push(`**${verdictLine(diff)}**`, "");
  if (diff.changes.length > 0) {
    lines.push(`| ${HEADER.join(" | ")} |`, `|${HEADER.map(() => "---").join("|")}|`);
    for (const row of rows(diff)) lines.push(`| ${row.map((r, i) => (i === 0 ? `**${r}**` : cell(r))).join(" | ")} |`);
  }
  lines.push("", ...footer(diff).map((l) => `_${cell(l)}_`), "");
  return lines.join("\n");
}
