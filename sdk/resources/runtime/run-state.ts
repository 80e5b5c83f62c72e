/**
 * @module resources/runtime/run-state
 * Per-run state, one feature at a time: each feature (shared reads, claims, batches, the census
 * of the plan, ...) keeps what it remembers during a run in its own `WeakMap` keyed by the run's
 * {@link RunContext}, made on first use. No context object knows every feature, so the features
 * need not import each other, and a context's state goes with the context.
 *
 * A feature that belongs to a group (`census`: everything the plan's census and the lockout
 * checks count) is forgotten with its group, by {@link forgetGroup}, without the module that
 * forgets knowing the features of the group.
 */
import type { RunContext } from "./run-types";

/** The per-run state of one feature. */
export interface PerRun<T> {
  /** The state of `context`, made on first use. */
  of(context: RunContext): T;
  /** Drops the state of `context`: the next use makes it afresh. */
  forget(context: RunContext): void;
}

/** The features of each group, by group name. */
const groups = new Map<string, Array<PerRun<unknown>>>();

/** A feature's per-run state, made by `make`; with `group`, forgotten with that group too. */
export function perRun<T>(make: () => T, group?: string): PerRun<T> {
  const states = new WeakMap<RunContext, T>();
  const feature: PerRun<T> = {
    of(context) {
      let state = states.get(context);
      if (state === undefined) {
        state = make();
        states.set(context, state);
      }
      return state;
    },
    forget(context) {
      states.delete(context);
    },
  };
  if (group !== undefined) groups.set(group, [...(groups.get(group) ?? []), feature]);
  return feature;
}

/** Forgets the state of every feature of `group` in `context`. */
export function forgetGroup(context: RunContext, group: string): void {
  for (const feature of groups.get(group) ?? []) feature.forget(context);
}
