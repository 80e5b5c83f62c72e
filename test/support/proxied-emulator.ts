/**
 * @module test/support/proxied-emulator
 * The fixture of the engine tests that kill runs: an emulator in its own process, a fault proxy
 * in front of it (no faults: it counts requests, to kill a run in the middle), the official
 * client on the emulator, and a scratch folder; started before the file's tests, stopped after.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll } from "vitest";
import { startEmulatorProcess, type EmulatorProcess } from "./emulator-process";
import { pulumiBinDir } from "./engine";
import { startFaultProxy, type FaultProxy } from "./fault-proxy";
import { officialClient } from "./organization-snapshot";

export interface ProxiedEmulator {
  work: string;
  emu: EmulatorProcess;
  proxy: FaultProxy;
  official: TurnkeyClient;
}

/** Registers the fixture's beforeAll and afterAll; its fields are set once beforeAll ran. */
export function useProxiedEmulator(name: string, seed: number): ProxiedEmulator {
  const fixture = {} as ProxiedEmulator;
  beforeAll(async () => {
    pulumiBinDir();
    fixture.work = fs.mkdtempSync(path.join(os.tmpdir(), `keyform-${name}-`));
    fixture.emu = await startEmulatorProcess(path.join(fixture.work, "emulator"));
    fixture.proxy = await startFaultProxy({ upstream: fixture.emu.url, rate: 0, seed });
    fixture.official = officialClient({ ...fixture.emu.bootstrap, baseUrl: fixture.emu.url });
  });
  afterAll(async () => {
    await fixture.proxy?.close();
    await fixture.emu?.kill();
    if (fixture.work) fs.rmSync(fixture.work, { recursive: true, force: true });
  });
  return fixture;
}
