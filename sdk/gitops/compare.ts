/**
 * @module gitops/compare
 * `keyform gitops compare --stack staging --stack prod`: the two stacks' live organizations side
 * by side, so a pipeline can require that prod gets exactly what staging was tested with.
 *
 * - Objects are matched by name (user tags, users, policies, smart contract interfaces by label),
 *   never by id: ids differ between organizations. Ids inside a policy's condition or consensus
 *   and in a user's tags read as the names they stand for, so a policy naming staging's
 *   `approvers` tag equals one naming prod's.
 * - The access diff: the first stack's policies, their ids moved to the second organization's
 *   objects of the same names, against the second's, over the second's users: who may do in the
 *   second what they may not in the first, and the reverse.
 * - Differences a stack declares in its config (`keyform-gitops:expectedDifferences`, a list of
 *   `<Kind> <name>` or `<Kind> <name>.<field>`) are left out; a declared policy takes no part in
 *   the access diff (the second's version stands on both sides).
 */
import type { KeyformClient } from "../client/client";
import { diffPolicies, type PolicyRecord } from "../policy";
import { accessTableMarkdown, organizationNames } from "./access-table";
import { openGitopsStack } from "./stack";
import { stackClient } from "./stack-client";
import { DRIFT_EXIT_CODE } from "./run";

/** The config key of a stack's declared differences. */
export const EXPECTED_DIFFERENCES = "keyform-gitops:expectedDifferences";

/** One organization read for comparing: objects by kind and name, their fields as text. */
export interface OrganizationModel {
  readonly objects: Map<string, Map<string, Record<string, string>>>;
  readonly policies: PolicyRecord[];
  readonly users: Array<{ id: string; name: string; tags: string[]; email: string }>;
  /** Ids of tags and users by name, to move another organization's policies onto this one. */
  readonly idsByName: { tags: Map<string, string>; users: Map<string, string> };
  readonly namesById: Map<string, string>;
}

/** Replaces every id of `names` in `text` with what `rename` gives for it. */
function replaceIds(text: string, ids: ReadonlyMap<string, string>, rename: (id: string, name: string) => string): string {
  let out = text;
  for (const [id, name] of ids) out = out.split(id).join(rename(id, name));
  return out;
}

/** Reads what compare looks at. */
export async function readOrganization(client: KeyformClient): Promise<OrganizationModel> {
  const tags = (await client.listUserTags()).userTags;
  const users = (await client.listUsers()).users;
  const policies = (await client.listPolicies()).policies;
  const contracts = (await client.listSmartContractInterfaces()).smartContractInterfaces;
  const namesById = new Map<string, string>([...tags.map((t) => [t.tagId, `tag:${t.tagName}`] as const), ...users.map((u) => [u.userId, `user:${u.userName}`] as const)]);
  const named = (text: string | null | undefined) => replaceIds(text ?? "", namesById, (_id, name) => name);
  const objects = new Map<string, Map<string, Record<string, string>>>();
  const add = (kind: string, name: string, fields: Record<string, string>) => {
    const byName = objects.get(kind) ?? new Map<string, Record<string, string>>();
    byName.set(name, fields);
    objects.set(kind, byName);
  };
  for (const t of tags) add("UserTag", t.tagName, { members: users.filter((u) => u.userTags.includes(t.tagId)).map((u) => u.userName).sort().join(", ") });
  for (const u of users) {
    add("User", u.userName, {
      userEmail: u.userEmail ?? "",
      tags: u.userTags.map((id) => namesById.get(id)?.slice(4) ?? id).sort().join(", "),
      apiKeys: u.apiKeys.map((k) => k.apiKeyName).sort().join(", "),
    });
  }
  for (const p of policies) add("Policy", p.policyName, { effect: p.effect, condition: named(p.condition), consensus: named(p.consensus), notes: p.notes ?? "" });
  for (const c of contracts) add("SmartContractInterface", c.label, { smartContractAddress: c.smartContractAddress, type: c.type, smartContractInterface: c.smartContractInterface, notes: c.notes });
  return {
    objects,
    policies: policies.map((p) => ({ ...p, time: (p as { time?: string | null }).time ?? null })),
    users: users.map((u) => ({ id: u.userId, name: u.userName, tags: u.userTags, email: u.userEmail ?? "" })),
    idsByName: { tags: new Map(tags.map((t) => [t.tagName, t.tagId])), users: new Map(users.map((u) => [u.userName, u.userId])) },
    namesById,
  };
}

/** One object that differs: only on one side, or fields with both values. */
export interface ObjectDifference {
  kind: string;
  name: string;
  only?: "first" | "second";
  fields: Array<{ field: string; first: string; second: string }>;
}

/** The object differences of two models, declared ones left out. */
export function objectDifferences(first: OrganizationModel, second: OrganizationModel, declared: ReadonlySet<string> = new Set()): ObjectDifference[] {
  const found: ObjectDifference[] = [];
  const kinds = new Set([...first.objects.keys(), ...second.objects.keys()]);
  for (const kind of [...kinds].sort()) {
    const a = first.objects.get(kind) ?? new Map();
    const b = second.objects.get(kind) ?? new Map();
    for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
      if (declared.has(`${kind} ${name}`)) continue;
      const x = a.get(name);
      const y = b.get(name);
      if (x === undefined || y === undefined) {
        found.push({ kind, name, only: x === undefined ? "second" : "first", fields: [] });
        continue;
      }
      const fields = Object.keys({ ...x, ...y })
        .filter((f) => (x[f] ?? "") !== (y[f] ?? "") && !declared.has(`${kind} ${name}.${f}`))
        .map((field) => ({ field, first: x[field] ?? "", second: y[field] ?? "" }));
      if (fields.length > 0) found.push({ kind, name, fields });
    }
  }
  return found;
}

/**
 * The first organization's policies moved onto the second: each id of a tag or user replaced by
 * the id the second gives the same name (an id with no counterpart stays, and matches no one).
 * A declared policy is the second's own on both sides.
 */
export function movePolicies(first: OrganizationModel, second: OrganizationModel, declared: ReadonlySet<string>): PolicyRecord[] {
  const counterpart = new Map<string, string>();
  for (const [id, label] of first.namesById) {
    const [kind, ...rest] = label.split(":");
    const target = (kind === "tag" ? second.idsByName.tags : second.idsByName.users).get(rest.join(":"));
    if (target !== undefined) counterpart.set(id, target);
  }
  const move = (text: string | null | undefined) => (text ? replaceIds(text, counterpart, (id) => counterpart.get(id) ?? id) : (text ?? null));
  const isDeclared = (p: PolicyRecord) => declared.has(`Policy ${p.policyName}`) || [...declared].some((d) => d.startsWith(`Policy ${p.policyName}.`));
  const moved = first.policies.filter((p) => !isDeclared(p)).map((p) => ({ ...p, condition: move(p.condition), consensus: move(p.consensus) }));
  return [...moved, ...second.policies.filter(isDeclared)];
}

const code = (text: string) => (text === "" ? "_(empty)_" : `\`${text.replace(/`/gu, "'").replace(/\n+/gu, " ")}\``);

/** Runs the comparison of two stacks of the project in `workDir`. */
export async function compareStacks(firstName: string, secondName: string, options: { workDir?: string; pulumiBin?: string } = {}) {
  const open = (name: string) => openGitopsStack({ stackName: name, ...options });
  const [firstStack, secondStack] = [await open(firstName), await open(secondName)];
  const declared = new Set<string>();
  for (const stack of [firstStack, secondStack]) {
    const raw = (await stack.getAllConfig())[EXPECTED_DIFFERENCES]?.value;
    if (raw === undefined) continue;
    let list: unknown;
    try {
      list = JSON.parse(raw);
    } catch {
      list = undefined;
    }
    if (!Array.isArray(list) || !list.every((d) => typeof d === "string")) {
      throw new Error(`${EXPECTED_DIFFERENCES} of stack ${stack.name}: must be a JSON list of "<Kind> <name>" or "<Kind> <name>.<field>", got ${raw}`);
    }
    for (const d of list as string[]) declared.add(d.trim());
  }
  const first = await readOrganization(await stackClient(firstStack, `keyform gitops compare (stack ${firstName})`));
  const second = await readOrganization(await stackClient(secondStack, `keyform gitops compare (stack ${secondName})`));
  const objects = objectDifferences(first, second, declared);
  const diff = await diffPolicies(movePolicies(first, second, declared), second.policies, {
    users: second.users.map((u) => ({ id: u.id, tags: u.tags, email: u.email, alias: u.name })),
    names: Object.fromEntries([...second.namesById].map(([id, label]) => [id, label.replace(/^(?:tag|user):/u, "")])),
  });
  const names = organizationNames(
    second.users.map((u) => ({ userId: u.id, userName: u.name, userTags: u.tags })),
    [...second.idsByName.tags].map(([tagName, tagId]) => ({ tagId, tagName })),
  );
  const lines = [`### Stack \`${firstName}\` against stack \`${secondName}\``, ""];
  if (objects.length === 0) lines.push("The objects match (by name).");
  else {
    lines.push(`${objects.length} object(s) differ:`, "", `| object | field | \`${firstName}\` | \`${secondName}\` |`, "|---|---|---|---|");
    for (const o of objects) {
      if (o.only) lines.push(`| ${o.kind} \`${o.name}\` | | ${o.only === "first" ? "present" : "_(missing)_"} | ${o.only === "second" ? "present" : "_(missing)_"} |`);
      for (const f of o.fields) lines.push(`| ${o.kind} \`${o.name}\` | \`${f.field}\` | ${code(f.first)} | ${code(f.second)} |`);
    }
  }
  if (declared.size > 0) lines.push("", `_Declared differences left out: ${[...declared].sort().join("; ")}_`);
  lines.push("", accessTableMarkdown(diff, names, `### Access in \`${secondName}\` against \`${firstName}\` (gains: allowed in ${secondName}, not in ${firstName})`));
  const differ = objects.length > 0 || diff.changes.length > 0;
  const report = { first: firstName, second: secondName, objects, access: { proved: diff.proved, changes: diff.changes.map((c) => ({ direction: c.direction, users: c.users, kinds: c.kinds, how: c.how, before: c.before, after: c.after })), notProved: diff.notProved }, declared: [...declared] };
  return { report, markdown: lines.join("\n") + "\n", exitCode: differ ? DRIFT_EXIT_CODE : diff.proved ? 0 : 1 };
}
