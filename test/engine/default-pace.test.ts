/**
 * A plain `pulumi up` on the Free plan (1 request/s), as a user runs it: no `PULUMI_PARALLEL` and
 * no `--parallel`, so the engine runs its default of 4 operations per CPU. Real engine, real
 * emulator, a counting proxy between the provider and the service. The creates of each wave of
 * the engine's slots go out as one plural activity as soon as every slot is held by a waiting
 * create (`engine-slots.ts`): the run makes one `create_policies` per wave of slots and the one
 * settings read, and no create travels alone. The wall time beside requests ÷ rate is printed
 * (measured, not asserted: the machine is shared); `npm run bench:plans` measures it at scale.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineParallelism } from "../../sdk/resources/runtime/engine-slots";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { changes, loadKeyform, since } from "../resources/harness/engine-harness";

const keyform = loadKeyform();
/** The Free plan's rate (requests per second). */
const RATE = 1;
let emu: TestEmulator;
let proxy: FaultProxy;
const savedParallel = process.env.PULUMI_PARALLEL;

beforeAll(async () => {
  // As a user runs it: no PULUMI_PARALLEL reaches the engine (or the provider it starts).
  delete process.env.PULUMI_PARALLEL;
  emu = await startTestEmulator({ plan: "free" });
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
});

afterAll(async () => {
  if (savedParallel !== undefined) process.env.PULUMI_PARALLEL = savedParallel;
  await proxy?.close();
  await emu?.stop();
});

describe("a plain pulumi up on the Free plan", () => {
  it("sends one plural create per wave of the engine's default slots, and the settings read", { timeout: 600_000 }, async () => {
    const slots = engineParallelism({});
    // Two whole waves of the engine's slots: enough to tell one activity per wave from one for
    // all, and each wave more costs a second of the plan.
    const policies = 2 * slots;
    const b = emu.emulator.bootstrap;
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-default-pace",
      config: { "keyform:baseUrl": proxy.url, "keyform:organizationId": b.organizationId, "keyform:apiPublicKey": b.apiPublicKey, "keyform:apiPrivateKey": { value: b.apiPrivateKey, secret: true } },
      program: async () => {
        for (let i = 0; i < policies; i++) {
          new keyform.Policy(`p${i}`, { policyName: `paced policy ${i}`, effect: "EFFECT_DENY", condition: `activity.type == 'PACED_${i}'` });
        }
      },
    });
    try {
      proxy.resetCounts();
      const t0 = performance.now();
      const up = await stack.up();
      const seconds = since(t0) / 1000;
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: policies });
      const { requests, byPath, byStatus } = proxy.counts;
      console.log(
        `default pace: ${policies} policies, ${slots} engine slots, ${seconds.toFixed(1)} s for ${requests} requests ` +
          `(requests / rate ${(requests / RATE).toFixed(1)} s): ${JSON.stringify(byPath)}`,
      );
      expect(byStatus[429] ?? 0).toBe(0);
      expect(byPath["/public/v1/submit/create_policy"] ?? 0).toBe(0);
      expect(byPath["/public/v1/submit/create_policies"]).toBe(2);
      expect(requests).toBe(3);
      expect((await emu.client.listPolicies()).policies.filter((p) => p.policyName.startsWith("paced policy"))).toHaveLength(policies);
    } finally {
      await cleanup();
    }
  });
});
