/**
 * Benchmark of `pulumi up` and `pulumi destroy` of N policies, three ways, in the same run on
 * the real engine against the emulator:
 *   floor    N no-op dynamic resources (the engine's own cost of N dynamic resources)
 *   dynamic  N `keyform.Policy` dynamic resources
 *   plugin   N `keyform:index:Policy` resources through pulumi-resource-keyform
 * Prints seconds, the ratios to the floor, and the growth from the first size to the others.
 * Asserts nothing.
 *
 *   npm run bench:plugin               # N = 200 and 500
 *   npm run bench:plugin -- 50 100     # other sizes
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import { startEmulator } from "../sdk";
import { benchPulumiCommand, createBenchStack } from "./bench-stack";
import * as keyform from "../sdk";
import { repoRoot } from "../examples/shared/workspace";

type Way = "floor" | "dynamic" | "plugin";
const WAYS: readonly Way[] = ["floor", "dynamic", "plugin"];

/** A dynamic provider that does nothing: what the engine costs per dynamic resource. */
const noop: pulumi.dynamic.ResourceProvider = {
  async create() {
    return { id: "noop" };
  },
};

/** The no-op resource of the floor. */
class Noop extends pulumi.dynamic.Resource {
  constructor(name: string, index: number) {
    super(noop, name, { index }, undefined, "bench", "Noop");
  }
}

/** A policy through the provider plugin: the type token alone routes it there (found on PATH). */
class PluginPolicy extends pulumi.CustomResource {
  constructor(name: string, args: Record<string, unknown>) {
    super("keyform:index:Policy", name, { ...args, policyId: undefined });
  }
}

function policyArgs(i: number) {
  return { policyName: `policy ${i}`, effect: "EFFECT_DENY" as const, condition: `activity.type == 'T${i}'` };
}

function program(way: Way, n: number) {
  return async () => {
    for (let i = 0; i < n; i++) {
      const name = `p${i}`;
      if (way === "floor") new Noop(name, i);
      else if (way === "dynamic") new keyform.Policy(name, policyArgs(i));
      else new PluginPolicy(name, policyArgs(i));
    }
  };
}

async function measure(n: number): Promise<Record<Way, { up: number; destroy: number }>> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-plugin-"));
  const emulator = await startEmulator({ port: 0, dataDir: path.join(work, "emulator"), logLevel: "silent" });
  const figures = {} as Record<Way, { up: number; destroy: number }>;
  try {
    const pulumiCommand = await benchPulumiCommand();
    for (const way of WAYS) {
      const stack = await createBenchStack({
        work,
        projectName: `bench-${way}`,
        program: program(way, n),
        pulumiCommand,
        baseUrl: emulator.url,
        bootstrap: emulator.bootstrap,
        envVars: { PATH: [path.dirname(pulumiCommand.command), path.join(repoRoot, "bin"), process.env.PATH ?? ""].join(path.delimiter) },
      });
      let t0 = Date.now();
      await stack.up({ parallel: 16 });
      const up = (Date.now() - t0) / 1000;
      t0 = Date.now();
      await stack.destroy({ parallel: 16 });
      const destroy = (Date.now() - t0) / 1000;
      figures[way] = { up, destroy };
      console.log(`N=${n} ${way.padEnd(7)} up ${up.toFixed(1).padStart(6)} s   destroy ${destroy.toFixed(1).padStart(6)} s`);
    }
    const ratio = (way: Way, op: "up" | "destroy") => (figures[way][op] / figures.floor[op]).toFixed(2);
    console.log(
      `N=${n} ratio to the floor: dynamic up ${ratio("dynamic", "up")}× destroy ${ratio("dynamic", "destroy")}×; ` +
        `plugin up ${ratio("plugin", "up")}× destroy ${ratio("plugin", "destroy")}×`,
    );
    return figures;
  } finally {
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const parsed = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
  const sizes = parsed.length > 0 ? parsed : [200, 500];
  const results = new Map<number, Record<Way, { up: number; destroy: number }>>();
  for (const n of sizes) results.set(n, await measure(n));
  const [first, ...rest] = sizes;
  for (const n of rest) {
    const base = results.get(first!)!;
    const now = results.get(n)!;
    const growth = WAYS.map((way) => `${way} up ${(now[way].up / base[way].up).toFixed(2)}× destroy ${(now[way].destroy / base[way].destroy).toFixed(2)}×`);
    console.log(`growth N=${first}→${n} (linear would be ${(n / first!).toFixed(2)}×): ${growth.join("; ")}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
