/**
 * When a create looks for its own earlier work, and what it adopts, through the runtime
 * handlers against the real emulator, with the requests counted at a (fault-free) proxy:
 * a user tag in an organization without consensus costs no `list_activities`; a 409 on a
 * matching tag adopts it, one that differs names it and importId; an invitation an earlier
 * run made is adopted once (a second resource with the same parameters gets its own).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { useRuntimeSettings } from "./harness/runtime-settings";
import { forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";

let emu: TestEmulator;
let proxy: FaultProxy;
let restoreSettings: (() => void) | undefined;

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 7 });
  const b = emu.emulator.bootstrap;
  restoreSettings = useRuntimeSettings(proxy.url, b);
});

afterAll(async () => {
  restoreSettings?.();
  await proxy?.close();
  await emu?.stop();
});

/** Each case is a new run: a fresh provider process remembers nothing. */
beforeEach(() => {
  forgetEarlierWork();
  forgetSharedReads();
  proxy.resetCounts();
});

async function checked(kind: string, news: Record<string, unknown>) {
  const result = await handlers[kind]!.check({}, news);
  expect(result.failures).toEqual([]);
  return result.inputs as Record<string, unknown>;
}

const historyReads = () => proxy.counts.byPath["/public/v1/query/list_activities"] ?? 0;

describe("UserTag (unique name)", () => {
  it("a plain create reads no activity history", async () => {
    await handlers.UserTag!.create(await checked("UserTag", { userTagName: "plain", userIds: [] }));
    expect(historyReads()).toBe(0);
  });

  it("a 409 on a tag that matches is adopted; one that differs fails naming its id and importId", async () => {
    const userId = emu.emulator.bootstrap.userId;
    const { userTagId } = await emu.client.createUserTag({ userTagName: "made-earlier", userIds: [userId] });
    const adopted = await handlers.UserTag!.create(await checked("UserTag", { userTagName: "made-earlier", userIds: [userId] }));
    expect(adopted.id).toBe(userTagId);
    expect((await emu.client.listUserTags()).userTags.filter((t) => t.tagName === "made-earlier")).toHaveLength(1);

    forgetEarlierWork();
    const differs = await handlers.UserTag!.create(await checked("UserTag", { userTagName: "made-earlier", userIds: [] })).catch((e: Error) => e);
    expect(String(differs)).toContain(`the existing UserTag "${userTagId}" differs from the declared inputs: userIds (declared [], found ["${userId}"]). To manage it with this resource, set importId: "${userTagId}"`);
  });
});

describe("Invitation (no unique name)", () => {
  const invitation = { receiverUserName: "Dana", receiverUserEmail: "dana@example.com", accessType: "ACCESS_TYPE_API" };

  it("an invitation an earlier run made is adopted once; a second resource with the same parameters gets its own", async () => {
    const inputs = await checked("Invitation", { ...invitation, senderUserId: emu.emulator.bootstrap.userId });
    const first = await handlers.Invitation!.create(inputs);
    // The next run (the first one was killed before recording it).
    forgetEarlierWork();
    proxy.resetCounts();
    const adopted = await handlers.Invitation!.create(inputs);
    expect(adopted.id).toBe(first.id);
    expect(historyReads()).toBe(1);
    // Another resource of the same run, same parameters: the earlier invitation is taken.
    const second = await handlers.Invitation!.create(inputs);
    expect(second.id).not.toBe(first.id);
    // The history was read once for the run.
    expect(historyReads()).toBe(1);
    const { organizationData } = await emu.client.getOrganization();
    expect((organizationData.invitations ?? []).filter((i) => i.receiverEmail === "dana@example.com")).toHaveLength(2);
  });
});
