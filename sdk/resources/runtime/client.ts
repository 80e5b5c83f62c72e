/**
 * @module resources/runtime/client
 * Builds the API client a provider call uses, from the resolved settings. One client per
 * organization id is kept for the life of the provider process.
 */
import { ApiKeyStamper, KeyformClient } from "../../client";
import { requireSetting, type Settings } from "./settings";

/** What a resource operation needs: the organization it acts on, and a client bound to it. */
export interface Session {
  readonly organizationId: string;
  readonly client: KeyformClient;
}

const cache = new Map<string, KeyformClient>();

/**
 * The organization a resource lives in: its own `organizationId` input, else the setting.
 * @throws {MissingSettingError} when neither is set.
 */
export function resolveOrganizationId(settings: Settings, organizationId: string | undefined, purpose: string): string {
  return organizationId ?? requireSetting(settings, "organizationId", purpose);
}

/**
 * A client for `organizationId`, stamped with the configured API key.
 * @throws {MissingSettingError} when the API key settings are missing.
 */
export function sessionFor(settings: Settings, organizationId: string, purpose: string): Session {
  const apiPublicKey = requireSetting(settings, "apiPublicKey", purpose);
  const apiPrivateKey = requireSetting(settings, "apiPrivateKey", purpose);
  // The key of the cache is not secret: the public key identifies the credential.
  const key = `${settings.baseUrl}|${organizationId}|${apiPublicKey}`;
  let client = cache.get(key);
  if (!client) {
    client = new KeyformClient({
      baseUrl: settings.baseUrl,
      organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey, apiPrivateKey }),
    });
    cache.set(key, client);
  }
  return { organizationId, client };
}
