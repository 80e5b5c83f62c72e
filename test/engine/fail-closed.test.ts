/**
 * Real engine, real emulators, TypeScript (dynamic resource) path: settings that cannot be right
 * fail the preview, naming the setting, within `keyform:timeoutMs`, and a changed organization
 * never plans a replace or a delete. After every fault the organization's objects are read back
 * with the official client (`@turnkey/http`) and are exactly as they were.
 *
 * Faults: a mistyped organization id (the case that used to delete an API key and a wallet), a
 * wrong private key, an unregistered key, settings of another service (another emulator, where
 * the key and organization are valid: only the organization guard stops it), an explicit
 * `organizationId` argument changed in the program, an unreachable URL, a server that accepts
 * connections and never answers, and a mistyped config key.
 *
 * Beside it, a project of its own run by the CLI (so it can run while the inline program does),
 * on emulators of its own: a Pulumi YAML program on the provider plugin, the same faults: a
 * mistyped organization and the settings of another service fail the preview and `up` without a
 * replace or a delete; a wrong private key names `keyform:apiPrivateKey`. Then, at the default
 * settings (no `keyform:timeoutMs`), a server that accepts connections and never answers fails
 * the preview at the settings check with the first-byte budget (15 s by default, read from the
 * message, not timed), naming the setting that sets it and the cause, once, not once per
 * resource. The organization's objects are read back with the official client.
 */
import * as net from "node:net";
import * as path from "node:path";
import type { TurnkeyClient } from "@turnkey/http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { accessThrough } from "../support/declared-stacks";
import { createInlineStack, createWorkDirStack, pulumiBinDir, repoRoot } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";
import { officialClient } from "../support/organization-snapshot";
import { changes, loadKeyform, since } from "../resources/harness/engine-harness";
import { settingsConfig } from "./plugin-support";
import { commandOutcome, organizationSnapshot, plainConfig } from "./fail-closed-support";

const keyform = loadKeyform();
const TIMEOUT_MS = 3000;
let emuA: TestEmulator;
let emuB: TestEmulator;
let official: TurnkeyClient;
/** The YAML program's organization and the other service it is pointed at. */
let yamlA: TestEmulator;
let yamlB: TestEmulator;
let yamlOfficial: TurnkeyClient;
let silent: net.Server;
let silentUrl: string;
/** Another server that never answers, for the default settings; it counts the connections that carried a request (the settings check's reachability probe connects and closes without one). */
let silentDefault: net.Server;
let silentDefaultUrl: string;
let silentDefaultRequests = 0;
const sockets = new Set<net.Socket>();

/** A loopback TCP server that accepts every connection and never answers; `onRequest` on each one that carries data. */
async function silentServer(onRequest: () => void = () => {}): Promise<{ server: net.Server; url: string }> {
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("data", onRequest);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` };
}
const figures: Record<string, number> = {};

/** The official client (`@turnkey/http`) on an emulator's root organization. */
const officialOf = (emu: TestEmulator): TurnkeyClient => officialClient(accessThrough(emu.emulator.url, emu.emulator.bootstrap));

beforeAll(async () => {
  [emuA, emuB, yamlA, yamlB] = await Promise.all([startTestEmulator(), startTestEmulator(), startTestEmulator(), startTestEmulator()]);
  official = officialOf(emuA);
  yamlOfficial = officialOf(yamlA);
  ({ server: silent, url: silentUrl } = await silentServer());
  ({ server: silentDefault, url: silentDefaultUrl } = await silentServer(() => silentDefaultRequests++));
  pulumiBinDir();
});

afterAll(async () => {
  await Promise.all([emuA?.stop(), emuB?.stop(), yamlA?.stop(), yamlB?.stop()]);
  for (const socket of sockets) socket.destroy();
  await Promise.all([silent, silentDefault].map((server) => new Promise((resolve) => server?.close(resolve))));
  console.log(`fail-closed figures (ms, loaded machine): ${JSON.stringify(figures)}`);
});

describe("faulty settings fail closed", () => {
  it.concurrent("faulty settings fail the preview naming the setting; a mistyped organization deletes nothing", { timeout: 900_000 }, async () => {
    const ci = generateApiKeyPair();
    let pinOrganization: string | undefined;
    const { stack, cleanup } = await createInlineStack({
      projectName: "kf-fail-closed",
      config: { ...settingsConfig(emuA), "keyform:timeoutMs": String(TIMEOUT_MS) },
      program: async () => {
        const org = pinOrganization !== undefined ? { organizationId: pinOrganization } : {};
        new keyform.UserTag("ops", { userTagName: "ops", ...org });
        new keyform.ApiKey("ci", { userId: emuA.emulator.bootstrap.userId, apiKeyName: "ci", publicKey: ci.publicKey, ...org });
        new keyform.Wallet("treasury", {
          walletName: "treasury",
          accounts: [{ curve: "CURVE_SECP256K1", path: "m/44'/60'/0'/0/0", addressFormat: "ADDRESS_FORMAT_ETHEREUM" }],
          deleteWithoutExport: true,
          ...org,
        } as never);
      },
    });
    const good = plainConfig(settingsConfig(emuA));
    try {
      let t0 = performance.now();
      const up = await stack.up();
      const green = since(t0);
      figures.greenUp = green;
      expect(changes(up.summary.resourceChanges, { stack: true })).toEqual({ create: 3 });
      const before = await organizationSnapshot(official, emuA.emulator.bootstrap.organizationId);
      expect(before.apiKeyNames).toContain("ci");
      expect(before.walletNames).toEqual(["treasury"]);

      // The engine's own cost of a run on this machine (the up above, which does more than a
      // preview), plus the budget of the one settings read.
      const limit = green + TIMEOUT_MS + 15_000;

      const stranger = generateApiKeyPair();
      const other = emuB.emulator.bootstrap;
      const cases: Array<{ name: string; config: Record<string, { value: string; secret?: boolean }>; remove?: string[]; message: RegExp }> = [
        {
          name: "mistyped organization",
          config: { "keyform:organizationId": { value: "11111111-1111-4111-8111-111111111111" } },
          message: /keyform:organizationId \(KEYFORM_ORGANIZATION_ID\)/,
        },
        {
          name: "wrong private key",
          config: { "keyform:apiPrivateKey": { value: stranger.privateKey, secret: true } },
          message: /keyform:apiPrivateKey \(KEYFORM_API_PRIVATE_KEY\) is not the private key of keyform:apiPublicKey/,
        },
        {
          name: "unregistered key",
          config: { "keyform:apiPublicKey": { value: stranger.publicKey }, "keyform:apiPrivateKey": { value: stranger.privateKey, secret: true } },
          message: /refused the API key .*check keyform:apiPublicKey/,
        },
        {
          name: "another service",
          // Every setting of the other emulator: the key and organization are valid there.
          config: plainConfig(settingsConfig(emuB)),
          message: new RegExp(
            `lives in organization ${emuA.emulator.bootstrap.organizationId} \\(recorded in state\\), but the setting keyform:organizationId \\(KEYFORM_ORGANIZATION_ID\\) now says ${other.organizationId}`,
          ),
        },
        { name: "unreachable URL", config: { "keyform:baseUrl": { value: "http://127.0.0.1:9" } }, message: /keyform:baseUrl http:\/\/127\.0\.0\.1:9 cannot be reached/ },
        { name: "silent server", config: { "keyform:baseUrl": { value: silentUrl } }, message: new RegExp(`did not answer within ${TIMEOUT_MS} ms.*keyform:timeoutMs`) },
        { name: "mistyped config key", config: { "keyform:baseurl": { value: emuA.emulator.url } }, message: /keyform:baseurl is not a keyform setting; did you mean keyform:baseUrl\?/ },
      ];

      for (const fault of cases) {
        await stack.setAllConfig({ ...good, ...fault.config });
        t0 = performance.now();
        const preview = await commandOutcome(stack.preview());
        const ms = since(t0);
        figures[fault.name] = ms;
        expect(preview.exitCode, fault.name).not.toBe(0);
        expect(preview.output, fault.name).toMatch(fault.message);
        // Printed once, without the host's stack trace.
        expect(preview.output, fault.name).not.toMatch(/\n\s+at [\w.<>]+ \(/);
        expect(preview.output, fault.name).not.toContain(stranger.privateKey);
        expect(preview.output, fault.name).not.toContain(emuA.emulator.bootstrap.apiPrivateKey);
        expect(ms, fault.name).toBeLessThan(limit);
        if (fault.name === "mistyped organization" || fault.name === "another service") {
          // up stops at the same place: no step runs, nothing is replaced or deleted anywhere.
          const upAttempt = await commandOutcome(stack.up());
          expect(upAttempt.exitCode, fault.name).not.toBe(0);
          expect(upAttempt.output, fault.name).toMatch(fault.message);
          expect(upAttempt.output, fault.name).not.toMatch(/\bdeleted\b|deleting|replacing/);
          expect((await emuB.client.listWallets()).wallets, fault.name).toEqual([]);
        }
        if (fault.name === "another service") {
          // A destroy runs with the settings that failed up recorded (the other service): it must
          // not take that service's "not found" as "already gone" and empty the state.
          const destroyAttempt = await commandOutcome(stack.destroy());
          expect(destroyAttempt.exitCode).not.toBe(0);
          expect(destroyAttempt.output).toMatch(/keyform: the provider settings do not work: organization .* does not exist at .*check keyform:organizationId/);
          expect(((await stack.exportStack()).deployment as { resources?: unknown[] }).resources?.length).toBeGreaterThanOrEqual(4);
        }
        for (const key of Object.keys(fault.config)) if (!(key in good)) await stack.removeConfig(key);
        expect(await organizationSnapshot(official, emuA.emulator.bootstrap.organizationId), fault.name).toEqual(before);
      }

      // The program itself names another organization (one the settings reach): the same
      // guard, naming the argument.
      await stack.setAllConfig({ ...good, ...cases.find((c) => c.name === "another service")!.config });
      pinOrganization = other.organizationId;
      const moved = await commandOutcome(stack.preview());
      expect(moved.exitCode).not.toBe(0);
      expect(moved.output).toMatch(/its organizationId argument now says/);
      pinOrganization = undefined;
      await stack.setAllConfig(good);

      // A refresh against a server that refuses connections: one line per resource naming the
      // setting, without the host's echo ("ProviderError: …: ProviderError: … at explain").
      // (A refresh runs with the provider settings the last up recorded, even a failed up.)
      await stack.setAllConfig({ ...good, "keyform:baseUrl": { value: "http://127.0.0.1:9" } });
      expect((await commandOutcome(stack.up())).exitCode).not.toBe(0);
      const refresh = await commandOutcome(stack.refresh());
      expect(refresh.exitCode).not.toBe(0);
      expect(refresh.output).toMatch(/keyform:baseUrl http:\/\/127\.0\.0\.1:9 cannot be reached/);
      expect(refresh.output).not.toContain("ProviderError");
      expect(refresh.output).not.toMatch(/\n\s+at [\w.<>]+ \(/);
      await stack.setAllConfig(good);

      // Back to the right settings: nothing to do, and the objects are the same ones. (No
      // destroy: the emulator is this test's own and goes with it.)
      expect(changes((await stack.up()).summary.resourceChanges)).toEqual({});
      expect(await organizationSnapshot(official, emuA.emulator.bootstrap.organizationId)).toEqual(before);
    } finally {
      await cleanup();
    }
  });

  it.concurrent("the provider plugin (a Pulumi YAML program): a mistyped organization or another service plans no delete; a wrong private key is named; a silent server at the default settings fails the preview with the 15 s first-byte budget, naming keyform:firstByteTimeoutMs and the cause", { timeout: 900_000 }, async () => {
    const good = plainConfig({ ...settingsConfig(yamlA), "keyform:timeoutMs": "3000" });
    const { stack, cleanup } = await createWorkDirStack({ workDir: path.join(repoRoot, "test", "engine", "fixtures", "plugin-fail-closed"), config: good });
    const organizationId = yamlA.emulator.bootstrap.organizationId;
    try {
      await stack.up();
      const before = await organizationSnapshot(yamlOfficial, organizationId);
      expect(before.walletNames).toEqual(["treasury"]);
      const other = yamlB.emulator.bootstrap;
      const cases = [
        {
          name: "mistyped organization",
          config: { "keyform:organizationId": { value: "11111111-1111-4111-8111-111111111111" } },
          message: /keyform:organizationId \(KEYFORM_ORGANIZATION_ID\)/,
        },
        {
          name: "another service",
          // Every setting of the other emulator: the key and organization are valid there.
          config: plainConfig(settingsConfig(yamlB)),
          message: new RegExp(`lives in organization ${organizationId} \\(recorded in state\\), but the setting keyform:organizationId`),
        },
        {
          name: "wrong private key",
          config: { "keyform:apiPrivateKey": { value: generateApiKeyPair().privateKey, secret: true } },
          message: /keyform:apiPrivateKey \(KEYFORM_API_PRIVATE_KEY\) is not the private key of keyform:apiPublicKey/,
        },
      ];
      for (const fault of cases) {
        await stack.setAllConfig({ ...good, ...fault.config });
        const t0 = performance.now();
        const preview = await commandOutcome(stack.preview());
        figures[`yaml ${fault.name} preview`] = since(t0);
        expect(preview.exitCode, fault.name).not.toBe(0);
        expect(preview.output, fault.name).toMatch(fault.message);
        expect(preview.output, fault.name).not.toContain("TypeError");
        if (fault.name !== "wrong private key") {
          // up stops at the same place: no step runs, nothing is replaced or deleted anywhere.
          const upAttempt = await commandOutcome(stack.up());
          expect(upAttempt.exitCode, fault.name).not.toBe(0);
          expect(upAttempt.output, fault.name).toMatch(fault.message);
          expect((await yamlB.client.listWallets()).wallets, fault.name).toEqual([]);
        }
        expect(await organizationSnapshot(yamlOfficial, organizationId), fault.name).toEqual(before);
      }

      // At the default settings (no keyform:timeoutMs), a server that accepts connections and
      // never answers: the preview fails at the settings check with the first-byte budget (15 s
      // by default, read from the message, not timed), naming the setting that sets it and the
      // cause, once for the stack's resources, not once per resource.
      const { "keyform:timeoutMs": _timeout, ...untimed } = good;
      await stack.setAllConfig({ ...untimed, "keyform:baseUrl": { value: silentDefaultUrl } });
      await stack.removeConfig("keyform:timeoutMs");
      const t0 = performance.now();
      const silentPreview = await commandOutcome(stack.preview());
      // A figure for the report, not a bound: the budget is asserted from the message below.
      figures.silentDefaultPreview = since(t0);
      expect(silentPreview.exitCode).not.toBe(0);
      expect(silentPreview.output).toMatch(
        /getOrganization: the server accepted the connection but sent nothing within 15000 ms \(keyform:firstByteTimeoutMs \(KEYFORM_FIRST_BYTE_TIMEOUT_MS\) is 15000 ms\); check keyform:baseUrl \(KEYFORM_BASE_URL\) http:\/\/127\.0\.0\.1:\d+ \(is it the service\?\)/,
      );
      // One settings check for the stack's resources: one request, no retries.
      expect(silentDefaultRequests).toBe(1);
      expect(silentPreview.output).not.toMatch(/\n\s+at [\w.<>]+ \(/);
      expect(await organizationSnapshot(yamlOfficial, organizationId)).toEqual(before);

      await stack.setAllConfig(good);
      // Back to the right settings (the failed up recorded the faulty ones): an up changes
      // nothing and the objects are the same ones. (No destroy: the emulators are this test's own.)
      expect(changes((await stack.up()).summary.resourceChanges)).toEqual({});
      expect(await organizationSnapshot(yamlOfficial, organizationId)).toEqual(before);
    } finally {
      await cleanup();
    }
  });
});
