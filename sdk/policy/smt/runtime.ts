/**
 * @module policy/smt/runtime
 * The one Z3 runtime of a process, and the rule that keeps its memory bounded: every use of the
 * solver runs inside {@link withSolver}, one at a time, and everything Z3 allocated for it is
 * freed when it ends.
 *
 * Why this is needed: z3-solver frees a Z3 object (a term, a solver, a model) only when the
 * garbage collector finalizes its JavaScript wrapper. The wrappers are small and the garbage
 * collector is driven by the JavaScript heap, not by Z3's WebAssembly heap, so in a process that
 * runs hundreds of diffs Z3's memory grows until its 2 GB cap and the solver's thread aborts.
 * Finalizers are also unsafe in themselves: they call into Z3 on the main thread whenever the
 * collector runs, including while a solver check runs on Z3's own thread over the same context
 * (Z3 is not thread safe).
 *
 * So the runtime takes the finalization of Z3's objects into its own hands: the library's
 * registry is replaced, when its API is created, by one that records each object created inside
 * a job and frees it when the job ends (no check runs then, and no object of a job outlives it:
 * a job returns plain data), and that defers the finalizers of objects created outside a job to
 * the next moment no check runs.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Z3Context } from "./encode";

/** The frees of one job's objects, by their unregister token (an object freed early by `release()` leaves it). */
type Arena = Map<object, () => void>;

interface Runtime {
  readonly context: Z3Context;
  /** Bytes Z3 has allocated and not freed (its own accounting, `Z3_get_estimated_alloc_size`). */
  readonly allocated: () => number;
  /** The WebAssembly heap's size in bytes (the build reserves its 2 GB cap up front, so this stays put). */
  readonly heapSize: () => number;
}

let runtime: Promise<Runtime> | undefined;
/** Resolves once Z3's build is imported and compiling on its own threads (see {@link solverStarting}). */
let compiling: Promise<void> | undefined;
/** Finalizers of objects created outside a job, run only where no check runs. */
const deferred: (() => void)[] = [];
const currentArena = new AsyncLocalStorage<Arena>();
/** The end of the last job queued: jobs run one after another. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * The registry z3-solver creates its objects' finalizers with. An object created inside a job
 * is freed when the job ends (and never by the collector); any other object's finalizer is
 * deferred to the next safe moment.
 */
function ownedRegistry(): typeof FinalizationRegistry {
  const Native = FinalizationRegistry;
  return class OwnedRegistry<T> {
    private readonly inner: FinalizationRegistry<T>;
    private readonly arenas = new WeakMap<object, Arena>();

    constructor(private readonly finalize: (held: T) => void) {
      this.inner = new Native((held: T) => deferred.push(() => this.finalize(held)));
    }

    register(target: object, held: T, token?: object): void {
      const arena = currentArena.getStore();
      if (arena !== undefined && token !== undefined) {
        arena.set(token, () => this.finalize(held));
        this.arenas.set(token, arena);
        return;
      }
      this.inner.register(target, held, token);
    }

    unregister(token: object): boolean {
      const arena = this.arenas.get(token);
      if (arena !== undefined) {
        this.arenas.delete(token);
        return arena.delete(token);
      }
      return this.inner.unregister(token);
    }
  } as unknown as typeof FinalizationRegistry;
}

function load(): Promise<Runtime> {
  if (runtime !== undefined) return runtime;
  const modules = Promise.all([
    import("z3-solver/build/low-level/index.js"),
    import("z3-solver/build/high-level/high-level.js"),
    // @ts-expect-error the emscripten build has no types
    import("z3-solver/build/z3-built.js"),
  ]);
  const initialized = modules.then(([{ init }, , built]) => init((built as { default?: unknown }).default ?? built));
  // A failed import is reported by `runtime`, which awaits `modules` first.
  initialized.catch(() => undefined);
  // Registered after `initialized`'s handler, so it resolves once `init` has been called.
  compiling = modules.then(
    () => undefined,
    () => undefined,
  );
  runtime = (async () => {
    const [, { createApi }] = await modules;
    const { Z3, em } = await initialized;
    // The API's one registry is made now, synchronously: swap the global for this call only.
    const original = globalThis.FinalizationRegistry;
    globalThis.FinalizationRegistry = ownedRegistry();
    let api: ReturnType<typeof createApi>;
    try {
      api = createApi(Z3);
    } finally {
      globalThis.FinalizationRegistry = original;
    }
    const context = api.Context("main") as Z3Context;
    await warmUp(context);
    return {
      context,
      allocated: () => Number(Z3.get_estimated_alloc_size()),
      heapSize: () => (em as { HEAPU8: Uint8Array }).HEAPU8.length,
    };
  })();
  return runtime;
}

/**
 * A solver for the questions keyform asks: every formula is over integer and boolean constants
 * with linear arithmetic (strings are interned as integers, counts are sums of if-then-else), so
 * the solver is set up for that logic. Z3's default solver first probes a question to pick a
 * strategy, which on this WebAssembly build can cost a few hundred milliseconds at a solver's
 * first check. Its arithmetic is Z3's simplex-based integer solver (`smt.arith.solver` 2, a
 * complete procedure for linear integer arithmetic, Z3's default before its newer one): on the
 * diff's questions it answered 2.5-3 times faster than the newer one. The answers are the same;
 * an "unknown" from either is "not proved".
 */
export function newSolver(z: Z3Context): InstanceType<Z3Context["Solver"]> {
  const solver = new z.Solver("QF_LIA");
  solver.set("smt.arith.solver", 2);
  return solver;
}

/**
 * One small check of the kind keyform asks, before the context is handed out: the first check of
 * a process starts Z3's solver thread and compiles the code its checks run, which otherwise falls
 * on the first real question. Awaited here, while no other call can reach Z3 (it is not thread
 * safe), so a caller's work that does not touch Z3 overlaps it.
 */
async function warmUp(z: Z3Context): Promise<void> {
  const solver = newSolver(z);
  const [a, b] = [z.Int.const("warm_a"), z.Int.const("warm_b")];
  const flag = z.Bool.const("warm_flag");
  solver.add(a.ge(0), b.ge(0), z.Distinct(a, b), z.Sum(a, z.If(flag, z.Int.val(1), z.Int.val(0)) as typeof a).le(3));
  solver.push();
  if ((await solver.check()) === "sat") solver.model().release();
  solver.release();
}

function runDeferred(): void {
  for (let free = deferred.shift(); free !== undefined; free = deferred.shift()) free();
}

/**
 * Runs `job` with the Z3 context, after any other job has ended; every Z3 object it creates is
 * freed when it ends. The job must return no Z3 object (a term, solver or model): it is freed.
 * A job inside a job joins the outer one.
 */
export async function withSolver<T>(job: (z: Z3Context) => Promise<T>): Promise<T> {
  const { context } = await load();
  if (currentArena.getStore() !== undefined) return job(context);
  const run = queue.then(async () => {
    runDeferred();
    const arena: Arena = new Map();
    try {
      return await currentArena.run(arena, () => job(context));
    } finally {
      for (const free of arena.values()) free();
      arena.clear();
      runDeferred();
    }
  });
  queue = run.catch(() => undefined);
  return run;
}

/**
 * Starts Z3 when it has not started, and resolves once the main thread is free again: from then
 * on Z3 compiles its WebAssembly and starts its threads on its own, and work that needs no
 * solver overlaps that (a few hundred milliseconds of a cold start).
 */
export async function solverStarting(): Promise<void> {
  const loading = load();
  // A failed start is reported by the calls that need the solver.
  loading.catch(() => undefined);
  await compiling;
}

/**
 * The Z3 context (the WebAssembly build loads once per process; later calls reuse it). Objects
 * made with it outside {@link withSolver} are freed by the garbage collector, at a moment no
 * check runs.
 */
export async function z3Context(): Promise<Z3Context> {
  return (await load()).context;
}

/** The solver's memory now: bytes Z3 holds, and the WebAssembly heap they live in. */
export async function solverMemory(): Promise<{ allocated: number; heapSize: number }> {
  const r = await load();
  return { allocated: r.allocated(), heapSize: r.heapSize() };
}
