/**
 * Differential testing of the access diff against a brute-force oracle: a seeded generator of
 * policy sets (seeded from the documented examples, covering every operator and keyword the
 * encoder handles) and mutations of them, and an exhaustive evaluation with the real evaluator
 * (`simulate`) over a small bounded domain of users, tags, activity types of the service's catalog
 * (both versions of transaction signing, and a wallet-only type among them), targets, values and
 * times. A verdict disagrees when the diff
 * proves "no change" and the oracle finds a decision that differs, or when a reported change
 * does not replay although every clause was encoded exactly.
 */
import { activityFacts, activityKind, evaluatePolicy, ROOT_QUORUM_ONLY_KINDS, simulate, simulateVotes, type EvaluationInput, type PolicyRecord, type SimulatedActivity, type SimulatedUser } from "../../sdk/policy";
import { activityCatalog, keywordsFor } from "../../sdk/policy/catalog";
import { witnessProblem } from "../../sdk/policy/smt/witness";
import { parseTimestamp } from "../../sdk/policy/time";
import { diffPolicies } from "../../sdk/policy/smt/diff";
import { DOCUMENTED_EXAMPLES } from "./examples";
import { seededRandom } from "../support/seeded-random";
import { DomainOutcomes, withoutStackTraces } from "./oracle-outcomes";

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

/** Two recipients: 20-byte addresses, as a transaction's `to` always is (a shorter string no transaction carries). */
const TO_A = `0x${"aa".repeat(20)}`;
const TO_B = `0x${"bb".repeat(20)}`;

const CONDITION_ATOMS = [
  "activity.resource == 'WALLET'",
  "'WALLET' == activity.resource",
  "activity.action in ['CREATE', 'DELETE']",
  "'DELETE' == activity.action",
  "'EXPORT' == activity.action",
  "activity.kind == 'SIGN_TRANSACTION'",
  "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'",
  "activity.resource == 'USER'",
  "activity.kind in ['DELETE_USERS', 'CREATE_WALLET']",
  "activity.action == 'SIGN'",
  "wallet.id == 'w-1'",
  "wallet.id in ['w-1', 'w-2']",
  "wallet.id != 'w-2'",
  "wallet_account.address == '0xa1'",
  "private_key.id == 'pk-1'",
  "eth.tx.value < 2",
  "eth.tx.value == 0",
  "eth.tx.value <= 1",
  "1 > eth.tx.value",
  `eth.tx.to == '${TO_A}'`,
  "activity.params.user_ids.count() >= 1",
  "activity.params.user_ids.count() == 0",
  "activity.params.user_ids.count() < 1",
  "'u-x' in activity.params.user_ids",
  "activity.params.user_ids.contains('u-x')",
  "true",
];

const CONSENSUS_ATOMS = [
  "approvers.any(u, u.tags.contains('tag-a'))",
  "approvers.all(u, 'tag-b' in u.tags)",
  "approvers.any(u, 'tag-b' in u.tags)",
  "approvers.filter(u, u.tags.contains('tag-a')).count() >= 1",
  "approvers.filter(u, u.tags.contains('tag-a')).count() >= 2",
  "approvers.filter(u, u.tags.contains('tag-a')).count() >= 3",
  "approvers.count() >= 2",
  "approvers.count() >= 3",
  "approvers.count() >= 6",
  "approvers.any(u, u.id == 'u-alice')",
  "approvers.any(u, u.email == 'bob@example.com')",
  "approvers.any(u, u.alias == 'carol')",
  "approvers.all(u, u.id != 'u-dan')",
  "approvers.any(u, u.id == 'u-erin' && u.tags.contains('tag-a'))",
];

const TIME_ATOMS = ["time.now < Timestamp('2030-01-01T00:00:00Z')", "time.now >= Timestamp('2030-01-01T00:00:00Z')"];

function combine(next: () => number, atoms: readonly string[]): string {
  const one = () => (next() < 0.15 ? `!(${pick(next, atoms)})` : pick(next, atoms));
  if (next() < 0.5) return one();
  return `(${one()}) ${next() < 0.5 ? "&&" : "||"} (${one()})`;
}

let counter = 0;

function randomPolicy(next: () => number): PolicyRecord {
  const id = `g${counter++}`;
  return {
    policyId: id,
    policyName: id,
    effect: next() < 0.3 ? "EFFECT_DENY" : "EFFECT_ALLOW",
    condition: combine(next, CONDITION_ATOMS),
    consensus: next() < 0.4 ? "" : combine(next, CONSENSUS_ATOMS),
    time: next() < 0.1 ? pick(next, TIME_ATOMS) : "",
  };
}

/** Documented examples whose keywords the bounded domain covers. */
const SEEDS = DOCUMENTED_EXAMPLES.filter((e) => e.policies.every((p) => !/credentials|eip_712|solana|tron|bitcoin|\[|data|chain_id|function|CronSpan/.test(`${p.condition}${p.consensus}${p.time ?? ""}`))).map((e) => e.policies);

/** Rewrites one policy: an equivalent form or a real change, as reviewers see in pull requests. */
function mutate(next: () => number, policies: readonly PolicyRecord[]): PolicyRecord[] {
  const out = policies.map((p) => ({ ...p }));
  const i = Math.floor(next() * out.length);
  const p = out[i]!;
  const swaps: [RegExp, string][] = [
    [/approvers\.all\(/, "approvers.any("],
    [/approvers\.any\(/, "approvers.all("],
    [/>= (\d)/, ">= 1"],
    [/>= (\d)/, ">= 3"],
    [/'u-x' in activity\.params\.user_ids/, "activity.params.user_ids.contains('u-x')"],
    [/activity\.params\.user_ids\.count\(\) < 1/, "activity.params.user_ids.count() == 0"],
    [/eth\.tx\.value < 2/, "eth.tx.value <= 1"],
    [/activity\.kind == 'SIGN_TRANSACTION'/, "activity.type == 'ACTIVITY_TYPE_SIGN_TRANSACTION_V2'"],
    [/activity\.resource == '(\w+)'/, "'$1' == activity.resource"],
    [/'tag-a'/, "'tag-b'"],
    [/'u-alice'/, "'u-bob'"],
    [/&&/, "||"],
  ];
  const roll = next();
  if (roll < 0.15) out[i] = { ...p, effect: p.effect === "EFFECT_ALLOW" ? "EFFECT_DENY" : "EFFECT_ALLOW" };
  else if (roll < 0.25 && out.length > 1) out.splice(i, 1);
  else if (roll < 0.35) out.push(randomPolicy(next));
  else if (roll < 0.45) out[i] = { ...p, condition: `!(${p.condition || "true"})` };
  else {
    const [pattern, replacement] = pick(next, swaps);
    const field = pick(next, ["condition", "consensus"] as const);
    out[i] = { ...p, [field]: (p[field] ?? "").replace(pattern, replacement) };
  }
  return out;
}

/** A pair of policy sets: a base (random, or a documented example with random policies) and a mutation of it. */
export function randomPair(next: () => number): [PolicyRecord[], PolicyRecord[]] {
  const base: PolicyRecord[] = next() < 0.3 && SEEDS.length > 0 ? [...pick(next, SEEDS)] : [];
  const extra = 1 + Math.floor(next() * 3);
  for (let i = 0; i < extra; i++) base.push(randomPolicy(next));
  return [base, mutate(next, base)];
}

/** The organization of the differential test: its users are the principals. */
export const USERS: SimulatedUser[] = [
  { id: "u-alice", tags: ["tag-a"], email: "alice@example.com", alias: "alice" },
  { id: "u-bob", tags: ["tag-a", "tag-b"], email: "bob@example.com", alias: "bob" },
  { id: "u-carol", tags: ["tag-b"], email: "", alias: "carol" },
  { id: "u-dan", tags: [], email: "dan@example.com", alias: "dan" },
  { id: "u-erin", tags: ["tag-a"], email: "", alias: "erin" },
];

/** Submitter first, then up to two other approvers. */
function approverLists(): SimulatedUser[][] {
  const lists: SimulatedUser[][] = [];
  USERS.forEach((submitter, i) => {
    const others = USERS.filter((_, j) => j !== i);
    lists.push([submitter]);
    others.forEach((a, j) => {
      lists.push([submitter, a]);
      for (const b of others.slice(j + 1)) lists.push([submitter, a, b]);
    });
  });
  return lists;
}

const NOWS = ["2026-06-01T00:00:00Z", "2031-06-01T00:00:00Z"];

/** Requests of the bounded domain (without approvers). */
function requests(): Omit<SimulatedActivity, "approvers">[] {
  const out: Omit<SimulatedActivity, "approvers">[] = [];
  const signing = (type: string) => {
    const targets: Record<string, unknown>[] = [
      ...["w-1", "w-2", "w-3"].map((id, i) => ({ wallet: { id, imported: false, exported: false, label: "" }, wallet_account: { address: `0xa${i + 1}` } })),
      { private_key: { id: "pk-1", tags: [], imported: false, exported: false, label: "" } },
    ];
    const txs: (Record<string, unknown> | undefined)[] = [undefined];
    for (const value of [0, 1, 2]) for (const to of [TO_A, TO_B]) txs.push({ tx: { value, to } });
    for (const target of targets) for (const eth of txs) out.push({ type, parameters: { signWith: "x", unsignedTransaction: "0x00", type: "TRANSACTION_TYPE_ETHEREUM" }, keywords: { ...target, ...(eth ? { eth } : {}) } });
  };
  signing("ACTIVITY_TYPE_SIGN_TRANSACTION_V2");
  signing("ACTIVITY_TYPE_SIGN_TRANSACTION");
  for (const id of ["w-1", "w-3"]) out.push({ type: "ACTIVITY_TYPE_EXPORT_WALLET", parameters: { walletId: id, targetPublicKey: "04" }, keywords: { wallet: { id, imported: false, exported: false, label: "" }, wallet_account: { address: "0xa1" } } });
  // Requests a client could submit: the wire schema wants at least one user to delete.
  for (const userIds of [["u-w"], ["u-x"], ["u-y", "u-z"]]) out.push({ type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds } });
  out.push({ type: "ACTIVITY_TYPE_CREATE_WALLET", parameters: { walletName: "w", accounts: [] } });
  return out.flatMap((r) => NOWS.map((now) => ({ ...r, now })));
}

const DOMAIN = (() => {
  const lists = approverLists();
  return requests().flatMap((r) => lists.map((approvers) => ({ ...r, approvers })));
})();

/** Why activities of the domain could not be submitted by a client (none may): its type and parameters under the wire schema. */
export function domainProblems(): string[] {
  return [...new Set(DOMAIN.map((activity) => witnessProblem(activity)).filter((p): p is string => p !== undefined))];
}

/** Each activity of the domain as the evaluator's input, built once (as `simulate` builds it). */
const INPUTS: { activity: SimulatedActivity; kind: string; input: EvaluationInput }[] = DOMAIN.map((activity) => ({
  activity,
  kind: activityKind(activity.type),
  input: {
    nowMs: parseTimestamp(activity.now as string),
    keywords: {
      ...keywordsFor(activity.type, activity.keywords ?? {}),
      activity: activityFacts(activity.type, activity.parameters),
      approvers: activity.approvers!.map((u) => ({ id: u.id, tags: u.tags ?? [], email: u.email ?? "", alias: u.alias ?? "" })),
      credentials: [],
    },
  },
}));

/** Every policy's outcome on every activity of the domain, each evaluated once per class of activities it cannot tell apart. */
const OUTCOMES = new DomainOutcomes(INPUTS.map(({ input }) => input));

/** Per activity of the domain: refused to everyone but the root quorum, whatever the policies say. */
const ROOT_QUORUM_ONLY: boolean[] = INPUTS.map(({ kind }) => ROOT_QUORUM_ONLY_KINDS.has(kind));

/** One side's decision on every activity of the domain, by the engine's rules (a DENY that applies refuses, else an ALLOW that applies allows, else an ALLOW waiting for consensus waits, else refused). */
function decisions(policies: readonly PolicyRecord[]): ("allowed" | "waits" | "refused")[] {
  const outcomes = policies.map((p) => OUTCOMES.of(p));
  return INPUTS.map((_, i) => {
    if (ROOT_QUORUM_ONLY[i] || outcomes.some((o) => o[i] === "OUTCOME_DENY_EXPLICIT")) return "refused";
    if (outcomes.some((o) => o[i] === "OUTCOME_ALLOW")) return "allowed";
    return outcomes.some((o) => o[i] === "OUTCOME_REQUIRES_CONSENSUS") ? "waits" : "refused";
  });
}

/**
 * The first activity of the domain the two sets decide differently (allowed or not), if any.
 * Each policy's outcome is the engine's evaluator's ({@link DomainOutcomes}), the decision taken
 * by the engine's rules; a difference found is confirmed with `simulate` itself.
 */
export function exhaustiveDifference(before: readonly PolicyRecord[], after: readonly PolicyRecord[]): SimulatedActivity | undefined {
  const [b, a] = [decisions(before), decisions(after)];
  const i = b.findIndex((decision, i) => (decision === "allowed") !== (a[i] === "allowed"));
  if (i < 0) return undefined;
  const { activity } = INPUTS[i]!;
  const confirmed = (simulate(before, activity).outcome === "OUTCOME_ALLOW") !== (simulate(after, activity).outcome === "OUTCOME_ALLOW");
  if (!confirmed) throw new Error(`the oracle's decision rule differs from simulate on ${JSON.stringify(activity)}`);
  return activity;
}

/** A policy's outcomes on the domain as the oracle takes them, and as evaluating every activity one by one gives them (the check of {@link DomainOutcomes}). */
export function outcomesEachEvaluated(policy: PolicyRecord): { memoized: readonly string[]; direct: readonly string[] } {
  return { memoized: OUTCOMES.of(policy), direct: withoutStackTraces(() => INPUTS.map(({ input }) => evaluatePolicy(policy, input).outcome)) };
}

export interface OracleResult {
  readonly pairs: number;
  readonly proved: number;
  readonly provedNoChange: number;
  readonly changes: number;
  readonly disagreements: { before: PolicyRecord[]; after: PolicyRecord[]; why: string }[];
}

/**
 * Runs `count` seeded pairs: each diff stops at its first change (a change found is checked by
 * replay, a proved "no change" by the exhaustive oracle).
 */
export async function runOracle(seed: number, count: number, onProgress?: (done: number, disagreements: number) => void): Promise<OracleResult> {
  const next = seededRandom(seed);
  const disagreements: OracleResult["disagreements"] = [];
  let proved = 0;
  let provedNoChange = 0;
  let changes = 0;
  for (let i = 0; i < count; i++) {
    const [before, after] = randomPair(next);
    const diff = await diffPolicies(before, after, { maxChanges: 1 });
    const exact = diff.notProved.every((n) => n.clause === "(witnesses)");
    if (diff.changes.length === 0) {
      if (diff.proved) {
        proved++;
        provedNoChange++;
        const found = exhaustiveDifference(before, after);
        if (found) disagreements.push({ before, after, why: `proved no change, but the evaluator decides ${JSON.stringify(found)} differently` });
      }
    } else {
      changes++;
      const change = diff.changes[0]!;
      if (!change.confirmed && exact) disagreements.push({ before, after, why: `a change whose witness does not replay: ${JSON.stringify(change.witness)}` });
    }
    onProgress?.(i + 1, disagreements.length);
  }
  return { pairs: count, proved, provedNoChange, changes, disagreements };
}

/**
 * Per activity of the domain, the activities its votes pass through: the same request with the
 * first 1, 2, … of its approvers (the submitter, then each voter in turn), all of the domain.
 */
const VOTE_STEPS: number[][] = (() => {
  const key = (activity: SimulatedActivity, approvers: number) => JSON.stringify([activity.type, activity.parameters, activity.keywords, activity.now, activity.approvers!.slice(0, approvers).map((u) => u.id)]);
  const index = new Map(INPUTS.map(({ activity }, i) => [key(activity, activity.approvers!.length), i]));
  return INPUTS.map(({ activity }) => activity.approvers!.map((_, votes) => index.get(key(activity, votes + 1))!));
})();

/**
 * Every (user, direction, kind) the oracle finds: the user submits an activity of the domain, the
 * others vote in turn, and the two sets reach different decisions (allowed or not). Each side's
 * decision at each number of votes is taken by the engine's rules ({@link decisions}), the first
 * that does not wait being the activity's.
 */
export function exhaustiveChanges(before: readonly PolicyRecord[], after: readonly PolicyRecord[]): Set<string> {
  const found = new Set<string>();
  const [decidedBefore, decidedAfter] = [decisions(before), decisions(after)];
  const voted = (decided: readonly string[], steps: readonly number[]) => {
    let outcome = "waits";
    for (let votes = 0; votes < steps.length && outcome === "waits"; votes++) outcome = decided[steps[votes]!]!;
    return outcome === "allowed";
  };
  INPUTS.forEach(({ activity, kind }, i) => {
    const [b, a] = [voted(decidedBefore, VOTE_STEPS[i]!), voted(decidedAfter, VOTE_STEPS[i]!)];
    if (b !== a) found.add(`${activity.approvers![0]!.id}\u0000${a ? "gains" : "loses"}\u0000${kind}`);
  });
  return found;
}

export interface DifferentialResult {
  readonly pairs: number;
  /** Rows whose witness is not a catalog type, names a user the organization lacks or a tag a user lacks, lists no user, or does not replay for a user it lists. */
  readonly spuriousRows: number;
  /** (user, direction, kind) the oracle finds that no row lists. */
  readonly missedUsers: number;
  /** `--no-new-access` exits that disagree with the oracle and the replayed rows. */
  readonly wrongExits: number;
  readonly rows: number;
  readonly notes: number;
  /** Pairs whose diff is not proved (a change the solver found that no order of votes shows, a witness a client could not submit). */
  readonly notProved: number;
  readonly findings: { before: PolicyRecord[]; after: PolicyRecord[]; why: string }[];
}

/**
 * Seeded pairs diffed over the organization of {@link USERS} (full diffs), each row checked by
 * replay with the evaluator and each (user, direction, kind) of the exhaustive oracle looked up
 * in the rows; the `--no-new-access` exit checked against both.
 */
export async function runDifferential(seed: number, count: number, exitOf: (diff: Awaited<ReturnType<typeof diffPolicies>>) => number, onProgress?: (done: number, result: DifferentialResult) => void): Promise<DifferentialResult> {
  const next = seededRandom(seed);
  const byId = new Map(USERS.map((u) => [u.id, u]));
  const result = { pairs: 0, spuriousRows: 0, missedUsers: 0, wrongExits: 0, rows: 0, notes: 0, notProved: 0, findings: [] as DifferentialResult["findings"] };
  for (let i = 0; i < count; i++) {
    const [before, after] = randomPair(next);
    const diff = await diffPolicies(before, after, { users: USERS.map((u) => ({ id: u.id, tags: u.tags ?? [], email: u.email ?? "", alias: u.alias ?? "" })) });
    result.pairs++;
    result.rows += diff.changes.length;
    result.notes += diff.outsiders.length;
    if (!diff.proved) result.notProved++;
    const flag = (why: string) => result.findings.push({ before, after, why });
    let replayedGain = false;
    for (const change of diff.changes) {
      const problems: string[] = [];
      if (!activityCatalog().has(change.witness.type)) problems.push(`type ${change.witness.type} is not in the catalog`);
      for (const a of change.witness.approvers ?? []) {
        const real = byId.get(a.id);
        if (!real) problems.push(`approver ${a.id} is not a user of the organization`);
        else if ([...(a.tags ?? [])].sort().join() !== [...(real.tags ?? [])].sort().join()) problems.push(`approver ${a.id} has tags ${JSON.stringify(a.tags)}`);
      }
      if (change.users.length === 0) problems.push("lists no user");
      const given = change.how === "alone" ? [] : (change.witness.approvers ?? []);
      for (const { id } of change.users) {
        const u = byId.get(id);
        if (!u) {
          problems.push(`lists ${id}, not a user of the organization`);
          continue;
        }
        const others = given.some((o) => o.id === id) ? given.filter((o) => o.id !== id) : given.slice(1);
        const activity = { ...change.witness, approvers: [u, ...others] };
        const [b, a] = [simulateVotes(before, activity).outcome === "OUTCOME_ALLOW", simulateVotes(after, activity).outcome === "OUTCOME_ALLOW"];
        const holds = change.direction === "gains" ? !b && a : b && !a;
        if (!holds) problems.push(`does not replay for ${id}`);
        else if (change.direction === "gains") replayedGain = true;
      }
      if (problems.length > 0) {
        result.spuriousRows++;
        flag(`spurious row (${change.direction} ${change.kinds.join(",")} ${change.how}): ${problems.join("; ")}`);
      }
    }
    const oracle = exhaustiveChanges(before, after);
    for (const key of oracle) {
      const [id, direction, kind] = key.split("\u0000") as [string, string, string];
      const listed = diff.changes.some((c) => c.direction === direction && c.kinds.includes(kind) && c.users.some((u) => u.id === id));
      if (!listed && diff.proved) {
        result.missedUsers++;
        flag(`missed: ${id} ${direction} ${kind}`);
      }
    }
    const oracleGain = [...oracle].some((key) => key.split("\u0000")[1] === "gains");
    const exit = exitOf(diff);
    const wrong = (oracleGain && exit !== 1 && diff.proved) || (exit === 1 && !replayedGain) || (!oracleGain && !replayedGain && exit === 1);
    if (wrong) {
      result.wrongExits++;
      flag(`wrong --no-new-access exit ${exit} (oracle ${oracleGain ? "finds" : "finds no"} gain; ${replayedGain ? "a" : "no"} replayed gain row)`);
    }
    onProgress?.(i + 1, result);
  }
  return result;
}
