/**
 * `keyform doctor` as a user runs it (the compiled CLI in a child process) against a real
 * emulator: it flags `KEYFORM_*` names that are no setting with "did you mean", says where each
 * value came from (stack config, environment, default), and in a Pulumi project reads the
 * selected stack's config without `--stack` (a real Pulumi CLI and a local file backend).
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { suggestVariable, unknownKeyformVariables } from "../../sdk/resources/runtime/setting-sources";
import { SETTING_ENV } from "../../sdk/resources/runtime/settings";
import { pulumiBinDir } from "../support/engine";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const CLI = path.resolve(__dirname, "../../dist/sdk/cli/main.js");
let emu: TestEmulator;
let outside: string;

/** The environment without any KEYFORM_* or Pulumi backend setting of this process. */
function cleanEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter(([k, v]) => !k.startsWith("KEYFORM_") && !k.startsWith("PULUMI_") && v !== undefined)) as Record<string, string>;
}

/** Runs `keyform doctor` in `cwd` with `env`; never throws. */
async function doctor(cwd: string, env: Record<string, string>, args: string[] = []): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, "doctor", ...args], { cwd, env: { ...cleanEnv(), ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function emulatorSettings(): Record<string, string> {
  const b = emu.emulator.bootstrap;
  return {
    KEYFORM_BASE_URL: emu.emulator.url,
    KEYFORM_ORGANIZATION_ID: b.organizationId,
    KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
    KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
  };
}

beforeAll(async () => {
  emu = await startTestEmulator();
  // Not inside any Pulumi project (the repository root has a Pulumi.yaml).
  outside = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-doctor-"));
});

afterAll(async () => {
  await emu?.stop();
  if (outside) fs.rmSync(outside, { recursive: true, force: true });
});

describe("unknown KEYFORM_* names", () => {
  it("suggests the setting a mistyped name meant", () => {
    expect(suggestVariable("KEYFORM_BASEURL")).toBe("KEYFORM_BASE_URL");
    expect(suggestVariable("KEYFORM_ORGANISATION_ID")).toBe("KEYFORM_ORGANIZATION_ID");
    expect(suggestVariable("KEYFORM_API_PRIVATEKEY")).toBe("KEYFORM_API_PRIVATE_KEY");
    expect(suggestVariable("KEYFORM_TIMEOUT")).toBe("KEYFORM_TIMEOUT_MS");
    expect(suggestVariable("KEYFORM_COLOUR_SCHEME")).toBeUndefined();
    // Every setting's own name is known, and so are the variables of the scripts.
    expect(unknownKeyformVariables({ ...Object.fromEntries(Object.values(SETTING_ENV).map((v) => [v, "x"])), KEYFORM_DEBUG: "1", PATH: "/bin" })).toEqual([]);
  });

  it("doctor fails on each, with did you mean, and the default it fell back to shows as the default", async () => {
    const settings = emulatorSettings();
    const { KEYFORM_BASE_URL: url, KEYFORM_ORGANIZATION_ID: org, ...rest } = settings;
    const result = await doctor(outside, { ...rest, KEYFORM_BASEURL: url!, KEYFORM_ORGANISATION_ID: org!, KEYFORM_COLOUR: "blue" }, ["--timeout-ms", "2000"]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL environment KEYFORM_BASEURL: KEYFORM_BASEURL is not a keyform setting; did you mean KEYFORM_BASE_URL\?$/m);
    expect(result.stdout).toContain("fix: rename it to KEYFORM_BASE_URL");
    expect(result.stdout).toMatch(/^FAIL environment KEYFORM_ORGANISATION_ID: KEYFORM_ORGANISATION_ID is not a keyform setting; did you mean KEYFORM_ORGANIZATION_ID\?$/m);
    expect(result.stdout).toMatch(/^FAIL environment KEYFORM_COLOUR: KEYFORM_COLOUR is not a keyform setting$/m);
    expect(result.stdout).toMatch(/^ok {3}setting baseUrl: https:\/\/api\.turnkey\.com \(the default\)$/m);
    expect(result.stdout).toMatch(/^FAIL setting organizationId: not set$/m);
    expect(result.stdout).not.toContain(settings.KEYFORM_API_PRIVATE_KEY!);
  });

  it("with the right names, every value says it came from the environment or is the default", async () => {
    const settings = emulatorSettings();
    const result = await doctor(outside, settings);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain(`ok   setting baseUrl: ${emu.emulator.url} (from the environment, KEYFORM_BASE_URL)`);
    expect(result.stdout).toContain(`ok   setting organizationId: ${settings.KEYFORM_ORGANIZATION_ID} (from the environment, KEYFORM_ORGANIZATION_ID)`);
    expect(result.stdout).toContain("ok   setting apiPrivateKey: [secret] (from the environment, KEYFORM_API_PRIVATE_KEY)");
    expect(result.stdout).toContain("ok   setting timeoutMs: 60000 (the default)");
    expect(result.stdout).toContain("ok   setting firstByteTimeoutMs: 15000 (the default)");
    expect(result.stdout).not.toMatch(/^ok {3}stack:/m);
    expect(result.stdout).not.toContain(settings.KEYFORM_API_PRIVATE_KEY!);
  });

  it("a value the settings table's parser refuses is a finding naming the setting, never echoing a secret", async () => {
    const badUrl = await doctor(outside, { ...emulatorSettings(), KEYFORM_BASE_URL: "localhost:8090" });
    expect(badUrl.code, badUrl.stdout).toBe(1);
    expect(badUrl.stdout).toMatch(/^FAIL settings: .*"baseUrl" \(keyform:baseUrl or KEYFORM_BASE_URL\) must be an http\(s\) URL, got "localhost:8090"/m);
    const badSecret = await doctor(outside, { ...emulatorSettings(), KEYFORM_API_PRIVATE_KEY: "secret-but-no-key" });
    expect(badSecret.code, badSecret.stdout).toBe(1);
    expect(badSecret.stdout).toMatch(/^FAIL settings: .*"apiPrivateKey" .* must be a private key of 64 hex digits/m);
    expect(badSecret.stdout + badSecret.stderr).not.toContain("secret-but-no-key");
  });
});

describe("timeouts", () => {
  it("against a server that never answers, doctor gives up after the first-byte time it reports", async () => {
    // Accepts connections and never answers.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const env = { ...emulatorSettings(), KEYFORM_BASE_URL: url, KEYFORM_FIRST_BYTE_TIMEOUT_MS: "700" };
      const result = await doctor(outside, env);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain("ok   setting firstByteTimeoutMs: 700 (from the environment, KEYFORM_FIRST_BYTE_TIMEOUT_MS)");
      expect(result.stdout).toMatch(new RegExp(`^FAIL server: ${url.replace(/\./g, "\\.")} does not answer: .*within 700 ms`, "m"));
      // A --timeout-ms below the settings' limits is the one the check applies, and it says so.
      const limited = await doctor(outside, { ...env, KEYFORM_FIRST_BYTE_TIMEOUT_MS: "15000" }, ["--timeout-ms", "600"]);
      expect(limited.stdout).toContain("ok   setting firstByteTimeoutMs: 15000 (from the environment, KEYFORM_FIRST_BYTE_TIMEOUT_MS); this check applies 600 ms (--timeout-ms)");
      expect(limited.stdout).toMatch(/^FAIL server: .* does not answer: .*within 600 ms/m);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});

describe("in a Pulumi project", () => {
  it("reads the selected stack's config without --stack, and says which value came from where", { timeout: 180_000 }, async () => {
    const bin = pulumiBinDir();
    const project = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-doctor-project-"));
    const backend = path.join(project, ".state");
    fs.mkdirSync(backend);
    fs.writeFileSync(path.join(project, "Pulumi.yaml"), "name: doctor-project\nruntime: nodejs\n");
    const nested = path.join(project, "src", "lib");
    fs.mkdirSync(nested, { recursive: true });
    const pulumiEnv = {
      ...cleanEnv(),
      PATH: `${bin}:${process.env.PATH}`,
      PULUMI_BACKEND_URL: `file://${backend}`,
      PULUMI_CONFIG_PASSPHRASE: "doctor-test",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_HOME: path.join(project, ".pulumi-home"),
    };
    const run = (args: string[]) => promisify(execFile)(path.join(bin, "pulumi"), args, { cwd: project, env: pulumiEnv });
    const b = emu.emulator.bootstrap;
    try {
      await run(["stack", "init", "dev"]);
      await run(["config", "set", "keyform:organizationId", b.organizationId]);
      await run(["config", "set", "keyform:apiPublicKey", b.apiPublicKey]);
      await run(["config", "set", "--secret", "keyform:apiPrivateKey", b.apiPrivateKey]);
      // The base URL comes from the environment; a stale organization id there loses to the stack.
      const env = { ...pulumiEnv, KEYFORM_BASE_URL: emu.emulator.url, KEYFORM_ORGANIZATION_ID: "11111111-1111-4111-8111-111111111111" };
      const result = await doctor(nested, env);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toContain(`ok   stack: reading the config of stack dev (selected in ${project})`);
      expect(result.stdout).toContain(
        `ok   setting organizationId: ${b.organizationId} (from stack config keyform:organizationId (which wins over KEYFORM_ORGANIZATION_ID in the environment))`,
      );
      expect(result.stdout).toContain(`ok   setting apiPublicKey: ${b.apiPublicKey} (from stack config keyform:apiPublicKey)`);
      expect(result.stdout).toContain("ok   setting apiPrivateKey: [secret] (from stack config keyform:apiPrivateKey)");
      expect(result.stdout).toContain(`ok   setting baseUrl: ${emu.emulator.url} (from the environment, KEYFORM_BASE_URL)`);
      expect(result.stdout).toMatch(/^ok {3}organization: .*\(/m);
      expect(result.stdout).not.toContain(b.apiPrivateKey);

      // A mistyped key in the selected stack's config is found without --stack too.
      await run(["config", "set", "keyform:baseurl", emu.emulator.url]);
      const mistyped = await doctor(project, env);
      expect(mistyped.code).toBe(1);
      expect(mistyped.stdout).toMatch(/^FAIL config keyform:baseurl: keyform:baseurl is not a keyform setting; did you mean keyform:baseUrl\?$/m);
      await run(["config", "rm", "keyform:baseurl"]);

      // No stack selected: it says so and reads the environment only.
      await run(["stack", "select", "--unset"]).catch(async () => fs.rmSync(path.join(pulumiEnv.PULUMI_HOME, "workspaces"), { recursive: true, force: true }));
      const none = await doctor(project, { ...env, ...emulatorSettings() });
      expect(none.stdout).toMatch(/^ok {3}stack: no stack is selected in the Pulumi project .*: the settings come from the environment/m);
      expect(none.stdout).toContain(`ok   setting organizationId: ${b.organizationId} (from the environment, KEYFORM_ORGANIZATION_ID)`);
      expect(none.code, none.stdout).toBe(0);
    } finally {
      fs.rmSync(project, { recursive: true, force: true });
    }
  });
});
