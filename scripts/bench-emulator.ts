/**
 * Benchmark of the emulator over loopback: a stamped query (`whoami`) and a stamped activity
 * (`create_user_tag`, one fsync'd SQLite transaction each) at concurrency 1, 4 and 16; prints
 * requests per second and p50/p99 latency. Request counts are bounded.
 *
 * The emulator runs as a child process (`dist/sdk/cli/main.js serve`), so the client's
 * stamping does not share its event loop. Run with `npm run bench:emulator`.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { ApiKeyStamper } from "../sdk/protocol/api-key-stamper";
import type { Bootstrap } from "../sdk/emulator/bootstrap";

const QUERY_REQUESTS = 600;
const ACTIVITY_REQUESTS = 300;
const CONCURRENCY = [1, 4, 16];

interface Result {
  rps: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function run(count: number, concurrency: number, request: (i: number) => Promise<void>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        const t0 = performance.now();
        await request(i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-"));
  const cli = path.resolve(__dirname, "../sdk/cli/main.js");
  const child = spawn(process.execPath, [cli, "serve", "--port", "0", "--data", dataDir, "--log-level", "silent"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`emulator exited with ${code}`)));
    });
    const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8")) as Bootstrap;
    const stamper = new ApiKeyStamper({ apiPublicKey: bootstrap.apiPublicKey, apiPrivateKey: bootstrap.apiPrivateKey });

    const send = async (p: string, body: unknown): Promise<void> => {
      const text = JSON.stringify(body);
      const stamp = await stamper.stamp(text);
      const res = await fetch(url + p, { method: "POST", headers: { "content-type": "application/json", [stamp.name]: stamp.value }, body: text });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
    };
    const query = () => send("/public/v1/query/whoami", { organizationId: bootstrap.organizationId });
    let tag = 0;
    const activity = () =>
      send("/public/v1/submit/create_user_tag", {
        type: "ACTIVITY_TYPE_CREATE_USER_TAG",
        timestampMs: String(Date.now()),
        organizationId: bootstrap.organizationId,
        parameters: { userTagName: `bench-${tag++}`, userIds: [] },
      });

    // Warm up connections and JIT.
    await run(50, 4, query);

    console.log(`keyform emulator benchmark (loopback, ${os.cpus().length} CPUs, node ${process.version})`);
    console.log("operation                 conc  requests    req/s   p50 ms   p99 ms");
    for (const [label, count, fn] of [
      ["query whoami", QUERY_REQUESTS, query],
      ["activity create_user_tag", ACTIVITY_REQUESTS, activity],
    ] as const) {
      for (const concurrency of CONCURRENCY) {
        const r = await run(count, concurrency, fn);
        console.log(
          `${label.padEnd(25)} ${String(concurrency).padStart(4)} ${String(count).padStart(9)} ${r.rps.toFixed(0).padStart(8)} ${r.p50
            .toFixed(2)
            .padStart(8)} ${r.p99.toFixed(2).padStart(8)}`,
        );
      }
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => (child.exitCode !== null ? r(null) : child.once("exit", r)));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
