/** The test setup's tolerance of a late progress acknowledgement, and nothing more. */
import { describe, expect, it } from "vitest";
import { tolerateLateTaskAcks } from "../support/late-task-acks";

const late = () => Promise.reject(new Error('[vitest-worker]: Timeout calling "onTaskUpdate"'));

describe("tolerateLateTaskAcks", () => {
  it("turns the acknowledgement timeout of onTaskUpdate into success", async () => {
    const rpc = tolerateLateTaskAcks({ onTaskUpdate: late });
    await expect(rpc.onTaskUpdate()).resolves.toBeUndefined();
  });

  it("passes results and other errors of onTaskUpdate through", async () => {
    await expect(tolerateLateTaskAcks({ onTaskUpdate: async () => "ok" }).onTaskUpdate()).resolves.toBe("ok");
    const broken = tolerateLateTaskAcks({ onTaskUpdate: () => Promise.reject(new Error("channel closed")) });
    await expect(broken.onTaskUpdate()).rejects.toThrow("channel closed");
  });

  it("leaves every other call as it is, timeouts included", async () => {
    const rpc = tolerateLateTaskAcks({ onCollected: () => Promise.reject(new Error('[vitest-worker]: Timeout calling "onCollected"')) });
    await expect(rpc.onCollected()).rejects.toThrow("Timeout calling");
  });

  it("is installed in this worker", () => {
    const state = (globalThis as { __vitest_worker__?: { rpc?: object } }).__vitest_worker__;
    expect(state?.rpc).toBeDefined();
    // Calling through the installed channel still works (it reaches the host).
    expect(typeof (state!.rpc as { onTaskUpdate?: unknown }).onTaskUpdate).toBe("function");
  });
});
