/**
 * `destroy` through a flaky network converges in one run: real engine, the emulator in its own
 * process, and a proxy between the providers and the emulator that fails half of the requests
 * (429, 503, a reset before forwarding, a reset after the service acted). The reads a delete
 * makes (a User's delete reads the organization's root quorum first) get the same extra
 * chances as the writes (`sdk/client/query-recovery.ts`), so none of them uses up its retries.
 *
 * The TypeScript path (dynamic providers, the reconcile fixture) and the YAML path (the
 * provider plugin). Faults are counted on the read paths to show the reads were hit, and the
 * organization is read back with the official client afterwards: none of the stack's objects
 * is left.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ApiKeyStamper as TurnkeyApiKeyStamper } from "@turnkey/api-key-stamper";
import { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process";
import { createWorkDirStack, pulumiBinDir, type TestStack } from "../support/engine";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";

const FIXTURE = path.join(__dirname, "fixtures", "reconcile-project");
const TIMEOUT = 600_000;
const USERS = 12;
const TAGS = 12;

let work: string;
let emu: EmulatorProcess;
let proxy: FaultProxy;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-destroy-faults-"));
  emu = await startEmulatorProcess(path.join(work, "emulator"));
  proxy = await startFaultProxy({ upstream: emu.url, rate: 0, seed: 1 });
  const b = emu.bootstrap;
  official = new TurnkeyClient({ baseUrl: emu.url }, new TurnkeyApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }));
});

afterAll(async () => {
  await proxy?.close();
  await emu?.kill();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

/** The stack's users and tags still in the organization, read with the official client. */
async function leftOver(prefix: string): Promise<string[]> {
  const organizationId = emu.bootstrap.organizationId;
  const { users } = await official.getUsers({ organizationId });
  const { userTags } = await official.listUserTags({ organizationId });
  return [
    ...users.filter((u) => u.userName.startsWith(prefix)).map((u) => `User ${u.userName}`),
    ...userTags.filter((t) => t.tagName.startsWith(prefix)).map((t) => `UserTag ${t.tagName}`),
  ].sort();
}

/** Faults injected on query paths (reads), and on all paths. */
function faultFigures(): { reads: number; all: number; byPath: Record<string, number> } {
  const byPath = proxy.counts.faultsByPath;
  const reads = Object.entries(byPath).filter(([p]) => p.includes("/query/")).reduce((n, [, c]) => n + c, 0);
  const all = Object.values(byPath).reduce((n, c) => n + c, 0);
  return { reads, all, byPath };
}

/** The YAML program: `USERS` users and `TAGS` tags, the provider settings from stack config. */
function yamlProject(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(work, "yaml-"));
  const lines = ["name: kf-destroy-faults", "runtime: yaml", "resources:"];
  for (let i = 0; i < USERS; i++) {
    lines.push(`  user-${i}:`, "    type: keyform:index:User", "    properties:", `      userName: ${prefix}-user-${i}`, `      userEmail: ${prefix}-user-${i}@example.com`);
  }
  for (let i = 0; i < TAGS; i++) {
    lines.push(`  tag-${i}:`, "    type: keyform:index:UserTag", "    properties:", `      userTagName: ${prefix}-tag-${i}`);
  }
  fs.writeFileSync(path.join(dir, "Pulumi.yaml"), `${lines.join("\n")}\n`);
  return dir;
}

async function typescriptStack(prefix: string): Promise<TestStack> {
  const declared = [
    ...Array.from({ length: USERS }, (_, i) => ({ kind: "User", name: `u${i}`, args: { userName: `${prefix}-user-${i}`, userEmail: `${prefix}-user-${i}@example.com` } })),
    ...Array.from({ length: TAGS }, (_, i) => ({ kind: "UserTag", name: `t${i}`, args: { userTagName: `${prefix}-tag-${i}` } })),
  ];
  const file = path.join(work, `${prefix}.json`);
  fs.writeFileSync(file, JSON.stringify(declared));
  const b = emu.bootstrap;
  return createWorkDirStack({
    workDir: FIXTURE,
    envVars: {
      KEYFORM_BASE_URL: proxy.url,
      KEYFORM_ORGANIZATION_ID: b.organizationId,
      KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
    },
    config: { "reconcile-project:declarations": file },
  });
}

async function yamlStack(prefix: string): Promise<TestStack> {
  const b = emu.bootstrap;
  return createWorkDirStack({
    workDir: yamlProject(prefix),
    config: {
      "keyform:baseUrl": proxy.url,
      "keyform:organizationId": b.organizationId,
      "keyform:apiPublicKey": b.apiPublicKey,
      "keyform:apiPrivateKey": { value: b.apiPrivateKey, secret: true },
    },
  });
}

describe.each([
  { path: "TypeScript (dynamic providers)", prefix: "dfts", make: typescriptStack, seed: 4404 },
  { path: "YAML (provider plugin)", prefix: "dfyaml", make: yamlStack, seed: 5505 },
])("destroy through a proxy failing half the requests: $path", ({ prefix, make, seed }) => {
  it("converges in one run, with faults on the read path, and leaves none of the stack's objects", { timeout: TIMEOUT }, async () => {
    const { stack, cleanup } = await make(prefix);
    try {
      proxy.setRate(0);
      await stack.up();
      expect(await leftOver(prefix)).toHaveLength(USERS + TAGS);

      proxy.reseed(seed);
      proxy.resetCounts();
      proxy.setRate(0.5);
      let failure = "";
      try {
        await stack.destroy();
      } catch (error) {
        failure = String(error).slice(0, 4000);
      }
      proxy.setRate(0);
      const figures = faultFigures();
      console.log(`[destroy-through-faults] ${prefix}: ${proxy.counts.requests} requests, ${figures.all} faults (${figures.reads} on reads) ${JSON.stringify(figures.byPath)}`);
      expect(failure, "destroy failed").toBe("");
      // The reads were hit too: the run converged through faults on them, not around them.
      expect(figures.reads).toBeGreaterThan(0);
      expect(await leftOver(prefix)).toEqual([]);
    } finally {
      await cleanup();
    }
  });
});
