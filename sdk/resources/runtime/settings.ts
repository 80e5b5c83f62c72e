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
};

/** Default main API of the hosted service. */
export const DEFAULT_BASE_URL = "https://api.turnkey.com";
/** Default authentication proxy of the hosted service. */
export const DEFAULT_AUTH_PROXY_URL = "https://authproxy.turnkey.com";

/** Resolved settings; credentials may be absent until something needs them. */
export interface Settings {
  baseUrl: string;
  organizationId?: string;
  apiPublicKey?: string;
  apiPrivateKey?: string;
  authProxyUrl: string;
  authProxyConfigId?: string;
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
  };
}

/**
 * Returns `settings[name]`, or throws naming the config key and the environment variable.
 * @throws {MissingSettingError} when the setting is unset.
 */
export function requireSetting(settings: Settings, name: SettingName, purpose: string): string {
  const value = settings[name];
  if (value === undefined) throw new MissingSettingError(name, purpose);
  return value;
}
