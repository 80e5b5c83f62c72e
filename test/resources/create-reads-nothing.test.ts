/**
 * A create reads nothing back, counted on the wire against the real emulator (through a
 * pass-through proxy): the completed activity (or the answer that holds the object) is the
 * object, so there is no read by id, of its whole collection or of the organization record per
 * create. The outputs a create returns are what a read of the object returns.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handlers } from "../../sdk/resources/runtime";
import { forgetEarlierWork } from "../../sdk/resources/runtime/earlier-work";
import { forgetSharedReads } from "../../sdk/resources/runtime/shared-reads";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { startFaultProxy, type FaultProxy } from "../support/fault-proxy";
import { useRuntimeSettings } from "./harness/runtime-settings";

let emu: TestEmulator;
let proxy: FaultProxy;
let restoreSettings: (() => void) | undefined;

beforeAll(async () => {
  emu = await startTestEmulator();
  proxy = await startFaultProxy({ upstream: emu.emulator.url, rate: 0, seed: 1 });
  restoreSettings = useRuntimeSettings(proxy.url, emu.emulator.bootstrap);
  forgetSharedReads();
  forgetEarlierWork();
});

afterAll(async () => {
  restoreSettings?.();
  await proxy?.close();
  await emu?.stop();
});

/** Requests by endpoint (e.g. `query/list_users`) since the last call. */
function requestsSince(): Record<string, number> {
  const counted = Object.fromEntries(Object.entries(proxy.counts.byPath).map(([path, count]) => [path.replace(/^\/public\/v1\//, ""), count]));
  proxy.resetCounts();
  return counted;
}

const COUNT = 6;

function declared(kind: string, i: number, userId: string): Record<string, unknown> {
  switch (kind) {
    case "UserTag":
      return { userTagName: `tag-${i}`, userIds: [userId] };
    // Odd ones set every optional field the service keeps, so each is proved to come back as sent.
    case "Policy":
      return i % 2 === 0
        ? { policyName: `policy ${i}`, effect: "EFFECT_DENY", condition: `activity.type == 'T${i}'` }
        : { policyName: `policy ${i}`, effect: "EFFECT_ALLOW", condition: `activity.type == 'T${i}'`, consensus: "approvers.count() >= 2", notes: `note ${i}` };
    case "ApiKey":
      return i % 2 === 0 ? { userId, apiKeyName: `key-${i}` } : { userId, apiKeyName: `key-${i}`, curveType: "API_KEY_CURVE_SECP256K1", expirationSeconds: 3600 + i };
    case "Invitation":
      return { receiverUserName: `u${i}`, receiverUserEmail: `u${i}@example.com`, receiverUserTags: [], accessType: "ACCESS_TYPE_API", senderUserId: userId };
    case "SmartContractInterface":
      return i % 2 === 0
        ? { smartContractAddress: "0x" + String(i).padStart(40, "0"), smartContractInterface: "[]", type: "ETHEREUM", label: `c${i}` }
        : { smartContractAddress: "0x" + String(i).padStart(40, "0"), smartContractInterface: { abi: [{ type: "function", name: "f", inputs: [] }], b: 1 }, type: "ETHEREUM", label: `c${i}`, notes: `note ${i}` };
    case "PrivateKeyTag":
      return { privateKeyTagName: `pk-tag-${i}`, privateKeyIds: [] };
    case "WebhookEndpoint":
      // One declared inactive: create, then the update that switches it off.
      return { url: `https://hooks.example.com/${i}`, name: `hook-${i}`, subscriptions: [{ eventType: "ACTIVITY_UPDATES" }], isActive: i !== 1 };
    default:
      throw new Error(kind);
  }
}

/** Reads of whole collections (a `list_*`, or the organization record). */
const collectionReads = (requests: Record<string, number>) =>
  Object.fromEntries(Object.entries(requests).filter(([endpoint]) => /^query\/(list_(?!activities)|get_organization$)/.test(endpoint)));

describe("a create reads nothing back", () => {
  for (const kind of ["UserTag", "Policy", "ApiKey", "Invitation", "SmartContractInterface", "PrivateKeyTag", "WebhookEndpoint"]) {
    it(`${kind}: ${COUNT} creates read no collection; the outputs are what a read returns`, async () => {
      const userId = emu.emulator.bootstrap.userId;
      const handler = handlers[kind]!;
      // What a provider process reads once, whatever the number of resources (whether the
      // organization can hold creates for consensus; one page of history where needed).
      const warmUp = await handler.create((await handler.check({}, declared(kind, 100, userId))).inputs);
      requestsSince();

      const made = await Promise.all(
        Array.from({ length: COUNT }, async (_, i) => {
          const { inputs } = await handler.check({}, declared(kind, i, userId));
          return handler.create(inputs);
        }),
      );
      const requests = requestsSince();
      expect(collectionReads(requests)).toEqual({});
      // One submit per create (and the inactive endpoint's update), or one plural activity for
      // the creates waiting together of a kind that has one (batch.ts); no read of its object.
      const submits = Object.entries(requests).filter(([e]) => e.startsWith("submit/"));
      const plural = handler.spec.batch?.create !== undefined;
      expect(submits.reduce((n, [, c]) => n + c, 0)).toBe(plural ? 1 : COUNT + (kind === "WebhookEndpoint" ? 1 : 0));
      const ownReads = Object.entries(requests).filter(([e]) => e.startsWith("query/get_") && e !== "query/get_activity");
      expect(Object.fromEntries(ownReads)).toEqual({});

      forgetSharedReads();
      for (const { id, outs } of [warmUp, ...made]) {
        const read = await handler.read(id, outs as Record<string, unknown>);
        expect(read.id).toBe(id);
        expect(read.props).toEqual(outs);
      }
    });
  }
});
