/**
 * `keyform serve --earn-wrapper`: the option's value is checked (naming what is wrong), and the
 * wrapper is deployed through the API once: a second start finds it and deploys nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureEarnWrapper, parseEarnWrapper } from "../../sdk/cli/earn-wrapper";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const VAULT = "0xbeeF010f9cb27031ad51e3333f9aF9C6B1228183";
let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});

afterAll(async () => {
  await emu?.stop();
});

describe("--earn-wrapper", () => {
  it("takes a vault address and an optional chain, and names what is wrong", () => {
    expect(parseEarnWrapper(VAULT)).toEqual({ vaultAddress: VAULT, chainCaip2: "eip155:8453" });
    expect(parseEarnWrapper(`${VAULT}@eip155:1`)).toEqual({ vaultAddress: VAULT, chainCaip2: "eip155:1" });
    expect(() => parseEarnWrapper("0x1234")).toThrow(/the address as 0x and 40 hex digits, got "0x1234"/);
    expect(() => parseEarnWrapper(`${VAULT}@eip155:999`)).toThrow(/the chain must be one of eip155:1, .*got "eip155:999"/);
  });

  it("deploys the wrapper once; a later start finds it", async () => {
    const request = { vaultAddress: VAULT, chainCaip2: "eip155:8453" as const };
    const first = await ensureEarnWrapper(emu.emulator.url, emu.emulator.bootstrap, request);
    expect(first.deployed).toBe(true);
    const again = await ensureEarnWrapper(emu.emulator.url, emu.emulator.bootstrap, { ...request, vaultAddress: VAULT.toLowerCase() });
    expect(again).toEqual({ wrapperAddress: first.wrapperAddress, deployed: false });
    const { enabledVaults = [] } = await emu.client.listEarnEnabledVaults({});
    expect(enabledVaults.map((v) => v.wrapperAddress)).toEqual([first.wrapperAddress]);
  });
});
