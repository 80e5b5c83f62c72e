/**
 * @module resources/runtime/stages/session
 * The session a stage works in: the resource's organization (its input, else the setting) and a
 * client of the configuration for it.
 */
import { resolveOrganizationId, sessionFor, type Session } from "../client";
import type { ProviderContext } from "../context";
import { explain } from "../errors";
import type { Settings } from "../settings";

/**
 * The session of `context` for `organizationId` (else the setting).
 * @throws {ProviderError} naming the missing setting, prefixed by `what`.
 */
export function openSession(context: ProviderContext, settings: Settings, organizationId: string | undefined, what: string): Session {
  try {
    return sessionFor(context, settings, resolveOrganizationId(settings, organizationId, what), what);
  } catch (error) {
    throw explain(error, what);
  }
}
