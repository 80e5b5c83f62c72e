/**
 * A batch on a limited plan waits for the creates the engine announced (`announceCreate`,
 * called by a resource's check of a new resource in an engine run): an announced create that
 * arrives after the batch's idle window still joins it. Against the real emulator on the Pro
 * plan (3 requests/s: a limited plan whose slots, and so the test's waits, are a third of the
 * Free plan's), through a counting proxy; the control run without announcements shows the late
 * create going out on its own.
 *
 * And it waits only while an announced create can still come: when every operation slot of the
 * engine (`PULUMI_PARALLEL`, else 4 per CPU) is held by a create waiting in a batch, the engine
 * can start nothing more, so the batch goes (`engine-slots.ts`).
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { announceCreate, batchesOf } from "../../sdk/resources/runtime/batch";
import { ENGINE_PARALLEL_PER_CPU, engineParallelism } from "../../sdk/resources/runtime/engine-slots";
import { directContext } from "../../sdk/resources/runtime/context";
import { URN_INPUT } from "../../sdk/resources/runtime/plan-census";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { useRuntimeSettings } from "./harness/runtime-settings";

let emu: TestEmulator;
let proxy: FaultProxy;
let restoreSettings: () => void;
let journalDir: string;
const savedJournal = process.env.KEYFORM_JOURNAL_DIR;

beforeAll(async () => {
  emu = await startTestEmulator({ plan: "pro" });
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
  restoreSettings = useRuntimeSettings(proxy.url, emu.emulator.bootstrap);
  journalDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-batch-announced-"));
  process.env.KEYFORM_JOURNAL_DIR = journalDir;
  // One read teaches the process's pace the plan's rate, as a run's settings check does.
  await handlers.Policy!.read("policy-that-does-not-exist", { organizationId: emu.emulator.bootstrap.organizationId });
});

afterAll(async () => {
  restoreSettings?.();
  if (savedJournal === undefined) delete process.env.KEYFORM_JOURNAL_DIR;
  else process.env.KEYFORM_JOURNAL_DIR = savedJournal;
  await proxy?.close();
  await emu?.stop();
  fs.rmSync(journalDir, { recursive: true, force: true });
});

const urnOf = (stack: string, key: string) => `urn:pulumi:${stack}::proj::pulumi-nodejs:dynamic/keyform:Policy::${key}`;

/** Resolves once `count` items wait in one batch (the condition, not a fixed sleep). */
async function joined(count: number): Promise<void> {
  while (![...batchesOf(directContext()).batchGroups.values()].some((group) => group.waiting.length >= count)) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Creates policies `keys` of `stack`, the last one `lateMs` after the others joined their batch. */
async function createWithLateOne(stack: string, keys: readonly string[], lateMs: number): Promise<void> {
  const create = async (key: string) => {
    const args = { policyName: `${stack}-${key}`, effect: "EFFECT_DENY", condition: `activity.type == '${stack}${key}'`, [URN_INPUT]: urnOf(stack, key) };
    const { inputs } = await handlers.Policy!.check({}, args);
    return handlers.Policy!.create(inputs);
  };
  const early = keys.slice(0, -1).map(create);
  await joined(early.length);
  await new Promise((resolve) => setTimeout(resolve, lateMs));
  await Promise.all([...early, create(keys[keys.length - 1]!)]);
}

const submits = () => ({ plural: proxy.counts.byPath["/public/v1/submit/create_policies"] ?? 0, singular: proxy.counts.byPath["/public/v1/submit/create_policy"] ?? 0 });

describe("a batch on a limited plan and the creates the engine announced", () => {
  // Later than the batch's idle window (one slot of the plan, 0.37 s at 3 requests/s), well within
  // the wait for announced creates (`EXPECTED_IDLE_MS` since the last arrival).
  const LATE_MS = 1_000;

  it("without announcements, a create arriving after the idle window goes out on its own (control)", async () => {
    proxy.resetCounts();
    await createWithLateOne("unannounced", ["a", "b", "c"], LATE_MS);
    expect(submits()).toEqual({ plural: 1, singular: 1 });
  });

  it("an announced create arriving after the idle window still joins the batch: one activity for the wave", async () => {
    const keys = ["a", "b", "c"];
    for (const key of keys) announceCreate(directContext(), "Policy:create", "", urnOf("announced", key));
    proxy.resetCounts();
    await createWithLateOne("announced", keys, LATE_MS);
    expect(submits()).toEqual({ plural: 1, singular: 0 });
    expect(batchesOf(directContext()).expectedCreates.size).toBe(0);
  });
});

/**
 * Runs `work` for each of `keys` as the engine runs steps: at most `slots` at once, the next one
 * started when one finishes.
 */
async function asTheEngineRuns(slots: number, keys: readonly string[], work: (key: string) => Promise<unknown>): Promise<void> {
  const queue = [...keys];
  const worker = async () => {
    for (let key = queue.shift(); key !== undefined; key = queue.shift()) await work(key);
  };
  await Promise.all(Array.from({ length: slots }, worker));
}

describe("a batch and the engine's operation slots", () => {
  const SLOTS = 3;
  const savedParallel = process.env.PULUMI_PARALLEL;

  afterAll(() => {
    if (savedParallel === undefined) delete process.env.PULUMI_PARALLEL;
    else process.env.PULUMI_PARALLEL = savedParallel;
  });

  /** Six policies of `stack`, all announced, created through `SLOTS` engine slots. */
  async function sixThroughTheSlots(stack: string): Promise<{ plural: number; singular: number; whenEverySlotWaited: number }> {
    const keys = ["a", "b", "c", "d", "e", "f"];
    const args = (key: string) => ({ policyName: `${stack}-${key}`, effect: "EFFECT_DENY", condition: `activity.type == '${stack}${key}'`, [URN_INPUT]: urnOf(stack, key) });
    // The engine checks every new resource before it starts any create: all six are announced.
    const checked = new Map<string, Record<string, unknown>>();
    for (const key of keys) {
      checked.set(key, (await handlers.Policy!.check({}, args(key))).inputs as Record<string, unknown>);
      announceCreate(directContext(), "Policy:create", "", urnOf(stack, key));
    }
    proxy.resetCounts();
    const before = batchesOf(directContext()).batchCounts.everySlotWaiting;
    await asTheEngineRuns(SLOTS, keys, (key) => handlers.Policy!.create(checked.get(key)!));
    return { ...submits(), whenEverySlotWaited: batchesOf(directContext()).batchCounts.everySlotWaiting - before };
  }

  it("goes as soon as every slot is held by a create waiting in it, though announced creates remain: they cannot start before it goes", async () => {
    process.env.PULUMI_PARALLEL = String(SLOTS);
    const outcome = await sixThroughTheSlots("slots-full");
    // Two activities of three, each sent because the engine could start nothing more.
    expect(outcome).toEqual({ plural: 2, singular: 0, whenEverySlotWaited: 2 });
    expect(batchesOf(directContext()).expectedCreates.size).toBe(0);
  });

  it("with more slots than creates in flight (control), the batch waits for the announced creates instead", async () => {
    process.env.PULUMI_PARALLEL = "500";
    const outcome = await sixThroughTheSlots("slots-free");
    expect(outcome.whenEverySlotWaited).toBe(0);
    expect(outcome.singular).toBe(0);
  });
});

describe("the engine's parallelism as a provider knows it", () => {
  it("is PULUMI_PARALLEL when set, else the engine's default of 4 per CPU", () => {
    expect(engineParallelism({ PULUMI_PARALLEL: "500" })).toBe(500);
    expect(engineParallelism({})).toBe(ENGINE_PARALLEL_PER_CPU * os.availableParallelism());
    expect(engineParallelism({ PULUMI_PARALLEL: "" })).toBe(ENGINE_PARALLEL_PER_CPU * os.availableParallelism());
    expect(engineParallelism({ PULUMI_PARALLEL: "many" })).toBe(ENGINE_PARALLEL_PER_CPU * os.availableParallelism());
  });
});
