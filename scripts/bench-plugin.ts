/**
 * Benchmark of `pulumi up` and `pulumi destroy` of N mixed keyform resources (user tags,
 * policies, API keys, smart contract interfaces, invitations) on the real engine against the
 * emulator, each way against its floor:
 *   F1       N no-op dynamic resources whose provider has only `create` (the engine's own cost
 *            of N dynamic resources)
 *   dynamic  the N resources as keyform dynamic resources
 *   NY       the N resources' inputs on a no-op provider plugin on the same Node gRPC stack as
 *            keyform's plugin (`bench-noop-plugin.ts`)
 *   plugin   the N resources through pulumi-resource-keyform
 *   F1out    keyform's dynamic resource types and inputs, whose provider returns the ids and
 *            outputs keyform's dynamic resources got in the same repetition (bench-replay.ts)
 *   NYout    the no-op plugin again, returning for each resource the id and outputs keyform's
 *            plugin returned in the same repetition
 * The replay ways are the engine's cost of keyform's state (ids, the organization, the service's
 * values) with no request: dynamic ÷ F1out and plugin ÷ NYout are the cost of keyform's own
 * work; F1out ÷ F1 and NYout ÷ NY that of the state the public classes have.
 * The ways run interleaved (F1, dynamic, F1out, NY, plugin, NYout, then again) and each figure
 * is the median of the repetitions. Also printed: state bytes per resource after `up`, answer
 * bytes per resource (a counting pass-through proxy sits in front of the emulator), and the
 * growth from the first size to the others. The ratio runs switch pacing off (the emulator
 * enforces no limit there); a last run measures the default settings against the emulator with
 * the service's rate limit on, and counts the 429s it answered. Asserts nothing.
 *
 *   npm run bench:plugin                          # N = 200 and 500, 3 repetitions, paced run of 50
 *   npm run bench:plugin -- 50 100 --reps 1 --paced 20
 *   npm run bench:plugin -- 500 --ways NY,plugin,NYout --paced 0   # the plugin path only
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import type { Stack } from "@pulumi/pulumi/automation";
import * as keyform from "../sdk";
import { DYNAMIC_TYPE_PREFIX } from "../sdk/resources/provider";
import { DEFAULT_MAX_REQUESTS_PER_SECOND } from "../sdk/resources/runtime/settings";
import { repoRoot } from "../examples/shared/workspace";
import { declarations, keyOwnersNeeded, KINDS, spreadApiKeys, type Declaration } from "../test/support/declarations";
import { startEmulatorProcess, type EmulatorProcess } from "../test/support/emulator-process";
import { startFaultProxy, type FaultProxy } from "../test/support/fault-proxy";
import { recordedOutputs, replayEnvironment, ReplayResource, type ExportedResource, type Recorded } from "./bench-replay";
import { benchPulumiCommand, createBenchStack, createKeyOwners } from "./bench-stack";

type Way = "F1" | "dynamic" | "F1out" | "NY" | "plugin" | "NYout";
const WAYS: readonly Way[] = ["F1", "dynamic", "F1out", "NY", "plugin", "NYout"];
/** Each way's floor. */
const FLOOR: Record<"dynamic" | "plugin", Way> = { dynamic: "F1", plugin: "NY" };

interface Figures {
  up: number;
  destroy: number;
  /** Bytes of the exported state after `up`, per resource. */
  stateBytes: number;
  /** Bytes of the service's answers during `up`, per resource. */
  answerBytes: number;
}

/** A dynamic provider that does nothing but create: what the engine costs per dynamic resource. */
const noop: pulumi.dynamic.ResourceProvider = {
  async create() {
    return { id: "noop" };
  },
};

/** A resource of a provider plugin, by type token (the plugin is found on PATH). */
class PluginResource extends pulumi.CustomResource {
  constructor(type: string, name: string, args: Record<string, unknown>) {
    super(type, name, args);
  }
}

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, index: number) {
    super(noop, name, { index }, undefined, "bench", "Noop");
  }
}

function program(way: Way, declared: readonly Declaration[]) {
  return async () => {
    declared.forEach(({ kind, name, args }, i) => {
      if (way === "F1") new Noop(name, i);
      else if (way === "dynamic") new (keyform[kind] as new (name: string, args: object) => unknown)(name, args);
      else if (way === "F1out") new ReplayResource(kind, name, args);
      else if (way === "NY" || way === "NYout") new PluginResource("kfnoop:index:Noop", name, args);
      else new PluginResource(`keyform:index:${kind}`, name, args);
    });
  };
}

/** A folder holding `pulumi-resource-kfnoop`, the no-op plugin of the NY floor. */
function noopPluginDir(work: string): string {
  const dir = path.join(work, "noop-plugin");
  fs.mkdirSync(dir, { recursive: true });
  const launcher = path.join(dir, "pulumi-resource-kfnoop");
  fs.writeFileSync(launcher, `#!/bin/sh\nexec node ${JSON.stringify(path.join(repoRoot, "dist", "scripts", "bench-noop-plugin.js"))} "$@"\n`, { mode: 0o755 });
  return dir;
}

interface Setup {
  work: string;
  emulator: EmulatorProcess;
  proxy: FaultProxy;
  pathVar: string;
}

const prefixOf = (way: Way, n: number, rep: number) => `${way.toLowerCase()}${rep}n${n}`;

/** The users holding the API keys of a setup's runs (made once, reused: each run destroys its keys). */
const keyOwners = new WeakMap<Setup, string[]>();

/**
 * The mix of `n` resources under `prefix`, its API keys spread over users of their own: one user
 * holds at most 10 long-lived and 10 expiring keys, and preview refuses a plan over that.
 */
async function declaredFor(setup: Setup, prefix: string, n: number): Promise<Declaration[]> {
  const mix = declarations(prefix, n, KINDS, setup.emulator.bootstrap.userId);
  const owners = keyOwners.get(setup) ?? [];
  const needed = keyOwnersNeeded(mix);
  if (owners.length < needed) owners.push(...(await createKeyOwners(setup.emulator.url, setup.emulator.bootstrap, `owners${owners.length}`, needed - owners.length)));
  keyOwners.set(setup, owners);
  return spreadApiKeys(mix, owners);
}

/** Where the outputs of one repetition are kept for the way that replays them. */
const recordedOutputsFile = (setup: Setup, way: "F1out" | "NYout", n: number, rep: number) => path.join(setup.work, `${way}-${n}-${rep}.json`);

/** The replaying way of each recorded way. */
const REPLAYED_BY = { dynamic: "F1out", plugin: "NYout" } as const;

/**
 * Keeps the outputs of a dynamic or plugin `up` for the way that replays them: by resource name
 * for NYout, by the declared object's key for F1out (see bench-replay).
 */
function record(setup: Setup, way: "dynamic" | "plugin", n: number, rep: number, resources: readonly ExportedResource[]): void {
  const replay = REPLAYED_BY[way];
  const typePrefix = way === "plugin" ? "keyform:" : DYNAMIC_TYPE_PREFIX;
  const byName = recordedOutputs(resources, typePrefix, prefixOf(way, n, rep), prefixOf(replay, n, rep));
  const records = way === "plugin" ? byName : byDeclaredKey(byName, declarations(prefixOf(replay, n, rep), n, KINDS, setup.emulator.bootstrap.userId));
  fs.writeFileSync(recordedOutputsFile(setup, replay, n, rep), JSON.stringify(records));
}

/** Records by name turned into records by the key of the declared object of that name. */
function byDeclaredKey(byName: Record<string, Recorded>, declared: readonly Declaration[]): Record<string, Recorded> {
  return Object.fromEntries(declared.filter((d) => byName[d.name] !== undefined).map((d) => [d.key, byName[d.name]!]));
}

async function runOnce(setup: Setup, way: Way, n: number, rep: number, env: Record<string, string>): Promise<Figures> {
  const { emulator, proxy } = setup;
  const prefix = prefixOf(way, n, rep);
  if (way === "NYout") env = { ...env, KFNOOP_OUTPUTS: recordedOutputsFile(setup, way, n, rep) };
  if (way === "F1out") env = { ...env, ...replayEnvironment(recordedOutputsFile(setup, way, n, rep)) };
  const stack: Stack = await createBenchStack({
    work: setup.work,
    projectName: `bench-${prefix}`,
    program: program(way, await declaredFor(setup, prefix, n)),
    pulumiCommand: await benchPulumiCommand(),
    baseUrl: proxy.url,
    bootstrap: emulator.bootstrap,
    envVars: { PATH: setup.pathVar, ...env },
  });
  proxy.resetCounts();
  let t0 = Date.now();
  await stack.up({ parallel: 16 });
  const up = (Date.now() - t0) / 1000;
  const answerBytes = proxy.counts.responseBytes / n;
  const deployment = (await stack.exportStack()).deployment;
  const stateBytes = JSON.stringify(deployment).length / n;
  if (way === "dynamic" || way === "plugin") record(setup, way, n, rep, (deployment.resources ?? []) as ExportedResource[]);
  t0 = Date.now();
  await stack.destroy({ parallel: 16 });
  const destroy = (Date.now() - t0) / 1000;
  return { up, destroy, stateBytes, answerBytes };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Runs `run` against a fresh emulator (`keyform serve`, limited to `maxRequestsPerSecond` per
 * organization when given) behind a counting proxy. The emulator is a process of its own, as
 * the service is: in this process it would share an event loop with the inline Pulumi program,
 * and each of its synchronous, fsync'd transactions would hold up the program's registrations,
 * a cost only the ways that send requests would pay. It still shares the machine's cores.
 */
async function withSetup<T>(maxRequestsPerSecond: number | undefined, run: (setup: Setup) => Promise<T>): Promise<T> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-plugin-"));
  const emulator = await startEmulatorProcess(path.join(work, "emulator"), [
    "--log-level",
    "silent",
    ...(maxRequestsPerSecond !== undefined ? ["--rate-limit", String(maxRequestsPerSecond)] : []),
  ]);
  const proxy = await startFaultProxy({ upstream: emulator.url, rate: 0, seed: 1 });
  try {
    const pulumiCommand = await benchPulumiCommand();
    const pathVar = [path.dirname(pulumiCommand.command), path.join(repoRoot, "bin"), noopPluginDir(work), process.env.PATH ?? ""].join(path.delimiter);
    return await run({ work, emulator, proxy, pathVar });
  } finally {
    await proxy.close();
    await emulator.kill();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function measure(n: number, reps: number, ways: readonly Way[]): Promise<Partial<Record<Way, Figures>>> {
  return withSetup(undefined, async (setup) => {
    const runs: Record<Way, Figures[]> = { F1: [], dynamic: [], F1out: [], NY: [], plugin: [], NYout: [] };
    for (let rep = 0; rep < reps; rep++) {
      for (const way of ways) {
        // The emulator here has no rate limit: pacing would only measure the pace.
        const figures = await runOnce(setup, way, n, rep, { KEYFORM_MAX_REQUESTS_PER_SECOND: "0" });
        runs[way].push(figures);
        console.log(`N=${n} rep ${rep + 1} ${way.padEnd(7)} up ${figures.up.toFixed(1).padStart(6)} s   destroy ${figures.destroy.toFixed(1).padStart(6)} s`);
      }
    }
    const result: Partial<Record<Way, Figures>> = {};
    for (const way of ways) {
      const of = (key: keyof Figures) => median(runs[way].map((f) => f[key]));
      result[way] = { up: of("up"), destroy: of("destroy"), stateBytes: of("stateBytes"), answerBytes: of("answerBytes") };
    }
    const ratio = (way: Way, floor: Way, op: "up" | "destroy") => (result[way]![op] / result[floor]![op]).toFixed(2);
    console.log(`N=${n} medians of ${reps}:`);
    for (const way of ways) {
      const r = result[way]!;
      console.log(
        `  ${way.padEnd(7)} up ${r.up.toFixed(1).padStart(6)} s  destroy ${r.destroy.toFixed(1).padStart(6)} s  ` +
          `state ${(r.stateBytes / 1024).toFixed(2)} KB/resource  answers ${(r.answerBytes / 1024).toFixed(2)} KB/resource`,
      );
    }
    for (const way of (["dynamic", "plugin"] as const).filter((w) => result[w] && result[FLOOR[w]])) {
      const other = FLOOR[way] === "F1" ? "NY" : "F1";
      const beside = result[other]
        ? `   (/ ${other}: up ${ratio(way, other, "up")}× destroy ${ratio(way, other, "destroy")}×)`
        : "";
      console.log(`  ${way} / its floor ${FLOOR[way]}: up ${ratio(way, FLOOR[way], "up")}× destroy ${ratio(way, FLOOR[way], "destroy")}×${beside}`);
    }
    for (const way of ["dynamic", "plugin"] as const) {
      const replay = REPLAYED_BY[way];
      const floor = FLOOR[way];
      if (!result[way] || !result[replay]) continue;
      const shape = result[floor] ? `; ${replay} / ${floor} (the engine's cost of keyform's state): up ${ratio(replay, floor, "up")}× destroy ${ratio(replay, floor, "destroy")}×` : "";
      console.log(`  ${way} / ${replay} (keyform's own work, same state): up ${ratio(way, replay, "up")}× destroy ${ratio(way, replay, "destroy")}×${shape}`);
    }
    return result;
  });
}

/** `up` and `destroy` of `n` plugin resources at the default settings against the emulator enforcing the service's limit. */
async function paced(n: number): Promise<void> {
  const rate = DEFAULT_MAX_REQUESTS_PER_SECOND;
  await withSetup(rate, async (setup) => {
    const env: Record<string, string> = {};
    // The default: whatever the caller's environment says is not what is measured here.
    delete process.env.KEYFORM_MAX_REQUESTS_PER_SECOND;
    const figures = await runOnce(setup, "plugin", n, 0, env);
    // Counted since the start of `up` (runOnce resets the counts there).
    const requests = setup.proxy.counts.requests;
    console.log(
      `paced: N=${n} plugin resources at the default ${rate} requests/s, emulator limit ${rate}/s per organization: ` +
        `up ${figures.up.toFixed(1)} s, destroy ${figures.destroy.toFixed(1)} s, 429 answered: ${setup.proxy.counts.byStatus[429] ?? 0}` +
        ` (${requests} requests in all)`,
    );
  });
}

function parseArgs(argv: string[]): { sizes: number[]; reps: number; paced: number; ways: Way[] } {
  let reps = 3;
  let ways: Way[] = [...WAYS];
  let pacedSize = 50;
  const sizes: number[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--reps") reps = Number(argv[++i]);
    else if (arg === "--paced") pacedSize = Number(argv[++i]);
    else if (arg === "--ways") ways = parseWays(argv[++i] ?? "");
    else sizes.push(Number(arg));
  }
  const valid = sizes.filter((n) => Number.isInteger(n) && n > 0);
  return {
    sizes: valid.length > 0 ? valid : [200, 500],
    reps: Number.isInteger(reps) && reps > 0 ? reps : 3,
    paced: Number.isInteger(pacedSize) ? pacedSize : 50,
    ways,
  };
}

/** `--ways NY,plugin`: the ways to run, in the interleaving order of WAYS. */
function parseWays(list: string): Way[] {
  const named = list.split(",").filter((w) => w !== "");
  const unknown = named.filter((w) => !WAYS.includes(w as Way));
  if (unknown.length > 0 || named.length === 0) throw new Error(`--ways: expected a comma-separated list of ${WAYS.join(", ")}; got "${list}"`);
  for (const [recorded, replay] of Object.entries(REPLAYED_BY)) {
    if (named.includes(replay) && !named.includes(recorded)) throw new Error(`--ways: ${replay} replays the outputs of ${recorded}, so it needs ${recorded} too`);
  }
  return WAYS.filter((w) => named.includes(w));
}

async function main(): Promise<void> {
  const { sizes, reps, paced: pacedSize, ways } = parseArgs(process.argv.slice(2));
  const results = new Map<number, Partial<Record<Way, Figures>>>();
  for (const n of sizes) results.set(n, await measure(n, reps, ways));
  const [first, ...rest] = sizes;
  for (const n of rest) {
    const base = results.get(first!)!;
    const now = results.get(n)!;
    const growth = ways.map((way) => `${way} up ${(now[way]!.up / base[way]!.up).toFixed(2)}× destroy ${(now[way]!.destroy / base[way]!.destroy).toFixed(2)}×`);
    console.log(`growth N=${first}→${n} (linear would be ${(n / first!).toFixed(2)}×): ${growth.join("; ")}`);
    const bytes = (["dynamic", "plugin"] as const)
      .filter((way) => ways.includes(way))
      .map((way) => `${way} ${(base[way]!.answerBytes / 1024).toFixed(2)} → ${(now[way]!.answerBytes / 1024).toFixed(2)} KB`);
    console.log(`answer bytes per resource N=${first}→${n} (flat is linear growth): ${bytes.join("; ")}`);
  }
  if (pacedSize > 0) await paced(pacedSize);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
