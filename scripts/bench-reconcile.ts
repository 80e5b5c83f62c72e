/**
 * Benchmark of what reconciliation costs the service per resource: `pulumi up` of N resources
 * (an even mix of user tags, policies, API keys, smart contract interfaces and invitations) on
 * the real engine against the emulator, then `refresh` and `destroy`. The fault proxy of the
 * test suite sits between the providers and the emulator and counts every request by endpoint;
 * with a fault rate it also injects 429, 503 and resets, to show what recovery costs. Prints
 * the figures; asserts nothing.
 *
 *   npm run bench:reconcile              # N = 200, no faults
 *   npm run bench:reconcile -- 100 0.3   # N = 100, 30% of requests failed
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as keyform from "../sdk";
import { startEmulator } from "../sdk";
import { declarations, keyOwnersNeeded, KINDS, spreadApiKeys } from "../test/support/declarations";
import { startFaultProxy, type FaultCounts } from "../test/support/fault-proxy";
import { benchPulumiCommand, createBenchStack, createKeyOwners } from "./bench-stack";

/** Requests by kind of endpoint: activity submits, the activity history, every other read. */
function breakdown(counts: FaultCounts): { submits: number; history: number; reads: number } {
  let submits = 0;
  let history = 0;
  let reads = 0;
  for (const [endpoint, n] of Object.entries(counts.byPath)) {
    if (endpoint.includes("/submit/")) submits += n;
    else if (endpoint.endsWith("/list_activities")) history += n;
    else reads += n;
  }
  return { submits, history, reads };
}

async function measure(n: number, rate: number): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-reconcile-"));
  const emulator = await startEmulator({ port: 0, dataDir: path.join(work, "emulator"), logLevel: "silent" });
  const proxy = await startFaultProxy({ upstream: emulator.url, rate, seed: 42 });
  try {
    const b = emulator.bootstrap;
    const mix = declarations("bench", n, KINDS, b.userId);
    // Spread over users of their own: one user holds at most 10 long-lived and 10 expiring keys.
    const declared = spreadApiKeys(mix, await createKeyOwners(emulator.url, b, "bench", keyOwnersNeeded(mix)));
    const stack = await createBenchStack({
      work,
      projectName: "bench-reconcile",
      program: async () => {
        for (const { kind, name, args } of declared) new (keyform[kind] as new (name: string, args: object) => unknown)(name, args);
      },
      pulumiCommand: await benchPulumiCommand(),
      baseUrl: proxy.url,
      bootstrap: b,
      // The emulator here enforces no rate limit; pacing would only measure the pace
      // (bench:plugin measures the default pace against the emulator's limit).
      envVars: { KEYFORM_MAX_REQUESTS_PER_SECOND: "0" },
    });
    console.log(`N=${n}, fault rate ${rate}`);
    for (const operation of ["up", "refresh", "destroy"] as const) {
      proxy.resetCounts();
      const t0 = Date.now();
      let runs = 0;
      // With faults, an operation may need more than one run (the tests prove it converges).
      for (;;) {
        runs++;
        try {
          if (operation === "up") await stack.up({ parallel: 16 });
          else if (operation === "refresh") await stack.refresh({ parallel: 16 });
          else await stack.destroy({ parallel: 16 });
          break;
        } catch (error) {
          if (runs >= 3) throw error;
        }
      }
      const seconds = (Date.now() - t0) / 1000;
      const { requests, faults, responseBytes } = proxy.counts;
      const { submits, history, reads } = breakdown(proxy.counts);
      const injected = Object.values(faults).reduce((a, b) => a + b, 0);
      console.log(
        `  ${operation.padEnd(7)} ${(requests / n).toFixed(2).padStart(5)} requests per resource ` +
          `(${requests}: ${submits} submits, ${history} list_activities, ${reads} other reads; ${injected} faults injected), ` +
          `${(responseBytes / 1024).toFixed(0)} KB of answers (${(responseBytes / n / 1024).toFixed(2)} KB per resource), ${runs} run(s), ${seconds.toFixed(1)} s`,
      );
    }
  } finally {
    await proxy.close();
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const [size, rate] = process.argv.slice(2).map(Number);
  await measure(Number.isInteger(size) && size! > 0 ? size! : 200, Number.isFinite(rate) && rate! >= 0 && rate! < 1 ? rate! : 0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
