/**
 * @module plugin/main
 * Entry of `pulumi-resource-keyform`: serves the provider on a free local port and prints the
 * port, which is how the engine finds a plugin. The engine passes its own address as the
 * first argument: the provider's warnings (lint findings, adoptions, replacements, objects left
 * in place) go there, through the engine's `Log` RPC (`resources/runtime/engine-log.ts`), since
 * the CLI does not show a plugin's stderr.
 */
import * as grpc from "@grpc/grpc-js";
import { useEngineAddress } from "../resources/runtime/engine-log";
import { providerService, ResourceProviderService } from "./server";

/** Messages as large as the engine's own limit (state of big programs travels in one call). */
const MAX_MESSAGE_BYTES = 400 * 1024 * 1024;

/** keyform's package version: the plugin's version, as the engine and the schema see it. */
function packageVersion(): string {
  // dist/sdk/plugin/main.js → the package root three levels up.
  return (require("../../../package.json") as { version: string }).version;
}

async function main(): Promise<void> {
  useEngineAddress(process.argv[2]);
  const server = new grpc.Server({
    "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
    "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
  });
  server.addService(ResourceProviderService, providerService(packageVersion()));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound)));
  });
  // The engine reads the port from the first line of stdout.
  process.stdout.write(`${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`pulumi-resource-keyform: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
  process.exit(1);
});
