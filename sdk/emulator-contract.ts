/**
 * @module emulator-contract
 * What the `keyform` package says about the emulator: the options of `startEmulator`, the
 * running handle and `bootstrap.json`. Types only, with no imports, so that the package's
 * declarations stay complete without the emulator's server and database types (a Pulumi
 * program compiles against them without `skipLibCheck` or extra `@types`). The emulator
 * implements these (it imports them as `keyform/emulator-contract`, without the rest of keyform
 * and its Pulumi types); its own options add in-process extension points.
 */

/** The contents of `<dataDir>/bootstrap.json`. */
export interface Bootstrap {
  organizationId: string;
  userId: string;
  apiPublicKey: string;
  /** Secret: the root user's API private key (hex). */
  apiPrivateKey: string;
  baseUrl: string;
  authProxyUrl: string;
  authProxyConfigId: string;
  /** Uncompressed P-256 public key (hex) of the emulator's signing key. */
  signerPublicKey: string;
}

/** Log levels of the emulator's server. */
export type EmulatorLogLevel = "silent" | "fatal" | "error" | "warn" | "info" | "debug" | "trace";

/** An IP allowlist the emulator enforces. */
export interface IpAllowlistConfig {
  /** Organization the allowlist belongs to; default the root (bootstrap) organization. */
  organizationId?: string;
  /** API key public key (hex) the allowlist is for; absent = the organization-level allowlist. */
  publicKey?: string;
  /** Exact IP addresses or CIDR blocks, IPv4 or IPv6, e.g. `["127.0.0.1", "10.0.0.0/8"]`. */
  allow: readonly string[];
}

/** Options of `startEmulator`. */
export interface EmulatorStartOptions {
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Directory holding `keyform.db` and `bootstrap.json`; created if missing. */
  dataDir: string;
  /** Interface to listen on; default `127.0.0.1`. */
  host?: string;
  /** Default `info`; tests use `silent`. */
  logLevel?: EmulatorLogLevel;
  /**
   * JSON file of wallets with known mnemonics and EVM transactions for
   * list_eth_transaction_history, loaded at every start.
   */
  fixturesFile?: string;
  /**
   * IP allowlists, stored in the database. When given, they replace every stored allowlist
   * (`[]` removes them all); when absent, the stored ones stay in force.
   */
  ipAllowlists?: readonly IpAllowlistConfig[];
  /**
   * Enforce the service's rate limits of this plan: the plan's requests per second per client
   * address (free 1, payg 1, pro 3, enterprise 60), 10 per sub-organization, 10 for the
   * broadcast endpoints; every answer carries `ratelimit-limit` / `ratelimit-remaining`, and over
   * a limit the answer is 429 with `Retry-After`. Default: no limit.
   */
  plan?: "free" | "payg" | "pro" | "enterprise";
  /** Like {@link plan} with this many requests per second per client address instead (wins over `plan`). */
  maxRequestsPerSecond?: number;
}

/** A running emulator. */
export interface RunningEmulator {
  /** Base URL of the main API, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Base URL of the auth proxy (the same server). */
  authProxyUrl: string;
  port: number;
  bootstrap: Bootstrap;
  /** Stops accepting requests, finishes those in flight, closes the database. */
  close(): Promise<void>;
  /** With a plan or rate in force: the rate per client address and the requests admitted and refused (429) so far. */
  readonly rateLimit?: { readonly perSecond: number; readonly admitted: number; readonly refused: number };
}
