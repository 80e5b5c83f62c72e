/**
 * @module cli/env
 * `keyform env --data <dir>`: prints the settings of the emulator that uses `<dir>` (from its
 * `bootstrap.json`, rewritten at every start because `--port 0` picks another port each time),
 * as `KEYFORM_*` exports for a shell or as `pulumi config set` lines for a stack.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import type { Bootstrap } from "../emulator-contract";
import { isSecretSetting, SETTING_ENV, type SettingName } from "../resources/runtime/settings";

/** The settings an emulator's bootstrap.json holds (the others keep their defaults). */
const BOOTSTRAP_SETTINGS = ["baseUrl", "organizationId", "apiPublicKey", "apiPrivateKey", "authProxyUrl", "authProxyConfigId"] as const satisfies readonly (SettingName & keyof Bootstrap)[];

/** Quotes `value` for a POSIX shell. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_./:@-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The emulator's bootstrap file in `dataDir`.
 * @throws Error naming the file and what to do when it is missing or unreadable.
 */
export function readBootstrap(dataDir: string): Bootstrap {
  const file = path.join(path.resolve(dataDir), "bootstrap.json");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new Error(`--data: ${file} does not exist; start the emulator first: keyform serve --port 0 --data ${dataDir}`);
  }
  const parsed = JSON.parse(text) as Partial<Bootstrap>;
  for (const name of BOOTSTRAP_SETTINGS) {
    if (typeof parsed[name] !== "string") throw new Error(`--data: ${file} has no ${name}; is it an emulator's data folder?`);
  }
  return parsed as Bootstrap;
}

/** The lines that put `bootstrap`'s settings in effect, in the chosen format. */
export function settingLines(bootstrap: Bootstrap, format: "env" | "pulumi"): string[] {
  return BOOTSTRAP_SETTINGS.map((name) => {
    const value = shellQuote(bootstrap[name]);
    if (format === "env") return `export ${SETTING_ENV[name]}=${value}`;
    return `pulumi config set ${isSecretSetting(name) ? "--secret " : ""}keyform:${name} ${value}`;
  });
}

/** True when something answers HTTP at `url` within a second. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(1000) });
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits until the emulator that uses `dataDir` has written its bootstrap.json and answers at
 * the address in it (a restart with `--port 0` rewrites the address, so a stale file is not
 * enough). Lets `keyform serve ... & eval "$(keyform env --wait ...)"` run as pasted.
 * @throws Error naming `--wait` when `timeoutMs` passes first.
 */
export async function waitForEmulator(dataDir: string, timeoutMs: number): Promise<Bootstrap> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let bootstrap: Bootstrap | undefined;
    try {
      bootstrap = readBootstrap(dataDir);
    } catch {
      bootstrap = undefined;
    }
    if (bootstrap !== undefined && (await answers(bootstrap.baseUrl))) return bootstrap;
    if (Date.now() >= deadline) {
      throw new Error(
        `--wait: no emulator answered for ${dataDir} within ${timeoutMs} ms` +
          (bootstrap === undefined ? ` (${path.join(path.resolve(dataDir), "bootstrap.json")} was not written)` : ` at ${bootstrap.baseUrl}`) +
          `; start it with: keyform serve --port 0 --data ${dataDir}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function parseWait(value: string | undefined): number {
  if (value === undefined) return 30_000;
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError("expected a positive number of milliseconds");
  return Number(value);
}

/** The `env` command. */
export function envCommand(): Command {
  return new Command("env")
    .description(
      "print a running emulator's settings as KEYFORM_* exports (for eval) or `pulumi config set` lines " +
        "(the private key with --secret)",
    )
    .requiredOption("-d, --data <dir>", "the emulator's data directory (as given to keyform serve)")
    .addOption(new Option("-f, --format <format>", "output format").choices(["env", "pulumi"]).default("env"))
    .option("--pulumi", "same as --format pulumi")
    .option("--wait [ms]", "wait (default 30000 ms) until the emulator has started and answers")
    .action(async (opts: { data: string; format: "env" | "pulumi"; pulumi?: boolean; wait?: string | boolean }) => {
      const format = opts.pulumi === true ? "pulumi" : opts.format;
      let bootstrap: Bootstrap;
      if (opts.wait !== undefined) {
        bootstrap = await waitForEmulator(opts.data, parseWait(typeof opts.wait === "string" ? opts.wait : undefined));
      } else {
        bootstrap = readBootstrap(opts.data);
        if (!(await answers(bootstrap.baseUrl))) {
          process.stderr.write(
            `keyform env: warning: no emulator answers at ${bootstrap.baseUrl} (the last address it used); ` +
              `start it with: keyform serve --data ${opts.data}, or wait for it with --wait\n`,
          );
        }
      }
      process.stdout.write(settingLines(bootstrap, format).join("\n") + "\n");
    });
}
