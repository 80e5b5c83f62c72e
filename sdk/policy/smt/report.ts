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
  const others = (w.approvers ?? []).slice(1).map((a) => a.id);
  const parts = [w.type.replace(/^ACTIVITY_TYPE_/, "")];
  if (others.length > 0) parts.push(`approved by ${short(others, 3)}`);
  if (w.parameters && Object.keys(w.parameters as object).length > 0) parts.push(`params ${JSON.stringify(w.parameters)}`);
  const facts = leaves(w.keywords ?? {}, "");
  if (facts.length > 0) parts.push(facts.join(", "));
  return parts.join("; ");
}

/** `wallet.id = 'w-1'` for each leaf that says something (empty strings and false left out). */
function leaves(value: unknown, path: string): string[] {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([key, v]) => leaves(v, path ? `${path}.${key}` : key));
  }
  if (value === "" || value === false || value === undefined) return [];
  return [`${path} = ${typeof value === "string" ? `'${value}'` : JSON.stringify(value)}`];
}

function rows(diff: AccessDiff): string[][] {
  return diff.changes.map((c) => [
    c.direction === "gains" ? "gains" : "loses",
    short(c.users),
    short(c.kinds, 3),
    c.how === "alone" ? "alone" : "with approvers",
    c.target ?? "",
    `${c.before} → ${c.after}`,
    `${describeWitness(c)}${c.confirmed ? "" : " (not replayed: relies on a clause outside the proved fragment)"}`,
  ]);
}

const HEADER = ["change", "who", "activity", "how", "target", "decision (before → after)", "witness"];

function footer(diff: AccessDiff): string[] {
  const lines = [`principals: ${diff.principals}; ${diff.typeCount} activity types`];
  if (diff.truncated) lines.push("the search stopped at the change limit: more changes may exist");
  if (diff.notProved.length > 0) lines.push(`not proved (encoded as unknown, equal on both sides): ${diff.notProved.join(" | ")}`);
  return lines;
}

/** The diff as plain text, one change per line. */
export function formatAccessDiffText(diff: AccessDiff): string {
  const gains = diff.changes.filter((c) => c.direction === "gains").length;
  const lines = [
    diff.changes.length === 0
      ? "no access changes: proved for every user, activity type and referenced wallet or private key"
      : `${diff.changes.length} access change${diff.changes.length === 1 ? "" : "s"} (${gains} gaining access):`,
  ];
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
  if (diff.changes.length === 0) {
    lines.push("No user gains or loses access (proved for every user, activity type and referenced wallet or private key).");
  } else {
    lines.push(`| ${HEADER.join(" | ")} |`, `|${HEADER.map(() => "---").join("|")}|`);
    for (const row of rows(diff)) lines.push(`| ${row.map((r, i) => (i === 0 ? `**${r}**` : cell(r))).join(" | ")} |`);
  }
  lines.push("", ...footer(diff).map((l) => `_${cell(l)}_`), "");
  return lines.join("\n");
}
