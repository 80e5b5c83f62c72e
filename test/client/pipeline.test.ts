/**
 * The request pipeline over real HTTP: headers and stamp, retries with byte-identical bodies,
 * timeouts, typed errors, response validation, logging without secrets.
 */
import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  InternalServerError,
  KeyformClient,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  ResponseValidationError,
  TimeoutError,
  type ClientLogEvent,
} from "../../sdk/client";
import { verifyStamp } from "../../sdk/protocol/verify-stamp";
import { activity, errorBody, json, newStamper, ORGANIZATION_ID, startServer, type TestServer } from "./helpers";

const TAG = {
  tagId: "tag-1",
  tagName: "ops",
  tagType: "TAG_TYPE_USER",
  createdAt: { seconds: "1", nanos: "0" },
  updatedAt: { seconds: "1", nanos: "0" },
};

let server: TestServer;
const { pair, stamper } = newStamper();

function client(options: Partial<ConstructorParameters<typeof KeyformClient>[0]> = {}) {
  return new KeyformClient({
    baseUrl: server.url,
    organizationId: ORGANIZATION_ID,
    stamper,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...options,
  });
}

function sha256Hex(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

describe("request", () => {
  it("POSTs JSON to baseUrl + path with version and a stamp that verifies over the received bytes", async () => {
    server.handle((_req, res) => json(res, 200, { userTags: [TAG] }));
    const result = await client({ baseUrl: `${server.url}/` }).listUserTags();

    expect(result.userTags[0]?.tagId).toBe("tag-1");
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req!.method).toBe("POST");
    expect(req!.path).toBe("/public/v1/query/list_user_tags");
    expect(req!.headers["content-type"]).toBe("application/json");
    expect(req!.headers["accept"]).toBe("application/json");
    expect(req!.headers["x-client-version"]).toMatch(/^keyform@\d+\.\d+\.\d+/);
    expect(req!.json).toEqual({ organizationId: ORGANIZATION_ID });
    const verified = verifyStamp(String(req!.headers["x-stamp"]), req!.body);
    expect(verified.publicKey).toBe(pair.publicKey);
    expect(verified.curve).toBe("API_KEY_CURVE_P256");
  });

  it("lets a query override organizationId", async () => {
    server.handle((_req, res) => json(res, 200, { userTags: [] }));
    await client().listUserTags({ organizationId: "other-org" });
    expect(server.requests[0]!.json).toEqual({ organizationId: "other-org" });
  });
});

describe("retries", () => {
  it("honours Retry-After on 429 and resends the byte-identical activity body and stamp", async () => {
    server.handle((req, res, index) => {
      if (index === 0) return json(res, 429, errorBody(8, "quota exceeded"), { "Retry-After": "1" });
      return json(res, 200, { activity: activity() });
    });
    const started = Date.now();
    const result = await client().createUserTag({ userTagName: "ops", userIds: [] });
    const elapsed = Date.now() - started;

    expect(result).toEqual({ userTagId: "tag-1", userIds: [] });
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(second!.body.equals(first!.body)).toBe(true);
    expect(second!.headers["x-stamp"]).toBe(first!.headers["x-stamp"]);
    // backoff would have been <= 20 ms; the server asked for 1 s
    expect(elapsed).toBeGreaterThanOrEqual(950);
  });

  it("retries 503 with the same bytes and stamp", async () => {
    server.handle((_req, res, index) =>
      index < 2 ? json(res, 503, errorBody(14, "unavailable")) : json(res, 200, { activity: activity() }),
    );
    await client().createUserTag({ userTagName: "ops", userIds: [] });
    expect(server.requests).toHaveLength(3);
    const bodies = new Set(server.requests.map((r) => r.body.toString("hex")));
    const stamps = new Set(server.requests.map((r) => r.headers["x-stamp"]));
    expect(bodies.size).toBe(1);
    expect(stamps.size).toBe(1);
  });

  it("retries a reset connection with the same bytes and stamp", async () => {
    server.handle((req, res, index) => {
      if (index === 0) {
        res.socket?.destroy();
        return;
      }
      json(res, 200, { activity: activity() });
    });
    await client().createUserTag({ userTagName: "ops", userIds: ["u-1"] });
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.body.equals(server.requests[0]!.body)).toBe(true);
    expect(server.requests[1]!.headers["x-stamp"]).toBe(server.requests[0]!.headers["x-stamp"]);
  });

  it("gives up after maxRetries and throws the last error", async () => {
    server.handle((_req, res) => json(res, 503, errorBody(14, "unavailable")));
    const error = await client({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 2 } })
      .listUserTags()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as ApiError).status).toBe(503);
    expect(server.requests).toHaveLength(3);
  });

  it.each([400, 401, 403, 404, 409, 500, 501])("does not retry HTTP %i", async (status) => {
    server.handle((_req, res) => json(res, status, errorBody(3, "nope")));
    await expect(client().listUserTags()).rejects.toBeInstanceOf(ApiError);
    expect(server.requests).toHaveLength(1);
  });

  it("throws ConnectionError when nothing listens", async () => {
    const url = server.url;
    await server.close();
    const error = await new KeyformClient({ baseUrl: url, organizationId: ORGANIZATION_ID, stamper, retry: { maxRetries: 1, baseDelayMs: 1 } })
      .listUserTags()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).errorCode).toBe("ECONNREFUSED");
    expect((error as ConnectionError).operation).toBe("listUserTags");
    server = await startServer(); // for afterEach
  });
});

describe("timeouts", () => {
  // The server never answers: without the timeout the call would hang until this test's own.
  it("raises TimeoutError when an attempt takes longer than timeoutMs, after retrying", { timeout: 20_000 }, async () => {
    server.handle(() => {
      /* never answer */
    });
    const error = await client({ timeoutMs: 150, retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1 } })
      .listUserTags()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(150);
    expect((error as TimeoutError).message).toContain("listUserTags");
    expect(server.requests).toHaveLength(2);
  });
});

describe("typed errors", () => {
  it.each([
    [400, 3, BadRequestError],
    [401, 16, AuthenticationError],
    [403, 7, PermissionDeniedError],
    [404, 5, NotFoundError],
    [409, 6, ConflictError],
    [413, 3, PayloadTooLargeError],
    [429, 8, RateLimitError],
    [500, 13, InternalServerError],
    [501, 12, NotImplementedError],
  ])("maps HTTP %i to its class with status, code, message, details, operation", async (status, code, Class) => {
    const details = [{ "@type": "type.googleapis.com/errors.v1.Example", field: "userTagName" }];
    server.handle((_req, res) => json(res, status, errorBody(code, "userTagName: is wrong", details)));
    const error = (await client({ retry: { maxRetries: 0 } })
      .listUserTags()
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(error.serverMessage).toBe("userTagName: is wrong");
    expect(error.message).toContain("userTagName: is wrong");
    expect(error.details).toEqual(details);
    expect(error.operation).toBe("listUserTags");
  });

  it("names the fingerprint of the exact submitted body on an HTTP error of a submit", async () => {
    server.handle((_req, res) => json(res, 403, errorBody(7, "You don't have sufficient permissions")));
    const error = (await client()
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as PermissionDeniedError;
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(error.fingerprint).toBe(`sha256:${sha256Hex(server.requests[0]!.body)}`);
    expect(error.message).toContain(error.fingerprint);
  });

  it("does not copy a non-JSON error body into the error", async () => {
    server.handle((_req, res) => {
      res.writeHead(502, { "Content-Type": "text/html" });
      res.end("<html>SECRET-PROXY-PAGE</html>");
    });
    const error = (await client({ retry: { maxRetries: 0 } })
      .listUserTags()
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(InternalServerError);
    expect(error.status).toBe(502);
    expect(error.code).toBeUndefined();
    expect(error.message).not.toContain("SECRET-PROXY-PAGE");
  });
});

describe("response validation", () => {
  it("names the operation and the failing field, without the body", async () => {
    server.handle((_req, res) => json(res, 200, { userTags: [{ ...TAG, tagId: 42, tagName: "SENSITIVE-NAME" }] }));
    const error = (await client()
      .listUserTags()
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.operation).toBe("listUserTags");
    expect(error.fields).toEqual(["userTags.0.tagId"]);
    expect(error.message).toContain("listUserTags");
    expect(error.message).toContain("userTags.0.tagId");
    expect(error.message).not.toContain("SENSITIVE-NAME");
    expect(server.requests).toHaveLength(1);
  });

  it("rejects a 2xx body that is not JSON", async () => {
    server.handle((_req, res) => {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok");
    });
    await expect(client().listUserTags()).rejects.toThrow(ResponseValidationError);
  });
});

describe("logger", () => {
  it("reports start, end and retries with operation, status, attempt and duration, and no secrets", async () => {
    server.handle((_req, res, index) =>
      index === 0 ? json(res, 503, errorBody(14, "unavailable")) : json(res, 200, { activity: activity() }),
    );
    const events: ClientLogEvent[] = [];
    await client({ logger: (event) => events.push(event) }).createUserTag({ userTagName: "ops", userIds: [] });

    expect(events.map((e) => e.type)).toEqual(["request.start", "request.end", "retry", "request.start", "request.end"]);
    expect(events[1]).toMatchObject({ operation: "createUserTag", attempt: 1, status: 503, outcome: "error", error: "InternalServerError" });
    expect(events[2]).toMatchObject({ operation: "createUserTag", attempt: 1, reason: "HTTP 503" });
    expect(events[4]).toMatchObject({ operation: "createUserTag", attempt: 2, status: 200, outcome: "ok" });
    expect(typeof (events[4] as { durationMs: number }).durationMs).toBe("number");

    const logged = JSON.stringify(events);
    expect(logged).not.toContain(pair.privateKey);
    expect(logged).not.toContain(String(server.requests[0]!.headers["x-stamp"]));
    expect(logged).not.toContain("userTagName");
  });

  it("keeps working when the logger throws", async () => {
    server.handle((_req, res) => json(res, 200, { userTags: [] }));
    const result = await client({
      logger: () => {
        throw new Error("broken logger");
      },
    }).listUserTags();
    expect(result).toEqual({ userTags: [] });
  });
});

describe("secrets", () => {
  it("never puts the private key or the stamp into error messages", async () => {
    server.handle((_req, res) => json(res, 401, errorBody(16, "could not find public key in organization")));
    const error = (await client()
      .createUserTag({ userTagName: "ops", userIds: [] })
      .catch((e: unknown) => e)) as Error;
    const text = `${error.message} ${error.stack ?? ""} ${JSON.stringify(error)}`;
    expect(text).not.toContain(pair.privateKey);
    expect(text).not.toContain(String(server.requests[0]!.headers["x-stamp"]));
  });
});
