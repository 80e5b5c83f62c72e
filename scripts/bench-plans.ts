/**
 * Benchmark of the service's rate limits: a 300-object organization (100 policies, 100 users,
 * 50 API keys on 5 of those users, 50 invitations) through `up`, `preview --refresh` and
 * `destroy` on the real engine, on the TypeScript path (keyform's dynamic resources) and the
 * plugin path (the same resources through pulumi-resource-keyform, as a YAML program has them), against the emulator under each plan
 * (`startEmulator({ plan })`: the plan's requests/s per client address, `ratelimit-*` headers,
 * 429 over it) and without a limit. A counting proxy sits between the providers and the
 * emulator. Prints, per plan and operation: wall time, requests, the floor (the fewest requests
 * the service's activities allow, issue "limits" item 5), the time the plan's rate implies for
 * those requests, and 429s. Asserts nothing.
 *
 * The engine runs at most `--parallel` resource operations at once (its default is 4 per CPU),
 * and a plural activity can only gather the creates in flight together. Each plan and path runs
 * twice: as a user runs a plain `pulumi up` (the engine's default, no `PULUMI_PARALLEL`), and with
 * `PULUMI_PARALLEL` set to {@link PARALLEL} (`KEYFORM_BENCH_PARALLEL` to change it), as the
 * GitOps runner and `scripts/org-up` do (`examples/shared/workspace.ts`).
 *
 *   npm run bench:plans                      # plans: none, free, pro; TypeScript and plugin paths
 *   npm run bench:plans -- free payg         # the plans named
 *   npm run bench:plans -- free plugin       # one path (typescript or plugin)
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";
import * as keyform from "../sdk";
import { startEmulator } from "../sdk/emulator";
import { PLAN_RATES, type Plan } from "../sdk/emulator/rate-limit";
import { startFaultProxy } from "../test/support/fault-proxy";
import { benchPulumiCommand, createBenchStack } from "./bench-stack";
import { DEFAULT_PARALLEL } from "../sdk/gitops/parallel";
import { repoRoot } from "../examples/shared/workspace";

const POLICIES = 100;
/** The organization holds at most 100 users, the root user among them. */
const USERS = 99;
const KEY_OWNERS = 5;
const KEYS_PER_OWNER = 10;
const INVITATIONS = 50;
const PARALLEL = Number(process.env.KEYFORM_BENCH_PARALLEL ?? DEFAULT_PARALLEL);

/**
 * The floor per operation: the settings check, plus one plural activity per kind and wave
 * (policies, users, invitations: one each; API keys: one per owning user); deletes of
 * invitations have no plural form (one each). Reads: one per collection (policies, users with
 * their keys, the organization record with its invitations); the settings check is the read of
 * the organization record (`verify.ts`), so a refresh needs no request of its own for it.
 */
const FLOOR = {
  up: 1 + 1 + 1 + 1 + KEY_OWNERS,
  "preview --refresh": 3,
  destroy: 1 + KEY_OWNERS + 1 + 1 + INVITATIONS,
} as const;

/** The paths a program takes to the service: keyform's dynamic resources, or the provider plugin (as a YAML program uses it). */
type ProgramPath = "typescript" | "plugin";

/** A resource of the provider plugin by type token (the plugin is found on PATH); `outputs` names the outputs the program reads. */
class PluginResource extends pulumi.CustomResource {
  constructor(type: string, name: string, args: Record<string, unknown>, outputs: readonly string[] = []) {
    super(type, name, { ...args, ...Object.fromEntries(outputs.map((o) => [o, undefined])) });
  }
}

/** The same 300 objects through the provider plugin: the resources, inputs and references a YAML program of them declares. */
function pluginProgram(rootUserId: string): () => Promise<void> {
  return async () => {
    for (let i = 0; i < POLICIES; i++) {
      new PluginResource("keyform:index:Policy", `p${i}`, { policyName: `bench policy ${i}`, effect: "EFFECT_DENY", condition: `activity.type == 'BENCH_${i}'` });
    }
    const users = Array.from({ length: USERS }, (_, i) => new PluginResource("keyform:index:User", `u${i}`, { userName: `bench-user-${i}` }, ["userId"]));
    for (let u = 0; u < KEY_OWNERS; u++) {
      for (let k = 0; k < KEYS_PER_OWNER; k++) {
        const userId = (users[u] as unknown as { userId: pulumi.Output<string> }).userId;
        new PluginResource("keyform:index:ApiKey", `k${u}-${k}`, { userId, apiKeyName: `bench-key-${u}-${k}`, publicKey: keyform.generateApiKeyPair().publicKey });
      }
    }
    for (let i = 0; i < INVITATIONS; i++) {
      new PluginResource("keyform:index:Invitation", `i${i}`, {
        receiverUserName: `bench-invitee-${i}`,
        receiverUserEmail: `bench-invitee-${i}@example.com`,
        accessType: "ACCESS_TYPE_API",
        senderUserId: rootUserId,
      });
    }
  };
}

function program(rootUserId: string): () => Promise<void> {
  return async () => {
    for (let i = 0; i < POLICIES; i++) {
      new keyform.Policy(`p${i}`, { policyName: `bench policy ${i}`, effect: "EFFECT_DENY", condition: `activity.type == 'BENCH_${i}'` });
    }
    const users = Array.from({ length: USERS }, (_, i) => new keyform.User(`u${i}`, { userName: `bench-user-${i}` }));
    for (let u = 0; u < KEY_OWNERS; u++) {
      for (let k = 0; k < KEYS_PER_OWNER; k++) {
        new keyform.ApiKey(`k${u}-${k}`, { userId: users[u]!.userId, apiKeyName: `bench-key-${u}-${k}`, publicKey: keyform.generateApiKeyPair().publicKey });
      }
    }
    for (let i = 0; i < INVITATIONS; i++) {
      new keyform.Invitation(`i${i}`, {
        receiverUserName: `bench-invitee-${i}`,
        receiverUserEmail: `bench-invitee-${i}@example.com`,
        accessType: "ACCESS_TYPE_API",
        senderUserId: rootUserId,
      });
    }
  };
}

/** The engine's parallelism of a run: its own default (no `PULUMI_PARALLEL`), or this many operations. */
type Parallel = "default" | number;

async function measure(plan: Plan | "none", programPath: ProgramPath, parallel: Parallel): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-bench-plans-"));
  const emulator = await startEmulator({ port: 0, dataDir: path.join(work, "emulator"), logLevel: "silent", ...(plan !== "none" ? { plan } : {}) });
  const proxy = await startFaultProxy({ upstream: emulator.url, rate: 0, seed: 1 });
  const rate = plan === "none" ? Infinity : PLAN_RATES[plan];
  try {
    const b = emulator.bootstrap;
    const pulumiCommand = await benchPulumiCommand();
    const stack = await createBenchStack({
      work,
      projectName: `bench-plans-${programPath}`,
      program: programPath === "plugin" ? pluginProgram(b.userId) : program(b.userId),
      pulumiCommand,
      baseUrl: proxy.url,
      bootstrap: b,
      envVars: {
        ...(parallel === "default" ? {} : { PULUMI_PARALLEL: String(parallel) }),
        // The engine finds pulumi-resource-keyform on PATH (bin/).
        PATH: [path.dirname(pulumiCommand.command), path.join(repoRoot, "bin"), process.env.PATH ?? ""].join(path.delimiter),
      },
    });
    console.log(`${programPath}, plan ${plan} (${rate === Infinity ? "no limit" : `${rate} requests/s`}), ${POLICIES + USERS + KEY_OWNERS * KEYS_PER_OWNER + INVITATIONS} objects, ${parallel === "default" ? "the engine's default parallelism (no PULUMI_PARALLEL)" : `PULUMI_PARALLEL=${parallel}`}`);
    for (const operation of ["up", "preview --refresh", "destroy"] as const) {
      // The service's bucket refills between operations, as between two pipeline runs.
      await new Promise((resolve) => setTimeout(resolve, rate === Infinity ? 0 : 1_500));
      proxy.resetCounts();
      const t0 = Date.now();
      if (operation === "up") await stack.up();
      else if (operation === "preview --refresh") await stack.preview({ refresh: true });
      else await stack.destroy();
      const seconds = (Date.now() - t0) / 1000;
      const { requests, byStatus } = proxy.counts;
      const floor = FLOOR[operation];
      const paced = rate === Infinity ? "-" : `${(requests / rate).toFixed(1)} s`;
      console.log(
        `  ${operation.padEnd(18)} ${seconds.toFixed(1).padStart(6)} s  ${String(requests).padStart(4)} requests (floor ${floor}, ${(requests / floor).toFixed(2)}x)  ` +
          `requests / rate ${paced}  429s ${byStatus[429] ?? 0}`,
      );
      const byEndpoint = Object.entries(proxy.counts.byPath)
        .sort(([, a], [, b]) => b - a)
        .map(([endpoint, n]) => `${endpoint.replace(/^\/public\/v1\//, "")} ${n}`);
      console.log(`    ${byEndpoint.join(", ")}`);
      // Where the time goes: each request's start and answer, and the gap before it.
      if (process.env.KEYFORM_BENCH_TIMELINE === "1") {
        let previousEnd = 0;
        for (const r of proxy.counts.timeline) {
          console.log(
            `      ${(r.startMs / 1000).toFixed(2).padStart(6)}-${(r.endMs / 1000).toFixed(2).padStart(6)} s  gap ${((r.startMs - previousEnd) / 1000).toFixed(2).padStart(5)} s  ${r.status} ${r.path.replace(/^\/public\/v1\//, "")} (${r.requestBytes} B)`,
          );
          previousEnd = Math.max(previousEnd, r.endMs);
        }
        console.log(`      last answer ${(previousEnd / 1000).toFixed(2)} s, engine done ${seconds.toFixed(2)} s`);
      }
    }
  } finally {
    await proxy.close();
    await emulator.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // The default runs are a plain `pulumi up`: no PULUMI_PARALLEL of this shell reaches them.
  delete process.env.PULUMI_PARALLEL;
  const named = process.argv.slice(2);
  const paths = named.filter((n): n is ProgramPath => n === "typescript" || n === "plugin");
  const planNames = named.filter((n) => n !== "typescript" && n !== "plugin");
  const plans = (planNames.length > 0 ? planNames : ["none", "free", "pro"]) as Array<Plan | "none">;
  for (const plan of plans) {
    if (plan !== "none" && !(plan in PLAN_RATES)) throw new Error(`unknown plan ${JSON.stringify(plan)}: none, ${Object.keys(PLAN_RATES).join(", ")}`);
    for (const programPath of paths.length > 0 ? paths : (["typescript", "plugin"] as const)) {
      for (const parallel of ["default", PARALLEL] as const) await measure(plan, programPath, parallel);
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
