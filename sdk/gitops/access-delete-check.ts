/**
 * @module gitops/access-delete-check
 * The preview's half of refusing a delete that locks the deploying credential out (plan (b) of
 * `docs/lockout.md`: a non-root deployer's own ALLOW dropped from the program). The engine plans
 * the delete of a resource removed from the program without calling the provider, so a plain
 * `pulumi preview` cannot fail on it, and the provider refuses it only at `up`
 * (`refuseAccessLosingDelete`). A preview through the Automation API sees the planned steps,
 * though: this collects them from its events, lays them over the stack's state (the resources it
 * keeps, with the inputs the plan gives them), and runs the same proof over the organization
 * the plan leaves (`blockedByDeletes` of `deployer-access.ts`). `keyform:allowLockout`
 * (KEYFORM_ALLOW_LOCKOUT) lets a deliberate hand-over through.
 */
import type { EngineEvent, Stack } from "@pulumi/pulumi/automation";
import { sessionFor } from "../resources/runtime/client";
import { ProviderContext } from "../resources/runtime/context";
import { blockedByDeletes, isAccessKind, refusalOf, type DeletedObject } from "../resources/runtime/deployer-access";
import { handlerFor } from "../resources/runtime/index";
import { neededKinds, type PlannedStep } from "../resources/runtime/needed-activities";
import type { PlannedObject } from "../resources/runtime/org-after-plan";
import { requireSetting } from "../resources/runtime/settings";
import { stackSettings } from "./stack-client";

/** keyform's resources on both front doors (dynamic providers and the plugin), by kind. */
const KEYFORM_TYPE = /(?:^keyform:index:|\/keyform:)([A-Za-z]+)$/;

/** One planned step of a keyform resource. */
interface Step {
  readonly kind: string;
  readonly op: string;
  readonly id?: string;
  /** The inputs the plan gives it (absent for a delete). */
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
}

/** The step each op stands for, as the proof's "carry out this plan" asks it. */
const STEP_OF_OP: Readonly<Record<string, PlannedStep>> = { create: "create", update: "update", replace: "replace", "create-replacement": "replace" };

/** The declared inputs, without the hidden ones the dynamic providers add (`__provider`, `__urn`). */
const declared = (inputs: unknown): Record<string, unknown> =>
  Object.fromEntries(Object.entries((inputs ?? {}) as Record<string, unknown>).filter(([key]) => !key.startsWith("__")));

/** Collects the planned steps of keyform resources from a preview's events. */
export class PlannedSteps {
  private readonly steps = new Map<string, Step>();

  /** Pass as (part of) the preview's `onEvent`. */
  readonly onEvent = (event: EngineEvent): void => {
    const meta = event.resourcePreEvent?.metadata;
    const kind = meta === undefined ? undefined : KEYFORM_TYPE.exec(meta.type)?.[1];
    if (meta === undefined || kind === undefined) return;
    // A replacement's halves (its delete of the old object, the discard) do not take the object away.
    if (meta.op === "delete-replaced" || meta.op === "discard-replaced" || meta.op === "read") return;
    const outputs = meta.old?.outputs as Record<string, unknown> | undefined;
    const id = typeof meta.old?.id === "string" && meta.old.id !== "" ? meta.old.id : undefined;
    const inputs = meta.op === "delete" ? undefined : declared(meta.new?.inputs);
    this.steps.set(meta.urn, { kind, op: meta.op, ...(id === undefined ? {} : { id }), ...(inputs === undefined ? {} : { inputs }), ...(outputs === undefined ? {} : { outputs }) });
  };

  /** Whether the preview plans a delete that can take access away (a Policy, UserTag, RootQuorum or IpAllowlist removed from the program). */
  get deletesAccess(): boolean {
    return [...this.steps.values()].some((s) => s.op === "delete" && isAccessKind(s.kind));
  }

  /**
   * The plan over `state` (the stack's resources before it): the objects it keeps, with the
   * inputs the plan gives them and the activity kinds their steps submit, and those it deletes.
   * With `organizationId`, objects that name another organization are left out, as the
   * provider's census of each organization leaves them out.
   */
  plan(state: ReadonlyArray<{ urn: string; type: string; id?: string; inputs?: unknown; outputs?: unknown }>, organizationId?: string): { kept: PlannedObject[]; deleted: DeletedObject[] } {
    const kept: PlannedObject[] = [];
    const deleted: DeletedObject[] = [];
    const recorded = new Map(state.map((r) => [r.urn, r]));
    const urns = new Set([...state.filter((r) => KEYFORM_TYPE.test(r.type)).map((r) => r.urn), ...this.steps.keys()]);
    for (const urn of urns) {
      const step = this.steps.get(urn);
      const before = recorded.get(urn);
      const kind = step?.kind ?? KEYFORM_TYPE.exec(before?.type ?? "")?.[1];
      if (kind === undefined) continue;
      const olds = declared(before?.inputs);
      const outputs = step?.outputs ?? ((before?.outputs ?? {}) as Record<string, unknown>);
      const named = step?.inputs?.organizationId ?? outputs.organizationId;
      if (organizationId !== undefined && typeof named === "string" && named !== organizationId) continue;
      if (step?.op === "delete") {
        deleted.push({ kind, id: step.id ?? before?.id ?? "", props: outputs });
        continue;
      }
      const normalize = (inputs: Record<string, unknown>) => handlerFor(kind).spec.normalize(inputs) as Record<string, unknown>;
      const planned = STEP_OF_OP[step?.op ?? "same"];
      kept.push({
        kind,
        name: urn.split("::").pop() ?? urn,
        inputs: normalize(step?.inputs ?? olds),
        olds,
        ...(planned === undefined ? {} : { kinds: neededKinds(kind, planned) }),
      });
    }
    return { kept, deleted };
  }
}

/**
 * The refusals of a preview whose plan deletes objects that keep the deploying credential in:
 * one message per planned delete set, naming the deletes, the blocking activity and its witness
 * (none with allowLockout).
 */
export async function accessLosingDeletes(stack: Stack, steps: PlannedSteps, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  if (!steps.deletesAccess) return [];
  const settings = await stackSettings(stack, env);
  if (settings.allowLockout) return [];
  const purpose = "the preview's check of planned deletes";
  const organizationId = requireSetting(settings, "organizationId", purpose);
  const state = ((await stack.exportStack()).deployment as { resources?: Array<{ urn: string; type: string; id?: string; inputs?: unknown; outputs?: unknown }> }).resources ?? [];
  const { kept, deleted } = steps.plan(state, organizationId);
  const session = sessionFor(new ProviderContext(undefined, undefined), settings, organizationId, purpose);
  const blocked = await blockedByDeletes(session, kept, deleted);
  if (blocked.length === 0) return [];
  const names = deleted.filter((d) => isAccessKind(d.kind)).map((d) => `${d.kind} ${d.id}`);
  return [`${names.join(", ")}: this plan deletes ${names.length === 1 ? "it" : "them"} (no longer in the program), and ${refusalOf(blocked, organizationId)}`];
}
