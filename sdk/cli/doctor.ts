/**
 * @module cli/doctor
 * `keyform doctor`: checks the settings in effect (the `KEYFORM_*` environment, or a stack's
 * `keyform:*` config with `--stack`) the way the providers will use them, and says what to fix:
 * every setting is present, the key pair matches, the server answers, the key is registered in
 * the organization, and the organization id is the one the key belongs to.
 */
import { execFileSync } from "node:child_process";
import { Command } from "commander";
import { ApiKeyStamper } from "../client/api-key-stamper";
import { KeyformClient } from "../client/client";
import { AuthenticationError, ConnectionError, KeyformError, NotFoundError, PermissionDeniedError, TimeoutError } from "../client/errors";
import { resolveSettings, SETTING_ENV, unknownSettingProblem, type ConfigLookup, type Settings, type SettingName } from "../resources/runtime/settings";
import { curveOfPair } from "../resources/runtime/verify";

/** One check's outcome: `fix` is set when it failed. */
export interface Finding {
  readonly check: string;
  readonly detail: string;
  readonly fix?: string;
}

const where = (name: SettingName) => `keyform:${name} / ${SETTING_ENV[name]}`;

/**
 * Runs every check against `settings`; stops at the first one the later ones depend on.
 * `configKeys` are the stack's config keys: a `keyform:*` key that is no setting fails (a
 * mistyped `keyform:baseurl` would otherwise leave the default in effect without a word).
 * @param timeoutMs per-request timeout of the server checks.
 */
export async function diagnose(settings: Settings, timeoutMs = 10_000, configKeys: readonly string[] = []): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const key of configKeys) {
    const problem = unknownSettingProblem(key);
    if (problem !== undefined) findings.push({ check: `config ${key}`, detail: problem, fix: `pulumi config rm ${key}, and set the setting it meant` });
  }
  const missing = (["organizationId", "apiPublicKey", "apiPrivateKey"] as const).filter((name) => settings[name] === undefined);
  for (const name of missing) {
    findings.push({
      check: `setting ${name}`,
      detail: "not set",
      fix: `set ${name === "apiPrivateKey" ? "it as a secret: pulumi config set --secret" : "pulumi config set"} keyform:${name} <value>, or ${SETTING_ENV[name]}`,
    });
  }
  findings.push({ check: "setting baseUrl", detail: settings.baseUrl });
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
    timeoutMs,
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

/** The config of a stack, read with the Pulumi CLI (secrets decrypted in memory only), and its keys. */
function stackConfig(stack: string): { lookup: ConfigLookup; keys: string[] } {
  const out = execFileSync("pulumi", ["config", "--json", "--show-secrets", "--stack", stack], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const config = JSON.parse(out) as Record<string, { value?: string }>;
  return { lookup: (key) => config[key]?.value, keys: Object.keys(config) };
}

/** The `doctor` command. */
export function doctorCommand(): Command {
  return new Command("doctor")
    .description("check the settings in effect: key pair, server, key registration, organization")
    .option("-s, --stack <name>", "read the keyform:* config of this Pulumi stack (in the current project) before the environment")
    .option("--timeout-ms <ms>", "per-request timeout", (v) => Number(v), 10_000)
    .action(async (opts: { stack?: string; timeoutMs: number }) => {
      const config = opts.stack !== undefined ? stackConfig(opts.stack) : undefined;
      const settings = resolveSettings(config?.lookup);
      const findings = await diagnose(settings, opts.timeoutMs, config?.keys);
      for (const f of findings) {
        process.stdout.write(`${f.fix === undefined ? "ok  " : "FAIL"} ${f.check}: ${f.detail}\n`);
        if (f.fix !== undefined) process.stdout.write(`     fix: ${f.fix}\n`);
      }
      const failed = findings.filter((f) => f.fix !== undefined).length;
      process.stdout.write(failed === 0 ? "keyform doctor: everything checks out\n" : `keyform doctor: ${failed} problem(s)\n`);
      if (failed > 0) process.exitCode = 1;
    });
}
