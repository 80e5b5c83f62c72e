/**
 * Setup file of every test file (vitest.config.mts): a late acknowledgement of a test-progress
 * report is not a failure of the run.
 *
 * Why: a test worker reports progress to the vitest host with `onTaskUpdate` and waits at most
 * 60 s (a fixed timeout of vitest's worker channel, not configurable) for the host's
 * acknowledgement. On a loaded machine the worker can be blocked past that (a synchronous
 * `npm install`, `go build` or `pulumi` call in a test) or the host starved: the
 * acknowledgement has arrived but is read after the timer fired, and vitest reports
 * `[vitest-worker]: Timeout calling "onTaskUpdate"` as an unhandled error although every test
 * passed. The report itself is not lost: it travels one way over the process's IPC channel,
 * which neither drops nor reorders messages, and the host applies it when it reads it. So a
 * timeout of that one call is ignored; every other call, and every other error of it, still
 * fails the run.
 */
/** The message vitest's worker channel throws when an acknowledgement comes too late. */
const LATE_ACK = /^\[vitest-worker\]: Timeout calling "onTaskUpdate"/;

type Rpc = Record<string | symbol, unknown>;

/** `rpc`, with the acknowledgement timeout of `onTaskUpdate` turned into success. */
export function tolerateLateTaskAcks<T extends object>(rpc: T): T {
  return new Proxy(rpc, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (property !== "onTaskUpdate" || typeof value !== "function") return value;
      const call = value as (...args: unknown[]) => Promise<unknown>;
      return async (...args: unknown[]) => {
        try {
          return await call(...args);
        } catch (error) {
          if (error instanceof Error && LATE_ACK.test(error.message)) return undefined;
          throw error;
        }
      };
    },
  });
}

// vitest reads its worker channel from this global on every call (getWorkerState().rpc).
const state = (globalThis as { __vitest_worker__?: { rpc?: Rpc } }).__vitest_worker__;
if (state?.rpc !== undefined) state.rpc = tolerateLateTaskAcks(state.rpc);
