/**
 * @module resources/runtime/stages/guards
 * The plan's guards: what a step would break is refused before it runs. One entry per operation
 * that has guards, each calling its checks one by one:
 *
 * - {@link planGuards} (check): the census of the plan (two resources declaring one unique name,
 *   more objects than the service allows; `plan-census.ts`), then the lockout proof (what the
 *   deploying key can still do in the organization the plan leaves; `deployer-access.ts`).
 * - {@link diffGuards} (diff): an object never follows a changed organization (it stays where it
 *   lives); {@link replaceGuards}: the API key keyform signs with is not replaced.
 * - {@link deleteGuards} (delete): the deploying key, its user, and the access the rest of the
 *   plan needs are not deleted.
 */
import type { CheckFailure } from "../check";
import type { ProviderContext } from "../context";
import { refuseAccessLosingDelete, deployerAccessFailures } from "../deployer-access";
import { explain, ProviderError } from "../errors";
import { refuseOwnCredentialDelete, refuseOwnKeyReplace } from "../lockout";
import { neededKinds, stepOf } from "../needed-activities";
import { organizationMoveMessage } from "../organization-guard";
import { duplicateFailures, limitFailures, nameOfUrn } from "../plan-census";
import type { BaseInputs, BaseOutputs, ResourceSpec } from "../resource-spec";
import { isUnknown } from "../values";
import type { Session } from "../client";
import { changedProperties, forcesReplace, propertyNamesOf } from "./compare";
import { openSession } from "./session";

/**
 * The census of the whole plan and the lockout proof, for one checked resource (only with a URN
 * to tell resources apart).
 */
export async function planGuards<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, olds: Record<string, unknown>, inputs: Record<string, unknown>, urn: string | undefined): Promise<CheckFailure[]> {
  const settings = context.settings();
  const engineRun = context.engineRun;
  const organizationId = (inputs.organizationId as string | undefined) ?? settings.organizationId;
  if (organizationId === undefined || isUnknown(organizationId)) return [];
  if (urn === undefined) return [];
  const planned = { kind: spec.kind, urn, organizationId, inputs, olds: olds ?? {} };
  const duplicates = duplicateFailures(context, planned);
  if (duplicates.length > 0 || engineRun === undefined) return duplicates;
  const what = `${spec.kind} ${spec.label(inputs as unknown as I)}: check`;
  try {
    const s = openSession(context, settings, organizationId, what);
    // What this resource's step submits, for the organization the plan leaves (deployer-access.ts).
    const hasOlds = Object.keys(olds ?? {}).length > 0;
    const changed = hasOlds ? changedProperties(spec, olds as Partial<O>, inputs as unknown as I) : [];
    const step = stepOf(hasOlds, changed, (name) => forcesReplace(spec, name));
    const access = { kind: spec.kind, name: nameOfUrn(urn), urn, inputs, olds: olds ?? {}, kinds: neededKinds(spec.kind, step), changed: step !== "same", property: propertyNamesOf(spec)[0] ?? "organizationId" };
    return [...(await limitFailures(s, planned)), ...(await deployerAccessFailures(s, access, settings))];
  } catch (error) {
    throw explain(error, what);
  }
}

/**
 * Refuses a diff that would move the object `id` to another organization.
 * @throws {ProviderError} naming both organizations.
 */
export function diffGuards<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, context: ProviderContext, id: string, olds: Record<string, unknown>, next: I): void {
  // An object never follows a changed organization: replacing it would delete it where it
  // lives and create it elsewhere, and a mistyped setting would plan exactly that. Fail the
  // plan instead, naming both organizations. (An unknown id is checked again at `up`, when
  // the engine diffs with known values, before any step runs.)
  const organizationId = next.organizationId ?? context.settings().organizationId;
  const recorded = (olds as Partial<O>).organizationId;
  if (organizationId !== undefined && !isUnknown(organizationId) && recorded !== undefined && organizationId !== recorded) {
    throw new ProviderError(organizationMoveMessage({ what: `${spec.kind} ${id}`, recorded, wanted: organizationId, fromInput: next.organizationId !== undefined }));
  }
}

/** Refuses a replacement of the object `id` (`replaces`: the properties that force it) that would delete the API key keyform signs with. */
export function replaceGuards(kind: string, context: ProviderContext, id: string, olds: Record<string, unknown>, replaces: readonly string[]): void {
  if (replaces.length > 0) refuseOwnKeyReplace(kind, id, olds, context.settings());
}

/** Refuses the delete of the object `id` when it would lock the stack out of the organization. */
export async function deleteGuards(kind: string, context: ProviderContext, s: Session, id: string, props: Record<string, unknown>): Promise<void> {
  await refuseOwnCredentialDelete(kind, s, id, props, context.settings());
  await refuseAccessLosingDelete(s, kind, id, props, context.settings());
}
