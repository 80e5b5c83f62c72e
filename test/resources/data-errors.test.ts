/**
 * A data function that cannot reach the service fails with one line that names the setting
 * to check, as a Pulumi RunError (which Pulumi reports without a stack trace), not with the
 * chain of causes and their stacks.
 */
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listUsers } from "../../sdk/resources/data";
import { explain } from "../../sdk/resources/runtime/errors";
import { TimeoutError } from "../../sdk/client/errors";
import { generateApiKeyPair } from "../../sdk/protocol/keys";

const saved: Record<string, string | undefined> = {};
let closedPort: number;

beforeAll(async () => {
  // A port nothing listens on: bind one, then close it.
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closedPort = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const pair = generateApiKeyPair();
  const env = {
    KEYFORM_BASE_URL: `http://127.0.0.1:${closedPort}`,
    KEYFORM_ORGANIZATION_ID: "00000000-0000-4000-8000-000000000000",
    KEYFORM_API_PUBLIC_KEY: pair.publicKey,
    KEYFORM_API_PRIVATE_KEY: pair.privateKey,
    // The client retries a refused connection within this budget before it reports it (the
    // default, a minute, is for a server restarting mid-run): the message is the same after 3 s.
    KEYFORM_TIMEOUT_MS: "3000",
  };
  for (const [key, value] of Object.entries(env)) {
    saved[key] = process.env[key];
    process.env[key] = value;
  }
});

afterAll(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe("data function errors", () => {
  it("an unreachable server: one line, the setting to check, no cause chain", { timeout: 60_000 }, async () => {
    const error = await listUsers().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(pulumi.RunError);
    expect(error!.message).not.toContain("\n");
    expect(error!.message).toMatch(/^keyform\.listUsers: listUsers: connection failed .*Check keyform:baseUrl \(KEYFORM_BASE_URL\)\.$/);
    expect((error as Error & { cause?: unknown }).cause).toBeUndefined();
  });

  it("a server that never answers names the timeout setting", () => {
    const message = explain(new TimeoutError({ operation: "listUsers" }, 5000), "keyform.listUsers").message;
    expect(message).toBe(
      "keyform.listUsers: listUsers: no response within 5000 ms: the server at keyform:baseUrl (KEYFORM_BASE_URL) accepted the " +
        "connection but did not answer. Check that it is the service, or allow more time with keyform:timeoutMs (KEYFORM_TIMEOUT_MS).",
    );
  });
});
