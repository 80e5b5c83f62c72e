/**
 * @module policy/coverage
 * Lints about which activities a policy can meet, from the activity catalog:
 *
 * - `keyword-unavailable`: a condition reads an `activity.params` field or a keyword that does
 *   not exist for activity types the policy can match. The policy errors there, and an erroring
 *   policy counts as no match: a DENY then blocks nothing for those types (warned when any type
 *   lacks a params field), an ALLOW never applies (warned when every type lacks it).
 * - `versioned-activity-type`: `activity.type` compared with an exact versioned type when a
 *   newer version exists; after the service moves to it, the policy stops matching.
 * - `keyword-unavailable` also for a DENY scoped to some activities (by type, kind, resource or
 *   action) that reads a chain payload (`eth.tx`) on kinds whose requests may carry another
 *   chain's payload instead: it errors, so blocks nothing, there.
 * - `deny-everything`: a DENY without time, whose consensus is absent or always holds
 *   (`approvers.count() >= 1`: the submitter always approves), and whose condition holds for
 *   every activity: it blocks every non-root request, policy changes included.
 *
 * "Types a policy can match" are those for which its condition is not false from the activity's
 * type, kind, resource and action alone (a three-valued reading: anything else is unknown).
 */
import { memberPath, walk, type Expr } from "./ast";
import { activityCatalog, ALL_CHAIN_PAYLOADS, CHAIN_PAYLOADS, latestTypeOf, UNIVERSAL_KEYWORDS, type ActivityTypeInfo } from "./catalog";
import { resourceAndAction } from "./activity";
import type { Diagnostic, Position } from "./errors";

const warning = (rule: string, message: string, position: Position): Diagnostic => ({ severity: "warning", rule, message, position });

/** true, false, or undefined when the activity's facts alone do not decide it. */
type Tri = boolean | undefined;
type Known = string | boolean | bigint | readonly Known[] | undefined;

const FACTS = new Set(["activity.type", "activity.kind", "activity.resource", "activity.action"]);

function facts(entry: Pick<ActivityTypeInfo, "type" | "kind">): Record<string, string> {
  return factsOf({ type: entry.type, kind: entry.kind, ...resourceAndAction(entry.kind) });
}

/** The facts of an activity as its condition paths name them. */
function factsOf(of: ActivityFacts): Record<string, string> {
  return { "activity.type": of.type, "activity.kind": of.kind, "activity.resource": of.resource, "activity.action": of.action };
}

/** The value of `expr` from the activity's facts, or undefined when it depends on anything else. */
function known(expr: Expr, of: Record<string, string>): Known {
  switch (expr.kind) {
    case "string":
    case "bool":
    case "int":
      return expr.value;
    case "list": {
      const items = expr.items.map((item) => known(item, of));
      return items.every((item) => item !== undefined) ? items : undefined;
    }
    case "member": {
      const path = memberPath(expr);
      return path !== undefined && FACTS.has(path) ? of[path] : undefined;
    }
    default:
      return truth(expr, of);
  }
}

/** Three-valued truth of a bool expression from the activity's facts. */
function truth(expr: Expr, of: Record<string, string>): Tri {
  switch (expr.kind) {
    case "bool":
      return expr.value;
    case "not": {
      const inner = truth(expr.operand, of);
      return inner === undefined ? undefined : !inner;
    }
    case "logical": {
      const [left, right] = [truth(expr.left, of), truth(expr.right, of)];
      if (expr.op === "&&") return left === false || right === false ? false : left === true && right === true ? true : undefined;
      return left === true || right === true ? true : left === false && right === false ? false : undefined;
    }
    case "compare": {
      const [left, right] = [known(expr.left, of), known(expr.right, of)];
      if (left === undefined || right === undefined) return undefined;
      if (expr.op === "==") return left === right;
      if (expr.op === "!=") return left !== right;
      if (expr.op === "in" && Array.isArray(right)) return right.includes(left);
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Whether a condition may hold for an activity of `type`: false only when its type, kind, resource and action rule it out. */
export function conditionMayMatch(condition: Expr | undefined, type: string): boolean {
  if (!condition) return true;
  const kind = type.replace(/^ACTIVITY_TYPE_/, "").replace(/_V\d+$/, "");
  return truth(condition, facts({ type, kind })) !== false;
}

/** An activity's type, kind, resource and action. */
export interface ActivityFacts {
  readonly type: string;
  readonly kind: string;
  readonly resource: string;
  readonly action: string;
}

/** Whether a condition may hold for an activity with these facts: false only when they rule it out. */
export function conditionMayMatchFacts(condition: Expr | undefined, of: ActivityFacts): boolean {
  if (!condition) return true;
  return truth(condition, factsOf(of)) !== false;
}

/** The catalog types whose facts do not rule the condition out (every type for no condition). */
export function matchableTypes(condition: Expr | undefined): ActivityTypeInfo[] {
  const all = [...activityCatalog().values()];
  return condition ? all.filter((entry) => truth(condition, facts(entry)) !== false) : all;
}

/** Keywords and top-level `activity.params` fields a condition reads, each at its first position (lambda variables excluded). */
function reads(condition: Expr): { keywords: Map<string, Position>; params: Map<string, Position> } {
  const keywords = new Map<string, Position>();
  const params = new Map<string, Position>();
  const bound = new Set<string>();
  walk(condition, (node) => {
    if (node.kind === "method" && node.args[0]?.kind === "ident" && node.args.length === 2) bound.add(node.args[0].name);
    if (node.kind === "ident" && !bound.has(node.name) && !keywords.has(node.name)) keywords.set(node.name, node.position);
    if (node.kind === "member" && node.object.kind === "member" && memberPath(node.object) === "activity.params" && !params.has(node.name)) {
      params.set(node.name, node.namePosition);
    }
    if (node.kind === "index" && memberPath(node.object) === "activity.params" && node.index.kind === "string" && !params.has(node.index.value)) {
      params.set(node.index.value, node.index.position);
    }
  });
  return { keywords, params };
}

/** "CREATE_POLICY, DELETE_USERS and 12 more". */
function list(kinds: readonly string[], limit = 6): string {
  const unique = [...new Set(kinds)].sort();
  return unique.length <= limit ? unique.join(", ") : `${unique.slice(0, limit).join(", ")} and ${unique.length - limit} more`;
}

function unavailable(effect: string, condition: Expr, matchable: readonly ActivityTypeInfo[]): Diagnostic[] {
  if (matchable.length === 0) return [];
  const found: Diagnostic[] = [];
  const { keywords, params } = reads(condition);
  const deny = effect === "EFFECT_DENY";
  for (const [field, at] of params) {
    const missing = matchable.filter((entry) => !(field in entry.params)).map((entry) => entry.kind);
    if (missing.length === 0 || (!deny && missing.length < matchable.length)) continue;
    const consequence = deny ? "this DENY blocks nothing there" : "this ALLOW never applies";
    found.push(
      warning(
        "keyword-unavailable",
        `'activity.params.${field}' does not exist for ${list(missing)}, which this policy can match: the policy errors there and an erroring policy counts as no match, so ${consequence}; scope it with activity.kind or activity.resource/activity.action`,
        at,
      ),
    );
  }
  for (const [keyword, at] of keywords) {
    if (UNIVERSAL_KEYWORDS.has(keyword)) continue;
    if (matchable.some((entry) => entry.keywords.has(keyword))) continue;
    found.push(
      warning(
        "keyword-unavailable",
        `'${keyword}' does not exist for any activity this policy can match (${list(matchable.map((e) => e.kind))}): the policy always errors, which counts as no match`,
        at,
      ),
    );
  }
  return found;
}

function versionedTypes(condition: Expr): Diagnostic[] {
  const found: Diagnostic[] = [];
  walk(condition, (node) => {
    if (node.kind !== "compare" || memberPath(node.left) !== "activity.type") return;
    const literals = node.right.kind === "string" ? [node.right] : node.right.kind === "list" ? node.right.items : [];
    for (const literal of literals) {
      if (literal.kind !== "string") continue;
      const version = /_V(\d+)$/.exec(literal.value);
      const kind = literal.value.replace(/^ACTIVITY_TYPE_/, "").replace(/_V\d+$/, "");
      const latest = latestTypeOf(kind);
      if (!latest || latest.version <= (version ? Number(version[1]) : 1)) continue;
      const { resource, action } = resourceAndAction(kind);
      found.push(
        warning(
          "versioned-activity-type",
          `'${literal.value}' is an exact version and ${latest.type} is newer: the policy stops matching when clients move to it; write activity.kind == '${kind}' (or activity.resource == '${resource}' && activity.action == '${action}')`,
          literal.position,
        ),
      );
    }
  });
  return found;
}

/** Whether a condition holds for every activity from its facts alone (no other keyword read). */
function holdsForEveryActivity(condition: Expr | undefined): boolean {
  if (!condition) return true;
  const { keywords } = reads(condition);
  if ([...keywords.keys()].some((k) => k !== "activity")) return false;
  let factsOnly = true;
  walk(condition, (node) => {
    if (node.kind === "member" && memberPath(node)?.startsWith("activity.params")) factsOnly = false;
  });
  return factsOnly && [...activityCatalog().values()].every((entry) => truth(condition, facts(entry)) === true);
}

/** The policy being linted: effect, parsed condition (undefined when empty), and whether consensus or time limit it. */
export interface PolicyShape {
  readonly effect: string;
  readonly condition?: Expr;
  readonly hasConsensus: boolean;
  /** The parsed consensus, when it compiles. */
  readonly consensus?: Expr;
  readonly hasTime: boolean;
}

/**
 * Whether a consensus holds for every request: the submitter is always one of the approvers, so
 * `approvers.count() >= 1` (or `> 0`) always holds, as does `true`; `&&` and `||` of such.
 */
function consensusAlwaysHolds(expr: Expr): boolean {
  if (expr.kind === "bool") return expr.value;
  if (expr.kind === "logical") return expr.op === "&&" ? consensusAlwaysHolds(expr.left) && consensusAlwaysHolds(expr.right) : consensusAlwaysHolds(expr.left) || consensusAlwaysHolds(expr.right);
  if (expr.kind !== "compare") return false;
  const isCount = (e: Expr) => e.kind === "method" && e.name === "count" && e.object.kind === "ident" && e.object.name === "approvers";
  const bound = (e: Expr) => (e.kind === "int" ? Number(e.value) : undefined);
  if (isCount(expr.left) && bound(expr.right) !== undefined) {
    const k = bound(expr.right)!;
    return (expr.op === ">=" && k <= 1) || (expr.op === ">" && k <= 0);
  }
  if (isCount(expr.right) && bound(expr.left) !== undefined) {
    const k = bound(expr.left)!;
    return (expr.op === "<=" && k <= 1) || (expr.op === "<" && k <= 0);
  }
  return false;
}

/**
 * `keyword-unavailable` for a DENY reading a chain payload (`eth.tx.to`): a request carries one
 * parsed payload at most, so on the requests of the kinds it matches that carry another (a
 * Solana or Bitcoin transaction) or none, the payload does not exist, the DENY errors, and it
 * blocks nothing there.
 */
function payloadUnavailable(condition: Expr, matchable: readonly ActivityTypeInfo[]): Diagnostic[] {
  const found: Diagnostic[] = [];
  const seen = new Set<string>();
  walk(condition, (node) => {
    if (node.kind !== "member") return;
    const path = memberPath(node);
    const [root = "", field = ""] = path?.split(".") ?? [];
    const payload = `${root}.${field}`;
    if (path === undefined || seen.has(payload) || !ALL_CHAIN_PAYLOADS.includes(payload)) return;
    seen.add(payload);
    const carrying = matchable.filter((entry) => (CHAIN_PAYLOADS[entry.kind] ?? []).includes(payload));
    if (carrying.length === 0) return;
    const others = [...new Set(carrying.flatMap((entry) => CHAIN_PAYLOADS[entry.kind]!.filter((p) => p !== payload)))];
    if (others.length === 0) return;
    found.push(
      warning(
        "keyword-unavailable",
        `'${payload}' exists only on requests that carry it: ${list(carrying.map((e) => e.kind))} requests carrying ${others.join(", ")} instead have no '${payload}', so this DENY errors there and blocks nothing on them (an erroring policy counts as no match); deny by what every request has (wallet, private_key, activity) or add a DENY per chain`,
        node.position,
      ),
    );
  });
  return found;
}

/** The coverage lints of one policy (see the module comment). */
export function lintCoverage(policy: PolicyShape): Diagnostic[] {
  const start = policy.condition?.position ?? { offset: 0, line: 1, column: 1 };
  const found: Diagnostic[] = [];
  const consensusHolds = !policy.hasConsensus || (policy.consensus !== undefined && consensusAlwaysHolds(policy.consensus));
  if (policy.effect === "EFFECT_DENY" && consensusHolds && !policy.hasTime && holdsForEveryActivity(policy.condition)) {
    found.push(
      warning(
        "deny-everything",
        "this DENY applies to every activity: every request that is not the root quorum's is refused, including changing this policy; scope its condition",
        start,
      ),
    );
  }
  if (!policy.condition) return found;
  const matchable = matchableTypes(policy.condition);
  found.push(...unavailable(policy.effect, policy.condition, matchable));
  // Only a DENY scoped to some activities: an unscoped chain DENY (the docs' Solana and Bitcoin examples) is that chain's rule alone.
  if (policy.effect === "EFFECT_DENY" && matchable.length < activityCatalog().size) found.push(...payloadUnavailable(policy.condition, matchable));
  found.push(...versionedTypes(policy.condition));
  return found;
}
