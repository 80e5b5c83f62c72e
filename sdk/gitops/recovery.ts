/**
 * @module gitops/recovery
 * A clean state after a killed run. A `pulumi up` killed mid-way leaves "pending operations"
 * in the stack's state: creates (or updates, deletes) the engine started and never heard back
 * about. Pulumi keeps them through later runs, with a warning each time, until someone runs
 * `pulumi refresh --clear-pending-creates`.
 *
 * keyform's creates recognise an earlier run's work (the 409 on a unique name, or the
 * activity history: `sdk/resources/runtime/framework.ts`), so the pending records carry no
 * information the next `up` needs: `keyform gitops up` removes them from the state before its `up`
 * (what `--clear-pending-creates` does, for every kind of pending operation), and that `up`
 * adopts each object the killed run made and creates the ones it never got to. The report
 * names both: the operations cleared, and the objects adopted (the providers' adoption events,
 * `sdk/resources/runtime/adoption.ts`).
 */
import type { Stack } from "@pulumi/pulumi/automation";

/** One pending operation removed from the state. */
export interface ClearedOperation {
  /** `creating`, `updating`, `deleting`, `reading` or `importing`. */
  readonly type: string;
  readonly urn: string;
}

interface PendingOperation {
  type?: string;
  resource?: { urn?: string };
}

/**
 * Removes every pending operation from `stack`'s state and returns them; the state is not
 * rewritten when there is none.
 */
export async function clearPendingOperations(stack: Stack): Promise<ClearedOperation[]> {
  const exported = await stack.exportStack();
  const deployment = exported.deployment as { pending_operations?: PendingOperation[] } | undefined;
  const pending = deployment?.pending_operations ?? [];
  if (pending.length === 0) return [];
  const cleared = pending.map((op) => ({ type: op.type ?? "unknown", urn: op.resource?.urn ?? "(no urn)" }));
  delete deployment!.pending_operations;
  await stack.importStack(exported);
  return cleared;
}

/** The pending operations still in `stack`'s state (0 after a clean recovery). */
export async function pendingOperations(stack: Stack): Promise<number> {
  const exported = await stack.exportStack();
  return ((exported.deployment as { pending_operations?: unknown[] } | undefined)?.pending_operations ?? []).length;
}
