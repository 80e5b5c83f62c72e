/**
 * A real HTTP server on 127.0.0.1:0 for client tests. It records every request (headers and
 * the exact body bytes) and answers with a per-test handler.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { ApiKeyStamper } from "../../sdk/protocol/api-key-stamper";
import { generateApiKeyPair } from "../../sdk/protocol/keys";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes received. */
  body: Buffer;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

export type Handler = (request: RecordedRequest, response: ServerResponse, index: number) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the handler. */
  handle(handler: Handler): void;
  close(): Promise<void>;
}

/** Starts a server; `handler` answers each request (index counts from 0). */
export async function startServer(handler: Handler = (_req, res) => json(res, 200, {})): Promise<TestServer> {
  let current = handler;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch {
        parsed = undefined;
      }
      const recorded: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, json: parsed };
      const index = requests.push(recorded) - 1;
      Promise.resolve(current(recorded, res, index)).catch((error: unknown) => {
        res.statusCode = 599;
        res.end(String(error));
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Sends a JSON answer. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** The service's error body (docs/service-facts.md#5-errors). */
export function errorBody(code: number, message: string, details: unknown[] = []) {
  return { code, message, details };
}

/** A fresh P-256 API key and its stamper. */
export function newStamper() {
  const pair = generateApiKeyPair();
  return { pair, stamper: new ApiKeyStamper({ apiPublicKey: pair.publicKey, apiPrivateKey: pair.privateKey }) };
}

const ORG = "00000000-0000-4000-8000-000000000001";
export const ORGANIZATION_ID = ORG;

/** A minimal valid activity object. */
export function activity(overrides: Record<string, unknown> = {}) {
  return {
    id: "act-1",
    organizationId: ORG,
    status: "ACTIVITY_STATUS_COMPLETED",
    type: "ACTIVITY_TYPE_CREATE_USER_TAG",
    intent: { createUserTagIntent: { userTagName: "ops", userIds: [] } },
    result: { createUserTagResult: { userTagId: "tag-1", userIds: [] } },
    votes: [],
    fingerprint: "sha256:00",
    canApprove: false,
    canReject: false,
    createdAt: "1700000000000",
    updatedAt: "1700000000000",
    ...overrides,
  };
}
