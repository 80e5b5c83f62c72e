/**
 * The emulator echoes, like the service, the address it sees the caller from on every answer
 * (`x-rate-limit-request-remote-addr`), success or error; the client keeps the last one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => emu?.stop());

describe("x-rate-limit-request-remote-addr", () => {
  it("is on a successful answer and on an error answer, and the client exposes it", async () => {
    expect(emu.client.remoteAddress).toBeUndefined();
    await emu.client.listUserTags({});
    expect(emu.client.remoteAddress).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    const refused = await fetch(`${emu.emulator.url}/public/v1/query/list_user_tags`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.headers.get("x-rate-limit-request-remote-addr")).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
  });
});
