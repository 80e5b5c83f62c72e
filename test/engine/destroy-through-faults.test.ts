/**
 * `destroy` through a flaky network converges in one run: real engine, the emulator in its own
 * process, and a proxy between the providers and the emulator that fails half of the requests
 * (429, 503, a reset before forwarding, a reset after the service acted). The reads a delete
 * makes (a User's delete reads the organization's root quorum first) get the same extra
 * chances as the writes (`sdk/client/query-recovery.ts`), so none of them uses up its retries.
 *
 * The TypeScript path (dynamic providers, the reconcile fixture) and the YAML path (the
 * provider plugin), side by side (each mostly waits out the client's backoffs), each behind a
 * proxy of its own (its own seed and counts). The first request of every read path loses its
 * answer (scripted, so the reads are hit by construction, not by the count of objects), the
 * draw decides the rest; faults are counted on the read paths to show the reads were hit, and
 * the organization is read back with the official client afterwards: none of the stack's
 * objects is left.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessThrough, FRONT_DOORS, type Declared } from "../support/declared-stacks";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process";
import { pulumiBinDir } from "../support/engine";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { officialClient } from "../support/organization-snapshot";

const TIMEOUT = 600_000;
const USERS = 6;
const TAGS = 6;

let work: string;
let emu: EmulatorProcess;
let official: TurnkeyClient;

beforeAll(async () => {
  pulumiBinDir();
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-destroy-faults-"));
  emu = await startEmulatorProcess(path.join(work, "emulator"));
  official = officialClient({ ...emu.bootstrap, baseUrl: emu.url });
});

afterAll(async () => {
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

/** Faults `proxy` injected on query paths (reads), and on all paths. */
function faultFigures(proxy: FaultProxy): { reads: number; all: number; byPath: Record<string, number> } {
  const byPath = proxy.counts.faultsByPath;
  const reads = Object.entries(byPath).filter(([p]) => p.includes("/query/")).reduce((n, [, c]) => n + c, 0);
  const all = Object.values(byPath).reduce((n, c) => n + c, 0);
  return { reads, all, byPath };
}

/** `USERS` users and `TAGS` tags, named after `prefix`. */
function declarations(prefix: string): Declared[] {
  return [
    ...Array.from({ length: USERS }, (_, i) => ({ kind: "User", name: `u${i}`, args: { userName: `${prefix}-user-${i}`, userEmail: `${prefix}-user-${i}@example.com` } })),
    ...Array.from({ length: TAGS }, (_, i) => ({ kind: "UserTag", name: `t${i}`, args: { userTagName: `${prefix}-tag-${i}` } })),
  ];
}

describe.concurrent.each([
  { ...FRONT_DOORS[0]!, prefix: "dfts", seed: 4404 },
  { ...FRONT_DOORS[1]!, prefix: "dfyaml", seed: 5505 },
])("destroy through a proxy failing half the requests: $path", ({ prefix, make, seed }) => {
  it("converges in one run, with faults on the read path, and leaves none of the stack's objects", { timeout: TIMEOUT }, async () => {
    const proxy = await startFaultProxy({ upstream: emu.url, rate: 0, seed, scripted: { paths: /\/query\//, faults: ["resetAfter"] } });
    const { stack, cleanup } = (await make(work, accessThrough(proxy.url, emu.bootstrap), declarations(prefix))).handle;
    try {
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
      const figures = faultFigures(proxy);
      console.log(`[destroy-through-faults] ${prefix}: ${proxy.counts.requests} requests, ${figures.all} faults (${figures.reads} on reads) ${JSON.stringify(figures.byPath)}`);
      expect(failure, "destroy failed").toBe("");
      // The reads were hit too: the run converged through faults on them, not around them.
      expect(figures.reads).toBeGreaterThan(0);
      expect(await leftOver(prefix)).toEqual([]);
    } finally {
      await cleanup();
      await proxy.close();
    }
  });
});
