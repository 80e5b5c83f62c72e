/**
 * @module cli/doctor
 * `keyform doctor`: checks the settings in effect (a stack's `keyform:*` config — the one named
 * with `--stack`, else the selected stack of the Pulumi project around the current folder — then
 * the `KEYFORM_*` environment, then the defaults) the way the providers will use them, says where
 * each value came from, and what to fix: no unknown config key or `KEYFORM_*` name, every setting
 * is present, the key pair matches, the server answers, the key is registered in the
 * organization, and the organization id is the one the key belongs to.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { Command } from "commander";
import { ApiKeyStamper } from "../protocol/api-key-stamper";
import { KeyformClient } from "../client/client";
import { AuthenticationError, ConnectionError, KeyformError, NotFoundError, PermissionDeniedError, TimeoutError } from "../client/errors";
import { isSecretSetting, resolveSettings, SETTING_ENV, SETTING_NAMES, unknownSettingProblem, type ConfigLookup, type Settings, type SettingName } from "../resources/runtime/settings";
import { curveOfPair } from "../resources/runtime/verify";
import { describeOrigin, settingOrigins, unknownKeyformVariables, unknownVariableProblem, type SettingOrigin, type UnknownVariable } from "../resources/runtime/setting-sources";

/** One check's outcome: `fix` is set when it failed. */
export interface Finding {
  readonly check: string;
  readonly detail: string;
  readonly fix?: string;
}

const where = (name: SettingName) => `keyform:${name} / ${SETTING_ENV[name]}`;

/** What `diagnose` knows about where the settings came from. */
export interface SettingsProvenance {
  /** Where each setting came from; with it, every setting in effect gets a line saying so. */
  readonly origins?: Readonly<Record<SettingName, SettingOrigin>>;
  /** `KEYFORM_*` names in the environment that are no setting. */
  readonly unknownVariables?: readonly UnknownVariable[];
}

const REQUIRED: readonly SettingName[] = ["organizationId", "apiPublicKey", "apiPrivateKey"];

/**
 * Runs every check against `settings`; stops at the first one the later ones depend on.
 * `configKeys` are the stack's config keys: a `keyform:*` key that is no setting fails (a
 * mistyped `keyform:baseurl` would otherwise leave the default in effect without a word), and
 * so does a `KEYFORM_*` variable that is no setting (`provenance.unknownVariables`).
 * @param timeoutMs the server check's whole time (`--timeout-ms`); by default the settings'
 * `timeoutMs` and `firstByteTimeoutMs`, the ones the providers apply.
 */
export async function diagnose(settings: Settings, timeoutMs?: number, configKeys: readonly string[] = [], provenance: SettingsProvenance = {}): Promise<Finding[]> {
  const findings: Finding[] = [];
  const applied = appliedTimeouts(settings, timeoutMs);
  for (const key of configKeys) {
    const problem = unknownSettingProblem(key);
    if (problem !== undefined) findings.push({ check: `config ${key}`, detail: problem, fix: `pulumi config rm ${key}, and set the setting it meant` });
  }
  for (const { variable, meant } of provenance.unknownVariables ?? []) {
    findings.push({
      check: `environment ${variable}`,
      detail: unknownVariableProblem({ variable, meant }),
      fix: meant !== undefined ? `rename it to ${meant}` : `unset it; the settings are ${Object.values(SETTING_ENV).join(", ")}`,
    });
  }
  for (const name of SETTING_NAMES) {
    const value = settings[name];
    if (value === undefined) {
      if (!REQUIRED.includes(name)) continue;
      findings.push({
        check: `setting ${name}`,
        detail: "not set",
        fix: `set ${isSecretSetting(name) ? "it as a secret: pulumi config set --secret" : "pulumi config set"} keyform:${name} <value>, or ${SETTING_ENV[name]}`,
      });
      continue;
    }
    const origin = provenance.origins?.[name];
    if (origin === undefined && name !== "baseUrl") continue;
    // The private key is never printed, only that it is set and where from.
    const shown = isSecretSetting(name) ? "[secret]" : String(value);
    // A timeout the server check does not apply as set says which one it applies instead.
    const override = (name === "timeoutMs" || name === "firstByteTimeoutMs") && applied[name] !== value ? `; this check applies ${applied[name]} ms (--timeout-ms)` : "";
    findings.push({ check: `setting ${name}`, detail: `${origin === undefined ? shown : `${shown} (${describeOrigin(origin)})`}${override}` });
  }
  if (settings.apiPublicKey === undefined || settings.apiPrivateKey === undefined) return findings;

  const curve = curveOfPair(settings.apiPublicKey, settings.apiPrivateKey);
  if (curve === undefined) {
    findings.push({
      check: "key pair",
      detail: `the private key does not belong to the public key ${settings.apiPublicKey}`,
      fix: `set ${where("apiPrivateKey")} to the private key of ${where("apiPublicKey")}`,
    });
    return findings;
  }
  findings.push({ check: "key pair", detail: `the private key matches the public key (${curve})` });
  if (settings.organizationId === undefined) return findings;

  const client = new KeyformClient({
    baseUrl: settings.baseUrl,
    organizationId: settings.organizationId,
    stamper: new ApiKeyStamper({ apiPublicKey: settings.apiPublicKey, apiPrivateKey: settings.apiPrivateKey, curve }),
    timeoutMs: applied.timeoutMs,
    firstByteTimeoutMs: applied.firstByteTimeoutMs,
    retry: { maxRetries: 0 },
  });
  try {
    const me = await client.whoami({});
    findings.push({ check: "server", detail: `${settings.baseUrl} answers` });
    findings.push({ check: "API key", detail: `registered to user ${me.username} (${me.userId})` });
    findings.push(
      me.organizationId === settings.organizationId
        ? { check: "organization", detail: `${me.organizationName} (${me.organizationId})` }
        : {
            check: "organization",
            detail: `the key belongs to organization ${me.organizationId}, not ${settings.organizationId}`,
            fix: `set ${where("organizationId")} to ${me.organizationId}`,
          },
    );
  } catch (error) {
    findings.push(serverFinding(error, settings));
  }
  return findings;
}

/**
 * The timeouts the server check applies: the settings' own, as the providers apply them, unless
 * `--timeout-ms` limits the whole check (the first byte then has to come within it too).
 */
export function appliedTimeouts(settings: Settings, timeoutMs: number | undefined): { timeoutMs: number; firstByteTimeoutMs: number } {
  const whole = timeoutMs ?? settings.timeoutMs;
  return { timeoutMs: whole, firstByteTimeoutMs: Math.min(settings.firstByteTimeoutMs, whole) };
}

/** What a failed whoami says about the settings. */
function serverFinding(error: unknown, settings: Settings): Finding {
  const reason = error instanceof Error ? error.message.split("\n")[0]! : String(error);
  if (error instanceof ConnectionError || error instanceof TimeoutError) {
    return { check: "server", detail: `${settings.baseUrl} does not answer: ${reason}`, fix: `check ${where("baseUrl")} (is the server running?)` };
  }
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError || error instanceof NotFoundError) {
    return {
      check: "API key",
      detail: `the server refuses the key in organization ${settings.organizationId}: ${reason}`,
      fix: `register ${where("apiPublicKey")} in that organization, or set ${where("organizationId")} to the key's organization`,
    };
  }
  if (error instanceof KeyformError) return { check: "server", detail: reason, fix: `check ${where("baseUrl")}` };
  throw error;
}

/** Runs the Pulumi CLI in the current folder; the error carries its own message, not Node's. */
function pulumi(args: string[]): string {
  try {
    return execFileSync("pulumi", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const e = error as { code?: string; stderr?: string; message?: string };
    const reason = e.code === "ENOENT" ? "the pulumi command is not on PATH" : (e.stderr ?? e.message ?? String(error)).trim().split("\n")[0];
    throw new Error(`pulumi ${args.slice(0, 2).join(" ")}: ${reason}`);
  }
}

/** The config of a stack, read with the Pulumi CLI (secrets decrypted in memory only), and its keys. */
function stackConfig(stack: string): { lookup: ConfigLookup; keys: string[] } {
  const config = JSON.parse(pulumi(["config", "--json", "--show-secrets", "--stack", stack])) as Record<string, { value?: string }>;
  return { lookup: (key) => config[key]?.value, keys: Object.keys(config) };
}

/** The folder of the Pulumi project around `dir` (its `Pulumi.yaml`), or undefined outside one. */
export function pulumiProjectDir(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, "Pulumi.yaml")) || fs.existsSync(path.join(current, "Pulumi.yml"))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/** The selected stack of the project in the current folder, or undefined when none is. */
function selectedStack(): string | undefined {
  const stacks = JSON.parse(pulumi(["stack", "ls", "--json"])) as Array<{ name: string; current?: boolean }>;
  return stacks.find((s) => s.current === true)?.name;
}

/**
 * Which stack's config applies: `--stack`, else the selected stack of the Pulumi project around
 * the current folder; the finding says which (or why none), and fails when the config that
 * applies cannot be read.
 */
function configInEffect(stackOption: string | undefined): { config?: { lookup: ConfigLookup; keys: string[] }; finding?: Finding } {
  const project = pulumiProjectDir(process.cwd());
  if (stackOption === undefined && project === undefined) return {};
  try {
    const stack = stackOption ?? selectedStack();
    if (stack === undefined) {
      return { finding: { check: "stack", detail: `no stack is selected in the Pulumi project ${project}: the settings come from the environment (pulumi stack select <name>, or --stack <name>, to read a stack's config)` } };
    }
    return { config: stackConfig(stack), finding: { check: "stack", detail: `reading the config of stack ${stack}${stackOption === undefined ? ` (selected in ${project})` : ""}` } };
  } catch (error) {
    return {
      finding: {
        check: "stack",
        detail: `cannot read the stack's config: ${error instanceof Error ? error.message : String(error)}`,
        fix: "install and log in the Pulumi CLI (pulumi login), or run keyform doctor outside the project with the KEYFORM_* environment",
      },
    };
  }
}

/** The `doctor` command. */
export function doctorCommand(): Command {
  return new Command("doctor")
    .description("check the settings in effect: key pair, server, key registration, organization")
    .option("-s, --stack <name>", "read the keyform:* config of this Pulumi stack before the environment (default: the selected stack, in a Pulumi project)")
    .option("--timeout-ms <ms>", "time the server check may take (default: keyform:timeoutMs and keyform:firstByteTimeoutMs, as the providers apply them)", (v) => Number(v))
    .action(async (opts: { stack?: string; timeoutMs?: number }) => {
      const { config, finding } = configInEffect(opts.stack);
      const provenance = { origins: settingOrigins(config?.lookup, process.env), unknownVariables: unknownKeyformVariables(process.env) };
      let settings: Settings | undefined;
      let refused: Finding | undefined;
      try {
        settings = resolveSettings(config?.lookup);
      } catch (error) {
        // A value its parser refuses (the message names the setting, and never a secret's value).
        if (!(error instanceof RangeError)) throw error;
        refused = { check: "settings", detail: error.message, fix: "correct the value the message names" };
      }
      const findings = [
        ...(finding !== undefined ? [finding] : []),
        ...(refused !== undefined ? [refused] : []),
        ...(settings !== undefined ? await diagnose(settings, opts.timeoutMs, config?.keys, provenance) : []),
      ];
      for (const f of findings) {
        process.stdout.write(`${f.fix === undefined ? "ok  " : "FAIL"} ${f.check}: ${f.detail}\n`);
        if (f.fix !== undefined) process.stdout.write(`     fix: ${f.fix}\n`);
      }
      const failed = findings.filter((f) => f.fix !== undefined).length;
      process.stdout.write(failed === 0 ? "keyform doctor: everything checks out\n" : `keyform doctor: ${failed} problem(s)\n`);
      if (failed > 0) process.exitCode = 1;
    });
}
