/**
 * The settings are described once, in the settings table (`SETTINGS` in
 * `sdk/resources/runtime/settings.ts`), and every consumer reads it: the runtime's resolution,
 * the plugin's schema (config and provider inputs) and CheckConfig, `doctor`'s sources and
 * did-you-mean, `keyform env` and the generated docs. Each consumer is asked here for what it
 * knows, and each answer must be the table.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { checkConfig } from "../../sdk/plugin/config";
import { packageSchema } from "../../sdk/plugin/schema";
import { settingLines } from "../../sdk/cli/env";
import { settingOrigins, suggestVariable } from "../../sdk/resources/runtime/setting-sources";
import { resolveSettings, SETTING_NAMES, SETTINGS, settingSpec, type SettingName } from "../../sdk/resources/runtime/settings";
import { repoRoot } from "../support/engine";

const names = [...SETTING_NAMES].sort();

/** A value each setting's parser takes, and one it refuses. */
const SAMPLES: Record<SettingName, { good: string; bad: string }> = {
  baseUrl: { good: "http://127.0.0.1:8090", bad: "127.0.0.1:8090" },
  organizationId: { good: "org", bad: "" },
  apiPublicKey: { good: `02${"ab".repeat(32)}`, bad: "02zz" },
  apiPrivateKey: { good: "cd".repeat(32), bad: "cd" },
  authProxyUrl: { good: "https://proxy.example", bad: "ftp://proxy.example" },
  authProxyConfigId: { good: "cfg", bad: "" },
  timeoutMs: { good: "1500", bad: "1.5" },
  firstByteTimeoutMs: { good: "400", bad: "0" },
  maxRequestsPerSecond: { good: "2.5", bad: "-1" },
  allowLockout: { good: "true", bad: "yes" },
  journalDir: { good: "state/journal", bad: "" },
};

describe("the settings table", () => {
  it("the schema's config and provider inputs are the table, secrets marked as the table says", () => {
    const schema = packageSchema("0.0.0") as { config: { variables: Record<string, { secret?: boolean; description: string }> }; provider: { inputProperties: Record<string, unknown> } };
    expect(Object.keys(schema.config.variables).sort()).toEqual(names);
    expect(Object.keys(schema.provider.inputProperties).sort()).toEqual(names);
    for (const name of SETTING_NAMES) {
      expect(schema.config.variables[name]!.secret === true, name).toBe(settingSpec(name).secret === true);
      expect(schema.config.variables[name]!.description, name).toContain(settingSpec(name).env);
    }
  });

  it("the runtime resolves every setting of the table, from its variable, defaults from the table", () => {
    const defaults = resolveSettings(undefined, {}) as unknown as Record<string, unknown>;
    expect(Object.keys(defaults).sort()).toEqual(names);
    for (const name of SETTING_NAMES) expect(defaults[name], name).toEqual(settingSpec(name).default);
    const env = Object.fromEntries(SETTING_NAMES.map((name) => [SETTINGS[name].env, SAMPLES[name].good]));
    const fromEnv = resolveSettings(undefined, env) as unknown as Record<string, unknown>;
    for (const name of SETTING_NAMES) expect(fromEnv[name], name).toEqual(settingSpec(name).parse(SAMPLES[name].good));
  });

  it("CheckConfig and the runtime take and refuse the same values: one parser per setting", () => {
    for (const name of SETTING_NAMES) {
      const { good, bad } = SAMPLES[name];
      expect(checkConfig({ [name]: good }), name).toEqual([]);
      if (bad === "") continue; // empty is unset for the runtime, and refused by CheckConfig as empty
      const refused = checkConfig({ [name]: bad });
      expect(refused.map((f) => f.property), name).toEqual([name]);
      expect(() => resolveSettings(undefined, { [SETTINGS[name].env]: bad }), name).toThrow(RangeError);
    }
  });

  it("doctor reports a source for every setting of the table and suggests only its variables", () => {
    const origins = settingOrigins(undefined, {});
    expect(Object.keys(origins).sort()).toEqual(names);
    for (const name of SETTING_NAMES) expect(origins[name].from, name).toBe(settingSpec(name).default === undefined ? "not set" : "default");
    for (const name of SETTING_NAMES) expect(suggestVariable(`KEYFORM_${SETTINGS[name].env.slice("KEYFORM_".length).replace(/_/g, "")}`), name).toBe(SETTINGS[name].env);
  });

  it("keyform env writes secrets with --secret exactly where the table says so", () => {
    const bootstrap = { baseUrl: "http://x", organizationId: "o", apiPublicKey: "p", apiPrivateKey: "k", authProxyUrl: "http://y", authProxyConfigId: "c" };
    for (const line of settingLines(bootstrap as never, "pulumi")) {
      const name = /keyform:(\w+)/.exec(line)![1] as SettingName;
      expect(line.includes("--secret"), name).toBe(settingSpec(name).secret === true);
    }
    for (const line of settingLines(bootstrap as never, "env")) {
      expect(Object.values(SETTINGS).map((s) => s.env)).toContain(/^export (\w+)=/.exec(line)![1]);
    }
  });

  it("the Registry docs list exactly the table's settings, and the settings page points there", () => {
    const listed = (file: string) =>
      [...fs.readFileSync(path.join(repoRoot, file), "utf8").matchAll(/^\| `keyform:(\w+)`/gm)].map((m) => m[1]!).sort();
    expect(listed("docs/installation-configuration.md")).toEqual(names);
    expect(fs.readFileSync(path.join(repoRoot, "docs/settings.md"), "utf8")).toContain("](installation-configuration.md#configuration)");
  });
});
