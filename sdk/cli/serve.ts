/**
 * @module cli/serve
 * `keyform serve --port <n> --data <dir>`: runs the emulator until SIGINT or SIGTERM, then
 * finishes requests in flight and closes the database. The emulator is loaded when the command
 * runs (it ships in the keyform-emulator package).
 */
import * as path from "node:path";
import { Command, InvalidArgumentError, Option } from "commander";
import type { EmulatorLogLevel as LogLevel, IpAllowlistConfig } from "../emulator-contract";
import { startEmulator } from "../emulator-loader";
import { ensureEarnWrapper, parseEarnWrapper, type EarnWrapperRequest } from "./earn-wrapper";

const PLANS = ["free", "payg", "pro", "enterprise"] as const;
const LOG_LEVELS: readonly LogLevel[] = ["silent", "fatal", "error", "warn", "info", "debug", "trace"];

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError("expected a port number from 0 to 65535");
  return port;
}

function parseRate(value: string): number {
  const rate = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || rate <= 0) throw new InvalidArgumentError("expected a positive number of requests per second");
  return rate;
}

function splitRules(value: string): string[] {
  return value.split(",").map((rule) => rule.trim()).filter((rule) => rule !== "");
}

/** `--ip-allowlist-key <publicKey>=<rules>`, repeatable. */
function collectKeyAllowlist(value: string, previous: IpAllowlistConfig[] = []): IpAllowlistConfig[] {
  const at = value.indexOf("=");
  if (at <= 0) throw new InvalidArgumentError("expected <publicKey>=<ip or cidr>[,<ip or cidr>…]");
  return [...previous, { publicKey: value.slice(0, at), allow: splitRules(value.slice(at + 1)) }];
}

/** The IP allowlist configuration of the serve options, or undefined when none was given. */
function ipAllowlistsOf(opts: { ipAllowlist?: string; ipAllowlistKey?: IpAllowlistConfig[]; clearIpAllowlists?: boolean }): IpAllowlistConfig[] | undefined {
  if (opts.ipAllowlist === undefined && opts.ipAllowlistKey === undefined && opts.clearIpAllowlists !== true) return undefined;
  return [...(opts.ipAllowlist !== undefined ? [{ allow: splitRules(opts.ipAllowlist) }] : []), ...(opts.ipAllowlistKey ?? [])];
}

/** The `serve` command. */
export function serveCommand(): Command {
  return new Command("serve")
    .description("run the local emulator of the service (main API and auth proxy on one port)")
    .option("-p, --port <n>", "port to listen on (0 = any free port)", parsePort, 8080)
    .requiredOption("-d, --data <dir>", "data directory (database and bootstrap.json)")
    .option("--host <host>", "interface to listen on", "127.0.0.1")
    .addOption(new Option("--log-level <level>", "log level").choices(LOG_LEVELS).default("info"))
    .option("--fixtures <file>", "JSON file of fixture wallets and EVM transactions, loaded at start")
    .option("--ip-allowlist <rules>", "organization-level IP allowlist of the root organization (comma-separated IPs or CIDR blocks)")
    .option("--ip-allowlist-key <publicKey=rules>", "IP allowlist of one API key of the root organization (repeatable)", collectKeyAllowlist)
    .addOption(new Option("--plan <plan>", "enforce the service's rate limits of this plan: requests per second per client address (free 1, payg 1, pro 3, enterprise 60), 10 per sub-organization; ratelimit-* headers on every answer (default: no limit)").choices(PLANS))
    .option("--requests-per-second <n>", "like --plan, with n requests per second per client address", parseRate)
    .addOption(new Option("--rate-limit <n>", "alias of --requests-per-second").argParser(parseRate).hideHelp())
    .option("--earn-wrapper <vault[@chain]>", "make sure an Earn wrapper is deployed for this vault (default chain eip155:8453), as one is on the service before a program manages its state", parseEarnWrapper)
    .option("--clear-ip-allowlists", "remove every stored IP allowlist (the --ip-allowlist* options also replace them)")
    .action(async (opts: {
      port: number;
      data: string;
      host: string;
      logLevel: LogLevel;
      fixtures?: string;
      ipAllowlist?: string;
      ipAllowlistKey?: IpAllowlistConfig[];
      clearIpAllowlists?: boolean;
      plan?: (typeof PLANS)[number];
      requestsPerSecond?: number;
      rateLimit?: number;
      earnWrapper?: EarnWrapperRequest;
    }) => {
      const requestsPerSecond = opts.requestsPerSecond ?? opts.rateLimit;
      const dataDir = path.resolve(opts.data);
      const ipAllowlists = ipAllowlistsOf(opts);
      const emulator = await startEmulator({
        port: opts.port,
        dataDir,
        host: opts.host,
        logLevel: opts.logLevel,
        ...(opts.fixtures !== undefined ? { fixturesFile: path.resolve(opts.fixtures) } : {}),
        ...(ipAllowlists !== undefined ? { ipAllowlists } : {}),
        ...(opts.plan !== undefined ? { plan: opts.plan } : {}),
        ...(requestsPerSecond !== undefined ? { maxRequestsPerSecond: requestsPerSecond } : {}),
      });
      if (opts.earnWrapper !== undefined) {
        const wrapper = await ensureEarnWrapper(emulator.url, emulator.bootstrap, opts.earnWrapper);
        process.stdout.write(`keyform emulator: Earn wrapper ${wrapper.wrapperAddress} for vault ${opts.earnWrapper.vaultAddress} (${wrapper.deployed ? "deployed" : "already deployed"})\n`);
      }
      process.stdout.write(
        `keyform emulator listening on ${emulator.url} (organization ${emulator.bootstrap.organizationId}; ` +
          `credentials in ${path.join(dataDir, "bootstrap.json")})\n`,
      );
      process.stdout.write(`keyform emulator dashboard: ${emulator.url}/\n`);
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        process.stdout.write(`keyform emulator: ${signal} received, shutting down\n`);
        emulator.close().then(
          () => process.exit(0),
          (error: unknown) => {
            process.stderr.write(`keyform emulator: shutdown failed: ${String(error)}\n`);
            process.exit(1);
          },
        );
      };
      process.on("SIGINT", () => stop("SIGINT"));
      process.on("SIGTERM", () => stop("SIGTERM"));
    });
}
