/**
 * @module resources/runtime/stages/read
 * The read of a resource (refresh, import, export): the live object's outputs and the inputs
 * they stand for, or an empty id for an object that is gone.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import type { ProviderContext } from "../context";
import { explain } from "../errors";
import type { BaseInputs, BaseOutputs, Hint, ResourceSpec } from "../resource-spec";
import { compact } from "../values";
import { verifySettings } from "../verify";
import { propertyNamesOf } from "./compare";
import { outputsOf } from "./outputs";
import { openSession } from "./session";

/** The read of the object `id` whose previous outputs are `props`. */
export async function readStep<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, id: string, props: Record<string, unknown>): Promise<dynamic.ReadResult> {
  const previous = props as Partial<O>;
  const what = `${spec.kind} ${id}: read`;
  const settings = context.settings();
  const s = openSession(context, settings, previous.organizationId, what);
  try {
    // A refresh runs no check: prove the settings here (once per run), so wrong ones give
    // one message naming the setting rather than a connection error per resource.
    if (context.engineRun !== undefined) await verifySettings(context, settings, previous.organizationId);
    const live = await spec.fetch(s, id, previous as unknown as Hint<I, O>);
    if (live === undefined) return { id: "" };
    const outs = outputsOf(spec, live, s.organizationId, previous.importId, previous);
    const inputs: Record<string, unknown> = { organizationId: s.organizationId };
    if (spec.readInputs) Object.assign(inputs, spec.readInputs(outs));
    else for (const name of propertyNamesOf(spec)) inputs[name] = (outs as Record<string, unknown>)[name];
    if (previous.importId !== undefined) inputs.importId = previous.importId;
    return { id, props: outs, inputs: compact(inputs) };
  } catch (error) {
    throw explain(error, what);
  }
}
