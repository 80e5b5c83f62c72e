/**
 * @module policy/smt/diff
 * Which access decisions change between two policy sets, proved with Z3 over the policy
 * language (see `encode.ts` for the encoded fragment) rather than sampled: for each user (or
 * class of users no policy tells apart), activity type (or class of types) and referenced
 * wallet or private key, whether the submitter alone, or with some set of approvers, goes from
 * refused to allowed ("gains") or the reverse ("loses"). Each change comes with a concrete
 * witness activity, which is replayed through the evaluator (`simulate`) on both sides to
 * confirm it; a witness that relies on a clause outside the fragment may not replay and says so.
 * "No change" answers are proofs for the encoded fragment; opaque clauses are kept equal on
 * both sides, so an unchanged opaque clause never hides a change elsewhere.
 *
 * Decision model (the service's documented rules): the root quorum is out of scope (it
 * bypasses policies); a root-quorum-only activity is refused; any applicable DENY refuses; else
 * any applicable ALLOW allows; a policy applies when its condition, consensus and time hold and
 * none of them errors (an error is no match). Own-credential changes allowed without a policy
 * are not modelled (the same on both sides unless a DENY on them changes).
 */
import { memberPath, walk, type Expr } from "../ast";
import { activityKind, resourceAndAction, ROOT_QUORUM_ONLY_KINDS } from "../activity";
import { activityCatalog } from "../catalog";
import { compiledExpression } from "../compile";
import { conditionMayMatch } from "../coverage";
import type { PolicyRecord } from "../engine";
import { simulate, type SimulatedActivity, type SimulatedUser } from "../simulate";
import { Encoder, RequestSpace, type TypeSlot, type UserSlot, type Z3Bool, type Z3Context } from "./encode";

/** A user of the organization, as the diff sees principals. */
export interface DiffUser {
  readonly id: string;
  /** Tag ids. */
  readonly tags?: readonly string[];
  readonly email?: string;
  /** The user name (the `alias` of the approvers keyword). */
  readonly alias?: string;
}

/** One changed decision. */
export interface AccessChange {
  /** `gains`: refused before, allowed after; `loses`: the reverse. */
  readonly direction: "gains" | "loses";
  /** `alone`: the submitter without approvers; `with approvers`: with the approvers of the witness (a consensus change). */
  readonly how: "alone" | "with approvers";
  /** Every user the change applies to (ids). */
  readonly users: readonly string[];
  /** Every activity kind the change applies to. */
  readonly kinds: readonly string[];
  /** `wallet w-1`, `private key pk-1`, `another wallet`, `another private key` or undefined (no signing target involved). */
  readonly target?: string;
  /** A concrete activity that is decided differently. */
  readonly witness: SimulatedActivity;
  readonly before: string;
  readonly after: string;
  /** The evaluator decides the witness as claimed on both sides. */
  readonly confirmed: boolean;
}

/** The result of {@link diffPolicies}. */
export interface AccessDiff {
  readonly changes: readonly AccessChange[];
  /** Clauses outside the proved fragment (encoded as opaque, equal on both sides). */
  readonly notProved: readonly string[];
  /** How the principals were obtained. */
  readonly principals: string;
  readonly userCount: number;
  readonly typeCount: number;
  /** True when the search stopped at `maxChanges`. */
  readonly truncated: boolean;
}

export interface DiffOptions {
  /** The organization's users; without them, principals are made up from the ids and tags the policies name. */
  readonly users?: readonly DiffUser[];
  /** Stop after this many changes (default 500). */
  readonly maxChanges?: number;
}

let z3: Promise<Z3Context> | undefined;

/** The Z3 context (the WebAssembly build loads once per process; later calls reuse it). */
export async function z3Context(): Promise<Z3Context> {
  // Loaded on first use: importing the policy API must not load the solver.
  z3 ??= import("z3-solver").then(({ init }) => init()).then(({ Context }) => Context("main"));
  return z3;
}

interface Literals {
  /** `activity.type`, `.kind`, `.resource`, `.action` → literals compared with it. */
  readonly facts: Map<string, Set<string>>;
  /** Top-level params fields read. */
  readonly params: Set<string>;
  readonly keywords: Set<string>;
  /** String literals of consensus expressions (ids, tags, emails, aliases). */
  readonly consensus: Set<string>;
  /** Tag literals (`tags.contains('…')`). */
  readonly tags: Set<string>;
  /** Largest int in a consensus expression (approval thresholds). */
  maxCount: number;
  readonly wallets: Set<string>;
  readonly privateKeys: Set<string>;
}

function collectLiterals(policies: readonly PolicyRecord[]): Literals {
  const found: Literals = { facts: new Map(), params: new Set(), keywords: new Set(), consensus: new Set(), tags: new Set(), maxCount: 1, wallets: new Set(), privateKeys: new Set() };
  const strings = (e: Expr): string[] => (e.kind === "string" ? [e.value] : e.kind === "list" ? e.items.flatMap(strings) : []);
  for (const policy of policies) {
    for (const kind of ["condition", "consensus"] as const) {
      const text = policy[kind];
      const expr = text ? compiledExpression(kind, text).expr : undefined;
      if (!expr) continue;
      walk(expr, (node) => {
        if (node.kind === "ident") found.keywords.add(node.name);
        if (node.kind === "member" && memberPath(node.object) === "activity.params") found.params.add(node.name);
        if (node.kind === "compare") {
          const path = memberPath(node.left);
          if (path && /^activity\.(type|kind|resource|action)$/.test(path)) {
            const set = found.facts.get(path) ?? new Set<string>();
            for (const s of strings(node.right)) set.add(s);
            found.facts.set(path, set);
          }
          if (path === "wallet.id") strings(node.right).forEach((s) => found.wallets.add(s));
          if (path === "private_key.id") strings(node.right).forEach((s) => found.privateKeys.add(s));
        }
        if (kind === "consensus") {
          if (node.kind === "string") found.consensus.add(node.value);
          if (node.kind === "int" && node.value < 100n) found.maxCount = Math.max(found.maxCount, Number(node.value));
          if (node.kind === "method" && node.name === "contains" && node.args[0]?.kind === "string") found.tags.add(node.args[0].value);
        }
      });
    }
  }
  return found;
}

/** Activity types: the catalog, plus types and kinds the policies name that it lacks. */
function typeUniverse(literals: Literals): TypeSlot[] {
  const slots = new Map<string, TypeSlot>();
  for (const entry of activityCatalog().values()) {
    slots.set(entry.type, { type: entry.type, kind: entry.kind, ...resourceAndAction(entry.kind), params: entry.params, keywords: entry.keywords, rootOnly: ROOT_QUORUM_ONLY_KINDS.has(entry.kind) });
  }
  const add = (type: string) => {
    if (slots.has(type)) return;
    const kind = activityKind(type);
    slots.set(type, { type, kind, ...resourceAndAction(kind), rootOnly: ROOT_QUORUM_ONLY_KINDS.has(kind) });
  };
  for (const type of literals.facts.get("activity.type") ?? []) if (type.startsWith("ACTIVITY_TYPE_")) add(type);
  const kinds = new Set([...slots.values()].map((s) => s.kind));
  for (const kind of literals.facts.get("activity.kind") ?? []) if (!kinds.has(kind)) add(`ACTIVITY_TYPE_${kind}`);
  return [...slots.values()];
}

/** Groups items by a signature: the first of each group stands for the rest. */
function classes<T>(items: readonly T[], signature: (item: T) => string): T[][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = signature(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}

function typeSignature(slot: TypeSlot, literals: Literals): string {
  const parts: unknown[] = [slot.rootOnly, slot.params === undefined, slot.keywords === undefined];
  for (const [path, set] of literals.facts) {
    const value = slot[path.split(".")[1] as "type"];
    parts.push([...set].map((literal) => literal === value));
  }
  for (const field of literals.params) parts.push(slot.params?.[field] ?? null);
  for (const keyword of literals.keywords) parts.push(slot.keywords?.has(keyword) ?? null);
  return JSON.stringify(parts);
}

/** Users made up from what the policies name, when the organization's users are not given. */
function syntheticUsers(literals: Literals): DiffUser[] {
  const users: DiffUser[] = [];
  const copies = Math.min(Math.max(literals.maxCount, 2), 5);
  for (const literal of literals.consensus) if (!literals.tags.has(literal)) users.push({ id: literal });
  for (const tag of literals.tags) for (let i = 1; i <= copies; i++) users.push({ id: `(a user tagged ${tag} #${i})`, tags: [tag] });
  for (let i = 1; i <= copies; i++) users.push({ id: `(another user #${i})` });
  return users;
}

/** Sets `path` (`eth.tx.contract_call_args['wad']`) in a nested object. */
function setPath(root: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = root;
  segments.forEach((segment, i) => {
    if (i === segments.length - 1) {
      node[segment] = value;
      return;
    }
    if (typeof node[segment] !== "object" || node[segment] === null) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  });
}

const segmentsOf = (path: string) => path.split(/\.|\[/).map((s) => s.replace(/^'|'\]$/g, ""));

/** Runs the change search over two policy sets. */
export async function diffPolicies(before: readonly PolicyRecord[], after: readonly PolicyRecord[], options: DiffOptions = {}): Promise<AccessDiff> {
  const z = await z3Context();
  const literals = collectLiterals([...before, ...after]);
  const allTypes = typeUniverse(literals);
  const typeClasses = classes(allTypes, (slot) => typeSignature(slot, literals));
  const givenUsers = options.users !== undefined && options.users.length > 0;
  const users: UserSlot[] = (givenUsers ? options.users! : syntheticUsers(literals)).map((u) => ({ id: u.id, tags: u.tags ?? [], email: u.email ?? "", alias: u.alias ?? "" }));
  const userSignature = (u: UserSlot) =>
    JSON.stringify([literals.consensus.has(u.id) ? u.id : "", u.tags.filter((t) => literals.consensus.has(t)).sort(), literals.consensus.has(u.email) ? u.email : "", literals.consensus.has(u.alias) ? u.alias : ""]);
  const userClasses = classes(users, userSignature);
  const space = new RequestSpace(
    z,
    typeClasses.map((group) => group[0]!),
    userClasses,
  );
  const decisionOf = (policies: readonly PolicyRecord[]) => {
    const encoder = new Encoder(space);
    const applies = policies.map((policy) => {
      const parts = (["condition", "consensus", "time"] as const).map((kind) => encoder.expression(kind, policy[kind]));
      return { effect: policy.effect, v: z.And(...parts.map((p) => p.v), z.Not(z.Or(...parts.map((p) => p.err)))) };
    });
    const denied = z.Or(z.Bool.val(false), ...applies.filter((a) => a.effect === "EFFECT_DENY").map((a) => a.v));
    const allowed = z.Or(z.Bool.val(false), ...applies.filter((a) => a.effect === "EFFECT_ALLOW").map((a) => a.v));
    return z.And(z.Not(space.rootOnly()), z.Not(denied), allowed);
  };
  const allowedBefore = decisionOf(before);
  const allowedAfter = decisionOf(after);
  const wallets = [...literals.wallets];
  const keys = [...literals.privateKeys];
  const walletId = space.intVar("str:wallet.id");
  const keyId = space.intVar("str:private_key.id");

  const changes: AccessChange[] = [];
  const maxChanges = options.maxChanges ?? 500;
  let truncated = false;
  const covered = new Set<string>();
  for (const direction of ["gains", "loses"] as const) {
    const changed = direction === "gains" ? z.And(z.Not(allowedBefore), allowedAfter) : z.And(allowedBefore, z.Not(allowedAfter));
    const blocks: Z3Bool[] = [];
    for (const how of ["alone", "with approvers"] as const) {
      const solver = new z.Solver();
      solver.add(space.wellFormed(), changed, ...blocks);
      if (how === "alone") solver.add(space.alone());
      for (;;) {
        if (changes.length >= maxChanges) {
          truncated = true;
          break;
        }
        if ((await solver.check()) !== "sat") break;
        const model = solver.model();
        const num = (e: Parameters<typeof model.eval>[0]) => BigInt(model.eval(e, true).toString());
        const t = Number(num(space.t));
        const s = Number(num(space.s));
        const target = Number(num(space.target));
        // The cell: type class and signing target (a referenced id or "another"); the submitter is added below.
        let cell: Z3Bool = z.And(space.t.eq(t), space.target.eq(target));
        let targetLabel: string | undefined;
        if (target === 1) {
          const id = space.literalOf(num(walletId));
          const named = id !== undefined && wallets.includes(id);
          cell = z.And(cell, named ? walletId.eq(space.code(id)) : z.And(z.Bool.val(true), ...wallets.map((w) => walletId.neq(space.code(w)))));
          targetLabel = named ? `wallet ${id}` : "another wallet";
        } else if (target === 2) {
          const id = space.literalOf(num(keyId));
          const named = id !== undefined && keys.includes(id);
          cell = z.And(cell, named ? keyId.eq(space.code(id)) : z.And(z.Bool.val(true), ...keys.map((k) => keyId.neq(space.code(k)))));
          targetLabel = named ? `private key ${id}` : "another private key";
        }
        const witness = witnessOf(space, model, t, s, target);
        // Policies ruled out by the activity's type cannot apply to it: replay only the others.
        const mayMatch = (p: PolicyRecord) => conditionMayMatch(p.condition ? compiledExpression("condition", p.condition).expr : undefined, witness.type);
        const [beforeHere, afterHere] = [before.filter(mayMatch), after.filter(mayMatch)];
        const replay = (activity: SimulatedActivity) => {
          const [b, a] = [simulate(beforeHere, activity), simulate(afterHere, activity)];
          const [allowedB, allowedA] = [b.outcome === "OUTCOME_ALLOW", a.outcome === "OUTCOME_ALLOW"];
          return { b, a, confirmed: direction === "gains" ? !allowedB && allowedA : allowedB && !allowedA };
        };
        const first = replay(witness);
        // The same activity submitted by each other class of users: a replayed change is proved by
        // its concrete witness, so only the classes it does not cover go back to the solver.
        const submitters = [s];
        if (first.confirmed) {
          const others = (witness.approvers ?? []).slice(1);
          for (let k = 0; k < userClasses.length; k++) {
            const key = `${direction}|${k}|${t}|${targetLabel ?? ""}`;
            if (k === s || covered.has(key)) continue;
            const user = userClasses[k]![0]!;
            const approvers = [{ id: user.id, tags: user.tags, email: user.email, alias: user.alias }, ...others.filter((o) => o.id !== user.id)];
            if (how === "alone" && approvers.length > 1) continue;
            if (replay({ ...witness, approvers }).confirmed) submitters.push(k);
          }
        }
        for (const k of submitters) covered.add(`${direction}|${k}|${t}|${targetLabel ?? ""}`);
        const block = z.Not(z.And(cell, z.Or(...submitters.map((k) => space.s.eq(k)))));
        solver.add(block);
        blocks.push(block);
        const typeClass = typeClasses[t]!;
        changes.push({
          direction,
          how,
          users: submitters.flatMap((k) => userClasses[k]!.map((u) => u.id)),
          kinds: [...new Set(typeClass.map((slot) => slot.kind))],
          ...(targetLabel ? { target: targetLabel } : {}),
          witness,
          before: first.b.outcome,
          after: first.a.outcome,
          confirmed: first.confirmed,
        });
      }
    }
  }
  return {
    changes,
    notProved: [...space.opaque],
    principals: givenUsers ? `${users.length} users of the organization` : `${users.length} users made up from the ids and tags the policies name`,
    userCount: users.length,
    typeCount: allTypes.length,
    truncated,
  };
}

/** A concrete activity from a model: type, approvers, params, signing target and chain payload. */
function witnessOf(space: RequestSpace, model: { eval(e: never, complete?: boolean): { toString(): string } }, t: number, s: number, target: number): SimulatedActivity {
  const read = (e: unknown) => model.eval(e as never, true).toString();
  const slot = space.types[t]!;
  const submitter = space.userClasses[s]![0]!;
  // n approvals from a class: its first n users, the submitter counted in its own class.
  const others = space.userClasses.flatMap((members, i) => {
    const n = Number(read(space.approvals[i]));
    return i === s ? members.slice(1, n) : members.slice(0, n);
  });
  const approvers: SimulatedUser[] = [submitter, ...others].map((u) => ({
    id: u.id,
    tags: u.tags,
    email: u.email,
    alias: u.alias,
  }));
  const params: Record<string, unknown> = {};
  const keywords: Record<string, unknown> = {};
  if (target === 1) keywords.wallet = { id: "", imported: false, exported: false, label: "" };
  if (target === 1) keywords.wallet_account = { address: "" };
  if (target === 2) keywords.private_key = { id: "", tags: [], imported: false, exported: false, label: "" };
  for (const [chain, present] of space.chainPresent) if (read(present) === "true") keywords[chain] = {};
  for (const [key, variable] of space.variables()) {
    const match = /^(i|b):(str:|count:)?(.*)$/.exec(key);
    if (!match || match[3]!.startsWith("has:") || match[3]!.startsWith("err:") || match[3]!.startsWith("opaque")) continue;
    const path = match[3]!;
    const [root, ...rest] = segmentsOf(path);
    const value = read(variable);
    let converted: unknown;
    if (match[1] === "b") converted = value === "true";
    else if (match[2] === "str:") converted = space.literalOf(BigInt(value)) ?? `other-${value.replace("-", "m")}`;
    else if (match[2] === "count:") converted = Array.from({ length: Math.max(0, Math.min(Number(value), 50)) }, (_, i) => `item-${i}`);
    else converted = value;
    if (root === "activity" && rest[0] === "params") {
      const field = rest[1]!;
      const present = slot.params?.[field] === true || (slot.params?.[field] === false || slot.params === undefined ? read(space.boolVar(`has:activity.params.${field}`)) === "true" : false);
      if (present) setPath(params, rest.slice(1), converted);
    } else if (root !== undefined && root in keywords) {
      setPath(keywords, [root, ...rest], converted);
    }
  }
  // A chain payload no policy read says nothing: leave it out.
  for (const chain of space.chainPresent.keys()) if (keywords[chain] && Object.keys(keywords[chain] as object).length === 0) delete keywords[chain];
  return { type: slot.type, parameters: params, approvers, keywords };
}
