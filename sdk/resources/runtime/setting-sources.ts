/**
 * @module resources/runtime/setting-sources
 * Where each setting in effect comes from (stack config, environment, default), and the
 * `KEYFORM_*` environment names that are no setting: a mistyped `KEYFORM_BASEURL` would
 * otherwise leave the default in effect without a word. Reads the settings table, in the order
 * `resolveSettings` uses (config, then environment, then default).
 */
import { distance, hasDefault, SETTING_ENV, SETTING_NAMES, type ConfigLookup, type SettingName } from "./settings";

/** Where a setting's value came from. */
export type SettingOrigin =
  | { readonly from: "stack config"; readonly key: string; readonly shadows?: string }
  | { readonly from: "environment"; readonly variable: string }
  | { readonly from: "default" }
  | { readonly from: "not set" };

/**
 * `KEYFORM_*` variables that are not settings but are read by keyform's scripts and the runtime;
 * they are not reported as unknown.
 */
export const OTHER_KEYFORM_VARIABLES: readonly string[] = ["KEYFORM_DEBUG", "KEYFORM_EMULATOR_PORT", "KEYFORM_SKIP_NODE24", "KEYFORM_FORCE_NPM_INSTALL"];

const present = (value: string | undefined): value is string => value !== undefined && value !== "";

/** The origin of every setting, in the order {@link SETTING_NAMES} lists them. */
export function settingOrigins(config: ConfigLookup | undefined, env: NodeJS.ProcessEnv): Record<SettingName, SettingOrigin> {
  const origins = {} as Record<SettingName, SettingOrigin>;
  for (const name of SETTING_NAMES) {
    const variable = SETTING_ENV[name];
    const key = [`keyform:${name}`, `keyform:config:${name}`].find((k) => present(config?.(k)));
    if (key !== undefined) origins[name] = { from: "stack config", key, ...(present(env[variable]) ? { shadows: variable } : {}) };
    else if (present(env[variable])) origins[name] = { from: "environment", variable };
    else origins[name] = hasDefault(name) ? { from: "default" } : { from: "not set" };
  }
  return origins;
}

/** How a finding says where a value came from. */
export function describeOrigin(origin: SettingOrigin): string {
  switch (origin.from) {
    case "stack config":
      return `from stack config ${origin.key}${origin.shadows !== undefined ? ` (which wins over ${origin.shadows} in the environment)` : ""}`;
    case "environment":
      return `from the environment, ${origin.variable}`;
    case "default":
      return "the default";
    case "not set":
      return "not set";
  }
}

const fold = (variable: string) => variable.replace(/^KEYFORM_/, "").toLowerCase().replace(/[^a-z]/g, "");

/**
 * The setting variable a mistyped `KEYFORM_*` name most likely meant: the same letters without
 * the underscores (`KEYFORM_BASEURL`), else one at most three edits away
 * (`KEYFORM_ORGANISATION_ID`).
 */
export function suggestVariable(variable: string): string | undefined {
  const folded = fold(variable);
  const known = Object.values(SETTING_ENV);
  const exact = known.find((name) => fold(name) === folded);
  if (exact !== undefined) return exact;
  const near = known.map((name) => ({ name, d: distance(fold(name), folded) })).sort((x, y) => x.d - y.d)[0];
  return near !== undefined && near.d <= 3 ? near.name : undefined;
}

/** One `KEYFORM_*` variable that is no setting, with the one it probably meant. */
export interface UnknownVariable {
  readonly variable: string;
  readonly meant: string | undefined;
}

/** The `KEYFORM_*` names in `env` that are neither a setting nor another known variable, sorted. */
export function unknownKeyformVariables(env: NodeJS.ProcessEnv): UnknownVariable[] {
  const known = new Set<string>([...Object.values(SETTING_ENV), ...OTHER_KEYFORM_VARIABLES]);
  return Object.keys(env)
    .filter((name) => name.startsWith("KEYFORM_") && !known.has(name))
    .sort()
    .map((variable) => ({ variable, meant: suggestVariable(variable) }));
}

/** What is wrong with a `KEYFORM_*` name that is no setting, as `doctor` and the provider's errors say it. */
export function unknownVariableProblem({ variable, meant }: UnknownVariable): string {
  return `${variable} is not a keyform setting${meant !== undefined ? `; did you mean ${meant}?` : ""}`;
}
