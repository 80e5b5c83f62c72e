/**
 * Benchmark of what refresh and destroy cost the service: a stack of N resources (an even mix
 * of user tags, policies, API keys, invitations and smart contract interfaces) is created with
 * `pulumi up` on the real engine against the emulator, then refreshed and destroyed. A counting
 * proxy between the providers and the emulator records, per operation, the number of requests
 * and the response bytes of each endpoint. Prints the figures; asserts nothing.
 *
 *   npm run bench:reads               # N = 200 and 500
 *   npm run bench:reads -- 50 100     # other sizes
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { startEmulator } from "../sdk";
import { benchPulumiCommand, createBenchStack } from "./bench-stack";
import * as keyform from "../sdk";

/** Requests and response bytes per endpoint (e.g. `query/list_users`). */
type Tally = Map<string, { requests: number; bytes: number }>;

/**
 * An HTTP proxy that forwards every request to `target` unchanged (the stamp covers the body
 * bytes only, so it stays valid) and tallies what comes back into `current()`'s tally.
 */
async function startCountingProxy(target: string, current: () => Tally): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === "string" && name !== "host" && name !== "content-length") headers[name] = value;
        }
        const body = Buffer.concat(chunks);
        const answer = await fetch(target + req.url, { method: req.method, headers, ...(body.length > 0 ? { body } : {}) });
        const payload = Buffer.from(await answer.arrayBuffer());
        const endpoint = (req.url ?? "").replace(/^\/public\/v1\//, "");
        const tally = current();
        const entry = tally.get(endpoint) ?? { requests: 0, bytes: 0 };
        entry.requests += 1;
        entry.bytes += payload.length;
        tally.set(endpoint, entry);
        res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
        res.end(payload);
      } catch (error) {
        res.writeHead(502);
        res.end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The program: N resources, an even mix of five kinds. */
function program(n: number, userId: string) {
  return async () => {
    for (let i = 0; i < n; i++) {
      const name = `r${i}`;
      switch (i % 5) {
        case 0:
          new keyform.UserTag(name, { userTagName: `tag-${i}`, userIds: [userId] });
          break;
        case 1:
          new keyform.Policy(name, { policyName: `policy ${i}`, effect: "EFFECT_DENY", condition: `activity.type == 'T${i}'` });
          break;
        case 2:
          new keyform.ApiKey(name, { userId, apiKeyName: `key-${i}` });
          break;
        case 3:
          new keyform.Invitation(name, {
            receiverUserName: `user ${i}`,
            receiverUserEmail: `user${i}@example.com`,
            accessType: "ACCESS_TYPE_API",
            senderUserId: userId,
          });
          break;
        default:
          new keyform.SmartContractInterface(name, {
            smartContractAddress: "0x" + i.toString(16).padStart(40, "0"),
            smartContractInterface: '[{"type":"function","name":"ping","inputs":[]}]',
            type: "ETHEREUM",
            label: `contract ${i}`,
          });
      }
    }
  };
}

function summarize(tally: Tally): { requests: number; bytes: number; top: string } {
  let requests = 0;
  let bytes = 0;
  for (const entry of tally.values()) {
    requests += entry.requests;
    bytes += entry.bytes;
  }
  const top = [...tally.entries()]
    .sort((a, b) => b[1].bytes - a[1].bytes)
    .slice(0, 4)
    .map(([endpoint, e]) => `${endpoint} ×${e.requests} ${(e.bytes / 1024).toFixed(0)} KB`)
    .join(", ");
  return { requests, bytes, top };
}

async function measure(n: number): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-reads-"));
  const emulator = await startEmulator({ port: 0, dataDir: path.join(work, "emulator"), logLevel: "silent" });
  let tally: Tally = new Map();
  const proxy = await startCountingProxy(emulator.url, () => tally);
  try {
    const b = emulator.bootstrap;
    const stack = await createBenchStack({
      work,
      projectName: "bench-reads",
      program: program(n, b.userId),
      pulumiCommand: await benchPulumiCommand(),
      baseUrl: proxy.url,
      bootstrap: b,
    });
    for (const operation of ["up", "refresh", "destroy"] as const) {
      tally = new Map();
      const t0 = Date.now();
      if (operation === "up") await stack.up({ parallel: 16 });
      else if (operation === "refresh") await stack.refresh({ parallel: 16 });
      else await stack.destroy({ parallel: 16 });
      const seconds = (Date.now() - t0) / 1000;
      const { requests, bytes, top } = summarize(tally);
      console.log(
        `N=${n} ${operation.padEnd(7)} ${String(requests).padStart(6)} requests ${(bytes / 1024).toFixed(0).padStart(7)} KB ` +
          `${seconds.toFixed(1).padStart(6)} s   largest: ${top}`,
      );
    }
  } finally {
    await proxy.close();
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isInteger(n) && n > 0);
  for (const n of sizes.length > 0 ? sizes : [200, 500]) await measure(n);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
