/**
 * Differential testing of the access diff against a brute-force oracle: a seeded generator of
 * policy sets (seeded from the documented examples, covering every operator and keyword the
 * encoder handles) and mutations of them, and an exhaustive evaluation with the real evaluator
 * (`simulate`) over a small bounded domain of users, tags, activity types (another version and a
 * wallet-only type among them), targets, values and times. A verdict disagrees when the diff
 * proves "no change" and the oracle finds a decision that differs, or when a reported change
 * does not replay although every clause was encoded exactly.
 */
import { activityFacts, activityKind, evaluatePolicy, ROOT_QUORUM_ONLY_KINDS, simulate, type EvaluationInput, type PolicyRecord, type SimulatedActivity, type SimulatedUser } from "../../sdk/policy";
import { keywordsFor } from "../../sdk/policy/catalog";
import { parseTimestamp } from "../../sdk/policy/time";
import { diffPolicies } from "../../sdk/policy/smt/diff";
import { DOCUMENTED_EXAMPLES } from "./examples";
import { seededRandom } from "../support/seeded-random";

const pick = <T>(next: () => number, items: readonly T[]): T => items[Math.floor(next() * items.length)]!;

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
  "eth.tx.to == '0xaa'",
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

const USERS: SimulatedUser[] = [
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
    for (const value of [0, 1, 2]) for (const to of ["0xaa", "0xbb"]) txs.push({ tx: { value, to } });
    for (const target of targets) for (const eth of txs) out.push({ type, parameters: { signWith: "x", unsignedTransaction: "0x00", type: "TRANSACTION_TYPE_ETHEREUM" }, keywords: { ...target, ...(eth ? { eth } : {}) } });
  };
  signing("ACTIVITY_TYPE_SIGN_TRANSACTION_V2");
  signing("ACTIVITY_TYPE_SIGN_TRANSACTION_V3");
  for (const id of ["w-1", "w-3"]) out.push({ type: "ACTIVITY_TYPE_EXPORT_WALLET", parameters: { walletId: id, targetPublicKey: "04" }, keywords: { wallet: { id, imported: false, exported: false, label: "" }, wallet_account: { address: "0xa1" } } });
  for (const userIds of [[], ["u-x"], ["u-y", "u-z"]]) out.push({ type: "ACTIVITY_TYPE_DELETE_USERS", parameters: { userIds } });
  out.push({ type: "ACTIVITY_TYPE_CREATE_WALLET", parameters: { walletName: "w", accounts: [] } });
  return out.flatMap((r) => NOWS.map((now) => ({ ...r, now })));
}

const DOMAIN = (() => {
  const lists = approverLists();
  return requests().flatMap((r) => lists.map((approvers) => ({ ...r, approvers })));
})();

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

/**
 * The first activity of the domain the two sets decide differently (allowed or not), if any.
 * Each distinct policy is evaluated once per activity with the engine's evaluator, the decision
 * taken by the engine's rules (a DENY that applies refuses, else an ALLOW that applies allows);
 * a difference found is confirmed with `simulate` itself.
 */
export function exhaustiveDifference(before: readonly PolicyRecord[], after: readonly PolicyRecord[]): SimulatedActivity | undefined {
  const keyOf = (p: PolicyRecord) => JSON.stringify([p.effect, p.condition ?? "", p.consensus ?? "", p.time ?? ""]);
  const distinct = new Map<string, PolicyRecord>();
  for (const p of [...before, ...after]) distinct.set(keyOf(p), p);
  const [keysBefore, keysAfter] = [before.map(keyOf), after.map(keyOf)];
  // Dimensions no policy reads stay at one value (the decisions cannot differ along them).
  const text = [...distinct.keys()].join(" ");
  const reads = (word: string) => text.includes(word);
  const relevant = (a: SimulatedActivity) => {
    const k = (a.keywords ?? {}) as { wallet?: { id: string }; private_key?: unknown; eth?: { tx: { value: number; to: string } } };
    if (!reads("time") && a.now !== NOWS[0]) return false;
    if (!reads("eth") && k.eth && !(k.eth.tx.value === 0 && k.eth.tx.to === "0xaa")) return false;
    if (!reads("wallet") && k.wallet && k.wallet.id !== "w-1") return false;
    return true;
  };
  for (const { activity, kind, input } of INPUTS) {
    if (!relevant(activity)) continue;
    const outcome = new Map<string, string>();
    for (const [key, policy] of distinct) outcome.set(key, evaluatePolicy(policy, input).outcome);
    const allowed = (keys: readonly string[]) =>
      !ROOT_QUORUM_ONLY_KINDS.has(kind) && !keys.some((k) => outcome.get(k) === "OUTCOME_DENY_EXPLICIT") && keys.some((k) => outcome.get(k) === "OUTCOME_ALLOW");
    if (allowed(keysBefore) !== allowed(keysAfter)) {
      const confirmed = (simulate(before, activity).outcome === "OUTCOME_ALLOW") !== (simulate(after, activity).outcome === "OUTCOME_ALLOW");
      if (!confirmed) throw new Error(`the oracle's decision rule differs from simulate on ${JSON.stringify(activity)}`);
      return activity;
    }
  }
  return undefined;
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
