/**
 * What a preview of an organization already in place costs the service, on the real engine, on
 * both front doors, through a counting proxy: a plain `preview` with no change sends one request,
 * the settings check's read of the organization (which the plan's census and lockout checks
 * share), and `preview --refresh` reads each collection at most once.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessThrough, FRONT_DOORS, type Declared } from "../support/declared-stacks";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";

const TIMEOUT = 600_000;
const EACH = 4;

let emu: TestEmulator;
let proxy: FaultProxy;
let work: string;

beforeAll(async () => {
  pulumiBinDir();
  emu = await startTestEmulator();
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
  work = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-preview-requests-"));
});

afterAll(async () => {
  await proxy?.close();
  await emu?.stop();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

function organization(prefix: string): Declared[] {
  return [
    ...Array.from({ length: EACH }, (_, i) => ({ kind: "UserTag", name: `t${i}`, args: { userTagName: `${prefix}-tag-${i}` } })),
    ...Array.from({ length: EACH }, (_, i) => ({
      kind: "Policy",
      name: `p${i}`,
      args: { policyName: `${prefix}-policy-${i}`, effect: "EFFECT_DENY", condition: `activity.type == '${prefix.toUpperCase()}_NEVER_${i}'` },
    })),
    ...Array.from({ length: EACH }, (_, i) => ({ kind: "User", name: `u${i}`, args: { userName: `${prefix}-user-${i}`, userEmail: `${prefix}-user-${i}@example.com` } })),
  ];
}

/** Requests since the last reset, by path (`query/get_organization`). */
const requests = () => Object.fromEntries(Object.entries(proxy.counts.byPath).map(([p, n]) => [p.replace("/public/v1/", ""), n]));

describe.each(FRONT_DOORS.map((door, i) => ({ ...door, prefix: `pr${i}` })))("a preview of an organization in place: $path", ({ make, prefix }) => {
  it("no change: one request, the settings check's read; with --refresh, one read per collection", { timeout: TIMEOUT }, async () => {
    const { handle } = await make(work, accessThrough(proxy.url, emu.emulator.bootstrap), organization(prefix));
    try {
      const up = await handle.stack.up();
      expect(up.summary.result).toBe("succeeded");

      proxy.resetCounts();
      const preview = await handle.stack.preview();
      expect(Object.keys(preview.changeSummary).filter((op) => op !== "same")).toEqual([]);
      expect(requests()).toEqual({ "query/get_organization": 1 });

      proxy.resetCounts();
      const refreshed = await handle.stack.preview({ refresh: true });
      expect(Object.keys(refreshed.changeSummary).filter((op) => op !== "same")).toEqual([]);
      const reads = requests();
      expect(Object.keys(reads).every((p) => p.startsWith("query/"))).toBe(true);
      for (const [p, n] of Object.entries(reads)) expect({ path: p, count: n }).toEqual({ path: p, count: 1 });
      expect(proxy.counts.byStatus["429"] ?? 0).toBe(0);
      // No destroy: the two doors' objects have names of their own, the emulator goes with the
      // file, and a destroy would be an engine run this test asserts nothing on.
    } finally {
      await handle.cleanup();
    }
  });
});
