/**
 * Shared by the engine tests of the provider plugin and of the examples: settings as stack
 * config, and the example organization's settings.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ConfigValue } from "@pulumi/pulumi/automation";
import { parseOrgSettings, PROJECT, type OrgSettings } from "../../examples/org/settings";
import { repoRoot } from "../support/engine";
import type { TestEmulator } from "../support/emulator";

/** The YAML example's Pulumi project name (examples/org-yaml/Pulumi.yaml). */
export const YAML_PROJECT = "keyform-org-yaml";

/** The provider settings of an emulator's root organization as `keyform:*` stack config. */
export function settingsConfig(emu: TestEmulator): Record<string, string | ConfigValue> {
  const b = emu.emulator.bootstrap;
  return {
    "keyform:baseUrl": emu.emulator.url,
    "keyform:organizationId": b.organizationId,
    "keyform:apiPublicKey": b.apiPublicKey,
    "keyform:apiPrivateKey": { value: b.apiPrivateKey, secret: true },
  };
}

/** The example organization's settings, as the dev stack of the TypeScript example holds them. */
export function exampleSettings(): OrgSettings {
  const { load } = require("js-yaml") as { load(text: string): unknown };
  const file = load(fs.readFileSync(path.join(repoRoot, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> };
  const get = (key: string) => {
    const value = file.config[`${PROJECT}:${key}`];
    return value === undefined ? undefined : typeof value === "string" ? value : JSON.stringify(value);
  };
  return parseOrgSettings(get, "dev");
}

/** Config values of the YAML example as stack config (`keyform-org-yaml:<key>`). */
export function yamlConfig(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${YAML_PROJECT}:${key}`, value]));
}

/** The TypeScript example's dev stack config (Pulumi.dev.yaml), as plain stack config values. */
export function exampleStackConfig(): Record<string, string> {
  const { load } = require("js-yaml") as { load(text: string): unknown };
  const file = load(fs.readFileSync(path.join(repoRoot, "Pulumi.dev.yaml"), "utf8")) as { config: Record<string, unknown> };
  return Object.fromEntries(Object.entries(file.config).map(([key, value]) => [key, typeof value === "string" ? value : JSON.stringify(value)]));
}
