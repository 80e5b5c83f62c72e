/**
 * @module resources/runtime/engine-slots
 * How many of the engine's operation slots this provider holds, and whether every one of them
 * is held by an item waiting in a batch (`batch.ts`).
 *
 * Why: the engine runs at most `--parallel` resource operations at once (create, read, update,
 * delete). A batch on a limited plan waits for the creates the engine announced; but while every
 * slot is held by a create waiting in a batch, the engine cannot start another one, so nothing
 * more can join: the batch must go. Without this, a plain `pulumi up` (default parallelism, 8 on
 * a 2-core machine) waited out the batch's bounds once per wave of 8 creates.
 *
 * The engine's parallelism is not told to a provider. It is `PULUMI_PARALLEL` when the
 * environment sets it (the provider inherits the CLI's environment), else the engine's default,
 * 4 per CPU (docs/settings.md, "--parallel"). A
 * `--parallel` flag is invisible here: with a smaller one, the batch falls back to its time
 * bounds; with a larger one, a batch may go before it is full.
 */
import * as os from "node:os";
import type { RunContext } from "./run-types";

/** The engine's default operations at once per CPU (`pulumi up --parallel`; docs/settings.md, "--parallel"). */
export const ENGINE_PARALLEL_PER_CPU = 4;

/** The engine's parallelism as this process can know it: `PULUMI_PARALLEL`, else 4 per CPU. */
export function engineParallelism(env: NodeJS.ProcessEnv = process.env): number {
  const set = Number(env.PULUMI_PARALLEL);
  if (Number.isSafeInteger(set) && set > 0) return set;
  return ENGINE_PARALLEL_PER_CPU * os.availableParallelism();
}

/** Operations of each configuration in flight now: the engine slots it holds. */
const held = new WeakMap<RunContext, number>();

/** Runs `operation` (a create, read, update or delete) counted as one engine slot held by `context`. */
export async function holdingSlot<T>(context: RunContext, operation: () => Promise<T>): Promise<T> {
  held.set(context, (held.get(context) ?? 0) + 1);
  try {
    return await operation();
  } finally {
    held.set(context, (held.get(context) ?? 1) - 1);
  }
}

/** The engine slots `context` holds now. */
export function slotsHeld(context: RunContext): number {
  return held.get(context) ?? 0;
}

/**
 * True when the engine can start no operation before a batch goes: its every slot is held by
 * this provider, and each of those operations is an item waiting in a batch (`waiting`).
 */
export function everySlotWaits(context: RunContext, waiting: number, parallelism = engineParallelism()): boolean {
  const inFlight = slotsHeld(context);
  return inFlight >= parallelism && waiting >= inFlight;
}
