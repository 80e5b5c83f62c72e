/**
 * A submit whose answer never arrives, against the real emulator over HTTP: the client resends
 * the byte-identical body and then asks by fingerprint, so a lost answer never becomes a
 * second object, and a failure says whether the object may exist. The network failures are
 * injected in `fetch` (a wrapper that forwards to the emulator, or not, and then throws).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiKeyStamper,
  ConnectionError,
  KeyformClient,
  SubmitNotAppliedError,
  SubmitOutcomeUnknownError,
  TimeoutError,
} from "../../sdk/client";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu?.stop();
});

/** What the injected network does to a request, by path and the how-many-th request it is. */
type Plan = (path: string, index: number) => "pass" | "lostAnswer" | "lostRequest";

function resetError(): Error {
  return Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });
}

function clientWith(plan: Plan, extra: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}) {
  const seen: string[] = [];
  const b = emu.emulator.bootstrap;
  const flakyFetch: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname;
    const what = plan(path, seen.length);
    seen.push(`${path.split("/").pop()}:${what}`);
    if (what === "lostRequest") throw resetError();
    const response = await fetch(input, init);
    if (what === "lostAnswer") {
      await response.arrayBuffer();
      throw resetError();
    }
    return response;
  };
  const client = new KeyformClient({
    baseUrl: emu.emulator.url,
    organizationId: b.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }),
    fetch: flakyFetch,
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 },
    ...extra,
  });
  return { client, seen };
}

const tagsNamed = async (name: string) => (await emu.client.listUserTags()).userTags.filter((t) => t.tagName === name);
const isSubmit = (path: string) => path.endsWith("/submit/create_user_tag");

describe("a submit without an answer", () => {
  it("every answer of the first round lost: a resend gets the activity the service already ran, once", async () => {
    const { client, seen } = clientWith((path, i) => (isSubmit(path) && i < 3 ? "lostAnswer" : "pass"));
    const { userTagId } = await client.createUserTag({ userTagName: "resent", userIds: [] });
    expect((await tagsNamed("resent")).map((t) => t.tagId)).toEqual([userTagId]);
    // Three attempts (one try, two retries), then one resend that is answered.
    expect(seen.filter((s) => s.startsWith("create_user_tag"))).toEqual([
      "create_user_tag:lostAnswer",
      "create_user_tag:lostAnswer",
      "create_user_tag:lostAnswer",
      "create_user_tag:pass",
    ]);
  });

  it("every submit answer lost: found by fingerprint in list_activities, and its result returned", async () => {
    const { client, seen } = clientWith((path) => (isSubmit(path) ? "lostAnswer" : "pass"));
    const { userTagId } = await client.createUserTag({ userTagName: "looked-up", userIds: [] });
    expect((await tagsNamed("looked-up")).map((t) => t.tagId)).toEqual([userTagId]);
    expect(seen.at(-1)).toBe("list_activities:pass");
  });

  it("no request ever arrived: the service confirms it holds no such activity; nothing was created", async () => {
    const { client } = clientWith((path) => (isSubmit(path) ? "lostRequest" : "pass"));
    const error = await client.createUserTag({ userTagName: "never", userIds: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmitNotAppliedError);
    expect(String(error)).toMatch(/createUserTag: not applied: no answer arrived \(.*ECONNRESET.*\) and the service holds no activity with fingerprint sha256:[0-9a-f]{64}/);
    expect(await tagsNamed("never")).toEqual([]);
  });

  it("applied, then the service unreachable: the outcome is unknown and the error says it may have been applied", async () => {
    const { client } = clientWith((path, i) => (i === 0 ? "lostAnswer" : "lostRequest"));
    const error = await client.createUserTag({ userTagName: "unknown", userIds: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SubmitOutcomeUnknownError);
    expect(String(error)).toMatch(/outcome is unknown: .* fingerprint sha256:[0-9a-f]{64}; it may have been applied/);
    expect((error as SubmitOutcomeUnknownError).activityType).toBe("ACTIVITY_TYPE_CREATE_USER_TAG");
    // It was applied: exactly once.
    expect(await tagsNamed("unknown")).toHaveLength(1);
  });

  it("a refused connection on every attempt reached nothing: a plain ConnectionError, no resends", async () => {
    const b = emu.emulator.bootstrap;
    const client = new KeyformClient({
      baseUrl: "http://127.0.0.1:1",
      organizationId: b.organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }),
      retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 },
    });
    const started = Date.now();
    const error = await client.createUserTag({ userTagName: "refused", userIds: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(Date.now() - started).toBeLessThan(400);
  });

  it("a silent server fails the whole call once within budgetMs, not once per attempt", async () => {
    const silent: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    const b = emu.emulator.bootstrap;
    const client = new KeyformClient({
      baseUrl: emu.emulator.url,
      organizationId: b.organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey: b.apiPublicKey, apiPrivateKey: b.apiPrivateKey }),
      fetch: silent,
      timeoutMs: 10_000,
      budgetMs: 400,
    });
    const started = Date.now();
    const query = await client.listUserTags().catch((e: unknown) => e);
    expect(query).toBeInstanceOf(TimeoutError);
    const submit = await client.createUserTag({ userTagName: "silent", userIds: [] }).catch((e: unknown) => e);
    expect(submit).toBeInstanceOf(SubmitOutcomeUnknownError);
    // Two calls, each within its budget (plus scheduling slack).
    expect(Date.now() - started).toBeLessThan(2 * 400 + 500);
  });
});
