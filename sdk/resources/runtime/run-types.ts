/**
 * @module resources/runtime/run-types
 * The types the modules of the provider runtime share: what a run is to them ({@link RunContext})
 * and what each resource operation works with ({@link Session}). Imports nothing from
 * `runtime/`, so every module can use them without joining another module's imports: the
 * modules of `runtime/` form no import circle (test/unit/layers.test.ts).
 */
import type { KeyformClient, ServicePace } from "../../client";

/** What `check` knows in an engine run: the stack config keys to vet before anything is planned. */
export interface EngineRun {
  readonly configKeys: readonly string[];
}

/**
 * One configuration of the provider runtime (one engine run, the exporter, a direct caller), as
 * the features see it: the key of their own per-run state (`run-state.ts`). The class that
 * implements it, with the settings, is `ProviderContext` (`context.ts`).
 */
export interface RunContext {
  /** Set in an engine run: `check` then proves the settings once (`verify.ts`). */
  readonly engineRun: EngineRun | undefined;
}

/**
 * What a resource operation needs: the organization it acts on, and a client bound to it.
 * `Context` is what the holder needs of its configuration: most features only key their state
 * by it; the handlers' sessions (`client.ts`) carry the `ProviderContext`, with its settings.
 */
export interface Session<Context extends RunContext = RunContext> {
  readonly organizationId: string;
  readonly client: KeyformClient;
  /** The public key of the API key the client stamps with: who submits this run's activities. */
  readonly credentialPublicKey: string;
  /** The pace every request of the process to this service keeps to (batches wait for its slots). */
  readonly pace?: ServicePace;
  /** The configuration this call belongs to: the key of what the run remembers (`run-state.ts`). */
  readonly context: Context;
}
