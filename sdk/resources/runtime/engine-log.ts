/**
 * @module resources/runtime/engine-log
 * Warnings from inside a provider call, shown by the engine like any other diagnostic
 * (`warning: ...` in `pulumi up` and `destroy` output).
 *
 * Why this exists: a dynamic provider runs in its own process, where `pulumi.log.warn` has no
 * engine connection and only prints to the process's stderr, which the CLI does not show. The
 * process is started with the engine's address as its first argument, so the warning is sent
 * to the engine's `Log` RPC directly, with the gRPC modules of the installed `@pulumi/pulumi`.
 * Outside a provider process (unit tests) it falls back to stderr.
 */
import { createRequire } from "node:module";

/** The engine address the dynamic provider process was started with, if this is one. */
function engineAddress(): string | undefined {
  const [script, address] = process.argv.slice(1);
  if (script === undefined || !/dynamic-provider/u.test(script)) return undefined;
  return address !== undefined && /^[\w.-]+:\d+$/u.test(address) ? address : undefined;
}

/** Sends a warning to the engine; never throws (a lost warning must not fail the operation). */
export async function warnEngine(message: string): Promise<void> {
  const address = engineAddress();
  if (address === undefined) {
    console.error(`warning: ${message}`);
    return;
  }
  try {
    const fromPulumi = createRequire(require.resolve("@pulumi/pulumi"));
    const grpc = fromPulumi("@grpc/grpc-js");
    const engrpc = fromPulumi("./proto/engine_grpc_pb");
    const engproto = fromPulumi("./proto/engine_pb");
    const client = new engrpc.EngineClient(address, grpc.credentials.createInsecure());
    const request = new engproto.LogRequest();
    request.setSeverity(engproto.LogSeverity.WARNING);
    request.setMessage(message);
    await new Promise<void>((resolve) => client.log(request, () => resolve()));
    client.close();
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
