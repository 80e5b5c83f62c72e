/**
 * Real engine, real emulator, Pulumi YAML: every data function of the data function table
 * answers through the provider plugin (`fn::invoke` of `keyform:index:<name>`), and answers
 * what the service holds: each result equals the official client's answer to the same query
 * (for a function that reshapes its answer, the reshaping written out here). The program is
 * written from the table, so a data function added there without arguments for this test fails
 * it instead of going untested.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argumentsOptional, DATA_FUNCTIONS } from "../../sdk/resources/runtime/queries";
import { createWorkDirStack, type TestStack } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { settingsConfig } from "./plugin-support";

let emu: TestEmulator;
let project: string;
let handle: TestStack;
/** The arguments of each data function in the program. */
let args: Record<string, Record<string, unknown>>;

beforeAll(async () => {
  emu = await startTestEmulator();
  const client = emu.client;
  const { userId } = emu.emulator.bootstrap;
  const { walletId, addresses } = await client.createWallet({
    walletName: "data-functions",
    accounts: [{ curve: "CURVE_SECP256K1", pathFormat: "PATH_FORMAT_BIP32", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
  });
  const { privateKeys } = await client.createPrivateKeys({
    privateKeys: [{ privateKeyName: "data-functions", curve: "CURVE_SECP256K1", privateKeyTags: [], addressFormats: ["ADDRESS_FORMAT_ETHEREUM"] }],
  });
  const { sessionProfileId } = await client.createSessionProfile({ sessionProfileName: "data-functions", scope: "activity.resource == 'WALLET'" });
  args = {
    getUser: { userId },
    getApiKeys: { userId },
    getWallet: { walletId },
    listWalletAccounts: { walletId },
    getPrivateKey: { privateKeyId: privateKeys[0]!.privateKeyId },
    getSessionProfile: { sessionProfileId },
    listEthTransactionHistory: { address: addresses[0]!, caip2: "eip155:8453" },
  };
  project = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-data-functions-"));
  const program = {
    name: "keyform-data-functions",
    runtime: "yaml",
    variables: Object.fromEntries(DATA_FUNCTIONS.map((fn) => [fn.name, { "fn::invoke": { function: `keyform:index:${fn.name}`, arguments: args[fn.name] ?? {} } }])),
    outputs: Object.fromEntries(DATA_FUNCTIONS.map((fn) => [fn.name, `\${${fn.name}}`])),
  };
  // JSON is YAML.
  fs.writeFileSync(path.join(project, "Pulumi.yaml"), JSON.stringify(program, null, 2));
  handle = await createWorkDirStack({ workDir: project, config: settingsConfig(emu) });
});

afterAll(async () => {
  await handle?.cleanup();
  await emu?.stop();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

describe("data functions through the provider plugin", () => {
  it("every data function that needs arguments has them in the program", () => {
    for (const fn of DATA_FUNCTIONS) if (!argumentsOptional(fn)) expect(args[fn.name], fn.name).toBeDefined();
  });

  it("every data function answers through fn::invoke with what the official client reads", { timeout: 600_000 }, async () => {
    const up = await handle.stack.up();
    expect(up.summary.result).toBe("succeeded");
    const client = emu.client;
    const query = (name: string, request: Record<string, unknown>) =>
      (client.callQuery as (n: string, r: Record<string, unknown>) => Promise<unknown>)(name, request);
    const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
    for (const fn of DATA_FUNCTIONS) {
      const request = args[fn.name] ?? {};
      const answer = (await query(fn.query, request)) as Record<string, unknown>;
      let expected: unknown = answer;
      if (fn.name === "getRootQuorum") {
        const quorum = (answer as { organizationData: { rootQuorum: { threshold: number; userIds: string[] } } }).organizationData.rootQuorum;
        expected = { threshold: quorum.threshold, userIds: [...quorum.userIds].sort() };
      } else if (fn.name === "listEarnEnabledVaults") {
        expected = { ...answer, enabledVaults: answer.enabledVaults ?? [] };
      } else {
        expect(fn.result, `${fn.name} reshapes its answer: write the reshaping out here`).toBeUndefined();
      }
      expect(up.outputs[fn.name]?.value, fn.name).toEqual(json(expected));
    }
    expect((up.outputs.getRootQuorum!.value as { userIds: string[] }).userIds).toContain(emu.emulator.bootstrap.userId);
    expect((up.outputs.getWallet!.value as { wallet: { walletName: string } }).wallet.walletName).toBe("data-functions");
  });
});
