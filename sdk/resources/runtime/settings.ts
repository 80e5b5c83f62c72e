/**
 * @module resources/runtime/settings
 * Provider settings: stack config `keyform:*` first, then the `KEYFORM_*` environment, then
 * defaults. Read at run time inside the provider process (and by the data functions inside
 * the program), never captured into state or resource inputs.
 */

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

/**
 * One setting. Its `parse` is the one validator of its values: the runtime (`resolveSettings`),
 * the plugin's CheckConfig and `doctor` all call it.
 */
export interface SettingSpec<T> {
  /** The environment variable read when the stack config does not set it. */
  readonly env: string;
  /** What it is for, as the schema, `doctor` and the docs say it. */
  readonly description: string;
  /** A credential: marked secret in the schema, set with `pulumi config set --secret`, never printed. */
  readonly secret?: boolean;
  /** The value in effect when nothing sets it; absent: the setting stays unset. */
  readonly default?: T;
  /**
   * The value of a raw setting (trimmed, not empty).
   * @throws {SettingValueError} saying what the value must be.
   */
  readonly parse: (raw: string) => T;
}

/** A setting's value refused by its parser; `expected` says what it must be ("must be …"). */
export class SettingValueError extends Error {
  constructor(readonly expected: string) {
    super(expected);
    this.name = "SettingValueError";
  }
}

const HEX = /^[0-9a-fA-F]+$/;

/** Any text. */
const text = (raw: string): string => raw;

/** An http(s) URL. */
function httpUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingValueError("must be an http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SettingValueError("must be an http(s) URL");
  return raw;
}

/** A positive whole number of milliseconds. */
function milliseconds(raw: string): number {
  const ms = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(ms) || ms <= 0) throw new SettingValueError("must be a positive whole number of milliseconds");
  return ms;
}

/** A non-negative number of requests per second (fractions allowed, 0 = no cap). */
function rate(raw: string): number {
  const perSecond = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(perSecond)) throw new SettingValueError("must be a number of requests per second (0 for no cap)");
  return perSecond;
}

/** `true` or `false`. */
function flag(raw: string): boolean {
  if (raw === "true" || raw === "false") return raw === "true";
  throw new SettingValueError("must be true or false");
}

/** A compressed public key in hex (66 digits; 64 for ed25519). */
function publicKeyHex(raw: string): string {
  if (HEX.test(raw) && (raw.length === 66 || raw.length === 64)) return raw;
  throw new SettingValueError("must be a compressed public key in hex (66 digits; 64 for ed25519)");
}

/** A private key of 64 hex digits. */
function privateKeyHex(raw: string): string {
  if (HEX.test(raw) && raw.length === 64) return raw;
  throw new SettingValueError("must be a private key of 64 hex digits");
}

/**
 * Every setting, in one table: its environment variable, default, whether it is secret, its
 * description and its parser. The runtime, the plugin's schema, config and CheckConfig, `doctor`,
 * `env` and the generated docs all read it.
 */
export const SETTINGS = {
  baseUrl: {
    env: "KEYFORM_BASE_URL",
    description: "Base URL of the service API.",
    default: DEFAULT_BASE_URL,
    parse: httpUrl,
  },
  organizationId: {
    env: "KEYFORM_ORGANIZATION_ID",
    description: "The organization resources live in unless they say otherwise.",
    parse: text,
  },
  apiPublicKey: {
    env: "KEYFORM_API_PUBLIC_KEY",
    description: "Public key (hex) of the API key that signs requests.",
    parse: publicKeyHex,
  },
  apiPrivateKey: {
    env: "KEYFORM_API_PRIVATE_KEY",
    description: "Private key (hex) of the API key that signs requests.",
    secret: true,
    parse: privateKeyHex,
  },
  authProxyUrl: {
    env: "KEYFORM_AUTH_PROXY_URL",
    description: "Base URL of the authentication proxy.",
    default: DEFAULT_AUTH_PROXY_URL,
    parse: httpUrl,
  },
  authProxyConfigId: {
    env: "KEYFORM_AUTH_PROXY_CONFIG_ID",
    description: "Authentication proxy configuration id.",
    parse: text,
  },
  timeoutMs: {
    env: "KEYFORM_TIMEOUT_MS",
    description: "Budget of one request in milliseconds, retries and the recovery of a lost answer included.",
    default: DEFAULT_TIMEOUT_MS,
    parse: milliseconds,
  },
  firstByteTimeoutMs: {
    env: "KEYFORM_FIRST_BYTE_TIMEOUT_MS",
    description: "Time in milliseconds a request may take to connect and receive the first byte of the answer; a silent server fails within it, without retries.",
    default: DEFAULT_FIRST_BYTE_TIMEOUT_MS,
    parse: milliseconds,
  },
  maxRequestsPerSecond: {
    env: "KEYFORM_MAX_REQUESTS_PER_SECOND",
    description:
      "Cap on the requests per second of the provider, all its resources together, below the rate the service advertises in its ratelimit-limit headers, which the provider always keeps to (0: no cap beyond the service's).",
    default: DEFAULT_MAX_REQUESTS_PER_SECOND,
    parse: rate,
  },
  allowLockout: {
    env: "KEYFORM_ALLOW_LOCKOUT",
    description:
      "`true` for a deliberate hand-over: let the plan lock the deploying credentials out of the organization (an IP allowlist without the caller's address, deleting the key or user keyform runs as, a root quorum without its user or that it no longer makes alone, policies that deny its user an activity the plan submits). `false`: such a plan fails at preview.",
    default: false,
    parse: flag,
  },
  journalDir: {
    env: "KEYFORM_JOURNAL_DIR",
    description:
      "Folder of the create journal that proves which objects this stack created (one folder per stack inside; relative to the project directory). Keep it with the stack's state.",
    default: DEFAULT_JOURNAL_DIR,
    parse: text,
  },
} as const satisfies Record<string, SettingSpec<unknown>>;

export type SettingName = keyof typeof SETTINGS;

/** The names of the settings, as they appear after `keyform:` in stack config. */
export const SETTING_NAMES = Object.keys(SETTINGS) as readonly SettingName[];

/** The environment variable that backs each setting. */
export const SETTING_ENV: Readonly<Record<SettingName, string>> = Object.fromEntries(SETTING_NAMES.map((name) => [name, SETTINGS[name].env])) as Record<SettingName, string>;

/** The table entry of `name`, typed loosely for code that walks every setting. */
export function settingSpec(name: SettingName): SettingSpec<unknown> {
  return SETTINGS[name];
}

/** True for a setting that holds a credential (never printed, set with `--secret`). */
export function isSecretSetting(name: SettingName): boolean {
  return settingSpec(name).secret === true;
}

/** True for a setting that has a value when nothing sets it. */
export function hasDefault(name: SettingName): boolean {
  return settingSpec(name).default !== undefined;
}

/** `keyform:<name>` and its environment variable, as messages name a setting. */
export function settingLabel(name: SettingName): string {
  return `keyform:${name} (${SETTING_ENV[name]})`;
}

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
        `\`pulumi config set ${isSecretSetting(setting) ? "--secret " : ""}keyform:${setting} <value>\` ` +
        `or the environment variable ${SETTING_ENV[setting]}`,
    );
    this.name = "MissingSettingError";
  }
}

/**
 * Why `raw` is no value of setting `name` (without the value when the setting is secret), or
 * undefined when its parser takes it.
 */
export function settingValueProblem(name: SettingName, raw: string): string | undefined {
  try {
    settingSpec(name).parse(raw.trim());
    return undefined;
  } catch (error) {
    if (!(error instanceof SettingValueError)) throw error;
    return `keyform:${name} ${error.expected}${isSecretSetting(name) ? "" : `, not ${JSON.stringify(raw)}`}`;
  }
}

/**
 * Resolves every setting: config (`keyform:<name>`, also the `keyform:config:<name>` form
 * some engines use for package config), then the environment, then the defaults, each value
 * through its parser. Empty strings count as unset.
 * @throws {RangeError} naming the config key and the variable of a value its parser refuses.
 */
export function resolveSettings(config: ConfigLookup | undefined, env: NodeJS.ProcessEnv = process.env): Settings {
  const resolved: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const spec = settingSpec(name);
    const fromConfig = config?.(`keyform:${name}`) ?? config?.(`keyform:config:${name}`);
    const raw = fromConfig !== undefined && fromConfig !== "" ? fromConfig : env[spec.env];
    const value = raw !== undefined && raw !== "" ? raw.trim() : undefined;
    if (value === undefined) {
      resolved[name] = spec.default;
      continue;
    }
    try {
      resolved[name] = spec.parse(value);
    } catch (error) {
      if (!(error instanceof SettingValueError)) throw error;
      throw new RangeError(
        `keyform: the setting "${name}" (keyform:${name} or ${spec.env}) ${error.expected}` + (spec.secret ? "" : `, got ${JSON.stringify(value)}`),
      );
    }
  }
  return resolved as unknown as Settings;
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
