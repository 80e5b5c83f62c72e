/**
 * Real engine, default settings, a real TCP server that accepts connections and never answers:
 * the preview fails at the settings check with the first-byte budget (15 s by default, read from
 * the message, not timed), naming the setting that sets it and the cause, once, not once per
 * resource.
 */
import * as net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInlineStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { loadKeyform } from "../resources/harness/engine-harness";
import { settingsConfig } from "./plugin-support";
import { commandOutcome } from "./fail-closed-support";

const keyform = loadKeyform();
let emu: TestEmulator;
let silent: net.Server;
let silentUrl: string;
/** Connections that carried a request (the settings check's reachability probe connects and closes without one). */
let requested = 0;
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  emu = await startTestEmulator();
  silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("data", () => requested++);
  });
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  await emu?.stop();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
});

describe("a silent server at the default settings", () => {
  it("fails the preview with the 15 s first-byte budget, naming keyform:firstByteTimeoutMs and the cause", { timeout: 300_000 }, async () => {
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-silent-server",
      // The emulator's credentials (valid keys), the silent server's URL; no timeout settings.
      config: { ...settingsConfig(emu), "keyform:baseUrl": silentUrl },
      program: async () => {
        new keyform.UserTag("ops", { userTagName: "ops" });
        new keyform.UserTag("dev", { userTagName: "dev" });
        new keyform.UserTag("qa", { userTagName: "qa" });
      },
    });
    try {
      const t0 = performance.now();
      const preview = await commandOutcome(stack.preview());
      // A figure for the report, not a bound: the budget is asserted from the message below.
      console.log(`silent-server figures (ms, loaded machine): ${JSON.stringify({ preview: Math.round(performance.now() - t0) })}`);
      expect(preview.exitCode).not.toBe(0);
      expect(preview.output).toMatch(
        /getOrganization: the server accepted the connection but sent nothing within 15000 ms \(keyform:firstByteTimeoutMs \(KEYFORM_FIRST_BYTE_TIMEOUT_MS\) is 15000 ms\); check keyform:baseUrl \(KEYFORM_BASE_URL\) http:\/\/127\.0\.0\.1:\d+ \(is it the service\?\)/,
      );
      // One settings check for the three resources: one request, no retries.
      expect(requested).toBe(1);
      expect(preview.output).not.toMatch(/\n\s+at [\w.<>]+ \(/);
    } finally {
      await cleanup();
    }
  });
});
