/**
 * @module policy/smt/universe
 * The request space a proof ranges over, built from two policy sets:
 *
 * - activity types: the catalog's (the service's documented kinds and versions, with their
 *   params and keywords); a type a policy names that the service does not have is no request
 *   anyone can submit, so it is not part of the space; types no literal of the policies tells
 *   apart share one class;
 * - approvers: with the organization's users, one slot per profile of its users (see `encode.ts`);
 *   besides, one slot per user id the policies name (one user each) and as many generic slots
 *   (any user, any tags, any number of users per slot) as a small-model argument needs: if some
 *   set of approvers tells the two sides apart, a set with at most
 *   `1 + Σ (c + 1) + e` distinct unnamed profiles does too, where the sum runs over the approver
 *   clauses a generic user can satisfy (`c` is the constant a count is compared with, 0 for
 *   any/all) and `e` counts clauses whose predicate may error: keep the submitter, every
 *   unnamed user of a clause met at most `c` times, and `c + 1` of a clause met more often;
 *   every clause then reads the same.
 */
import { memberPath, printExpr, walk, type Expr } from "../ast";
import { activityKind, ROOT_QUORUM_ONLY_KINDS } from "../activity";
import { activityCatalog, ALL_CHAIN_PAYLOADS } from "../catalog";
import { compiledExpression } from "../compile";
import { conditionMayMatch } from "../coverage";
import type { PolicyRecord } from "../engine";
import { CHAINS, mayCarry, type TypeSlot } from "./encode";
import { nonEmptyLists } from "./witness";

/** String literals of all expressions (either side of any comparison), params fields and keywords read. */
export interface Literals {
  readonly strings: Set<string>;
  readonly params: Set<string>;
  readonly keywords: Set<string>;
  /** Ids compared with an approver's `id`. */
  readonly userIds: Set<string>;
  readonly wallets: Set<string>;
  readonly privateKeys: Set<string>;
}

const expressionsOf = (policy: PolicyRecord) =>
  (["condition", "consensus", "time"] as const).map((kind) => (policy[kind] ? compiledExpression(kind, policy[kind]!).expr : undefined)).filter((e): e is Expr => e !== undefined);

const stringsIn = (e: Expr): string[] => (e.kind === "string" ? [e.value] : e.kind === "list" ? e.items.flatMap(stringsIn) : []);

/** The literals of `policies`, with `more` strings the question names besides (a kind, a target id). */
export function collectLiterals(policies: readonly PolicyRecord[], more: readonly string[] = []): Literals {
  const found: Literals = { strings: new Set(more), params: new Set(), keywords: new Set(), userIds: new Set(), wallets: new Set(), privateKeys: new Set() };
  for (const policy of policies) {
    for (const expr of expressionsOf(policy)) {
      walk(expr, (node) => {
        if (node.kind === "string") found.strings.add(node.value);
        if (node.kind === "ident") found.keywords.add(node.name);
        if (node.kind === "member" && memberPath(node.object) === "activity.params") found.params.add(node.name);
        if (node.kind !== "compare") return;
        for (const [side, other] of [
          [node.left, node.right],
          [node.right, node.left],
        ] as const) {
          const path = memberPath(side);
          if (side.kind === "member" && side.name === "id" && side.object.kind === "ident" && !["wallet", "private_key"].includes(side.object.name)) stringsIn(other).forEach((s) => found.userIds.add(s));
          if (path === "wallet.id") stringsIn(other).forEach((s) => found.wallets.add(s));
          if (path === "private_key.id") stringsIn(other).forEach((s) => found.privateKeys.add(s));
        }
      });
    }
  }
  return found;
}


/** Request fields that name what a request signs or exports: a request with one required always has a target. */
const TARGET_FIELDS = ["sign_with", "wallet_id", "private_key_id", "address", "wallet_address"];

/**
 * Activity types: the catalog's, and only those. Verdicts speak of the activities a client can
 * submit today: a version or kind the service does not have is no row of a diff and no answer of
 * `can` (a policy that matches an exact version, and so stops applying when the service moves the
 * kind to a new one, is a finding of its own: {@link versionMigrations}).
 */
export function typeUniverse(_literals?: Literals): TypeSlot[] {
  // The catalog is fixed for the process: its slots are built once (a few milliseconds a call,
  // most of it sampling wire schemas), and each caller gets its own array of the same slots.
  slots ??= [...activityCatalog().values()].map((entry) => ({
    type: entry.type,
    kind: entry.kind,
    resource: entry.resource,
    action: entry.action,
    params: entry.params,
    keywords: entry.keywords,
    rootOnly: ROOT_QUORUM_ONLY_KINDS.has(entry.kind),
    targeted: TARGET_FIELDS.some((field) => entry.requestFields[field] === true),
    paramTypes: entry.paramTypes,
    nonEmptyLists: nonEmptyLists(entry.type),
  }));
  return [...slots];
}

/** The catalog's types as slots, built at the first {@link typeUniverse}; the slots are never changed. */
let slots: readonly TypeSlot[] | undefined;

/** A policy that names an exact activity type: it stops applying when the service moves that kind to a new version. */
export interface VersionMigration {
  readonly policyId: string;
  readonly policyName: string;
  /** `ACTIVITY_TYPE_SIGN_TRANSACTION_V2`. */
  readonly type: string;
  readonly kind: string;
  readonly note: string;
}

/**
 * The exact `activity.type` matches of `policies` (compared with `==`, `!=` or `in`): what they
 * decide today is part of the diff; that they stop applying after a version migration is a
 * note, never a gain or loss.
 */
export function versionMigrations(policies: readonly PolicyRecord[]): VersionMigration[] {
  const found: VersionMigration[] = [];
  const seen = new Set<string>();
  for (const policy of policies) {
    const condition = policy.condition?.trim() ? compiledExpression("condition", policy.condition).expr : undefined;
    if (!condition) continue;
    walk(condition, (node) => {
      if (node.kind !== "compare") return;
      const [path, other] = memberPath(node.left) === "activity.type" ? [node.left, node.right] : memberPath(node.right) === "activity.type" ? [node.right, node.left] : [undefined, undefined];
      if (!path || !other) return;
      for (const type of stringsIn(other)) {
        const key = `${policy.policyId}\u0000${type}`;
        if (seen.has(key) || !/^ACTIVITY_TYPE_/.test(type)) continue;
        seen.add(key);
        const kind = activityKind(type);
        found.push({
          policyId: policy.policyId,
          policyName: policy.policyName ?? policy.policyId,
          type,
          kind,
          note: `${JSON.stringify(policy.policyName ?? policy.policyId)} matches ${type} exactly: it stops applying when the service moves ${kind} to a new version; activity.kind == '${kind}' keeps applying`,
        });
      }
    });
  }
  return found;
}

/** Groups items by a signature: the first of each group stands for the rest. */
export function classes<T>(items: readonly T[], signature: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = signature(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}

/** What the policies can tell apart of a type: facts equal to a literal, params fields, keywords, root-only. */
export function typeSignature(slot: TypeSlot, literals: Literals): string {
  const fact = (value: string) => (literals.strings.has(value) ? value : "");
  const parts: unknown[] = [slot.rootOnly, slot.params === undefined, slot.keywords === undefined, fact(slot.type), fact(slot.kind), fact(slot.resource), fact(slot.action)];
  for (const field of literals.params) parts.push(slot.params?.[field] ?? null);
  for (const keyword of ["wallet", "wallet_account", "private_key", ...CHAINS]) parts.push(slot.keywords?.has(keyword) ?? null);
  for (const payload of ALL_CHAIN_PAYLOADS) parts.push(mayCarry(slot, payload));
  for (const field of ["sign_with", "wallet_id", "private_key_id"]) parts.push(slot.params?.[field] ?? null);
  parts.push(slot.targeted === true);
  for (const field of literals.params) parts.push(slot.paramTypes?.[field] ?? null, slot.nonEmptyLists?.has(field) ?? false);
  return JSON.stringify(parts);
}

/** Whether a user predicate may hold for a user no policy names by id (false only when it surely cannot). */
function mayHoldForUnnamed(predicate: Expr, variable: string, want: boolean): boolean {
  const truth = (e: Expr): boolean | undefined => {
    if (e.kind === "not") {
      const inner = truth(e.operand);
      return inner === undefined ? undefined : !inner;
    }
    if (e.kind === "logical") {
      const [l, r] = [truth(e.left), truth(e.right)];
      if (e.op === "&&") return l === false || r === false ? false : l === true && r === true ? true : undefined;
      return l === true || r === true ? true : l === false && r === false ? false : undefined;
    }
    if (e.kind === "compare" && (e.op === "==" || e.op === "!=" || e.op === "in")) {
      const isId = (x: Expr) => x.kind === "member" && x.name === "id" && x.object.kind === "ident" && x.object.name === variable;
      const literal = (x: Expr) => x.kind === "string" || (x.kind === "list" && x.items.every((i) => i.kind === "string"));
      if ((isId(e.left) && literal(e.right)) || (isId(e.right) && literal(e.left))) return e.op === "!=";
    }
    return undefined;
  };
  const value = truth(predicate);
  return value === undefined || value === want;
}

/** Whether an expression reads anything besides its lambda variable's fields (so it may error). */
function readsOutside(predicate: Expr, variable: string): boolean {
  let outside = false;
  walk(predicate, (node) => {
    if (node.kind === "ident" && node.name !== variable) outside = true;
  });
  return outside;
}

/** One approver clause's share of the generic-slot bound, or undefined when a count is compared with no constant. */
function approverClauses(expr: Expr): { text: string; size: number | undefined }[] {
  const constants = new Map<Expr, number>();
  walk(expr, (node) => {
    if (node.kind !== "compare") return;
    if (node.right.kind === "int") constants.set(node.left, Math.max(0, Number(node.right.value)));
    if (node.left.kind === "int") constants.set(node.right, Math.max(0, Number(node.left.value)));
  });
  const found: { text: string; size: number | undefined }[] = [];
  walk(expr, (node) => {
    if (node.kind !== "method") return;
    const onApprovers = node.object.kind === "ident" && node.object.name === "approvers";
    const filtered = node.name === "count" && node.object.kind === "method" && node.object.name === "filter" && node.object.object.kind === "ident" && node.object.object.name === "approvers";
    const key = printExpr(node);
    if (filtered) {
      const filter = node.object as Extract<Expr, { kind: "method" }>;
      const variable = filter.args[0]?.kind === "ident" ? filter.args[0].name : "";
      const c = constants.get(node);
      const holds = filter.args[1] ? mayHoldForUnnamed(filter.args[1], variable, true) : true;
      const errs = filter.args[1] ? readsOutside(filter.args[1], variable) : false;
      found.push({ text: key, size: c === undefined ? undefined : (holds ? c + 1 : 0) + (errs ? 1 : 0) });
    } else if (onApprovers && node.name === "count") {
      const c = constants.get(node);
      found.push({ text: key, size: c === undefined ? undefined : c + 1 });
    } else if (onApprovers && (node.name === "any" || node.name === "all") && node.args[0]?.kind === "ident" && node.args[1]) {
      const variable = node.args[0].name;
      const holds = mayHoldForUnnamed(node.args[1], variable, node.name === "any");
      found.push({ text: key, size: (holds ? 1 : 0) + (readsOutside(node.args[1], variable) ? 1 : 0) });
    }
  });
  return found;
}

/** Generic approver slots enough for an exact answer on activities of `type`, or undefined when no bound is known. */
export function genericSlotsNeeded(policies: readonly PolicyRecord[], type: string): number | undefined {
  const sizes = new Map<string, number>();
  for (const policy of policies) {
    const condition = policy.condition ? compiledExpression("condition", policy.condition).expr : undefined;
    if (policy.condition && !condition) continue;
    if (!conditionMayMatch(condition, type)) continue;
    const text = policy.consensus ?? "";
    const consensus = text.trim() ? compiledExpression("consensus", text).expr : undefined;
    if (!consensus) continue;
    for (const clause of approverClauses(consensus)) {
      if (clause.size === undefined) return undefined;
      sizes.set(clause.text, Math.max(sizes.get(clause.text) ?? 0, clause.size));
    }
  }
  return 1 + [...sizes.values()].reduce((a, b) => a + b, 0);
}
