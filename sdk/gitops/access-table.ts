/**
 * @module gitops/access-table
 * The access diff as a pull request comment reads it: changes that differ only in the activity
 * kind are one row (the kinds listed together), "who" is never empty (a change no user of the
 * organization has yet names the tags a user would need), and ids read as the organization's
 * names: tags, users and approvers by name.
 */
import type { AccessChange, AccessDiff } from "../policy";
import type { SimulatedUser } from "../policy/simulate";
import { describeWitness, verdictLine } from "../policy/smt/report";

/** Names of the organization by id: users (their names) and tags (theirs), and who holds each tag. */
export interface OrganizationNames {
  readonly users: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
  /** User names by tag id. */
  readonly members?: Readonly<Record<string, readonly string[]>>;
}

/** The names of an organization's users and tags, and each tag's members. */
export function organizationNames(
  users: ReadonlyArray<{ userId: string; userName: string; userTags: readonly string[] }>,
  tags: ReadonlyArray<{ tagId: string; tagName: string }>,
): OrganizationNames {
  return {
    users: Object.fromEntries(users.map((u) => [u.userId, u.userName])),
    tags: Object.fromEntries(tags.map((t) => [t.tagId, t.tagName])),
    members: Object.fromEntries(tags.map((t) => [t.tagId, users.filter((u) => u.userTags.includes(t.tagId)).map((u) => u.userName)])),
  };
}

/** "a, b and 3 more". */
function short(items: readonly string[], limit: number): string {
  return items.length <= limit ? items.join(", ") : `${items.slice(0, limit).join(", ")} and ${items.length - limit} more`;
}

/** A user of a witness by name: an organization's user by their name, a made-up one by the tags it needs. */
function userLabel(user: SimulatedUser, names: OrganizationNames, withMembers = true): string {
  const known = names.users[user.id];
  if (known !== undefined) return known;
  const tags = user.tags ?? [];
  if (tags.length === 0) return "any user";
  // Who of the organization holds every one of those tags, so the reader sees the people.
  const holders = tags.map((t) => new Set(names.members?.[t] ?? [])).reduce((a, b) => new Set([...a].filter((n) => b.has(n))));
  const label = `a user tagged ${tags.map((t) => names.tags[t] ?? t).join(", ")}`;
  return withMembers && holders.size > 0 ? `${label} (${short([...holders].sort(), 3)})` : label;
}

/** Who: the organization's users it holds for, or (none yet) who would need to be. */
function who(change: AccessChange, names: OrganizationNames): string {
  if (change.users.length > 0) return short(change.users.map((u) => names.users[u.id] ?? u.name).sort(), 4);
  const submitter = change.witness.approvers?.[0];
  return `${submitter ? userLabel(submitter, names, false) : "any user"} (none of the organization's users yet)`;
}

/** The approvers beyond the submitter, by name. */
function approvers(change: AccessChange, names: OrganizationNames): string {
  const others = (change.witness.approvers ?? []).slice(1).map((a) => userLabel(a, names));
  return others.length === 0 ? "" : short([...new Set(others)], 3);
}

/** The witness activity in one line, its approvers by name. */
function witnessLine(change: AccessChange, names: OrganizationNames): string {
  const approvers = (change.witness.approvers ?? []).map((a) => {
    const label = userLabel(a, names);
    return { ...a, id: label, alias: label };
  });
  return describeWitness({ ...change, witness: { ...change.witness, approvers } });
}

/** One folded row: everything but the kinds and targets (and the witness, the first row's) is the same. */
interface Row {
  change: string;
  who: string;
  how: string;
  decision: string;
  kinds: Set<string>;
  targets: Set<string>;
  witness: string;
  unconfirmed: boolean;
}

/** The rows: changes alike but for their kinds and signing targets folded into one. */
export function accessRows(diff: AccessDiff, names: OrganizationNames): Row[] {
  const rows = new Map<string, Row>();
  for (const c of diff.changes) {
    const how = c.how === "alone" ? "alone" : `with approval of ${approvers(c, names) || "approvers"}`;
    const row: Omit<Row, "kinds" | "targets" | "witness" | "unconfirmed"> = { change: c.direction, who: who(c, names), how, decision: `${c.before} → ${c.after}` };
    const key = JSON.stringify(row);
    const existing = rows.get(key) ?? { ...row, kinds: new Set<string>(), targets: new Set<string>(), witness: witnessLine(c, names), unconfirmed: false };
    for (const kind of c.kinds) existing.kinds.add(kind);
    existing.targets.add(c.target ?? "no signing target");
    existing.unconfirmed ||= !c.confirmed;
    rows.set(key, existing);
  }
  return [...rows.values()].sort((a, b) => a.change.localeCompare(b.change) || a.who.localeCompare(b.who));
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The Markdown section. */
export function accessTableMarkdown(diff: AccessDiff, names: OrganizationNames, heading = "### Access changes"): string {
  const lines = [heading, "", `**${verdictLine(diff)}**`, ""];
  const rows = accessRows(diff, names);
  if (rows.length > 0) {
    lines.push("| change | who | activity | how | target | decision (before → after) | witness |", "|---|---|---|---|---|---|---|");
    for (const r of rows) {
      const kinds = short([...r.kinds].sort(), 6);
      const witness = r.witness + (r.unconfirmed ? " (DID NOT REPLAY through the evaluator: a failure of the diff)" : "");
      const targets = [...r.targets].sort().join(", ");
      lines.push(`| **${r.change}** | ${cell(r.who)} | ${cell(kinds)} | ${cell(r.how)} | ${cell(targets)} | ${cell(r.decision)} | ${cell(witness)} |`);
    }
  }
  lines.push("", `_principals: ${cell(diff.principals)}; ${diff.typeCount} activity types (the service's catalog: its documented kinds and versions)_`);
  if (diff.truncated) lines.push("", "_the search stopped at the change limit: more changes may exist_");
  for (const n of diff.notProved) lines.push("", `_not proved: ${cell(n.clause)}: ${cell(n.reason)}_`);
  // Notes, never rows: what only users the organization lacks could do, and exact-version matches.
  for (const o of diff.outsiders) lines.push("", `_not a row: ${cell(short([...o.kinds], 3))}: ${cell(o.note)}_`);
  for (const m of diff.migrations) lines.push("", `_after a version migration: ${cell(m.note)}_`);
  return `${lines.join("\n")}\n`;
}
