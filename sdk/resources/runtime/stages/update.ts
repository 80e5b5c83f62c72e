/**
 * @module resources/runtime/stages/update
 * The update of a resource in place: the live object read, changed where it differs from the
 * declared inputs, then read back (`read-back.ts`).
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ProviderContext } from "../context";
import { explain, ProviderError } from "../errors";
import type { BaseInputs, BaseOutputs, Hint, ResourceSpec } from "../resource-spec";
import { changedProperties } from "./compare";
import { carryWith, outputsOf } from "./outputs";
import { readBack } from "./read-back";
import { openSession } from "./session";

/** The update of the object `id` from `olds` (its outputs) to `news` (the declared inputs). */
export async function updateStep<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, id: string, olds: Record<string, unknown>, news: Record<string, unknown>): Promise<dynamic.UpdateResult> {
  const previous = olds as Partial<O>;
  const inputs = spec.normalize(news);
  const what = `${spec.kind} ${spec.label(inputs)}: update`;
  const s = openSession(context, context.settings(), previous.organizationId ?? inputs.organizationId, what);
  try {
    const live = await spec.fetch(s, id, { ...(inputs as object), ...(previous as object) } as unknown as Hint<I, O>);
    if (live === undefined) {
      throw new ProviderError(`${what}: ${spec.kind} ${id} no longer exists; run "pulumi refresh" to drop it from state`);
    }
    let current: L = live;
    if (spec.update !== undefined && changedProperties(spec, spec.flatten(live, carryWith(spec, previous, inputs)) as unknown as Partial<O>, inputs).length > 0) {
      await spec.update(s, id, live, inputs);
      current = await readBack(spec, s, id, inputs as unknown as Hint<I, O>, what);
    }
    return { outs: outputsOf(spec, current, s.organizationId, inputs.importId ?? previous.importId, carryWith(spec, previous, inputs)) };
  } catch (error) {
    throw explain(error, what);
  }
}
