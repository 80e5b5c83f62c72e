/**
 * @module resources/runtime/stages/check
 * The first stage of every step: the inputs checked (the resource's own rules and the wire
 * schema), the settings proven once per run, then the plan's guards (`guards.ts`). A new
 * resource of an engine run is announced to the batches of its kind (`batch.ts`), which may wait
 * for its create.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { announceCreate } from "../batch";
import { dedupe, rule } from "../check";
import type { ProviderContext } from "../context";
import { urnOf } from "../plan-census";
import type { BaseInputs, BaseOutputs, ResourceSpec } from "../resource-spec";
import { compact, isUnknown } from "../values";
import { unknownKeysError, verifySettings } from "../verify";
import { planGuards } from "./guards";

/** The check of `news` (the declared inputs; `olds` those of the previous run); `callerUrn`: the URN when the caller knows it. */
export async function checkStep<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, olds: Record<string, unknown>, news: Record<string, unknown>, callerUrn: string | undefined): Promise<dynamic.CheckResult> {
  const inputs = spec.normalize(news);
  const failures = dedupe([
    ...rule(news, "organizationId", (v) => v === undefined || (typeof v === "string" && v.length > 0), "must be a non-empty string"),
    ...rule(news, "importId", (v) => v === undefined || (typeof v === "string" && v.length > 0), "must be a non-empty string"),
    ...spec.validate(inputs),
  ]);
  if (failures.length === 0 && context.engineRun !== undefined) {
    // Once per run, before anything is planned: settings that cannot work fail the preview here.
    const unknownKeys = unknownKeysError(context.engineRun.configKeys);
    if (unknownKeys !== undefined) throw unknownKeys;
    const organizationId = typeof news.organizationId === "string" && !isUnknown(news.organizationId) ? news.organizationId : undefined;
    await verifySettings(context, context.settings(), organizationId);
  }
  // The plan as a whole: names two resources share, limits the plan exceeds, lockouts.
  const urn = urnOf(news, callerUrn);
  if (failures.length === 0) failures.push(...(await planGuards(spec, context, olds, inputs as unknown as Record<string, unknown>, urn)));
  // A new resource of an engine run: its create is coming, and a batch of its kind may wait for it (batch.ts).
  const form = spec.batch?.create;
  if (failures.length === 0 && form !== undefined && urn !== undefined && context.engineRun !== undefined && Object.keys(olds ?? {}).length === 0 && inputs.importId === undefined) {
    const group = form.group?.(inputs) ?? "";
    if (!isUnknown(group)) announceCreate(context, `${spec.kind}:create`, group, urn);
  }
  // State keeps the inputs as declared: defaults and canonical forms are applied again by
  // every diff, create and update, so storing them would only add bytes to each checkpoint.
  // The host turns the result into a protobuf Struct, which has no `undefined`.
  return { inputs: compact(news), failures };
}
