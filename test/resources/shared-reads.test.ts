/**
 * Shared collection reads in the provider runtime, counted on the wire against the real
 * emulator: a refresh-like burst of reads makes one list request per collection, a delete
 * sends only the delete, and a read after a write sees the write.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { useRuntimeSettings } from "./harness/runtime-settings";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";

let emu: TestEmulator;
/** A pass-through proxy (no faults) in front of the emulator: it counts the requests sent. */
let proxy: FaultProxy;
let restoreSettings: (() => void) | undefined;

/** Endpoint (e.g. `query/list_users`) → requests sent by the provider runtime since the last call. */
function requestsSince(): Record<string, number> {
  const counted = Object.fromEntries(
    Object.entries(proxy.counts.byPath)
      .map(([path, count]) => [path.replace(/^\/public\/v1\//, ""), count] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  proxy.resetCounts();
  return counted;
}

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
  restoreSettings = useRuntimeSettings(proxy.url, emu.emulator.bootstrap);
});

afterAll(async () => {
  restoreSettings?.();
  await proxy?.close();
  await emu?.stop();
});

async function created(kind: string, news: Record<string, unknown>) {
  const handler = handlers[kind]!;
  const { inputs } = await handler.check({}, news);
  const { id, outs } = await handler.create(inputs);
  return { kind, id, outs: outs as Record<string, unknown> };
}

describe("shared reads", () => {
  it("refresh of many resources lists each collection once; delete does not read first", async () => {
    const userId = emu.emulator.bootstrap.userId;
    const objects = [];
    for (let i = 0; i < 8; i++) {
      objects.push(await created("UserTag", { userTagName: `tag-${i}`, userIds: [userId] }));
      objects.push(await created("Policy", { policyName: `policy ${i}`, effect: "EFFECT_DENY" }));
      objects.push(await created("ApiKey", { userId, apiKeyName: `key-${i}` }));
      objects.push(await created("Invitation", { receiverUserName: `u${i}`, receiverUserEmail: `u${i}@example.com`, accessType: "ACCESS_TYPE_API", senderUserId: userId }));
      objects.push(
        await created("SmartContractInterface", {
          smartContractAddress: "0x" + String(i).padStart(40, "0"),
          smartContractInterface: "[]",
          type: "ETHEREUM",
          label: `c${i}`,
        }),
      );
    }
    forgetSharedReads(); // a new run
    requestsSince();

    const read = await Promise.all(objects.map((o) => handlers[o.kind]!.read(o.id, o.outs)));
    expect(read.map((r) => r.id)).toEqual(objects.map((o) => o.id));
    expect(requestsSince()).toEqual({
      "query/get_organization": 1,
      "query/list_policies": 1,
      "query/list_smart_contract_interfaces": 1,
      "query/list_user_tags": 1,
      "query/list_users": 1,
    });

    await Promise.all(objects.map((o) => handlers[o.kind]!.delete(o.id, o.outs)));
    const deletes = requestsSince();
    expect(Object.keys(deletes).filter((endpoint) => endpoint.startsWith("query/list") || endpoint === "query/get_organization")).toEqual([]);
    // One delete each, except the kinds with a plural delete: one activity for all (batch.ts).
    const pluralKinds = new Set(objects.filter((o) => handlers[o.kind]!.spec.batch?.remove !== undefined).map((o) => o.kind));
    expect(pluralKinds).toEqual(new Set(["UserTag", "Policy", "ApiKey"]));
    expect(Object.values(deletes).reduce((a, b) => a + b, 0)).toBe(objects.filter((o) => !pluralKinds.has(o.kind)).length + pluralKinds.size);

    // Gone: a delete again is not an error, and a read drops each of them.
    await Promise.all(objects.map((o) => handlers[o.kind]!.delete(o.id, o.outs)));
    const gone = await Promise.all(objects.map((o) => handlers[o.kind]!.read(o.id, o.outs)));
    expect(gone.every((r) => r.id === "")).toBe(true);
  });

  it("a read after a write sees the write", async () => {
    const tag = await created("UserTag", { userTagName: "before", userIds: [] });
    const h = handlers.UserTag!;
    expect((await h.read(tag.id, tag.outs)).props).toMatchObject({ userTagName: "before" });
    const { inputs } = await h.check({}, { userTagName: "after", userIds: [] });
    await h.update(tag.id, tag.outs, inputs);
    requestsSince();
    expect((await h.read(tag.id, tag.outs)).props).toMatchObject({ userTagName: "after" });
    // Served by the read-back that ended the update, which came after the write.
    expect(requestsSince()).toEqual({});
    await h.delete(tag.id, tag.outs);
    expect((await h.read(tag.id, tag.outs)).id).toBe("");
  });
});
