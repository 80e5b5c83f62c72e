/**
 * @module policy/smt/model-witness
 * A concrete activity from a solver model of a request space: the witness a diff, a `can`
 * question or a finding shows, replayed through the evaluator. It is read from the model's values
 * ({@link ModelValues}), not from the model, so it makes no call into Z3.
 */
import type { SimulatedActivity, SimulatedUser } from "../simulate";
import { payloadOf, RESERVED_CODE, type RequestSpace } from "./encode";
import type { ModelValues } from "./model-values";
import { withPayload } from "./payload-witness";
import { camelCaseKey, requiredParameters } from "./witness";

/** Sets `path` (`eth.tx.contract_call_args['wad']`) in a nested object. */
function setPath(root: Record<string, unknown>, segments: readonly string[], value: unknown): void {
  let node = root;
  segments.forEach((segment, i) => {
    if (i === segments.length - 1) {
      node[segment] = value;
      return;
    }
    if (typeof node[segment] !== "object" || node[segment] === null || Array.isArray(node[segment])) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  });
}

const segmentsOf = (path: string) => path.split(/\.|\[/).map((s) => s.replace(/^'|'\]$/g, ""));

/**
 * A concrete activity from a model's values: type, approvers, every required parameter, signing
 * target, chain payload, now. Reads only the values (it makes no call into Z3, so it may run
 * while a check does); a variable the space never made reads as its sort's default, as in the
 * model.
 */
export function witnessOf(space: RequestSpace, values: ModelValues, defaultNow: number): SimulatedActivity {
  const read = (e: object) => values.text(e);
  const num = (e: object) => values.int(e);
  const flag = (key: string) => {
    const variable = space.variables().get(`b:${key}`);
    return variable !== undefined && values.bool(variable);
  };
  const slot = space.types[Number(num(space.t))]!;
  const target = Number(num(space.target));
  // Strings: a literal, or another value named after where it is read.
  const others = new Map<string, string>();
  const text = (code: bigint, hint: string, classKey?: string) => {
    const literal = space.literalOf(code);
    if (literal !== undefined && (classKey === undefined || space.strings.literalsOf(classKey).has(Number(code)))) return literal;
    const key = code.toString();
    if (!others.has(key)) others.set(key, freshName(hint));
    return others.get(key)!;
  };
  // A made-up value stands for a string no policy names and unlike the other made-up ones:
  // `user-3` made up where a policy names user-3 would make that policy apply to the witness.
  const madeUp = new Set<string>();
  const freshName = (hint: string) => {
    let n = others.size + 1;
    while (madeUp.has(`${hint}-${n}`) || space.isLiteral(`${hint}-${n}`)) n++;
    madeUp.add(`${hint}-${n}`);
    return `${hint}-${n}`;
  };
  const tagsRead = new Map<number, string[]>();
  for (const [key, variable] of space.variables()) {
    const match = /^b:tag:(\d+)\u0000(.*)$/s.exec(key);
    if (match && read(variable) === "true") tagsRead.set(Number(match[1]), [...(tagsRead.get(Number(match[1])) ?? []), match[2]!]);
  }
  const s = Number(num(space.s));
  const userOf = (j: number, copy: number, count: number): SimulatedUser => {
    const slotJ = space.slots[j]!;
    // The organization's users: as they are, their own tags and nothing else.
    const member = slotJ.members?.[copy];
    if (member !== undefined) return { id: member.id, tags: [...member.tags], email: member.email, alias: member.alias };
    const idCode = num(slotJ.id);
    const id = slotJ.named ?? (idCode >= BigInt(RESERVED_CODE) || count > 1 ? `(user ${j + 1}.${copy + 1})` : text(idCode, "user", "user.id"));
    const email = text(num(slotJ.email), "other", "user.email");
    const alias = text(num(slotJ.alias), "other", "user.alias");
    return { id, tags: tagsRead.get(j) ?? [], email, alias };
  };
  const approvers: SimulatedUser[] = [];
  space.slots.forEach((_, j) => {
    const n = Math.min(Number(num(space.slots[j]!.n)), 1000);
    for (let copy = 0; copy < n; copy++) approvers.push(userOf(j, copy, n));
  });
  const first = firstOfSlot(space, values, s);
  const ordered = [approvers[first]!, ...approvers.filter((_, i) => i !== first)];

  const params: Record<string, unknown> = {};
  const keywords: Record<string, unknown> = {};
  const has = (name: string) => !slot.keywords || slot.keywords.has(name);
  // A target id no policy reads is another one of its kind.
  const targetText = (key: string, hint: string) => {
    const variable = space.variables().get(`i:${key}`);
    return variable !== undefined ? text(num(variable), hint, key) : text(BigInt(-1 - hint.length), hint);
  };
  if (target === 1 && has("wallet")) keywords.wallet = { id: targetText("str:wallet.id", "another-wallet"), imported: false, exported: false, label: "" };
  if (target === 1 && has("wallet_account")) keywords.wallet_account = { address: targetText("str:wallet_account.address", "another-address") };
  if (target === 2) keywords.private_key = { id: targetText("str:private_key.id", "another-private-key"), tags: [], imported: false, exported: false, label: "" };
  for (const [payload, present] of space.chainPresent) {
    if (read(present) !== "true") continue;
    const [chain, field] = payload.split(".") as [string, string];
    keywords[chain] = { ...((keywords[chain] as object | undefined) ?? {}), [field]: {} };
  }
  // A chain value is part of the request only when its payload is (the model's value of another is unused).
  const carried = (path: string) => {
    const payload = payloadOf(path);
    return payload === undefined || read(space.chainPresent.get(payload)!) === "true";
  };
  let now = Math.floor(defaultNow / 1000) * 1000;
  const sampled = requiredParameters(slot.type);
  // Chain fields whose read errors in the model (the payload must not carry them), and the payloads read at all.
  const absent = new Set<string>();
  const payloadsRead = new Set<string>();
  for (const [key, variable] of space.variables()) {
    const match = /^(i|b):(str:|count:)?(.*)$/s.exec(key);
    if (!match) continue;
    const path = match[3]!;
    if (/^(has|err|opaque|opaque-err|sorterr:[a-z]+|notlist|notlist-err|substr|mem|tag):/.test(path)) continue;
    const [root, ...rest] = segmentsOf(path);
    const payload = payloadOf(path);
    if (payload !== undefined) payloadsRead.add(payload);
    const value = read(variable);
    let converted: unknown;
    if (match[1] === "b") converted = value === "true";
    else if (match[2] === "str:") {
      const literal = space.literalOf(BigInt(value));
      const isLiteral = literal !== undefined && space.strings.literalsOf(`str:${path}`).has(Number(value));
      // Another value than the policies name: a well-formed sample of the field where there is one.
      const sample = root === "activity" && rest[0] === "params" && rest.length === 2 ? sampled[camelCaseKey(rest[1]!)] : undefined;
      const sampleIsOther = typeof sample === "string" && !space.strings.literalsOf(`str:${path}`).has(space.code(sample));
      if (isLiteral) converted = literal;
      else if (!others.has(value) && sampleIsOther) {
        others.set(value, (converted = sample));
        madeUp.add(sample);
      }
      else converted = text(BigInt(value), root === "wallet" ? "another-wallet" : root === "private_key" ? "another-private-key" : "other", `str:${path}`);
    }
    else if (match[2] === "count:") converted = listOf(space, values, path, Number(value));
    else converted = value;
    // A value of another shape than the policies read: the read errors.
    const sort = sortOf(match);
    if (match[2] !== "count:" && flag(`sorterr:${sort}:${path}`)) {
      converted = sort === "int" ? "not-a-number" : sort === "string" ? { not: "a string" } : "not-a-bool";
    }
    if (flag(`err:${path}`)) {
      if (payload !== undefined) absent.add(path);
      continue;
    }
    if (root === "activity" && rest[0] === "params") {
      const field = rest[1]!;
      const present = slot.params?.[field] === true || ((slot.params === undefined || slot.params[field] === false) && flag(`has:activity.params.${field}`));
      if (present) setPath(params, rest.slice(1), converted);
    } else if (root !== undefined && root in keywords && carried(path)) {
      setPath(keywords, [root, ...rest], converted);
    }
  }
  // Lists read only through membership.
  for (const [key] of space.variables()) {
    const match = /^b:mem:(.*)\u0000/s.exec(key);
    if (!match || space.variables().has(`i:count:${match[1]}`)) continue;
    const path = match[1]!;
    const [root, ...rest] = segmentsOf(path);
    if (payloadOf(path) !== undefined) payloadsRead.add(payloadOf(path)!);
    const value = listOf(space, values, path, 0);
    if (root === "activity" && rest[0] === "params") {
      const field = rest[1]!;
      const present = slot.params?.[field] === true || ((slot.params === undefined || slot.params[field] === false) && flag(`has:activity.params.${field}`));
      if (present) setPath(params, rest.slice(1), value);
    } else if (root !== undefined && root in keywords && carried(path)) setPath(keywords, [root, ...rest], value);
  }
  if (space.nowRead) now = Number(num(space.now));
  // A payload the policies read nothing of is left out.
  for (const payload of space.chainPresent.keys()) {
    const [chain, field] = payload.split(".") as [string, string];
    const held = keywords[chain] as Record<string, unknown> | undefined;
    if (held && typeof held[field] === "object" && held[field] !== null && Object.keys(held[field] as object).length === 0) delete held[field];
    if (held && Object.keys(held).length === 0) delete keywords[chain];
  }
  // Every required parameter of the type, then what the policies read (camelCase, as a client sends it).
  const parameters: Record<string, unknown> = { ...requiredParameters(slot.type) };
  const targetId = (keywords.wallet_account as { address?: string } | undefined)?.address ?? (keywords.wallet as { id?: string } | undefined)?.id ?? (keywords.private_key as { id?: string } | undefined)?.id;
  if (targetId !== undefined) {
    if ("signWith" in parameters || slot.params?.sign_with !== undefined) parameters.signWith = targetId;
    if ("walletId" in parameters && keywords.wallet) parameters.walletId = (keywords.wallet as { id: string }).id;
    if ("privateKeyId" in parameters && keywords.private_key) parameters.privateKeyId = (keywords.private_key as { id: string }).id;
    const address = (keywords.wallet_account as { address?: string } | undefined)?.address;
    if (address !== undefined) for (const field of ["address", "walletAddress"]) if (field in parameters) parameters[field] = address;
  }
  for (const [field, value] of Object.entries(params)) {
    // A list read only through membership, which the wire schema wants non-empty, gets an item no policy names.
    if (Array.isArray(value) && value.length === 0 && slot.nonEmptyLists?.has(field) && !space.variables().has(`i:count:activity.params.${field}`)) value.push("(item 1)");
    const camel = camelCaseKey(field);
    // A key that would not come back to the same snake_case name stays as written.
    const wire = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) === field ? camel : field;
    if (wire !== field) delete parameters[field];
    parameters[wire] = value;
  }
  // A signing request carries a real transaction or payload; its chain keywords are what the service reads from it.
  const chosen = new Set(Object.keys(params).map(camelCaseKey));
  const signing = withPayload({ type: slot.type, parameters, keywords }, { isLiteral: (t) => space.isLiteral(t), absent, read: payloadsRead, chosen });
  return { type: signing.type, parameters: signing.parameters, approvers: ordered, keywords: signing.keywords, now: new Date(now).toISOString() };
}

function sortOf(match: RegExpExecArray): string {
  return match[1] === "b" ? "bool" : match[2] === "str:" ? "string" : "int";
}

/** The index, among the witness's approvers, of the first user of slot `s`. */
function firstOfSlot(space: RequestSpace, values: ModelValues, s: number): number {
  let index = 0;
  for (let j = 0; j < s; j++) index += Math.min(Number(values.int(space.slots[j]!.n)), 1000);
  return index;
}

/** A request list from the model: its members, a wrong item when `contains` errors, fillers up to its count; no list at all when it is not one. */
function listOf(space: RequestSpace, values: ModelValues, path: string, count: number): unknown {
  const flag = (key: string) => {
    const variable = space.variables().get(`b:${key}`);
    return variable !== undefined && values.bool(variable);
  };
  if (flag(`notlist:${path}`)) {
    if (flag(`notlist-err:${path}`)) return { not: "a list" };
    return space
      .membersRead(path)
      .filter((l) => flag(`substr:${path}\u0000${l}`))
      .join("|");
  }
  const members = space.membersRead(path).filter((l) => flag(`mem:${path}\u0000${l}`));
  const items: unknown[] = [...members];
  for (let i = items.length; i < Math.min(count, 50); i++) items.push(`(item ${i + 1})`);
  return items;
}
