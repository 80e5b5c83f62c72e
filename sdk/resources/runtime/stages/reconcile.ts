/**
 * @module resources/runtime/stages/reconcile
 * An existing object taken over by a resource (by `importId`, or as an earlier run's work) made
 * to match the declared inputs: nothing when it does, an update when the differing properties
 * can change in place, a {@link DiffersFromDeclaredError} naming them otherwise.
 */
import type { Session } from "../client";
import { DiffersFromDeclaredError, type FoundBy } from "../object-errors";
import type { BaseInputs, BaseOutputs, Hint, ResourceSpec } from "../resource-spec";
import { differencesFrom, forcesReplace } from "./compare";
import { readBack } from "./read-back";

/** `live` (the object `id`, found as `foundBy` says) made to match `inputs`; the object as it is then. */
export async function reconcile<I extends BaseInputs, O extends BaseOutputs, L>(
  spec: ResourceSpec<I, O, L>,
  s: Session,
  inputs: I,
  id: string,
  live: L,
  what: string,
  foundBy: Exclude<FoundBy, { by: "conflict" }>,
): Promise<{ id: string; live: L }> {
  const differences = differencesFrom(spec, live, inputs);
  if (differences.length === 0) return { id, live };
  const fixed = differences.filter((d) => forcesReplace(spec, d.property));
  if (spec.update === undefined || fixed.length > 0) {
    throw new DiffersFromDeclaredError(what, spec.kind, id, foundBy, differences, fixed.length > 0);
  }
  await spec.update(s, id, live, inputs);
  return { id, live: await readBack(spec, s, id, inputs as unknown as Hint<I, O>, what) };
}
