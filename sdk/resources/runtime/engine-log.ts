/**
 * @module resources/runtime/engine-log
 * Warnings from inside a provider call, shown by the engine like any other diagnostic
 * (`warning: ...` in `pulumi up` and `destroy` output), on both front doors.
 *
 * Why this exists: a provider runs in its own process, where `pulumi.log.warn` has no engine
 * connection and stderr is not shown by the CLI. Both kinds of provider process are started with
 * the engine's address: the dynamic-provider host as its first argument (read here), the plugin
 * `pulumi-resource-keyform` as its first argument too (its `main` hands it over with
 * {@link useEngineAddress}). The warning is sent to the engine's `Log` RPC directly, with the gRPC
 * modules of the installed `@pulumi/pulumi`, attached to the resource whose call it belongs to
 * when that is known ({@link aboutResource}). Outside a provider process (unit tests) it falls
 * back to stderr.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";

const ADDRESS = /^[\w.-]+:\d+$/u;

/** The address the plugin's `main` was given; the dynamic-provider host's is read from argv. */
let pluginEngineAddress: string | undefined;

/** The engine address of this provider process, if it is one. */
function engineAddress(): string | undefined {
  if (pluginEngineAddress !== undefined) return pluginEngineAddress;
  const [script, address] = process.argv.slice(1);
  if (script === undefined || !/dynamic-provider/u.test(script)) return undefined;
  return address !== undefined && ADDRESS.test(address) ? address : undefined;
}

/** Makes the warnings of this process go to the engine at `address` (the plugin's first argument). */
export function useEngineAddress(address: string | undefined): void {
  if (address !== undefined && ADDRESS.test(address)) pluginEngineAddress = address;
}

/** The URN of the resource whose call is running, as the front door that knows it set it. */
const currentResource = new AsyncLocalStorage<string>();

/** Runs `call` as a call about the resource `urn`: its warnings are attached to that resource. */
export function aboutResource<T>(urn: string | undefined, call: () => Promise<T>): Promise<T> {
  return urn === undefined || urn === "" ? call() : currentResource.run(urn, call);
}

/** The engine connection of this process, made once per address (every warning reuses it). */
let engine: { address: string; client: { log(request: unknown, done: (error: unknown) => void): void }; proto: { LogRequest: new () => LogRequest; LogSeverity: { WARNING: number } } } | undefined;

interface LogRequest {
  setSeverity(severity: number): void;
  setMessage(message: string): void;
  setUrn(urn: string): void;
}

function engineClient(address: string): NonNullable<typeof engine> {
  if (engine?.address === address) return engine;
  const fromPulumi = createRequire(require.resolve("@pulumi/pulumi"));
  const grpc = fromPulumi("@grpc/grpc-js");
  const engrpc = fromPulumi("./proto/engine_grpc_pb");
  engine = { address, client: new engrpc.EngineClient(address, grpc.credentials.createInsecure()), proto: fromPulumi("./proto/engine_pb") };
  return engine;
}

/** Sends a warning to the engine; never throws (a lost warning must not fail the operation). */
export async function warnEngine(message: string): Promise<void> {
  const address = engineAddress();
  if (address === undefined) {
    console.error(`warning: ${message}`);
    return;
  }
  try {
    const { client, proto } = engineClient(address);
    const request = new proto.LogRequest();
    request.setSeverity(proto.LogSeverity.WARNING);
    request.setMessage(message);
    const urn = currentResource.getStore();
    if (urn !== undefined) request.setUrn(urn);
    const failed = await new Promise<unknown>((resolve) => client.log(request, resolve));
    if (failed) console.error(`warning: ${message}`);
  } catch {
    console.error(`warning: ${message}`);
  }
}

/** Marks a `console.error` that already drops the host's echo of keyform errors. */
const QUIETED = Symbol.for("keyform.quietHostErrorEcho");

/**
 * Stops the dynamic-provider host from printing a keyform error a second time. The host
 * answers a failed `check`, `diff`, `read` or `delete` with the error's message, which the
 * engine shows, and also writes `${error}: ${error.stack}` to stderr, which the engine shows
 * too: the message twice and a stack trace that says nothing to an operator. Errors of
 * keyform's provider runtime (`ProviderError`) are already one line naming the setting to
 * check, so that echo is dropped; any other error (a bug) keeps its stack. `KEYFORM_DEBUG=1`
 * keeps every echo.
 */
export function quietHostErrorEcho(): void {
  // The mark is on the patched function itself: the patch is the process's, and so is the
  // knowledge that it is in place.
  if ((console.error as Partial<Record<typeof QUIETED, true>>)[QUIETED] || engineAddress() === undefined || process.env.KEYFORM_DEBUG === "1") return;
  const original = console.error.bind(console);
  console.error = Object.assign(
    (...args: unknown[]) => {
      if (typeof args[0] === "string" && args[0].startsWith("ProviderError: ")) return;
      original(...args);
    },
    { [QUIETED]: true as const },
  );
}
