/**
 * @module resources/runtime/stages/delete
 * The delete of a resource: the settings proven, the delete's guards (`guards.ts`), then the
 * delete in a batch of its kind or alone (`submit.ts`). No read first: a delete of an object
 * that is already gone answers not-found, which is success here, so a read would only add a
 * request (and a whole list) per resource.
 */
import { settleBatchItem } from "../batch-journal";
import type { ProviderContext } from "../context";
import { explain, isNotFound } from "../errors";
import type { BaseInputs, BaseOutputs, ResourceSpec } from "../resource-spec";
import { verifySettings } from "../verify";
import { deleteGuards } from "./guards";
import { openSession } from "./session";
import { submit } from "./submit";

/** The delete of the object `id` whose outputs are `props`. */
export async function deleteStep<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, id: string, props: Record<string, unknown>): Promise<void> {
  const previous = props as Partial<O>;
  const what = `${spec.kind} ${id}: delete`;
  const s = openSession(context, context.settings(), previous.organizationId, what);
  try {
    // A destroy runs no check. Without this, settings of another service (or a mistyped
    // organization) would answer every delete "not found", which reads as already gone: the
    // objects would stay where they live and vanish from state.
    if (context.engineRun !== undefined) await verifySettings(context, context.settings(), previous.organizationId);
    await deleteGuards(spec.kind, context, s, id, props);
    await submit(spec, s, { remove: { id, props: previous } }, () => spec.remove(s, id, previous));
    settleBatchItem(context.settings().journalDir, id);
  } catch (error) {
    if (isNotFound(error)) return settleBatchItem(context.settings().journalDir, id);
    throw explain(error, what);
  }
}
