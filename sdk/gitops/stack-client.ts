/**
 * @module gitops/stack-client
 * A client of the organization a stack deploys to, with the settings its providers see: the
 * stack's `keyform:*` config first, then the KEYFORM_* environment. Paced like the providers, so
 * on a limited plan the GitOps commands' own reads cost no 429.
 */
import type { Stack } from "@pulumi/pulumi/automation";
import { KeyformClient } from "../client/client";
import { sharedServicePace } from "../client/service-pace";
import { ApiKeyStamper } from "../protocol/api-key-stamper";
import { requireSetting, resolveSettings, type Settings } from "../resources/runtime/settings";

/** The settings the stack's providers see: its `keyform:*` config, then `env`. */
export async function stackSettings(stack: Stack, env: NodeJS.ProcessEnv = process.env): Promise<Settings> {
  const config = await stack.getAllConfig();
  return resolveSettings((name) => config[name]?.value, env);
}

/** A client of `settings`' organization; `purpose` names what needs it when a setting is missing. */
export function settingsClient(settings: Settings, purpose: string): KeyformClient {
  return new KeyformClient({
    baseUrl: settings.baseUrl,
    organizationId: requireSetting(settings, "organizationId", purpose),
    stamper: new ApiKeyStamper({ apiPublicKey: requireSetting(settings, "apiPublicKey", purpose), apiPrivateKey: requireSetting(settings, "apiPrivateKey", purpose) }),
    rateLimiter: sharedServicePace(settings.baseUrl, settings.maxRequestsPerSecond),
  });
}

/** A client of `stack`'s organization. */
export async function stackClient(stack: Stack, purpose: string, env: NodeJS.ProcessEnv = process.env): Promise<KeyformClient> {
  return settingsClient(await stackSettings(stack, env), purpose);
}
