/**
 * @module emulator/emulator
 * `startEmulator`: opens the data directory, bootstraps it on first start, and serves the
 * main API and the auth proxy on one port.
 */
import type { AddressInfo } from "node:net";
import type { EmulatorStartOptions, RunningEmulator } from "keyform/emulator-contract";
import { ensureBootstrap, seedRootOrganization, writeBootstrapFile, type Bootstrap } from "./bootstrap";
import { Dispatcher } from "./dispatch";
import { loadFixtures } from "./fixtures";
import { applyIpAllowlistConfig, type IpAllowlistConfig } from "./handlers/ip-allowlists";
import type { EmulatorModule } from "./handlers/types";
import { defaultModules } from "./modules";
import { planRate, ServiceRateLimit } from "./rate-limit";
import { buildServer, type LogLevel } from "./server";
import { resetData } from "./reset";
import { openDatabase, Store } from "./store";
import { WebhookDeliverer, type WebhookDeliveryOptions } from "./webhooks/deliverer";

/** Options of {@link startEmulator}: the public ones, and extension points for in-process use. */
export interface EmulatorOptions extends EmulatorStartOptions {
  /** Areas served besides the core ones (wallets, auth flows, webhooks …). */
  modules?: readonly EmulatorModule[];
  /** Retry and timeout settings of webhook deliveries. */
  webhooks?: WebhookDeliveryOptions;
  /** Receives the rate limit in force (to count its refusals, e.g. in a benchmark). */
  onRateLimit?: (limit: ServiceRateLimit) => void;
}

export type { RunningEmulator } from "keyform/emulator-contract";

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Starts an emulator.
 * @throws Error if the data directory cannot be opened or the port is taken
 */
export async function startEmulator(options: EmulatorOptions): Promise<RunningEmulator> {
  const host = options.host ?? "127.0.0.1";
  const modules = defaultModules(options.modules);
  const db = openDatabase(
    options.dataDir,
    modules.filter((m) => m.migrations && m.migrations.length > 0).map((m) => ({ module: m.name, steps: m.migrations ?? [] })),
  );
  try {
    const store = new Store(db);
    const { stored, signer } = ensureBootstrap(store);
    let dispatcher: Dispatcher | undefined;
    const perSecond = options.maxRequestsPerSecond ?? (options.plan !== undefined ? planRate(options.plan) : undefined);
    const rateLimit = perSecond ? new ServiceRateLimit(perSecond, stored.organizationId) : undefined;
    if (rateLimit) options.onRateLimit?.(rateLimit);
    // What a start applies over the stored data; a reset applies it again.
    const applyStartOptions = () => {
      if (options.ipAllowlists) applyIpAllowlistConfig(db, stored.organizationId, options.ipAllowlists);
      if (options.fixturesFile) loadFixtures(db, signer, stored.organizationId, options.fixturesFile);
    };
    let deliverer: WebhookDeliverer | undefined;
    const app = buildServer(() => dispatcher as Dispatcher, options.logLevel ?? "info", rateLimit, {
      resetData: () => {
        deliverer?.cancelPending();
        return resetData(db, () => {
          seedRootOrganization(store, stored, Date.now());
          applyStartOptions();
        });
      },
    });
    dispatcher = new Dispatcher(db, store, signer, app.log, modules);
    applyStartOptions();
    deliverer = new WebhookDeliverer(db, signer, app.log, options.webhooks);
    const delivering = deliverer;
    dispatcher.activityListeners.push((activity) => delivering.activityCommitted(activity));
    await app.listen({ port: options.port ?? 0, host });
    const port = (app.server.address() as AddressInfo).port;
    const url = `http://${urlHost(host)}:${port}`;
    const bootstrap: Bootstrap = { ...stored, baseUrl: url, authProxyUrl: url, signerPublicKey: signer.publicKey };
    writeBootstrapFile(options.dataDir, bootstrap);

    let closing: Promise<void> | undefined;
    return {
      url,
      authProxyUrl: url,
      port,
      bootstrap,
      ...(rateLimit !== undefined ? { rateLimit } : {}),
      close: () => {
        closing ??= app
          .close()
          .then(() => delivering.close())
          .then(() => {
            db.close();
          });
        return closing;
      },
    };
  } catch (error) {
    if (db.open) db.close();
    throw error;
  }
}
