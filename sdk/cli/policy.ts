/**
 * @module cli/policy
 * `keyform policy check` and `keyform policy simulate`: policy tests for a project's CI.
 *
 * - `check <file|expression>…` parses and type checks expressions (a JSON file of policies, a
 *   `pulumi stack export`, a text file holding one expression, or the expression itself) and
 *   prints each error and warning with its line and column. Exit 1 on an error (and on a warning
 *   with `--strict`).
 * - `simulate` decides one activity under an organization's policies, read from a file
 *   (`--policies`) or from a server (`--data <emulator dir>` or the KEYFORM_* settings), and
 *   prints the outcome and each policy's evaluation. `--expect` makes it a test: exit 1 when
 *   the outcome differs.
 * - `diff <before> <after>` proves with Z3 which access decisions change between two policy
 *   sets (files, stack exports, or `live`: the organization's current policies) for every user,
 *   activity type and referenced wallet or private key, each with a witness activity.
 *   `--no-new-access` makes it a gate: exit 1 when anyone gains access.
 */
import * as fs from "node:fs";
import { Command, InvalidArgumentError, Option } from "commander";
import {
  checkPolicy,
  declaredPolicies,
  EXPRESSION_KINDS,
  formatDiagnostic,
  simulate,
  type ExpressionKind,
  type PolicyRecord,
  type SimulatedActivity,
  type Simulation,
} from "../policy";
import { KeyformClient } from "../client/client";
import { ApiKeyStamper } from "../protocol/api-key-stamper";
import { requireSetting, resolveSettings } from "../resources/runtime/settings";
import { readBootstrap } from "./env";
import { checkKeywordValues } from "../policy/keyword-values";
import { diffPolicies, type AccessDiff, type DiffUser } from "../policy/smt/diff";
import { formatAccessDiffText } from "../policy/smt/report";
import { BREAK_GLASS_KINDS, canQuery, lockoutCheck, policyFindings, type Principal } from "../policy/smt/properties";
import { breakGlassVerdict, proveContradictions } from "../policy/smt/consistency";
import { activityCatalog } from "../policy/catalog";

/** The activity kinds of the service's catalog. */
const activityCatalogKinds = () => new Set([...activityCatalog().values()].map((entry) => entry.kind));
import { describeWitness } from "../policy/smt/report";

/** Short names accepted by `--expect`. */
const EXPECTATIONS: Readonly<Record<string, string>> = {
  allow: "OUTCOME_ALLOW",
  deny: "OUTCOME_DENY",
  "deny-explicit": "OUTCOME_DENY_EXPLICIT",
  "deny-implicit": "OUTCOME_DENY_IMPLICIT",
  consensus: "OUTCOME_REQUIRES_CONSENSUS",
};

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const stdio: Output = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** The expressions to check in one argument: `[label, expressions]` pairs. */
function checkTargets(argument: string, kind: ExpressionKind): [string, Parameters<typeof checkPolicy>[0]][] {
  if (!fs.existsSync(argument)) return [["expression", { [kind]: argument }]];
  if (argument.endsWith(".json")) {
    const document = readJson(argument);
    const list = (document as { policies?: unknown }).policies ?? document;
    const items = Array.isArray(list) ? list : [document];
    // Session profiles carry a `scope`; stack exports and policy lists carry policies.
    if (items.every((item) => typeof item === "object" && item !== null && "scope" in item)) {
      return items.map((item, i) => [`${argument}[${i}]`, { scope: (item as { scope: string }).scope }]);
    }
    return declaredPolicies(document, argument).map((p) => [`${argument}: policy ${JSON.stringify(p.policyName)}`, p]);
  }
  return [[argument, { [kind]: fs.readFileSync(argument, "utf8") }]];
}

/** Runs `policy check`; returns the exit code. */
export function runCheck(targets: readonly string[], options: { kind: ExpressionKind; strict?: boolean; json?: boolean }, io: Output = stdio): number {
  let errors = 0;
  let warnings = 0;
  const report: unknown[] = [];
  for (const argument of targets) {
    for (const [label, declared] of checkTargets(argument, options.kind)) {
      for (const d of checkPolicy(declared)) {
        if (d.severity === "error") errors++;
        else warnings++;
        report.push({ source: label, ...d });
        if (!options.json) io.out(`${label}: ${d.property} ${formatDiagnostic(d)} (${d.severity}: ${d.rule})\n`);
      }
    }
  }
  if (options.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(`${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`);
  return errors > 0 || (options.strict === true && warnings > 0) ? 1 : 0;
}

/** A client of the organization: the emulator's bootstrap.json in `dataDir`, or the KEYFORM_* settings. */
function serverClient(dataDir: string | undefined, purpose = "keyform policy simulate"): KeyformClient {
  if (dataDir !== undefined) {
    const b = readBootstrap(dataDir);
    return new KeyformClient({
      baseUrl: b.baseUrl,
      organizationId: b.organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }),
    });
  }
  const settings = resolveSettings(undefined);
  return new KeyformClient({
    baseUrl: settings.baseUrl,
    organizationId: requireSetting(settings, "organizationId", purpose),
    stamper: new ApiKeyStamper({
      apiPublicKey: requireSetting(settings, "apiPublicKey", purpose),
      apiPrivateKey: requireSetting(settings, "apiPrivateKey", purpose),
    }),
  });
}

/**
 * Decides `activity` under the policies of a live organization. Approvers given by id only are
 * filled in from the organization's users (tag ids, email, name as alias).
 */
export async function simulateOnServer(client: KeyformClient, activity: SimulatedActivity): Promise<Simulation> {
  const { policies } = await client.listPolicies();
  const records: PolicyRecord[] = policies.map((p) => ({ ...p, time: p.time ?? null }));
  const approvers = [];
  for (const approver of activity.approvers ?? []) {
    if (approver.tags !== undefined) {
      approvers.push(approver);
      continue;
    }
    const { user } = await client.getUser({ userId: approver.id });
    approvers.push({ id: user.userId, tags: user.userTags, email: user.userEmail ?? "", alias: user.userName });
  }
  return simulate(records, { ...activity, approvers });
}

/** The activity of `simulate`'s options: `--activity <file>`, overridden by `--type`, `--parameters`, `--approver`. */
function activityOf(options: { activity?: string; type?: string; parameters?: string; approver?: string[]; now?: string; root?: boolean }): SimulatedActivity {
  const base = (options.activity !== undefined ? readJson(options.activity) : {}) as SimulatedActivity;
  // Written by hand: a misspelt or camelCase keyword field is an error, not a silent MissingField.
  if (typeof base.keywords === "object" && base.keywords !== null) checkKeywordValues(base.keywords, "activity.keywords");
  let parameters: unknown = base.parameters;
  if (options.parameters !== undefined) {
    try {
      parameters = JSON.parse(options.parameters) as unknown;
    } catch {
      throw new InvalidArgumentError("--parameters: expected a JSON object");
    }
  }
  return {
    ...base,
    type: options.type ?? base.type,
    parameters,
    ...(options.approver ? { approvers: options.approver.map((id) => ({ id })) } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.root ? { rootQuorum: true } : {}),
  };
}

function printSimulation(simulation: Simulation, io: Output): void {
  io.out(`outcome: ${simulation.outcome} (${simulation.reason})\n`);
  for (const e of simulation.evaluations) {
    io.out(`  ${e.outcome.padEnd(26)} ${e.effect === "EFFECT_DENY" ? "DENY " : "ALLOW"} ${JSON.stringify(e.policyName)} ${e.policyId}: ${e.reason}\n`);
  }
}

/** Whether `outcome` meets `--expect` (`deny` matches both denials). */
function meets(outcome: string, expectation: string): boolean {
  const wanted = EXPECTATIONS[expectation] ?? expectation;
  return wanted === "OUTCOME_DENY" ? outcome.startsWith("OUTCOME_DENY") : outcome === wanted;
}

/** Runs `policy simulate`; returns the exit code. */
export async function runSimulate(
  options: { policies?: string; data?: string; activity?: string; type?: string; parameters?: string; approver?: string[]; now?: string; root?: boolean; expect?: string; json?: boolean },
  io: Output = stdio,
): Promise<number> {
  const activity = activityOf(options);
  const simulation =
    options.policies !== undefined
      ? simulate(declaredPolicies(readJson(options.policies), options.policies), activity)
      : await simulateOnServer(serverClient(options.data), activity);
  if (options.json) io.out(`${JSON.stringify(simulation, null, 2)}\n`);
  else printSimulation(simulation, io);
  if (options.expect !== undefined && !meets(simulation.outcome, options.expect)) {
    io.err(`expected ${options.expect}, got ${simulation.outcome}\n`);
    return 1;
  }
  return 0;
}

/** The word naming the live organization as a side of `policy diff`. */
const LIVE = "live";

/** The policies of one side of a diff: a file, or the live organization's. */
async function policiesOf(side: string, client: () => KeyformClient): Promise<PolicyRecord[]> {
  if (side !== LIVE) return declaredPolicies(readJson(side), side);
  const { policies } = await client().listPolicies();
  return policies.map((p) => ({ ...p, time: p.time ?? null }));
}

/** Users from a JSON file: a list or `{users: [...]}` of `{id|userId, tags|userTags, email|userEmail, alias|userName}`. */
function usersFromFile(file: string): DiffUser[] {
  const document = readJson(file) as { users?: unknown };
  const list = Array.isArray(document) ? document : document.users;
  if (!Array.isArray(list)) throw new Error(`${file}: expected a list of users or {users: [...]}`);
  return list.map((u: Record<string, unknown>, i: number) => {
    const id = u.id ?? u.userId;
    if (typeof id !== "string") throw new Error(`${file}: users[${i}].id: expected a user id string`);
    const tags = u.tags ?? u.userTags ?? [];
    if (!Array.isArray(tags) || tags.some((t) => typeof t !== "string")) throw new Error(`${file}: users[${i}].tags: expected a list of tag ids`);
    return { id, tags: tags as string[], email: String(u.email ?? u.userEmail ?? ""), alias: String(u.alias ?? u.userName ?? "") };
  });
}

/**
 * The exit code of `--no-new-access`: 1 when a gain is proved (a replayed witness), else 2 when
 * the diff is not proved (a clause outside the exact fragment, a bound not met, a witness that
 * did not replay), else 0. Without the gate: 0.
 */
export function gateExitCode(diff: AccessDiff, gate: boolean, io: Output = stdio): number {
  if (!gate) return 0;
  const gains = diff.changes.filter((c) => c.direction === "gains" && c.confirmed);
  if (gains.length > 0) {
    io.err(`--no-new-access: ${gains.length} change${gains.length === 1 ? "" : "s"} give${gains.length === 1 ? "s" : ""} access (${[...new Set(gains.flatMap((c) => (c.users.length > 0 ? c.users.map((u) => u.name) : [c.who])))].slice(0, 5).join(", ")})\n`);
    return 1;
  }
  if (!diff.proved) {
    io.err(`--no-new-access: not proved: ${diff.notProved.map((n) => `${n.clause} (${n.reason})`).join("; ")}\n`);
    return 2;
  }
  return 0;
}

/** Runs `policy diff`; returns the exit code (with `--no-new-access`: 1 on a proved gain, 2 when not proved, 0 when proved). */
export async function runDiff(
  before: string,
  after: string,
  options: { data?: string; users?: string; newAccess?: boolean; json?: boolean; breakGlass?: string },
  io: Output = stdio,
): Promise<number> {
  let client: KeyformClient | undefined;
  const live = () => (client ??= serverClient(options.data, "keyform policy diff"));
  const [beforePolicies, afterPolicies] = [await policiesOf(before, live), await policiesOf(after, live)];
  let users: DiffUser[] | undefined;
  if (options.users !== undefined) users = usersFromFile(options.users);
  else if (before === LIVE || after === LIVE || options.data !== undefined) users = await organizationUsers(live());
  const names = before === LIVE || after === LIVE || options.data !== undefined ? await organizationNames(live()) : {};
  const diff: AccessDiff = await diffPolicies(beforePolicies, afterPolicies, { ...(users ? { users } : {}), names });
  io.out(options.json ? jsonText(diff) : formatAccessDiffText(diff));
  if (options.breakGlass !== undefined) {
    const tag = options.breakGlass;
    const lockout = await lockoutCheck(beforePolicies, afterPolicies, tag, BREAK_GLASS_KINDS, users);
    const members = new Set((users ?? []).filter((u) => (u.tags ?? []).includes(tag)).map((u) => u.id));
    const verdict = breakGlassVerdict(diff, lockout, tag, BREAK_GLASS_KINDS, members);
    if (verdict.contradictions.length > 0) {
      io.err(`internal contradiction, no verdict: ${verdict.contradictions.join("; ")}\n`);
      return 3;
    }
    const partly = verdict.partly.length > 0 ? ` (${verdict.partly.join(", ")}: lost for members in the table's requests, kept in another form)` : "";
    io.out(`lockout: ${lockout.rootQuorum}; break-glass tag ${tag}: ${verdict.lost.length > 0 ? `LOSES ${verdict.lost.join(", ")}${partly}` : lockout.proved && diff.proved ? "keeps its recovery access: policies, tags, users, credentials (proved)" : "keeps it as far as found (not proved)"}\n`);
    if (verdict.lost.length > 0) {
      io.err(`lockout: the break-glass tag ${tag} loses ${verdict.lost.join(", ")}\n`);
      return 1;
    }
  }
  return gateExitCode(diff, options.newAccess === false, io);
}

/**
 * Names of the organization's tags, wallets and private keys by id, for the table (a wallet is
 * shown as `Treasury (w-1)`). A list the organization cannot give leaves those ids as they are.
 */
async function organizationNames(client: KeyformClient): Promise<Record<string, string>> {
  const names: Record<string, string> = {};
  const lists: [() => Promise<unknown[]>, string, string][] = [
    [async () => (await client.listUserTags()).userTags, "tagId", "tagName"],
    [async () => (await client.listPrivateKeyTags()).privateKeyTags, "tagId", "tagName"],
    [async () => (await client.listWallets()).wallets, "walletId", "walletName"],
    [async () => (await client.listPrivateKeys()).privateKeys, "privateKeyId", "privateKeyName"],
  ];
  for (const [list, idField, nameField] of lists) {
    let items: unknown[];
    try {
      items = await list();
    } catch {
      continue;
    }
    for (const item of items) {
      const [id, name] = [(item as Record<string, unknown>)[idField], (item as Record<string, unknown>)[nameField]];
      if (typeof id === "string" && typeof name === "string" && name !== "") names[id] = name;
    }
  }
  return names;
}

/** The root quorum's users (the table never lists them: the root quorum bypasses policies). */
async function rootUserIds(client: KeyformClient): Promise<Set<string>> {
  try {
    const org = await (client as unknown as { getOrganization(): Promise<{ organizationData?: { rootQuorum?: { userIds?: string[] } } }> }).getOrganization();
    return new Set(org?.organizationData?.rootQuorum?.userIds ?? []);
  } catch {
    return new Set();
  }
}

/** The organization's users, the root quorum's marked (it bypasses policies: never a principal). */
async function organizationUsers(client: KeyformClient): Promise<DiffUser[]> {
  const roots = await rootUserIds(client);
  return (await client.listUsers()).users.map((u) => ({ id: u.userId, tags: u.userTags, email: u.userEmail ?? "", alias: u.userName, root: roots.has(u.userId) }));
}

/** Users of `--users` or of the organization, for naming a principal. */
async function usersFor(options: { users?: string; data?: string }, command: string): Promise<DiffUser[]> {
  if (options.users !== undefined) return usersFromFile(options.users);
  if (options.data !== undefined) return organizationUsers(serverClient(options.data, command));
  return [];
}

/** JSON text of a result whose witnesses may hold integers beyond a double (decoded transaction values): those as decimal strings. */
function jsonText(value: unknown): string {
  return `${JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2)}\n`;
}

/** The principals line of a report: the organization's users, or symbolic ones. */
function principalsLine(users: readonly DiffUser[]): string {
  return users.length > 0 ? `principals: the organization's ${users.filter((u) => !u.root).length} users, with their own tags\n` : "principals: symbolic (any user with any tags as approvers; give --users or --data to use the organization's)\n";
}

/** Runs `policy can <user|tag:ID> <kind> [target]`; exit 0 when allowed (alone or with approvers), 1 when proved not, 2 when not proved. */
export async function runCan(
  who: string,
  kind: string,
  target: string | undefined,
  options: { policies?: string; data?: string; users?: string; json?: boolean },
  io: Output = stdio,
): Promise<number> {
  const policies = options.policies !== undefined ? declaredPolicies(readJson(options.policies), options.policies) : await policiesOf(LIVE, () => serverClient(options.data, "keyform policy can"));
  const users = await usersFor(options, "keyform policy can");
  let principal: Principal;
  if (who.startsWith("tag:")) principal = { tag: who.slice(4) };
  else {
    const user = users.find((u) => u.id === who || u.alias === who || u.email === who);
    if (!user && users.length > 0) throw new InvalidArgumentError(`<user>: no user with id, name or email ${JSON.stringify(who)} (a tag is written tag:<id>)`);
    principal = { user: user ?? { id: who } };
  }
  const kindName = kind.replace(/^ACTIVITY_TYPE_/, "").replace(/_V\d+$/, "");
  if (!activityCatalogKinds().has(kindName)) throw new InvalidArgumentError(`<kind>: ${JSON.stringify(kind)} is not an activity kind of the service's catalog`);
  // The organization's users, when known, are the principals (the user's own tags; approvers are its users).
  const result = await canQuery(policies, principal, kindName, target, users.length > 0 ? users : undefined);
  if (options.json) io.out(jsonText(result));
  else {
    for (const a of result.answers) {
      const verdict = a.allowed ? "yes" : a.proved ? "no (proved)" : "no witness found, not proved";
      io.out(`${a.how}: ${verdict}${a.witness && a.allowed ? `\n  witness: ${describeWitness({ witness: a.witness } as never)}` : ""}\n`);
    }
    for (const n of result.notProved) io.out(`not proved: ${n.clause}: ${n.reason}\n`);
    io.out(principalsLine(users));
  }
  if (result.answers.some((a) => a.allowed)) return 0;
  return result.answers.every((a) => a.proved) ? 1 : 2;
}

/**
 * Runs `policy prove <file|live>`: per policy, may it error, is it redundant, does a DENY block
 * nothing; over the organization's users when they are known (`--users`, `--data`, or the live
 * organization's). Exit 0, or 3 when the run contradicts itself (a finding that `simulate` or
 * `can` disagrees with): then no finding is printed.
 */
export async function runProve(file: string, options: { json?: boolean; users?: string; data?: string }, io: Output = stdio): Promise<number> {
  let client: KeyformClient | undefined;
  const live = () => (client ??= serverClient(options.data, "keyform policy prove"));
  const policies = await policiesOf(file, live);
  const users = options.users !== undefined ? usersFromFile(options.users) : file === LIVE || options.data !== undefined ? await organizationUsers(live()) : [];
  const principals = users.length > 0 ? users : undefined;
  const result = await policyFindings(policies, principals);
  const contradictions = await proveContradictions(policies, result, principals);
  if (contradictions.length > 0) {
    io.err(`internal contradiction, no verdict: ${contradictions.join("; ")}\n`);
    return 3;
  }
  const { findings, notProved } = result;
  if (options.json) io.out(jsonText({ findings, notProved, symbolic: principals === undefined }));
  else {
    for (const f of findings) {
      const witness = f.witness ? `; e.g. ${describeWitness({ witness: f.witness } as never)}` : "";
      const kinds = f.kinds ? ` on ${f.kinds.length} kind${f.kinds.length === 1 ? "" : "s"}: ${f.kinds.join(", ")}${f.unconfirmedKinds ? `; not confirmed by the evaluator on ${f.unconfirmedKinds.join(", ")}` : ""}` : "";
      io.out(`${JSON.stringify(f.policyName)}: ${f.property}${kinds}${f.proved ? "" : " (not proved)"}${witness}\n`);
    }
    for (const n of notProved) io.out(`not proved: ${n.clause}: ${n.reason}\n`);
    io.out(principalsLine(users));
  }
  return 0;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** `keyform policy check|simulate|diff`. */
export function policyCommand(): Command {
  const policy = new Command("policy").description("check policy expressions and simulate the policy engine");

  policy
    .command("check")
    .description("parse and type check policy expressions: JSON files of policies, stack exports, expression files or expressions")
    .argument("<file|expression...>", "files or expressions to check")
    .addOption(new Option("-k, --kind <kind>", "kind of a bare expression or expression file").choices(EXPRESSION_KINDS).default("condition"))
    .option("--strict", "fail on warnings too")
    .option("--json", "print the findings as JSON")
    .action((targets: string[], options: { kind: ExpressionKind; strict?: boolean; json?: boolean }) => {
      process.exitCode = runCheck(targets, options);
    });

  policy
    .command("simulate")
    .description("decide one activity under an organization's policies and print each policy's evaluation")
    .option("--policies <file>", "policies from a JSON file (list, {policies}, or a pulumi stack export)")
    .option("--data <dir>", "policies and users of a running emulator (its data directory); default: the KEYFORM_* settings")
    .option("--activity <file>", "JSON activity: {type, parameters, approvers, credentials, keywords, now, rootQuorum}")
    .option("--type <ACTIVITY_TYPE>", "activity type (overrides the file)")
    .option("--parameters <json>", "activity parameters as JSON (overrides the file)")
    .option("--approver <userId>", "submitter, then approvers (repeatable; overrides the file)", collect)
    .option("--now <time>", "evaluation time, RFC 3339 UTC")
    .option("--root", "the submitter acts as the root quorum")
    .option("--expect <outcome>", "exit 1 unless the outcome is allow, deny, deny-explicit, deny-implicit, consensus or an OUTCOME_* value")
    .option("--json", "print the decision as JSON")
    .action(async (options: Parameters<typeof runSimulate>[0]) => {
      process.exitCode = await runSimulate(options);
    });

  policy
    .command("diff")
    .description("prove which access decisions change between two policy sets, for every user, activity type and referenced wallet or private key")
    .argument("<before>", `policies before: a JSON file (list, {policies}, or a pulumi stack export) or '${LIVE}' (the organization's current policies)`)
    .argument("<after>", `policies after: a JSON file or '${LIVE}'`)
    .option("--data <dir>", `the organization of '${LIVE}' and its users: a running emulator's data directory; default: the KEYFORM_* settings`)
    .option("--users <file>", "users as JSON ({id, tags, email, alias} each); default: the organization's users when it is read, else users made up from the ids and tags the policies name")
    .option("--no-new-access", "exit 0 only when no new access is proved; 1 when a user gains access, 2 when not proved")
    .option("--break-glass <tag>", "a tag that must keep its recovery access (policy, tag, user and credential management): exit 1 when the change takes it away")
    .option("--json", "print the changes as JSON")
    .action(async (before: string, after: string, options: Parameters<typeof runDiff>[2]) => {
      process.exitCode = await runDiff(before, after, options);
    });

  policy
    .command("can")
    .description("may a user (id, name or email) or any user of a tag (tag:<id>) run an activity kind, alone or with approvers? exit 0 yes, 1 proved no, 2 not proved")
    .argument("<user|tag:ID>", "the principal")
    .argument("<kind>", "activity kind or type, e.g. SIGN_TRANSACTION")
    .argument("[target]", "a wallet or private key id")
    .option("--policies <file>", "policies from a JSON file; default: the organization's")
    .option("--data <dir>", "a running emulator's data directory (policies and users)")
    .option("--users <file>", "users as JSON, to name the principal")
    .option("--json", "print the answers as JSON")
    .action(async (who: string, kind: string, target: string | undefined, options: Parameters<typeof runCan>[3]) => {
      process.exitCode = await runCan(who, kind, target, options);
    });

  policy
    .command("prove")
    .description("per policy: may it error (with a witness), is an ALLOW redundant, does a DENY block nothing; exit 3 when the run contradicts itself")
    .argument("<file>", `policies as JSON (list, {policies}, or a pulumi stack export) or '${LIVE}' (the organization's current policies)`)
    .option("--data <dir>", `the organization of '${LIVE}' and its users: a running emulator's data directory; default: the KEYFORM_* settings`)
    .option("--users <file>", "users as JSON ({id, tags, email, alias} each); default: the organization's users when it is read, else symbolic users")
    .option("--json", "print the findings as JSON")
    .action(async (file: string, options: Parameters<typeof runProve>[1]) => {
      process.exitCode = await runProve(file, options);
    });
  return policy;
}
