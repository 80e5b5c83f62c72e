/**
 * @module resources/runtime/settings
 * Provider settings: stack config `keyform:*` first, then the `KEYFORM_*` environment, then
 * defaults. Read at run time inside the provider process (and by the data functions inside
 * the program), never captured into state or resource inputs.
 */

/** The names of the settings, as they appear after `keyform:` in stack config. */
export const SETTING_NAMES = [
  "baseUrl",
  "organizationId",
  "apiPublicKey",
  "apiPrivateKey",
  "authProxyUrl",
  "authProxyConfigId",
  "timeoutMs",
  "firstByteTimeoutMs",
  "maxRequestsPerSecond",
  "allowLockout",
  "journalDir",
] as const;
export type SettingName = (typeof SETTING_NAMES)[number];

/** The environment variable that backs each setting. */
export const SETTING_ENV: Readonly<Record<SettingName, string>> = {
  baseUrl: "KEYFORM_BASE_URL",
  organizationId: "KEYFORM_ORGANIZATION_ID",
  apiPublicKey: "KEYFORM_API_PUBLIC_KEY",
  apiPrivateKey: "KEYFORM_API_PRIVATE_KEY",
  authProxyUrl: "KEYFORM_AUTH_PROXY_URL",
  authProxyConfigId: "KEYFORM_AUTH_PROXY_CONFIG_ID",
  timeoutMs: "KEYFORM_TIMEOUT_MS",
  firstByteTimeoutMs: "KEYFORM_FIRST_BYTE_TIMEOUT_MS",
  maxRequestsPerSecond: "KEYFORM_MAX_REQUESTS_PER_SECOND",
  allowLockout: "KEYFORM_ALLOW_LOCKOUT",
  journalDir: "KEYFORM_JOURNAL_DIR",
};

/** `keyform:<name>` and its environment variable, as messages name a setting. */
export function settingLabel(name: SettingName): string {
  return `keyform:${name} (${SETTING_ENV[name]})`;
}

/** Default folder of the create journal (`ownership.ts`), relative to the provider's working directory. */
export const DEFAULT_JOURNAL_DIR = ".keyform/journal";

/** Default main API of the hosted service. */
export const DEFAULT_BASE_URL = "https://api.turnkey.com";
/** Default authentication proxy of the hosted service. */
export const DEFAULT_AUTH_PROXY_URL = "https://authproxy.turnkey.com";

/**
 * Default budget of one request, in ms: every attempt, backoff wait and (for a submit) the
 * resends and lookup after a lost answer, together.
 */
export const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * Default time a request may take to connect and receive the first byte of its answer: a server
 * that accepts connections and never answers fails the run within it, while the waits that are
 * expected to be long (activity polling, consensus) keep their own budgets.
 */
export const DEFAULT_FIRST_BYTE_TIMEOUT_MS = 15_000;

/**
 * Default cap on the provider's requests per second: none. The provider always paces itself at
 * the rate the service advertises in its `ratelimit-limit` headers (the plan's rate, learned from
 * the first answer, `client/service-pace.ts`); a positive value is a cap below that, e.g. to
 * leave part of the plan's budget to another client at the same address.
 */
export const DEFAULT_MAX_REQUESTS_PER_SECOND = 0;

/** Resolved settings; credentials may be absent until something needs them. */
export interface Settings {
  baseUrl: string;
  organizationId?: string;
  apiPublicKey?: string;
  apiPrivateKey?: string;
  authProxyUrl: string;
  authProxyConfigId?: string;
  /** Budget of one request in ms (see {@link DEFAULT_TIMEOUT_MS}). */
  timeoutMs: number;
  /** Time to connect and receive the first byte of an answer, in ms (see {@link DEFAULT_FIRST_BYTE_TIMEOUT_MS}). */
  firstByteTimeoutMs: number;
  /** Cap on the requests per second of the provider process, below the service's advertised rate; 0 = no cap. */
  maxRequestsPerSecond: number;
  /**
   * A deliberate hand-over: let a plan lock the deploying credentials out of the organization
   * (`lockout.ts`). Default false.
   */
  allowLockout: boolean;
  /** Where creates in flight are journaled, per stack (`ownership.ts`); default `.keyform/journal`. */
  journalDir: string;
}

/** Reads one raw config value by full key (`keyform:baseUrl`); undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

/** Thrown when a setting the current operation needs is not set anywhere. */
export class MissingSettingError extends Error {
  constructor(
    readonly setting: SettingName,
    purpose: string,
  ) {
    super(
      `keyform: ${purpose} needs the setting "${setting}": set it with ` +
        `\`pulumi config set ${setting === "apiPrivateKey" ? "--secret " : ""}keyform:${setting} <value>\` ` +
        `or the environment variable ${SETTING_ENV[setting]}`,
    );
    this.name = "MissingSettingError";
  }
}

/**
 * Resolves every setting: config (`keyform:<name>`, also the `keyform:config:<name>` form
 * some engines use for package config), then the environment, then the defaults.
 * Empty strings count as unset.
 */
export function resolveSettings(config: ConfigLookup | undefined, env: NodeJS.ProcessEnv = process.env): Settings {
  const value = (name: SettingName): string | undefined => {
    const fromConfig = config?.(`keyform:${name}`) ?? config?.(`keyform:config:${name}`);
    const raw = fromConfig !== undefined && fromConfig !== "" ? fromConfig : env[SETTING_ENV[name]];
    return raw !== undefined && raw !== "" ? raw.trim() : undefined;
  };
  return {
    baseUrl: value("baseUrl") ?? DEFAULT_BASE_URL,
    organizationId: value("organizationId"),
    apiPublicKey: value("apiPublicKey"),
    apiPrivateKey: value("apiPrivateKey"),
    authProxyUrl: value("authProxyUrl") ?? DEFAULT_AUTH_PROXY_URL,
    authProxyConfigId: value("authProxyConfigId"),
    timeoutMs: parseTimeout(value("timeoutMs"), "timeoutMs", DEFAULT_TIMEOUT_MS),
    firstByteTimeoutMs: parseTimeout(value("firstByteTimeoutMs"), "firstByteTimeoutMs", DEFAULT_FIRST_BYTE_TIMEOUT_MS),
    maxRequestsPerSecond: parseRate(value("maxRequestsPerSecond")),
    allowLockout: parseFlag("allowLockout", value("allowLockout")),
    journalDir: value("journalDir") ?? DEFAULT_JOURNAL_DIR,
  };
}

/**
 * A positive whole number of milliseconds.
 * @throws {RangeError} naming the config key and the variable when it is not one.
 */
function parseTimeout(raw: string | undefined, name: "timeoutMs" | "firstByteTimeoutMs", fallback: number): number {
  if (raw === undefined) return fallback;
  const ms = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new RangeError(
      `keyform: the setting "${name}" (keyform:${name} or ${SETTING_ENV[name]}) must be a positive whole number of milliseconds, got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

/**
 * `true` or `false` (default false).
 * @throws {RangeError} naming the config key and the variable when it is neither.
 */
function parseFlag(name: "allowLockout", raw: string | undefined): boolean {
  if (raw === undefined) return false;
  if (raw === "true" || raw === "false") return raw === "true";
  throw new RangeError(`keyform: the setting "${name}" (keyform:${name} or ${SETTING_ENV[name]}) must be true or false, got ${JSON.stringify(raw)}`);
}

/**
 * A non-negative number of requests per second (fractions allowed, 0 = no cap).
 * @throws {RangeError} naming the config key and the variable when it is not one.
 */
function parseRate(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MAX_REQUESTS_PER_SECOND;
  const rate = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(rate)) {
    throw new RangeError(
      `keyform: the setting "maxRequestsPerSecond" (keyform:maxRequestsPerSecond or ${SETTING_ENV.maxRequestsPerSecond}) must be a number of requests per second (0 for no cap), got ${JSON.stringify(raw)}`,
    );
  }
  return rate;
}

/**
 * Returns `settings[name]`, or throws naming the config key and the environment variable.
 * @throws {MissingSettingError} when the setting is unset.
 */
export function requireSetting(settings: Settings, name: Exclude<SettingName, "timeoutMs" | "firstByteTimeoutMs" | "maxRequestsPerSecond" | "allowLockout" | "journalDir">, purpose: string): string {
  const value = settings[name];
  if (value === undefined) throw new MissingSettingError(name, purpose);
  return value;
}

/** Edit distance of two short strings (for "did you mean"). */
export function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/**
 * The setting a misspelled name most likely meant: the same letters in another case or with
 * separators (`baseurl`, `base_url`), else one at most two edits away.
 */
export function suggestSetting(name: string): SettingName | undefined {
  const folded = name.toLowerCase().replace(/[^a-z]/g, "");
  const exact = SETTING_NAMES.find((known) => known.toLowerCase() === folded);
  if (exact !== undefined) return exact;
  const near = SETTING_NAMES.map((known) => ({ known, d: distance(known.toLowerCase(), folded) })).sort((x, y) => x.d - y.d)[0];
  return near !== undefined && near.d <= 2 ? near.known : undefined;
}

/**
 * Why the config key `key` (`keyform:<name>` or `keyform:config:<name>`) is not a setting, or
 * undefined when it is one (or not a `keyform:` key at all). Known names come from
 * {@link SETTING_NAMES} only, so a new setting is known as soon as it is defined there.
 */
export function unknownSettingProblem(key: string): string | undefined {
  const match = /^keyform:(?:config:)?(.+)$/u.exec(key);
  if (match === null) return undefined;
  const name = match[1]!;
  if ((SETTING_NAMES as readonly string[]).includes(name)) return undefined;
  const meant = suggestSetting(name);
  return (
    `keyform:${name} is not a keyform setting` +
    (meant ? `; did you mean keyform:${meant}?` : `; the settings are ${SETTING_NAMES.map((n) => `keyform:${n}`).join(", ")}`)
  );
}
