/**
 * @module resources/runtime/stages/import
 * The create of a resource with `importId`: the existing object is adopted (and updated where
 * the program differs and the service can change it) instead of a new one created.
 */
import type { Session } from "../client";
import { ImportNotFoundError } from "../object-errors";
import type { BaseInputs, BaseOutputs, Hint, ResourceSpec } from "../resource-spec";
import { reconcile } from "./reconcile";

/**
 * The object `importId`, made to match `inputs`.
 * @throws {ImportNotFoundError} when no such object exists; {@link DiffersFromDeclaredError} when it cannot match.
 */
export async function adoptImport<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, inputs: I, importId: string, what: string): Promise<{ id: string; live: L }> {
  const live = await spec.fetch(s, importId, inputs as unknown as Hint<I, O>);
  if (live === undefined) throw new ImportNotFoundError(what, spec.kind, importId, s.organizationId);
  return reconcile(spec, s, inputs, importId, live, what, { by: "importId" });
}
