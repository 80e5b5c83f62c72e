/**
 * A base URL that cannot work fails the settings check of `check` at once, below the engine:
 * a port that refuses connections and a host that does not resolve are reported without the
 * client's retries, naming the setting and where its value came from, and a mistyped
 * `KEYFORM_*` name is named in the same error, worded as `keyform doctor` words it. The engine
 * tests (`test/engine/fail-fast.test.ts`) run the same faults through `pulumi preview` and `up`.
 */
import * as net from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { configure, handlers } from "../../sdk/resources/runtime";
import { probeAddress } from "../../sdk/resources/runtime/reachability";
import { unknownVariableProblem } from "../../sdk/resources/runtime/setting-sources";
import { generateApiKeyPair } from "../../sdk/protocol/keys";

const pair = generateApiKeyPair();
const saved: Record<string, string | undefined> = {};

function setEnv(values: Record<string, string | undefined>): void {
  for (const [key, value] of Object.entries(values)) {
    if (!(key in saved)) saved[key] = process.env[key];
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}

afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
    delete saved[key];
  }
});

/** A local port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The error of an engine run's `check` of one UserTag with `config` as stack config, and how
 * long it took.
 */
async function checkError(config: Record<string, string>): Promise<{ message: string; ms: number }> {
  setEnv({ KEYFORM_ORGANIZATION_ID: "org-1", KEYFORM_API_PUBLIC_KEY: pair.publicKey, KEYFORM_API_PRIVATE_KEY: pair.privateKey });
  // As the plugin configures the runtime: an engine run, so `check` proves the settings.
  const provider = Object.create(handlers.UserTag!) as typeof handlers.UserTag;
  configure.call(provider, { config: { get: (key) => config[key] } }, { verify: true, configKeys: Object.keys(config) });
  const started = performance.now();
  const error = await provider!.check({}, { userTagName: "ops", userIds: [] }, { urn: "urn:pulumi:s::p::keyform:index:UserTag::ops" }).then(
    () => undefined,
    (e: unknown) => e,
  );
  const ms = performance.now() - started;
  expect(error, "check must fail").toBeInstanceOf(Error);
  return { message: (error as Error).message, ms };
}

const figures: Record<string, number> = {};

describe("a base URL that cannot be reached", () => {
  it("a refused port fails the check naming keyform:baseUrl and the stack config key it came from", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const { message, ms } = await checkError({ "keyform:baseUrl": url });
    figures.refused = ms;
    expect(message).toContain(`keyform:baseUrl ${url} cannot be reached: it refuses connections (ECONNREFUSED)`);
    expect(message).toContain("the value is from stack config keyform:baseUrl");
    expect(message).toContain("check keyform:baseUrl (KEYFORM_BASE_URL)");
    expect(message).not.toContain(pair.privateKey);
  });

  it("a host that does not resolve fails the check naming the environment variable it came from", async () => {
    setEnv({ KEYFORM_BASE_URL: "https://keyform-nowhere.invalid" });
    const { message, ms } = await checkError({});
    figures.unresolved = ms;
    expect(message).toMatch(/keyform:baseUrl https:\/\/keyform-nowhere\.invalid cannot be reached: it has a host name that does not resolve \((ENOTFOUND|EAI_AGAIN)\)/);
    expect(message).toContain("the value is from the environment, KEYFORM_BASE_URL");
  });

  it("a mistyped KEYFORM_* name is named in the error, as doctor names it", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    // The typo leaves keyform:baseUrl at its default; here a stack config value stands in for
    // the default so that the test does not depend on the hosted service's name resolving.
    setEnv({ KEYFORM_BASE_ULR: "http://127.0.0.1:8090" });
    const { message } = await checkError({ "keyform:baseUrl": url });
    const problem = unknownVariableProblem({ variable: "KEYFORM_BASE_ULR", meant: "KEYFORM_BASE_URL" });
    expect(problem).toBe("KEYFORM_BASE_ULR is not a keyform setting; did you mean KEYFORM_BASE_URL?");
    expect(message).toContain(problem);
  });
});

describe("probeAddress", () => {
  it("accepts a listening port and leaves the connection closed", async () => {
    const server = net.createServer((socket) => socket.on("error", () => undefined));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    let connections = 0;
    server.on("connection", () => connections++);
    try {
      expect(await probeAddress(`http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, 2000)).toBeUndefined();
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("reports a refused port by code", async () => {
    expect(await probeAddress(`http://127.0.0.1:${await closedPort()}`, 2000)).toEqual({ code: "ECONNREFUSED", reason: "refuses connections" });
  });
});

afterAll(() => {
  // From the check's start to its error: the provider's share of the 3 s a run must fail within.
  console.log(`fail-fast figures (ms): ${JSON.stringify(figures)}`);
});
