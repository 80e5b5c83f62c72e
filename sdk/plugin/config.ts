/**
 * @module plugin/config
 * The provider's settings on the plugin's front door: CheckConfig (unknown keys are refused
 * by name, values are validated) and Configure (the settings the handlers then read). The call
 * that proves the settings work is the runtime's (`resources/runtime/verify.ts`), run by `check`.
 */
import { SETTING_NAMES, settingSpec, settingValueProblem, unknownSettingProblem, type ConfigLookup, type SettingName } from "../resources/runtime/settings";
import { isUnknown } from "../resources/runtime/values";

/**
 * A setting's description as the schema and the docs show it: the table's description, its
 * default and its environment variable.
 */
export function settingDocumentation(name: SettingName): string {
  const spec = settingSpec(name);
  const fallback = spec.default === undefined ? "" : ` Default \`${String(spec.default)}\`.`;
  return `${spec.description}${fallback} Environment variable \`${spec.env}\`.`;
}

/** Documentation of each setting, for the schema, from the settings table. */
export const SETTINGS_DESCRIPTION: Readonly<Record<SettingName, { description: string; secret?: boolean }>> = Object.fromEntries(
  SETTING_NAMES.map((name) => [name, { description: settingDocumentation(name), ...(settingSpec(name).secret ? { secret: true } : {}) }]),
) as Record<SettingName, { description: string; secret?: boolean }>;

/** Keys the engine itself adds to a provider's inputs; they are not settings but are allowed. */
const ENGINE_KEYS = new Set(["version", "pluginDownloadURL"]);

/** One refused config value, as CheckConfig reports it. */
export interface ConfigFailure {
  property: string;
  reason: string;
}

/** Why the value of a setting is wrong, or undefined when it is fine: the settings table's parser decides. */
function problemWith(name: SettingName, value: unknown): string | undefined {
  if (typeof value !== "string") return `keyform:${name} must be a string`;
  if (value.trim() === "") return `keyform:${name} is empty`;
  return settingValueProblem(name, value);
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
