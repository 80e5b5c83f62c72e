/**
 * @module resources/runtime/stages/create
 * The create of a resource, stage after stage (its check and guards ran at `check`):
 *
 * 1. With `importId`, the existing object is adopted instead (`import.ts`).
 * 2. With a URN (an engine run), the journal proves what this stack made (`journal.ts`), and the
 *    create goes out in a batch of its kind or alone (`submit.ts`).
 * 3. Without one, an earlier run's work is looked for (`earlier-run.ts`) before and after the
 *    create is submitted (`submit.ts`).
 * 4. The object is read back unless the create knew it (`read-back.ts`); a failed read still
 *    hands back the id, so the object is recorded in state, not leaked.
 */
import type * as dynamic from "@pulumi/pulumi/dynamic";
import { ConflictError } from "../../../client/errors";
import { ADOPTED_HOW, reportAdoption } from "../adoption";
import { createArrived } from "../batch";
import type { Session } from "../client";
import type { ProviderContext } from "../context";
import { claim } from "../earlier-work";
import { explain, ObjectLeftBehindError } from "../errors";
import { mayStillApply, removeEntry } from "../ownership";
import { urnOf } from "../plan-census";
import type { BaseInputs, BaseOutputs, CreateOutcome, Hint, ResourceSpec } from "../resource-spec";
import { compact } from "../values";
import { findEarlierRun } from "./earlier-run";
import { adoptImport } from "./import";
import { journaledCreate } from "./journal";
import { carryWith, outputsOf } from "./outputs";
import { readBack } from "./read-back";
import { openSession } from "./session";
import { submit } from "./submit";

/** The create of `raw` (the declared inputs); `callerUrn`: the resource's URN when the caller knows it. */
export async function createStep<I extends BaseInputs, O extends BaseOutputs, L>(
  spec: ResourceSpec<I, O, L>,
  context: ProviderContext,
  raw: Record<string, unknown>,
  callerUrn: string | undefined,
): Promise<dynamic.CreateResult> {
  const inputs = spec.normalize(raw);
  const settings = context.settings();
  const what = `${spec.kind} ${spec.label(inputs)}: create`;
  const s = openSession(context, settings, inputs.organizationId, what);
  const urn = urnOf(raw, callerUrn);
  if (inputs.importId !== undefined) {
    try {
      const { id, live } = await adoptImport(spec, s, inputs, inputs.importId, what);
      return { id, outs: outputsOf(spec, live, s.organizationId, inputs.importId, carryWith(spec, {}, inputs)) };
    } catch (error) {
      throw explain(error, what);
    }
  }
  if (urn === undefined) return createUnjournaled(spec, s, inputs, raw, what);
  // With a URN, what this stack created is proven by its journal (ownership.ts), not inferred.
  const journalDir = settings.journalDir;
  try {
    let created: CreateOutcome<O, L>;
    try {
      created = await journaledCreate(spec, s, { inputs, raw, urn, journalDir, what });
      claim(s, spec.kind, created.id);
    } catch (error) {
      if (!mayStillApply(error)) removeEntry(journalDir, urn);
      throw explain(error, what);
    }
    return await finishCreate(spec, s, inputs, created, what, raw);
  } finally {
    // However it went (a batch, a replay, the singular path), no batch waits for it any more.
    const form = spec.batch?.create;
    if (form !== undefined) createArrived(context, `${spec.kind}:create`, form.group?.(inputs) ?? "", urn);
  }
}

/**
 * A create without a URN: an earlier run's object is adopted when the history holds its create
 * (before submitting), or when the service answers 409 and that object matches the inputs.
 */
async function createUnjournaled<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, inputs: I, raw: Record<string, unknown>, what: string): Promise<dynamic.CreateResult> {
  const adopted = (found: { id: string; live: L }) => ({ id: found.id, outs: outputsOf(spec, found.live, s.organizationId, undefined, carryWith(spec, {}, inputs)) });
  const report = (id: string) => reportAdoption({ resourceType: spec.kind, label: spec.label(inputs), id, how: ADOPTED_HOW.unrecorded });
  let created: CreateOutcome<O, L>;
  try {
    const earlier = await findEarlierRun(spec, s, inputs, what);
    if (earlier !== undefined) {
      await report(earlier.id);
      return adopted(earlier);
    }
    try {
      created = await submit(spec, s, { create: inputs }, () => spec.create(s, inputs));
    } catch (error) {
      // A 409: an earlier create activity with these parameters made the object (adopted, and
      // updated where it changed since), else the object holding the name is compared.
      const found = error instanceof ConflictError ? await findEarlierRun(spec, s, inputs, what, error) : undefined;
      if (found === undefined) throw error;
      await report(found.id);
      return adopted(found);
    }
    claim(s, spec.kind, created.id);
  } catch (error) {
    throw explain(error, what);
  }
  return finishCreate(spec, s, inputs, created, what, raw);
}

/** The outputs of a created object, read back unless the create knew it; a failed read still hands back the id. */
async function finishCreate<I extends BaseInputs, O extends BaseOutputs, L>(spec: ResourceSpec<I, O, L>, s: Session, inputs: I, created: CreateOutcome<O, L>, what: string, raw: Record<string, unknown>): Promise<dynamic.CreateResult> {
  try {
    const live = created.live ?? (await readBack(spec, s, created.id, inputs as unknown as Hint<I, O>, what));
    return { id: created.id, outs: outputsOf(spec, live, s.organizationId, undefined, carryWith(spec, created.carry ?? {}, inputs)) };
  } catch (error) {
    // The object exists: hand its id back so it is recorded in state, not leaked.
    const explained = explain(error, what);
    // `carry` is left out on purpose: it may hold a generated secret, and the outputs of a
    // failed create are not covered by additionalSecretOutputs everywhere.
    // The dynamic-provider host records these properties as they are, without adding the
    // provider's code to them as it does for a create that succeeds: without it, every later
    // delete or update of the object fails in the host ("code must be a string").
    const properties = compact({ ...(inputs as Record<string, unknown>), [spec.idProperty]: created.id, organizationId: s.organizationId, __provider: raw.__provider });
    throw new ObjectLeftBehindError(explained.message, created.id, properties, { cause: error });
  }
}
