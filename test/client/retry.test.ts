/** Unit tests of the retry policy (pure functions). */
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY, backoffDelay, isRetryableStatus, parseRetryAfter, resolveRetryOptions } from "../../sdk/client/retry";
import { activityFingerprint } from "../../sdk/client/transport";

describe("isRetryableStatus", () => {
  it.each([429, 502, 503, 504])("retries %i", (status) => expect(isRetryableStatus(status)).toBe(true));
  it.each([400, 401, 403, 404, 408, 409, 413, 500, 501])("never retries %i", (status) => expect(isRetryableStatus(status)).toBe(false));
});

describe("backoffDelay", () => {
  it("doubles from the base and stops at the cap", () => {
    const noJitter = () => 0;
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, DEFAULT_RETRY, noJitter))).toEqual([250, 500, 1000, 2000, 4000, 5000]);
  });
  it("subtracts at most 25% jitter", () => {
    expect(backoffDelay(2, DEFAULT_RETRY, () => 0.999)).toBeGreaterThanOrEqual(750);
    expect(backoffDelay(2, DEFAULT_RETRY, () => 0)).toBe(1000);
    expect(backoffDelay(10, DEFAULT_RETRY, () => 0.5)).toBe(4375);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  it("reads delay-seconds", () => {
    expect(parseRetryAfter("2", 60_000, now)).toBe(2000);
    expect(parseRetryAfter("0.5", 60_000, now)).toBe(500);
  });
  it("reads an HTTP date", () => {
    expect(parseRetryAfter("Wed, 01 Jan 2025 00:00:03 GMT", 60_000, now)).toBe(3000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 23:00:00 GMT", 60_000, now)).toBe(0);
  });
  it("caps long waits", () => {
    expect(parseRetryAfter("3600", 60_000, now)).toBe(60_000);
  });
  it("ignores absent or unreadable values", () => {
    expect(parseRetryAfter(null, 60_000, now)).toBeUndefined();
    expect(parseRetryAfter("soon", 60_000, now)).toBeUndefined();
    expect(parseRetryAfter("-1", 60_000, now)).toBeUndefined();
  });
});

describe("resolveRetryOptions", () => {
  it("fills defaults and rejects negative values naming the field", () => {
    expect(resolveRetryOptions({ maxRetries: 0 })).toEqual({ ...DEFAULT_RETRY, maxRetries: 0 });
    expect(() => resolveRetryOptions({ baseDelayMs: -1 })).toThrow(/retry\.baseDelayMs/);
  });
});

describe("activityFingerprint", () => {
  it("is sha256: + hex of the exact UTF-8 bytes", () => {
    expect(activityFingerprint("abc")).toBe("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(activityFingerprint("é")).toBe(activityFingerprint(new Uint8Array([0xc3, 0xa9])));
  });
});
