/**
 * @module resources/runtime/stages/read-back
 * The last stage of a create, an update and an adoption's update: the object read back after
 * the write, so the outputs are what the service holds.
 */
import type { Session } from "../client";
import { ProviderError } from "../errors";
import type { BaseInputs, BaseOutputs, Hint, ResourceSpec } from "../resource-spec";

/**
 * Reads the object after a write; a missing object here is an error, not drift.
 * @throws {ProviderError} when the object is not found.
 */
export async function readBack<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, id: string, hint: Hint<I, O>, what: string): Promise<L> {
  const live = await spec.fetch(s, id, hint);
  if (live === undefined) {
    throw new ProviderError(`${what}: ${spec.kind} ${id} was not found when read back after the change`);
  }
  return live;
}
