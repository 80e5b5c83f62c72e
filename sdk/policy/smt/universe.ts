/**
 * @module policy/smt/universe
 * The request space a proof ranges over, built from two policy sets:
 *
 * - activity types: every catalog type, every type the policies name, and for every kind an
 *   unconstrained "another version" (params and keywords unknown), plus for every resource and
 *   action a kind keyform does not know yet; types no literal of the policies tells apart share
 *   one class;
 * - approvers: one slot per user id the policies name (one user each) and as many generic slots
 *   (any user, any tags, any number of users per slot) as a small-model argument needs: if some
 *   set of approvers tells the two sides apart, a set with at most
 *   `1 + Σ (c + 1) + e` distinct unnamed profiles does too, where the sum runs over the approver
 *   clauses a generic user can satisfy (`c` is the constant a count is compared with, 0 for
 *   any/all) and `e` counts clauses whose predicate may error: keep the submitter, every
 *   unnamed user of a clause met at most `c` times, and `c + 1` of a clause met more often;
 *   every clause then reads the same.
 */
import { memberPath, printExpr, walk, type Expr } from "../ast";
import { activityKind, resourceAndAction, ROOT_QUORUM_ONLY_KINDS } from "../activity";
import { activityCatalog, ALL_CHAIN_PAYLOADS } from "../catalog";
import { compiledExpression } from "../compile";
import { conditionMayMatch } from "../coverage";
import type { PolicyRecord } from "../engine";
import { CHAINS, mayCarry, type TypeSlot } from "./encode";

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

const versionOf = (type: string) => Number(/_V(\d+)$/.exec(type)?.[1] ?? 1);

/** Activity types: the catalog, the types and kinds the policies name, another version of each kind, another kind per resource and action. */
export function typeUniverse(literals: Literals): TypeSlot[] {
  const slots = new Map<string, TypeSlot>();
  const slotOf = (type: string, known?: { params: Readonly<Record<string, boolean>>; keywords: ReadonlySet<string> }): TypeSlot => {
    const kind = activityKind(type);
    return { type, kind, ...resourceAndAction(kind), ...(known ? { params: known.params, keywords: known.keywords } : {}), rootOnly: ROOT_QUORUM_ONLY_KINDS.has(kind) };
  };
  for (const entry of activityCatalog().values()) slots.set(entry.type, slotOf(entry.type, entry));
  for (const literal of literals.strings) if (/^ACTIVITY_TYPE_[A-Z0-9_]+$/.test(literal) && !slots.has(literal)) slots.set(literal, slotOf(literal));
  const kinds = new Set([...slots.values()].map((s) => s.kind));
  for (const literal of literals.strings) if (/^[A-Z][A-Z0-9_]*$/.test(literal) && !literal.startsWith("ACTIVITY_TYPE_") && !kinds.has(literal) && resourceAndAction(literal)) kinds.add(literal);
  // Another version of each kind: older or newer than any keyform or the policies know, its params and keywords unknown.
  for (const kind of kinds) {
    const versions = [...slots.values()].filter((s) => s.kind === kind).map((s) => versionOf(s.type));
    const type = `ACTIVITY_TYPE_${kind}_V${Math.max(1, ...versions) + 1}`;
    if (!slots.has(type)) slots.set(type, slotOf(type));
  }
  // A kind not known yet, for each resource and action: a name the service's naming rule gives that pair.
  const pairs = new Map<string, { resource: string; action: string }>();
  for (const slot of slots.values()) pairs.set(`${slot.resource}/${slot.action}`, { resource: slot.resource, action: slot.action });
  for (const { resource, action } of pairs.values()) {
    const candidates = [...[...kinds].filter((k) => { const r = resourceAndAction(k); return r.resource === resource && r.action === action; }).map((k) => `${k}_NEXT`), `${action}_${resource}_NEXT`];
    const kind = candidates.find((k) => { const r = resourceAndAction(k); return r.resource === resource && r.action === action && !literals.strings.has(k) && !kinds.has(k); });
    if (kind) slots.set(`ACTIVITY_TYPE_${kind}`, slotOf(`ACTIVITY_TYPE_${kind}`));
  }
  return [...slots.values()];
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
