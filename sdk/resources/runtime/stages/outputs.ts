/**
 * @module resources/runtime/stages/outputs
 * The outputs a resource records for a live object: the spec's own (`flatten`), the inputs it
 * carries (`carriedInputs`), and the base outputs every resource has.
 */
import type { BaseInputs, BaseOutputs, ResourceSpec } from "../resource-spec";
import { compact } from "../values";

/** `carry` plus the inputs the spec keeps in its outputs. */
export function carryWith<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, carry: Partial<O>, inputs: I): Partial<O> {
  return spec.carriedInputs ? { ...carry, ...spec.carriedInputs(inputs) } : carry;
}

/** The outputs of `live`, in `organizationId`, adopted by `importId` when set. */
export function outputsOf<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, live: L, organizationId: string, importId: string | undefined, carry: Partial<O>): O {
  return compact({ ...spec.flatten(live, carry), organizationId, importId } as unknown as Record<string, unknown>) as unknown as O;
}
