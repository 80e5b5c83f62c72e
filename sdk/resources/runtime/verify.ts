/**
 * @module resources/runtime/verify
 * Proves once per run that the settings work, before anything is planned: the config holds no
 * unknown `keyform:*` key, the private key belongs to the public key, and one read of the
 * organization record (`get_organization`) at the base URL, in the organization, with the key,
 * succeeds within `keyform:timeoutMs`. Both front doors (the dynamic providers and the provider
 * plugin) run it from `check`, so a preview with a wrong key, organization or server fails
 * naming the setting instead of going green.
 *
 * Why the organization record and not `whoami`: the service refuses both the same way for a
 * wrong key, organization or server, and the record is what the plan's census and lockout checks
 * read anyway (`before` in `shared-reads.ts`): on a plan limited to 1 request/s, the settings
 * check then costs no request of its own.
 */
import type { ProviderContext } from "./context";
import { AuthenticationError, ConnectionError, FirstByteTimeoutError, NotFoundError, PermissionDeniedError, TimeoutError } from "../../client/errors";
import { publicKeyFromPrivateKey } from "../../protocol/keys";
import type { ApiKeyCurve } from "../../wire/enums";
import { resolveOrganizationId, sessionFor } from "./client";
import { ProviderError, refusedByIpAllowlist } from "./errors";
import { perRun } from "./run-state";
import { before } from "./shared-reads";
import { probeAddress, type Unreachable } from "./reachability";
import { describeOrigin, unknownKeyformVariables, unknownVariableProblem } from "./setting-sources";
import { MissingSettingError, settingLabel, unknownSettingProblem, type Settings } from "./settings";

/**
 * How long the settings check waits to learn whether the base URL's address accepts a
 * connection: a refused port or a host that does not resolve is known within milliseconds, and
 * the run then fails within seconds rather than after the client's retries (`reachability.ts`).
 */
const PROBE_WAIT_MS = 2_000;

/** The curve whose public key of `privateKey` is `publicKey`, or undefined when none is. */
export function curveOfPair(publicKey: string, privateKey: string): ApiKeyCurve | undefined {
  const curves: ApiKeyCurve[] = ["API_KEY_CURVE_P256", "API_KEY_CURVE_SECP256K1", "API_KEY_CURVE_ED25519"];
  return curves.find((curve) => {
    try {
      return publicKeyFromPrivateKey(privateKey, curve).toLowerCase() === publicKey.toLowerCase();
    } catch {
      return false;
    }
  });
}

/**
 * The first unknown `keyform:*` key among `keys`, as an error naming the setting it probably
 * meant; undefined when every key is a setting.
 */
export function unknownKeysError(keys: Iterable<string>): ProviderError | undefined {
  const problems = [...keys].map(unknownSettingProblem).filter((p): p is string => p !== undefined);
  if (problems.length === 0) return undefined;
  return new ProviderError(`keyform: the stack config is wrong: ${problems.join("; ")}`);
}

/** Outcome of each settings check of a configuration, by base URL, organization and public key. */
const verifiedOfRun = perRun(() => new Map<string, Promise<void>>());

/**
 * Proves once per configuration (per base URL, organization and public key) that the settings
 * reach the service and that it accepts the key, with the run's one read of the organization.
 * @throws {ProviderError} naming the setting to fix.
 */
export function verifySettings(context: ProviderContext, settings: Settings, organizationId: string | undefined): Promise<void> {
  // A failure is kept too: a configuration lives for one engine run, and retrying for every
  // resource would make a silent server cost `timeoutMs` per resource instead of once.
  const verified = verifiedOfRun.of(context);
  const purpose = "keyform: checking the provider settings";
  const key = `${settings.baseUrl}|${organizationId ?? settings.organizationId}|${settings.apiPublicKey}`;
  let pending = verified.get(key);
  if (pending === undefined) {
    pending = readOrganization(context, settings, organizationId, purpose);
    // Awaited by every resource of the run; an unhandled rejection must not end the process first.
    pending.catch(() => undefined);
    verified.set(key, pending);
  }
  return pending;
}

async function readOrganization(context: ProviderContext, settings: Settings, organizationId: string | undefined, purpose: string): Promise<void> {
  let session;
  try {
    session = sessionFor(context, settings, resolveOrganizationId(settings, organizationId, purpose), purpose);
  } catch (error) {
    if (error instanceof MissingSettingError) throw new ProviderError(error.message + environmentNote());
    // The stamper refuses a malformed private key, or one that is not the public key's.
    const pair = settings.apiPublicKey && settings.apiPrivateKey ? curveOfPair(settings.apiPublicKey, settings.apiPrivateKey) : undefined;
    throw new ProviderError(
      pair === undefined
        ? `keyform: ${settingLabel("apiPrivateKey")} is not the private key of ${settingLabel("apiPublicKey")} ${settings.apiPublicKey}; set the private key that belongs to it`
        : `keyform: the API key settings are not usable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const unreachable = await probeAddress(settings.baseUrl, Math.min(PROBE_WAIT_MS, settings.firstByteTimeoutMs));
  if (unreachable !== undefined) throw unreachableError(context, settings, unreachable);
  try {
    await before.organization(session);
  } catch (error) {
    const failed = settingsError(error, settings, session.organizationId, describeOrigin(context.settingOrigin("baseUrl")));
    throw new ProviderError(failed.message + environmentNote());
  }
}

/**
 * The `KEYFORM_*` names of the environment that are no setting, as a sentence to add to a
 * settings error: a mistyped `KEYFORM_BASE_ULR` leaves the default in effect, and the error is
 * where that shows. Worded as `keyform doctor` words it.
 */
function environmentNote(): string {
  const unknown = unknownKeyformVariables(process.env);
  return unknown.length === 0 ? "" : `. Also: ${unknown.map(unknownVariableProblem).join("; ")}`;
}

/** The error of a base URL whose address refuses connections or does not resolve, naming where the value came from. */
function unreachableError(context: ProviderContext, settings: Settings, unreachable: Unreachable): ProviderError {
  return new ProviderError(
    `keyform: the provider settings do not work: keyform:baseUrl ${settings.baseUrl} cannot be reached: it ${unreachable.reason} (${unreachable.code}); ` +
      `the value is ${describeOrigin(context.settingOrigin("baseUrl"))}; check ${settingLabel("baseUrl")}${environmentNote()}`,
  );
}

/** The error of a failed settings check, naming the setting that is most likely wrong. */
function settingsError(error: unknown, settings: Settings, organizationId: string, baseUrlOrigin: string): ProviderError {
  const detail = (error instanceof Error ? error.message : String(error)).split("\n")[0];
  const prefix = "keyform: the provider settings do not work:";
  if (error instanceof ConnectionError) {
    return new ProviderError(`${prefix} keyform:baseUrl ${settings.baseUrl} cannot be reached (${detail}); the value is ${baseUrlOrigin}; check ${settingLabel("baseUrl")}`);
  }
  if (error instanceof FirstByteTimeoutError) {
    return new ProviderError(
      `${prefix} ${detail} (${settingLabel("firstByteTimeoutMs")} is ${error.timeoutMs} ms); check ${settingLabel("baseUrl")} ${settings.baseUrl} ` +
        `(is it the service?), or allow more time with ${settingLabel("firstByteTimeoutMs")}`,
    );
  }
  if (error instanceof TimeoutError) {
    return new ProviderError(
      `${prefix} ${settings.baseUrl} did not answer within ${settings.timeoutMs} ms (${detail}); check ${settingLabel("baseUrl")}, or allow more time with ${settingLabel("timeoutMs")}`,
    );
  }
  if (error instanceof NotFoundError) {
    return new ProviderError(`${prefix} organization ${organizationId} does not exist at ${settings.baseUrl} (${detail}); check ${settingLabel("organizationId")}`);
  }
  if (error instanceof PermissionDeniedError && refusedByIpAllowlist(error)) {
    return new ProviderError(
      `keyform: an IP allowlist shuts the API key ${settings.apiPublicKey} out of organization ${organizationId} from the address this runs at (${detail}): ` +
        `nothing of the organization can be read, changed or destroyed with this key from here. With a key the list lets in, change the list (set_ip_allowlist) ` +
        `or remove it (remove_ip_allowlist), or run from an address the list allows`,
    );
  }
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) {
    return new ProviderError(
      `${prefix} the service at ${settings.baseUrl} refused the API key ${settings.apiPublicKey} in organization ${organizationId} (${detail}); ` +
        `check ${settingLabel("apiPublicKey")}, ${settingLabel("apiPrivateKey")} and ${settingLabel("organizationId")}`,
    );
  }
  return new ProviderError(`${prefix} ${detail}; check ${settingLabel("baseUrl")}`);
}
