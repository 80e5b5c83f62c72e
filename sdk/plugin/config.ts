/**
 * @module plugin/config
 * The provider's settings on the plugin's front door: CheckConfig (unknown keys are refused
 * by name, values are validated) and Configure (the settings the handlers then read). The call
 * that proves the settings work is the runtime's (`resources/runtime/verify.ts`), run by `check`.
 */
import { SETTING_ENV, unknownSettingProblem, type ConfigLookup, type SettingName } from "../resources/runtime/settings";
import { isUnknown } from "../resources/runtime/values";

/** Documentation of each setting, for the schema. */
export const SETTINGS_DESCRIPTION: Readonly<Record<SettingName, { description: string; secret?: boolean }>> = {
  baseUrl: { description: `Base URL of the service API (default \`https://api.turnkey.com\`; env \`${SETTING_ENV.baseUrl}\`).` },
  organizationId: { description: `The organization resources live in unless they say otherwise (env \`${SETTING_ENV.organizationId}\`).` },
  apiPublicKey: { description: `Public key (hex) of the API key that signs requests (env \`${SETTING_ENV.apiPublicKey}\`).` },
  apiPrivateKey: { description: `Private key (hex) of the API key that signs requests (env \`${SETTING_ENV.apiPrivateKey}\`).`, secret: true },
  authProxyUrl: { description: `Base URL of the authentication proxy (default \`https://authproxy.turnkey.com\`; env \`${SETTING_ENV.authProxyUrl}\`).` },
  authProxyConfigId: { description: `Authentication proxy configuration id (env \`${SETTING_ENV.authProxyConfigId}\`).` },
  timeoutMs: {
    description: `Budget of one request in milliseconds, retries and the recovery of a lost answer included (default 60000; env \`${SETTING_ENV.timeoutMs}\`).`,
  },
  firstByteTimeoutMs: {
    description: `Time in milliseconds a request may take to connect and receive the first byte of the answer; a silent server fails within it, without retries (default 15000; env \`${SETTING_ENV.firstByteTimeoutMs}\`).`,
  },
  maxRequestsPerSecond: {
    description: `Cap on the requests per second of the provider, all its resources together, below the rate the service advertises in its ratelimit-limit headers, which the provider always keeps to (default 0: no cap beyond the service's; env \`${SETTING_ENV.maxRequestsPerSecond}\`).`,
  },
  allowLockout: {
    description: `\`true\` for a deliberate hand-over: let the plan lock the deploying credentials out of the organization (an IP allowlist without the caller's address, deleting the key or user keyform runs as, a root quorum without its user). Default \`false\`: such a plan fails at preview (env \`${SETTING_ENV.allowLockout}\`).`,
  },
  journalDir: {
    description: `Folder of the create journal that proves which objects this stack created (one folder per stack inside; default \`.keyform/journal\` in the project directory; env \`${SETTING_ENV.journalDir}\`). Keep it with the stack's state.`,
  },
};

/** Keys the engine itself adds to a provider's inputs; they are not settings but are allowed. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** One refused config value, as CheckConfig reports it. */
export interface ConfigFailure {
  property: string;
  reason: string;
}

const HEX = /^[0-9a-fA-F]+$/;

/** Why the value of a setting is wrong, or undefined when it is fine. */
function problemWith(name: SettingName, value: unknown): string | undefined {
  if (typeof value !== "string") return `keyform:${name} must be a string`;
  if (value.trim() === "") return `keyform:${name} is empty`;
  switch (name) {
    case "baseUrl":
    case "authProxyUrl": {
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        return `keyform:${name} is not a URL: ${JSON.stringify(value)}`;
      }
      return url.protocol === "http:" || url.protocol === "https:" ? undefined : `keyform:${name} must be an http(s) URL, not ${JSON.stringify(value)}`;
    }
    case "apiPublicKey":
      return HEX.test(value) && (value.length === 66 || value.length === 64)
        ? undefined
        : "keyform:apiPublicKey must be a compressed public key in hex (66 digits; 64 for ed25519)";
    case "timeoutMs":
    case "firstByteTimeoutMs":
      return /^\d+$/.test(value.trim()) && Number(value) > 0 ? undefined : `keyform:${name} must be a positive whole number of milliseconds, not ${JSON.stringify(value)}`;
    case "maxRequestsPerSecond":
      return /^\d+(\.\d+)?$/.test(value.trim()) ? undefined : `keyform:maxRequestsPerSecond must be a number of requests per second (0 for no cap), not ${JSON.stringify(value)}`;
    case "allowLockout":
      return value === "true" || value === "false" ? undefined : `keyform:allowLockout must be true or false, not ${JSON.stringify(value)}`;
    case "apiPrivateKey":
      // Never echo the value: it is a secret.
      return HEX.test(value) && value.length === 64 ? undefined : "keyform:apiPrivateKey must be a private key of 64 hex digits";
    default:
      return undefined;
  }
}

/**
 * Checks the provider's config (`news`: the settings without the `keyform:` prefix, secrets
 * unwrapped). Unknown keys fail naming the key and the setting it probably meant.
 */
export function checkConfig(news: Record<string, unknown>): ConfigFailure[] {
  const failures: ConfigFailure[] = [];
  for (const [key, value] of Object.entries(news)) {
    if (ENGINE_KEYS.has(key)) continue;
    const unknown = unknownSettingProblem(`keyform:${key}`);
    if (unknown !== undefined) {
      failures.push({ property: key, reason: unknown });
      continue;
    }
    if (isUnknown(value)) continue;
    const problem = problemWith(key as SettingName, value);
    if (problem) failures.push({ property: key, reason: problem });
  }
  return failures;
}

/**
 * The settings lookup of a Configure request: the provider's inputs (`args`, keys without
 * prefix) first, then the config variables (`keyform:config:<name>` or `keyform:<name>`).
 */
export function configLookupOf(args: Record<string, unknown>, variables: ReadonlyMap<string, string>): ConfigLookup {
  return (key) => {
    const name = key.replace(/^keyform:(config:)?/, "");
    const fromArgs = args[name];
    if (typeof fromArgs === "string" && !isUnknown(fromArgs)) return fromArgs;
    return variables.get(`keyform:config:${name}`) ?? variables.get(`keyform:${name}`);
  };
}
