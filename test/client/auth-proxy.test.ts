/**
 * The auth proxy client over real HTTP: config id header, no stamp, same retries and errors.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthProxyClient, BadRequestError, ConnectionError, RequestValidationError } from "../../sdk/client";
import { errorBody, json, startServer, type TestServer } from "./helpers";

let server: TestServer;

beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

function proxy() {
  return new AuthProxyClient({
    authProxyUrl: `${server.url}/`,
    authProxyConfigId: "cfg-123",
    retry: { baseDelayMs: 1, maxDelayMs: 2 },
  });
}

const signup = { userEmail: "a@example.com", apiKeys: [], authenticators: [], oauthProviders: [] };

describe("AuthProxyClient", () => {
  it("sends X-Auth-Proxy-Config-Id, no stamp, and parses the response", async () => {
    server.handle((_req, res) => json(res, 200, { organizationId: "org-9", userId: "user-9" }));
    const result = await proxy().signupV2(signup);

    expect(result).toEqual({ organizationId: "org-9", userId: "user-9" });
    const [req] = server.requests;
    expect(req!.path).toBe("/v1/signup_v2");
    expect(req!.headers["x-auth-proxy-config-id"]).toBe("cfg-123");
    expect(req!.headers["x-stamp"]).toBeUndefined();
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.json).toEqual(signup);
  });

  it("retries 503 with the same bytes and maps errors to typed classes", async () => {
    server.handle((_req, res, index) =>
      index === 0 ? json(res, 503, errorBody(14, "unavailable")) : json(res, 400, errorBody(3, "invalid OTP code")),
    );
    const error = (await proxy()
      .signupV2(signup)
      .catch((e: unknown) => e)) as BadRequestError;
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.serverMessage).toBe("invalid OTP code");
    expect(error.operation).toBe("signupV2");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.equals(server.requests[0]!.body)).toBe(true);
  });

  it("does not retry when the proxy may have acted (502, reset connection): it does not deduplicate", async () => {
    server.handle((_req, res) => json(res, 502, errorBody(14, "bad gateway")));
    await expect(proxy().signupV2(signup)).rejects.toMatchObject({ status: 502 });
    expect(server.requests).toHaveLength(1);

    server.handle((_req, res) => {
      res.socket?.destroy();
    });
    await expect(proxy().signupV2(signup)).rejects.toBeInstanceOf(ConnectionError);
    expect(server.requests).toHaveLength(2);
  });

  it("validates the body locally", async () => {
    // @ts-expect-error apiKeys is required
    const error = await proxy().signupV2({ authenticators: [], oauthProviders: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).fields).toEqual(["apiKeys"]);
    expect(server.requests).toHaveLength(0);
  });
});
