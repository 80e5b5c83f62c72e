/**
 * The `keyform` command as a user runs it (the compiled CLI in a child process) against a real
 * emulator: --version, env in both formats, doctor's checks and their fixes, and the exit codes;
 * the quick start's `keyform serve … &` then `eval "$(keyform env --wait …)"` as pasted.
 */
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import * as os from "node:os";
import { diagnose } from "../../sdk/cli/doctor";
import { generateApiKeyPair } from "../../sdk/protocol/keys";
import { resolveSettings } from "../../sdk/resources/runtime/settings";
import { startTestEmulator, type TestEmulator } from "../support/emulator";

const repoRoot = path.resolve(__dirname, "../..");
const CLI = path.join(repoRoot, "dist/sdk/cli/main.js");
let emu: TestEmulator;

/** Runs the CLI with `env` instead of any KEYFORM_* of this process; never throws. */
async function keyform(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_")));
  try {
    // Outside any Pulumi project: doctor would read the repository's selected stack otherwise.
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, ...args], { env: { ...base, ...env }, cwd: os.tmpdir() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The KEYFORM_* settings `keyform env` prints, parsed back. */
function parseExports(stdout: string): Record<string, string> {
  return Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .map((line) => /^export (KEYFORM_[A-Z_]+)=(.*)$/.exec(line)!)
      .map((m) => [m[1]!, m[2]!.replace(/^'|'$/g, "")]),
  );
}

beforeAll(async () => {
  emu = await startTestEmulator();
});

afterAll(async () => {
  await emu?.stop();
});

describe("keyform command", () => {
  it("--version prints the package version", async () => {
    const { code, stdout } = await keyform(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version);
  });

  it("env prints the running emulator's settings as exports and as pulumi config lines", async () => {
    const b = emu.emulator.bootstrap;
    const asEnv = await keyform(["env", "--data", emu.dataDir]);
    expect(asEnv.code).toBe(0);
    expect(asEnv.stderr).toBe("");
    expect(parseExports(asEnv.stdout)).toEqual({
      KEYFORM_BASE_URL: emu.emulator.url,
      KEYFORM_ORGANIZATION_ID: b.organizationId,
      KEYFORM_API_PUBLIC_KEY: b.apiPublicKey,
      KEYFORM_API_PRIVATE_KEY: b.apiPrivateKey,
      KEYFORM_AUTH_PROXY_URL: b.authProxyUrl,
      KEYFORM_AUTH_PROXY_CONFIG_ID: b.authProxyConfigId,
    });
    const asConfig = await keyform(["env", "--data", emu.dataDir, "--format", "pulumi"]);
    expect(asConfig.stdout).toContain(`pulumi config set keyform:baseUrl ${emu.emulator.url}\n`);
    expect(asConfig.stdout).toContain(`pulumi config set --secret keyform:apiPrivateKey ${b.apiPrivateKey}\n`);

    const short = await keyform(["env", "--data", emu.dataDir, "--pulumi"]);
    expect(short.stdout).toBe(asConfig.stdout);
    expect(short.stdout).not.toMatch(/^pulumi config set keyform:apiPrivateKey/m);

    const missing = await keyform(["env", "--data", path.join(emu.dataDir, "nowhere")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--data: .*bootstrap\.json does not exist; start the emulator first: keyform serve/);
  });

  it("doctor passes on the emulator's settings and names the fix for each broken one", async () => {
    const settings = parseExports((await keyform(["env", "--data", emu.dataDir])).stdout);
    const healthy = await keyform(["doctor"], settings);
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.stdout).toMatch(/^ok {3}API key: registered to user root/m);
    expect(healthy.stdout).toContain("keyform doctor: everything checks out");

    const wrongKey = await keyform(["doctor"], { ...settings, KEYFORM_API_PRIVATE_KEY: generateApiKeyPair().privateKey });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stdout).toMatch(/^FAIL key pair: the private key does not belong to the public key/m);
    expect(wrongKey.stdout).toContain("fix: set keyform:apiPrivateKey / KEYFORM_API_PRIVATE_KEY");

    const stranger = generateApiKeyPair();
    const unregistered = await keyform(["doctor"], { ...settings, KEYFORM_API_PUBLIC_KEY: stranger.publicKey, KEYFORM_API_PRIVATE_KEY: stranger.privateKey });
    expect(unregistered.code).toBe(1);
    expect(unregistered.stdout).toMatch(/^FAIL API key: the server refuses the key/m);

    const down = await keyform(["doctor", "--timeout-ms", "2000"], { ...settings, KEYFORM_BASE_URL: "http://127.0.0.1:1" });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/^FAIL server: http:\/\/127\.0\.0\.1:1 does not answer/m);
    expect(down.stdout).toContain("fix: check keyform:baseUrl / KEYFORM_BASE_URL");

    const unset = await keyform(["doctor"], { KEYFORM_BASE_URL: emu.emulator.url });
    expect(unset.code).toBe(1);
    expect(unset.stdout).toMatch(/^FAIL setting apiPrivateKey: not set/m);
    // The private key never appears in doctor's output.
    expect(healthy.stdout + wrongKey.stdout + down.stdout).not.toContain(settings.KEYFORM_API_PRIVATE_KEY!);
  });

  it("doctor refuses a mistyped keyform:* config key, naming the setting it meant", async () => {
    const b = emu.emulator.bootstrap;
    const config: Record<string, string> = {
      "keyform:baseurl": emu.emulator.url,
      "keyform:organizationId": b.organizationId,
      "keyform:apiPublicKey": b.apiPublicKey,
      "keyform:apiPrivateKey": b.apiPrivateKey,
    };
    const findings = await diagnose(resolveSettings((key) => config[key], {}), 2000, Object.keys(config));
    expect(findings[0]).toEqual({
      check: "config keyform:baseurl",
      detail: "keyform:baseurl is not a keyform setting; did you mean keyform:baseUrl?",
      fix: "pulumi config rm keyform:baseurl, and set the setting it meant",
    });
  });

  it("the quick start block works as pasted: serve in the background, then env --wait", { timeout: 120_000 }, async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "keyform-quickstart-"));
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("KEYFORM_")));
    const server = spawn(process.execPath, [CLI, "serve", "--port", "0", "--data", dataDir, "--log-level", "silent"], { env: base, stdio: "ignore" });
    try {
      // Started at once after the server, as `&` then `eval` does: bootstrap.json does not exist yet.
      const waited = await keyform(["env", "--wait", "--data", dataDir]);
      expect(waited.code, waited.stderr).toBe(0);
      const settings = parseExports(waited.stdout);
      const bootstrap = JSON.parse(fs.readFileSync(path.join(dataDir, "bootstrap.json"), "utf8"));
      expect(settings.KEYFORM_BASE_URL).toBe(bootstrap.baseUrl);
      const doctor = await keyform(["doctor"], settings);
      expect(doctor.code, doctor.stdout).toBe(0);

      const nobody = await keyform(["env", "--wait", "500", "--data", path.join(dataDir, "nowhere")]);
      expect(nobody.code).toBe(1);
      expect(nobody.stderr).toMatch(/--wait: no emulator answered for .* within 500 ms/);
    } finally {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
