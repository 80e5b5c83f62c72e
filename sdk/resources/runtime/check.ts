/**
 * @module resources/runtime/check
 * Input validation for `check`: run the wire schema of the operation that will receive the
 * values, report each problem against the resource property it came from, and leave alone
 * any property whose value is not known yet (preview).
 */
import type { z } from "zod";
import { containsUnknown } from "./values";

/** One failed property, as `check` returns it to the engine. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** Maps a path inside the wire payload to the resource property it came from. */
export type PathToProperty = (path: readonly PropertyKey[]) => string;

/** The default mapping: the first path segment is the property name. */
export const firstSegment: PathToProperty = (path) => String(path[0] ?? "");

/**
 * Validates `payload` (built from `inputs`) with `schema`; each issue becomes a failure on the
 * property `toProperty` names, unless that property's input value is (or holds) an unknown.
 */
export function schemaFailures(
  schema: z.ZodType,
  payload: unknown,
  inputs: Record<string, unknown>,
  toProperty: PathToProperty = firstSegment,
): CheckFailure[] {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return [];
  const failures: CheckFailure[] = [];
  for (const issue of parsed.error.issues) {
    const property = toProperty(issue.path);
    if (property && containsUnknown(inputs[property])) continue;
    failures.push({ property: property || "(inputs)", reason: reasonOf(property, issue) });
  }
  return dedupe(failures);
}

// The engine shows a failure as "property <name> value {<value>} has a problem: <reason>", so
// reasons do not repeat the property name, except where the sentence needs it.
function reasonOf(property: string, issue: z.core.$ZodIssue): string {
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) {
    return `${property} is required`;
  }
  return issue.message;
}

/** Keeps the first failure of each (property, reason) pair. */
export function dedupe(failures: CheckFailure[]): CheckFailure[] {
  const seen = new Set<string>();
  return failures.filter((f) => {
    const key = `${f.property}\u0000${f.reason}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A failure unless the value is unknown; for the resource-level rules. */
export function rule(
  inputs: Record<string, unknown>,
  property: string,
  ok: (value: unknown) => boolean,
  reason: string,
): CheckFailure[] {
  const value = inputs[property];
  if (containsUnknown(value) || ok(value)) return [];
  return [{ property, reason }];
}

/** True for a string that is not empty. */
export function nonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

/** Ethereum address: `0x` and 40 hex digits. */
export const ETHEREUM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Solana address (base58 public key, 32 bytes → 32 to 44 characters). */
export const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
/** A simple email shape: something@something.tld, no spaces. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
