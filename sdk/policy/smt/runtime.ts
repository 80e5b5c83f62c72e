/**
 * @module policy/smt/runtime
 * The one Z3 runtime of a process, and the rule that keeps its memory bounded: every use of the
 * solver runs inside {@link withSolver}, one at a time, and everything Z3 allocated for it is
 * freed when it ends.
 *
 * Why this is needed: z3-solver frees a Z3 object (a term, a solver, a model) only when the
 * garbage collector finalizes its JavaScript wrapper. The wrappers are small and the garbage
 * collector is driven by the JavaScript heap, not by Z3's WebAssembly heap, so in a process that
 * runs hundreds of diffs Z3's memory grows until its 2 GB cap and Z3 aborts. Finalizers are
 * also unsafe in themselves: they call into Z3 whenever the collector runs, including between
 * the calls of a job that still uses the objects they free, and, with z3-solver's own `check()`
 * (run on a thread of Z3's), during a check over the same context (Z3 is not thread safe).
 *
 * So the runtime takes the finalization of Z3's objects into its own hands: the library's
 * registry is replaced, when its API is created, by one that records each object created inside
 * a job and frees it when the job ends (no check runs then, and no object of a job outlives it:
 * a job returns plain data), and that defers the finalizers of objects created outside a job to
 * the next moment no check runs.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Z3Context, Z3Model } from "./encode";
import type { SolverModel } from "./model-values";

/** The frees of one job's objects, by their unregister token (an object freed early by `release()` leaves it). */
type Arena = Map<object, () => void>;

interface Runtime {
  readonly context: Z3Context;
  /** Bytes Z3 has allocated and not freed (its own accounting, `Z3_get_estimated_alloc_size`). */
  readonly allocated: () => number;
  /** The WebAssembly heap's size in bytes (the build reserves its 2 GB cap up front, so this stays put). */
  readonly heapSize: () => number;
  /** Z3's low-level API, and the context's pointer in it. */
  readonly low: LowLevel;
  /** `Z3_solver_check` of the WebAssembly module, called on this thread. */
  readonly checkHere: (c: unknown, solver: unknown) => number;
}

/** The calls of Z3's low-level API that read a model without the high-level API's wrappers and printing. */
interface LowLevel {
  readonly c: unknown;
  readonly model_get_num_consts: (c: unknown, m: unknown) => number;
  readonly model_get_const_decl: (c: unknown, m: unknown, i: number) => unknown;
  readonly model_get_const_interp: (c: unknown, m: unknown, d: unknown) => unknown;
  readonly model_eval: (c: unknown, m: unknown, t: unknown, completion: boolean) => unknown;
  readonly get_decl_name: (c: unknown, d: unknown) => unknown;
  readonly get_symbol_string: (c: unknown, s: unknown) => string;
  readonly get_ast_kind: (c: unknown, a: unknown) => number;
  readonly get_numeral_string: (c: unknown, a: unknown) => string;
  readonly get_bool_value: (c: unknown, a: unknown) => number;
  readonly get_error_code: (c: unknown) => number;
  readonly get_error_msg: (c: unknown, code: number) => string;
}

let runtime: Promise<Runtime> | undefined;
/** The runtime once loaded: a model exists only then, so its readers below take it from here. */
let loaded: Runtime | undefined;
/** Resolves once Z3's build is imported and compiling in the background (see {@link solverStarting}). */
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
    loaded = {
      context,
      allocated: () => Number(Z3.get_estimated_alloc_size()),
      heapSize: () => (em as { HEAPU8: Uint8Array }).HEAPU8.length,
      low: { ...(Z3 as unknown as Omit<LowLevel, "c">), c: context.ptr },
      checkHere: (em as { _Z3_solver_check: (c: unknown, solver: unknown) => number })._Z3_solver_check,
    };
    return loaded;
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
 * on Z3's WebAssembly compiles in the background, and work that needs no solver overlaps that
 * (a few hundred milliseconds of a cold start).
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

/** Z3's kind of a term that is a number (`Z3_NUMERAL_AST`). */
const NUMERAL_AST = 0;

function loadedRuntime(): Runtime {
  if (loaded === undefined) throw new Error("the solver's runtime is not loaded: a solver and its model come from a loaded one");
  return loaded;
}

/** Throws the error Z3 reports for the last call, if any (the low-level calls do not check it). */
function throwIfError(low: LowLevel): void {
  const code = low.get_error_code(low.c);
  if (code !== 0) throw new Error(`Z3: ${low.get_error_msg(low.c, code)}`);
}

/**
 * Each constant `model` defines, by name: its value when it is a literal, as the solver writes
 * it without brackets (`12`, `-3`, `true`), else undefined. Read with a few calls per constant;
 * the model's text (`Z3_model_to_string`) would set up Z3's printer on every call, which costs
 * more than reading the few dozen constants of a request space.
 */
export function modelDefinitions(model: { readonly ptr: unknown }): Map<string, string | undefined> {
  const { low } = loadedRuntime();
  const { c } = low;
  const m = model.ptr;
  const definitions = new Map<string, string | undefined>();
  const count = low.model_get_num_consts(c, m);
  for (let i = 0; i < count; i++) {
    const decl = low.model_get_const_decl(c, m, i);
    const name = low.get_symbol_string(c, low.get_decl_name(c, decl));
    const value = low.model_get_const_interp(c, m, decl);
    definitions.set(name, value ? literalOf(low, value) : undefined);
  }
  throwIfError(low);
  return definitions;
}

/** `model` as `ModelValues` reads it: its definitions read by {@link modelDefinitions}. */
export function solverModel(model: Z3Model): SolverModel {
  return { definitions: () => modelDefinitions(model), eval: (e, complete) => model.eval(e, complete) };
}

/** Whether `term` (a formula) holds in `model`, with model completion, as `model.eval(term, true)` answers it, without printing the answer. */
export function modelHolds(model: { readonly ptr: unknown }, term: { readonly ast: unknown }): boolean {
  const { low } = loadedRuntime();
  const value = low.model_eval(low.c, model.ptr, term.ast, true);
  throwIfError(low);
  if (value === null) throw new Error("Z3: the model could not evaluate the formula");
  const answer = low.get_bool_value(low.c, value);
  if (answer === 0) throw new Error("Z3: the model evaluates the formula to a term that is neither true nor false");
  return answer === 1;
}

/** A literal's text (`12`, `-3`, `true`, `false`), or undefined for another term. */
function literalOf(low: LowLevel, value: unknown): string | undefined {
  if (low.get_ast_kind(low.c, value) === NUMERAL_AST) return low.get_numeral_string(low.c, value);
  const truth = low.get_bool_value(low.c, value);
  return truth === 1 ? "true" : truth === -1 ? "false" : undefined;
}

/**
 * Checks `solver` on this thread: what its `check()` answers. z3-solver's `check()` starts a
 * thread of Z3's for every check (a Web Worker taken from a pool and posted a message) and
 * returns a promise; keyform's checks are small (a few milliseconds each, hundreds in a diff), so
 * that start cost as much CPU as the check, and nothing useful ran beside it: the asserts and
 * the model reads between checks run on this thread anyway. The answer is the same question's
 * (sat, unsat or unknown); the process's work waits for it, as it does for an assert.
 */
export function checkNow(solver: { readonly ptr: unknown }): "sat" | "unsat" | "unknown" {
  const { low, checkHere } = loadedRuntime();
  const code = checkHere(low.c, solver.ptr);
  throwIfError(low);
  return code === 1 ? "sat" : code === -1 ? "unsat" : "unknown";
}
