/**
 * @module resources/runtime/client
 * Builds the API client a provider call uses, from the resolved settings. One client per
 * organization id is kept for the life of the configuration (`context.ts`).
 */
import { ApiKeyStamper, DEFAULT_TIMEOUT_MS as DEFAULT_ATTEMPT_TIMEOUT_MS, KeyformClient, sharedServicePace } from "../../client";
import { perRun } from "./run-state";
import type { ProviderContext } from "./context";
import type { Session as SessionOf } from "./run-types";
import { requireSetting, type Settings } from "./settings";
import { observeWrites } from "./shared-reads";

/** A session of the handlers: its configuration is a `ProviderContext`, whose settings they read. */
export type Session = SessionOf<ProviderContext>;

/** One client per base URL, organization, API key and timeouts, for each configuration. */
const clientsOfRun = perRun(() => new Map<string, KeyformClient>());

/** Retries of a provider request (network errors, 429, 502/503/504) after the first attempt. */
export const PROVIDER_RETRIES = 5;

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
export function sessionFor(context: ProviderContext, settings: Settings, organizationId: string, purpose: string): Session {
  const apiPublicKey = requireSetting(settings, "apiPublicKey", purpose);
  const apiPrivateKey = requireSetting(settings, "apiPrivateKey", purpose);
  // The key of the cache is not secret: the public key identifies the credential.
  const key = `${settings.baseUrl}|${organizationId}|${apiPublicKey}|${settings.timeoutMs}|${settings.firstByteTimeoutMs}|${settings.maxRequestsPerSecond}`;
  const clients = clientsOfRun.of(context);
  let client = clients.get(key);
  const pace = sharedServicePace(settings.baseUrl, settings.maxRequestsPerSecond);
  if (!client) {
    client = new KeyformClient({
      baseUrl: settings.baseUrl,
      organizationId,
      stamper: new ApiKeyStamper({ apiPublicKey, apiPrivateKey }),
      // The whole request, retries and the recovery of a lost answer included, fits in it.
      budgetMs: settings.timeoutMs,
      // A failed request fails the resource, and the whole `up` must run again: worth a few
      // more attempts than the client's default, all within the budget above.
      retry: { maxRetries: PROVIDER_RETRIES },
      // Reads get the extra chances of writes: a delete that reads first (a User's reads the
      // root quorum) must not be what fails a destroy through a flaky network.
      recoverQueries: true,
      timeoutMs: Math.min(settings.timeoutMs, DEFAULT_ATTEMPT_TIMEOUT_MS),
      // A silent server fails within this, once; activity polling and consensus waits have
      // their own, longer budgets (each poll still has to start answering within it).
      firstByteTimeoutMs: settings.firstByteTimeoutMs,
      // Writes through this client make the shared collection reads stale (shared-reads.ts).
      onRequest: (path) => observeWrites(context, path),
      // The service counts requests per client address (and per sub-organization): every client
      // of this process shares one pace of the service, learned from its answers' headers and
      // kept under the cap setting, whatever the organization or key.
      rateLimiter: pace,
    });
    clients.set(key, client);
  }
  return { organizationId, client, credentialPublicKey: apiPublicKey, pace, context };
}
