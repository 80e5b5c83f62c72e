/**
 * @module resources/runtime/plan-census
 * Preview refuses what `up` would: every resource's `check` of one run adds its declared
 * unique values and counted objects to a census of the plan (one per provider process, which
 * serves every resource of the run), and fails when
 *
 * - two resources of the program declare the same unique value of one class in one
 *   organization (two UserTags named "ops": the second create would be refused with 409), or
 * - the plan would hold more objects of a class than the service allows (`plan-rules.ts`):
 *   the objects that existed before this run (one read per run, `before` in `shared-reads.ts`,
 *   so `up` counts what preview counted and reads nothing again after its own writes) and are
 *   not renamed by this plan, plus every one declared.
 *   Pulumi creates before it deletes, so an object the plan removes still counts while the
 *   new ones are created, as it does on the service.
 *
 * Resources are told apart by URN (the provider plugin gets it with each call; a dynamic
 * resource passes its own as the hidden input {@link URN_INPUT}); a resource checked again in
 * the same run replaces its earlier entry. The failing check names the count and the objects.
 */
import { directContext } from "./context";
import type { CheckFailure } from "./check";
import { noteUserKeys, PLAN_RULES } from "./plan-rules";
import { forgetGroup, perRun } from "./run-state";
import type { Session } from "./client";
import type { RunContext } from "./run-types";
import { isUnknown } from "./values";

/** The unique values and counted objects of a configuration's plan; part of the "census" group. */
const countsOfRun = perRun(
  () => ({
    /** unique key (org|kind|value) → URN → the resource's name. */
    uniqueHolders: new Map<string, Map<string, string>>(),
    /** bucket (org|kind|bucket) → URN → the counted key it declares. */
    bucketMembers: new Map<string, Map<string, string>>(),
    /** bucket → keys the plan moves away from (old names of resources renamed in place). */
    released: new Map<string, Map<string, string>>(),
    /** org|kind → the objects that exist now, by bucket. */
    existingByKind: new Map<string, Promise<Map<string, Map<string, string>>>>(),
  }),
  "census",
);

/** The hidden input a dynamic resource carries its own URN in (set by the resource class). */
export const URN_INPUT = "__urn";

/** How many objects a message lists before it says "and N more". */
const LISTED = 12;


/** The resource name at the end of a URN (`urn:pulumi:stack::project::type::name`). */
export function nameOfUrn(urn: string): string {
  return urn.slice(urn.lastIndexOf("::") + 2);
}

/** The URN a check is about: the plugin's request, or the dynamic resource's hidden input. */
export function urnOf(news: Record<string, unknown>, given: string | undefined): string | undefined {
  if (given !== undefined && given !== "") return given;
  const value = news[URN_INPUT];
  return typeof value === "string" && value !== "" && !isUnknown(value) ? value : undefined;
}

function listing(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).join(", ");
  return names.length > LISTED ? `${shown} and ${names.length - LISTED} more` : shown;
}

function entry<V>(map: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = map.get(key);
  if (inner === undefined) {
    inner = new Map();
    map.set(key, inner);
  }
  return inner;
}

/** One resource's part in the plan. */
export interface PlannedResource {
  readonly kind: string;
  readonly urn: string;
  readonly organizationId: string;
  /** The declared inputs (normalized). */
  readonly inputs: Record<string, unknown>;
  /** The inputs recorded by the previous run, for a resource that exists (its old name is released). */
  readonly olds: Record<string, unknown>;
}

/**
 * Adds `planned` to the census and returns the unique values it shares with another resource
 * of the program (failures on the property that declares them).
 */
export function duplicateFailures(context: RunContext, planned: PlannedResource): CheckFailure[] {
  const { uniqueHolders } = countsOfRun.of(context);
  const rule = PLAN_RULES[planned.kind];
  if (rule === undefined) return [];
  const failures: CheckFailure[] = [];
  for (const value of rule.unique(planned.inputs)) {
    const holders = entry(uniqueHolders, `${planned.organizationId}|${planned.kind}|${value.key}`);
    holders.set(planned.urn, nameOfUrn(planned.urn));
    if (holders.size < 2) continue;
    const names = [...holders.values()].map((n) => JSON.stringify(n)).sort();
    failures.push({
      property: value.property,
      reason:
        `${value.shown} is declared by ${holders.size} ${planned.kind} resources of this program (${names.join(", ")}) in organization ` +
        `${planned.organizationId}; the service keeps it unique, so the second create would be refused: give each resource its own`,
    });
  }
  return failures;
}

/**
 * Adds `planned` to the counted objects of its bucket and fails when the plan would hold more
 * than the service allows there, naming the count, the existing objects and the declared ones.
 */
export async function limitFailures(session: Session, planned: PlannedResource): Promise<CheckFailure[]> {
  if (planned.kind === "User") noteUserKeys(session, planned.urn, planned.inputs);
  const limit = PLAN_RULES[planned.kind]?.limit;
  if (limit === undefined) return [];
  const bucket = limit.bucket(planned.inputs);
  const key = limit.counted(planned.inputs);
  if (bucket === undefined || key === undefined || isUnknown(bucket) || isUnknown(key)) return [];
  const { bucketMembers, released, existingByKind } = countsOfRun.of(session.context);
  const bucketKey = `${planned.organizationId}|${planned.kind}|${bucket}`;
  entry(bucketMembers, bucketKey).set(planned.urn, key);
  const oldKey = limit.counted(planned.olds);
  const oldBucket = limit.bucket(planned.olds);
  if (oldKey !== undefined && oldBucket !== undefined && (oldKey !== key || oldBucket !== bucket)) {
    entry(released, `${planned.organizationId}|${planned.kind}|${oldBucket}`).set(planned.urn, oldKey);
  }

  const kindKey = `${planned.organizationId}|${planned.kind}`;
  let reading = existingByKind.get(kindKey);
  if (reading === undefined) {
    reading = limit.existing(session);
    reading.catch(() => existingByKind.delete(kindKey));
    existingByKind.set(kindKey, reading);
  }
  const existing = (await reading).get(bucket) ?? (await limit.unseen?.(session, planned.inputs, bucket)) ?? new Map<string, string>();

  const declared = new Set(bucketMembers.get(bucketKey)!.values());
  const gone = new Set(released.get(bucketKey)?.values() ?? []);
  // Renamed in place: the old name is not held once the update runs (unless declared again).
  const kept = [...existing.entries()].filter(([name]) => !declared.has(name) && !gone.has(name));
  const total = kept.length + declared.size;
  if (total <= limit.max) return [];
  return [
    {
      property: limit.property,
      reason:
        `this plan would hold ${total} ${limit.noun} (${bucket}) in organization ${planned.organizationId}; the service allows ${limit.max}. ` +
        `${kept.length} exist and are not declared here (${listing(kept.map(([name, id]) => `${JSON.stringify(name)} ${id}`)) || "none"}); ` +
        `${declared.size} are declared by this program (${listing([...declared].map((n) => JSON.stringify(n)))}). ` +
        `Declare fewer, or delete some of the existing ones first`,
    },
  ];
}

/**
 * Forgets the census of the configuration (tests; a configuration serves one run): its counts,
 * and what the lockout checks and `before` keep in the "census" group (`run-state.ts`).
 */
export function forgetPlanCensus(context: RunContext = directContext()): void {
  forgetGroup(context, "census");
}
