/**
 * @module resources/runtime/stages/submit
 * The write of a create or a delete: in a batch when the resource has a plural form (creates, or
 * deletes, of its kind waiting at the same time go out as one activity; `batch.ts`), else alone.
 * A batch that cannot take the item falls back to `single`, the item's own singular write.
 */
import { batched } from "../batch";
import type { BatchOwner } from "../batch-journal";
import type { Session } from "../client";
import type { BaseInputs, BaseOutputs, CreateOutcome, ResourceSpec } from "../resource-spec";

/** What a write sends: a create of `inputs`, or a delete of the object `id`. */
export type Write<I, O> = { readonly create: I; readonly owner?: BatchOwner } | { readonly remove: { id: string; props: Partial<O> } };

/** The outcome of `write`, sent in a batch of its kind when the resource has one, else by `single`. */
export async function submit<I extends BaseInputs, O extends BaseOutputs, L>(
  spec: ResourceSpec<I, O, L>,
  s: Session,
  write: { readonly create: I; readonly owner?: BatchOwner },
  single: () => Promise<CreateOutcome<O, L>>,
): Promise<CreateOutcome<O, L>>;
export async function submit<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, write: { readonly remove: { id: string; props: Partial<O> } }, single: () => Promise<void>): Promise<void>;
export async function submit<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, write: Write<I, O>, single: () => Promise<unknown>): Promise<unknown> {
  if ("create" in write) {
    const form = spec.batch?.create;
    return form ? batched(`${spec.kind}:create`, form, s, write.create, single as () => Promise<CreateOutcome<O, L>>, write.owner) : single();
  }
  const form = spec.batch?.remove;
  return form ? batched(`${spec.kind}:remove`, form, s, write.remove, single as () => Promise<void>) : single();
}
