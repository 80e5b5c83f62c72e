/**
 * @module client/auth-proxy-client
 * `AuthProxyClient`: the authentication proxy operations (`POST {auth_url}/v1/<name>`, spec
 * 4.2). Requests carry `X-Auth-Proxy-Config-Id` and no stamp; they go through the same
 * pipeline (timeouts, retries, typed errors, response validation) as the main client, except
 * that they are retried only when the proxy certainly did not act (429, 503, refused
 * connection): the proxy does not deduplicate requests.
 *
 * @example
 * const proxy = new AuthProxyClient({ authProxyUrl, authProxyConfigId });
 * const { organizationId, userId } = await proxy.signupV2({ apiKeys: [], authenticators: [], oauthProviders: [] });
 */
import type { OperationDef } from "../wire/define";
import { AUTH_PROXY_CONFIG_HEADER } from "../wire/operations/auth";
import { operations, type AuthProxyName, type ParamsOf, type ResultOf } from "../wire/registry";
import { validateArguments } from "./client";
import type { RetryOptions } from "./retry";
import { Transport, type ClientLogger } from "./transport";

// The flow helpers (credential bundles, sessions, client signatures, App Proofs) travel with
// the proxy client.
export * from "./auth-helpers";

/** Constructor options of {@link AuthProxyClient}. */
export interface AuthProxyClientOptions {
  /** Proxy URL, e.g. `http://127.0.0.1:1234`; a trailing slash is tolerated. */
  authProxyUrl: string;
  /** Sent as `X-Auth-Proxy-Config-Id` on every request. */
  authProxyConfigId: string;
  fetch?: typeof fetch;
  /** Per-attempt timeout in ms (default 30_000). */
  timeoutMs?: number;
  retry?: RetryOptions;
  logger?: ClientLogger;
}

/** One method per auth proxy operation of the registry. */
export type AuthProxyMethods = { [K in AuthProxyName]: (body: ParamsOf<K>) => Promise<ResultOf<K>> };

export interface AuthProxyClient extends AuthProxyMethods {}

/** Typed client of the authentication proxy. */
export class AuthProxyClient {
  /** The configuration id sent with every request. */
  readonly authProxyConfigId: string;
  readonly #transport: Transport;

  /**
   * @throws {TypeError} when `authProxyUrl` or `authProxyConfigId` is missing or malformed.
   * @throws {RangeError} when a timeout or retry setting is out of range.
   */
  constructor(options: AuthProxyClientOptions) {
    if (typeof options.authProxyConfigId !== "string" || options.authProxyConfigId === "") {
      throw new TypeError("authProxyConfigId must be a non-empty string");
    }
    this.authProxyConfigId = options.authProxyConfigId;
    this.#transport = new Transport({
      baseUrl: options.authProxyUrl,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
      retry: options.retry,
      logger: options.logger,
      headers: { [AUTH_PROXY_CONFIG_HEADER]: options.authProxyConfigId },
    });
  }

  /** The proxy URL requests go to (without a trailing slash). */
  get authProxyUrl(): string {
    return this.#transport.baseUrl;
  }

  /**
   * Calls an auth proxy operation by name.
   *
   * @throws {RequestValidationError} when `body` does not match the schema (nothing is sent).
   * @throws {ApiError} and the other transport errors.
   */
  async call<K extends AuthProxyName>(name: K, body: ParamsOf<K>): Promise<ResultOf<K>> {
    const def = (operations as Record<string, OperationDef | undefined>)[name];
    if (!def || def.kind !== "authProxy") throw new TypeError(`${String(name)} is not a known auth proxy operation`);
    const checked = validateArguments(def.request, body, "", name);
    // Proxy calls are not deduplicated by the service (a repeated sign-up could create a
    // second organization), so only failures where it certainly did not act are retried.
    const { data } = await this.#transport.send({
      operation: name,
      path: def.path,
      body: checked,
      schema: def.response,
      idempotent: false,
    });
    return data as ResultOf<K>;
  }
}

for (const [name, def] of Object.entries(operations as Record<string, OperationDef>)) {
  if (def.kind !== "authProxy" || name in AuthProxyClient.prototype || name === "authProxyConfigId") continue;
  const method = function (this: AuthProxyClient, body: unknown) {
    return (this.call as (n: string, b: unknown) => Promise<unknown>)(name, body);
  };
  Object.defineProperty(method, "name", { value: name });
  Object.defineProperty(AuthProxyClient.prototype, name, { value: method, writable: true, configurable: true, enumerable: false });
}

