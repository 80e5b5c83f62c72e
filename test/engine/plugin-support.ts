/**
 * Shared by the provider plugin's engine tests: settings as stack config, and the example
 * organization's users and Earn wrapper on an emulator (what examples/org-yaml expects to find).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { ConfigValue } from "@pulumi/pulumi/automation";
import type { KeyformClient } from "../../sdk/client/client";
import { seedOrganization } from "../../examples/org/seed";
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

/**
 * Creates the example organization's users and Earn wrapper (as the TypeScript example's main
 * job does) and returns the YAML example's config values (unprefixed): the users' ids and the
 * wrapper address.
 */
export async function seedExampleOrganization(client: KeyformClient): Promise<Record<string, string>> {
  const settings = exampleSettings();
  await seedOrganization(client, settings);
  const { users } = await client.listUsers({});
  const idOf = (name: string) => {
    const user = users.find((u) => u.userName === name);
    if (!user) throw new Error(`seeded user ${name} not found`);
    return user.userId;
  };
  const { enabledVaults = [] } = await client.listEarnEnabledVaults({});
  const wrapper = enabledVaults.find((v) => v.vaultAddress?.toLowerCase() === settings.earn.vaultAddress.toLowerCase())?.wrapperAddress;
  if (!wrapper) throw new Error("seeded Earn wrapper not found");
  return {
    aliceUserId: idOf("alice"),
    bobUserId: idOf("bob"),
    carolUserId: idOf("carol"),
    daveUserId: idOf("dave"),
    ciDeployerUserId: idOf(settings.ciBots.deployer),
    ciAuditorUserId: idOf(settings.ciBots.auditor),
    earnWrapperAddress: wrapper,
  };
}

/** Config values of the YAML example as stack config (`keyform-org-yaml:<key>`). */
export function yamlConfig(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [`${YAML_PROJECT}:${key}`, value]));
}
