/**
 * @module resources/runtime/stages/diff
 * The diff of a resource: the old outputs against the new inputs, property by property (each
 * property is either updatable in place or forces a replacement), within the diff's guards.
 */
import { settleBatchItem } from "../batch-journal";
import type { ProviderContext } from "../context";
import type { BaseInputs, BaseOutputs, HandlerDiffResult, ResourceSpec } from "../resource-spec";
import { changedProperties, forcesReplace } from "./compare";
import { diffGuards, replaceGuards } from "./guards";

/** The diff of the object `id` from `olds` (its outputs) to `news` (the declared inputs). */
export async function diffStep<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<HandlerDiffResult> {
  const previous = olds as Partial<O>;
  const next = spec.normalize(news);
  const replaces: string[] = [];
  const updates: string[] = [];
  for (const name of changedProperties(spec, previous, next)) (forcesReplace(spec, name) ? replaces : updates).push(name);
  diffGuards(spec, context, id, olds, next);
  // The object is in state: a batch record's entry for it is no longer needed (batch-journal.ts).
  settleBatchItem(context.settings().journalDir, id);
  replaceGuards(spec.kind, context, id, olds, replaces);
  return {
    changes: replaces.length > 0 || updates.length > 0,
    replaces,
    diffs: [...updates, ...replaces],
    deleteBeforeReplace: replaces.length > 0 && (spec.deleteBeforeReplace?.(previous, next) ?? false),
  };
}
