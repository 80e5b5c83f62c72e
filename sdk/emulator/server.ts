/**
 * @module emulator/server
 * The HTTP face of the emulator (fastify): the main API (`/public/v1/query/*`,
 * `/public/v1/submit/*`), the auth proxy (`/v1/*`) on the same port, `GET /health`, and the
 * dev-only `GET /_keyform/otp-outbox?contact=…` (codes sent by otp_init).
 *
 * Bodies are kept as raw bytes (every content type): stamps and fingerprints are computed
 * over the exact bytes received. Every failure answers `{code, message, details: []}`.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";
import type { Dispatcher, Reply } from "./dispatch";
import { EmulatorError, GrpcCode } from "./errors";
import { registerDashboard, type DashboardHooks } from "./dashboard";
import { otpOutbox } from "./handlers/auth-otp";
import { seenCallerOf } from "./dashboard/request-log";
import { organizationOfBody, RateLimitedError, type RateLimitState, type ServiceRateLimit } from "./rate-limit";

/** Largest accepted request body. Smart contract interfaces go up to 400 KB of JSON text. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

/** Log levels the emulator accepts. */
export type { EmulatorLogLevel as LogLevel } from "keyform/emulator-contract";
import type { EmulatorLogLevel as LogLevel } from "keyform/emulator-contract";

/**
 * Builds (without listening) the fastify app serving `dispatcher`; with `rateLimit`, every main
 * API answer carries the budget headers and requests over a limit are refused with 429 before
 * they run. `dashboard` gives the local dashboard what it does beyond reading (a reset of the data).
 */
export function buildServer(dispatcher: () => Dispatcher, logLevel: LogLevel, rateLimit?: ServiceRateLimit, dashboard?: DashboardHooks): FastifyInstance {
  const app = Fastify({
    logger: {
      level: logLevel,
      // Request logs carry method and URL only; the redaction guards against a future
      // serializer that adds headers.
      redact: ['req.headers["x-stamp"]', 'req.headers["x-stamp-webauthn"]', "req.headers.authorization"],
    },
    bodyLimit: MAX_BODY_BYTES,
    // The official clients build `baseUrl + path`, so a trailing slash gives `//public/...`.
    routerOptions: { ignoreDuplicateSlashes: true },
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));

  const send = (reply: FastifyReply, run: () => Reply): FastifyReply => {
    try {
      const result = run();
      return reply.code(result.status).type("application/json").send(JSON.stringify(result.body));
    } catch (error) {
      return sendError(app, reply, error);
    }
  };
  const rawBody = (body: unknown): Uint8Array => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

  // Like the service, every answer echoes the address the caller is seen from, so a client can
  // tell whether an IP allowlist it is about to set still lets it in.
  app.addHook("onSend", async (req, reply, payload) => {
    reply.header("x-rate-limit-request-remote-addr", req.ip);
    return payload;
  });

  app.post<{ Params: { family: string; name: string } }>("/public/v1/:family/:name", (req, reply) => {
    const { family, name } = req.params;
    return send(reply, () => {
      if (family !== "query" && family !== "submit") {
        throw new EmulatorError(GrpcCode.NOT_FOUND, `unknown path: /public/v1/${family}/${name}`);
      }
      if (rateLimit) {
        const state = rateLimit.take({ clientAddress: req.ip, organizationId: organizationOfBody(rawBody(req.body)), endpoint: name });
        budgetHeaders(reply, state);
      }
      return dispatcher().main(family, name, req.headers, rawBody(req.body), req.ip, seenCallerOf(req));
    });
  });

  app.post<{ Params: { name: string } }>("/v1/:name", (req, reply) =>
    send(reply, () => dispatcher().authProxy(req.params.name, req.headers, rawBody(req.body))),
  );

  app.get("/health", (_req, reply) => reply.send({ status: "ok" }));

  // The local dashboard: a page at `/` and `/dashboard`, its JSON under `/_keyform/dashboard/`.
  registerDashboard(app, dispatcher, dashboard);

  // Dev-only: the codes otp_init "sent" (the emulator delivers no e-mail or SMS).
  app.get<{ Querystring: { contact?: string; limit?: string } }>("/_keyform/otp-outbox", (req, reply) =>
    send(reply, () => ({ status: 200, body: otpOutbox(dispatcher().store, req.query) })),
  );

  app.setNotFoundHandler((req, reply) => {
    const error = new EmulatorError(GrpcCode.NOT_FOUND, `unknown path: ${req.method} ${req.url.split("?")[0]}`);
    return reply.code(error.status).send(error.toBody());
  });

  app.setErrorHandler((error, _req, reply) => sendError(app, reply, error));
  return app;
}

/** The service's budget headers: the rate in force and the requests left in it now. */
function budgetHeaders(reply: FastifyReply, state: RateLimitState): void {
  reply.header("ratelimit-limit", String(state.limit));
  reply.header("ratelimit-remaining", String(state.remaining));
}

/** Maps any thrown value to the error body; only genuine bugs become 500. */
function sendError(app: FastifyInstance, reply: FastifyReply, error: unknown): FastifyReply {
  if (error instanceof EmulatorError) {
    if (error instanceof RateLimitedError) {
      reply.header("Retry-After", String(error.retryAfterSeconds));
      budgetHeaders(reply, error.state);
    }
    if (error.code === GrpcCode.INTERNAL) app.log.error({ message: error.message }, "internal error");
    return reply.code(error.status).send(error.toBody());
  }
  const e = error as { statusCode?: number; code?: string; message?: string };
  // Fastify's own refusals (body too large, malformed Content-Length …) are client errors.
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    const message =
      e.statusCode === 413 ? `body: larger than the ${MAX_BODY_BYTES} byte limit` : `request: ${e.message ?? "rejected"}`;
    return reply.code(e.statusCode).send({ code: GrpcCode.INVALID_ARGUMENT, message, details: [] });
  }
  // A UNIQUE index refused a write a handler did not foresee: still a duplicate, not a crash.
  if (typeof e.code === "string" && e.code.startsWith("SQLITE_CONSTRAINT_UNIQUE")) {
    return reply.code(409).send({ code: GrpcCode.ALREADY_EXISTS, message: "already exists: an object with that name or key exists", details: [] });
  }
  app.log.error({ err: error }, "unhandled error");
  return reply.code(500).send({ code: GrpcCode.INTERNAL, message: "internal error", details: [] });
}
