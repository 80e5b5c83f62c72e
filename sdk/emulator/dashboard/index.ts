/**
 * @module emulator/dashboard
 * The emulator's local dashboard: a static page (`/` and `/dashboard`) and the JSON endpoints
 * it reads, under `/_keyform/dashboard/api/` (emulator only, not part of the service's API):
 *
 * - `GET  …/organizations`                     every organization of the data directory
 * - `GET  …/organizations/:id/objects`          users, tags, policies, API keys, wallets, keys, invitations …
 * - `GET  …/organizations/:id/activities`       the feed: activities with policy evaluations, why one waits; denials
 * - `GET  …/organizations/:id/access`           the access matrix from the policy prover
 * - `GET  …/organizations/:id/webhooks`         webhook endpoints with their delivery attempts
 * - `GET  …/organizations/:id/auth`             IP allowlists (organization, per key) and session profiles
 * - `GET  …/otp-outbox`                         the codes otp_init "sent", newest first
 * - `GET  …/requests[?organizationId=…]`        the recent API requests (in memory, bounded)
 * - `POST …/organizations/:id/votes`            `{fingerprint, userId, approve}`: vote as that user through
 *                                               the emulator's consensus code (needs the `x-keyform-dashboard` header)
 * - `POST …/reset`                              `{confirm: "reset"}`: the data back to a first start's
 *                                               (the header too, and only from the local machine)
 * - `GET  /favicon.ico`                         the page's icon (SVG)
 *
 * The reads change nothing. Policy denials record nothing in the store, so the last ones are
 * kept in memory for the feed.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Dispatcher, PolicyDenial } from "../dispatch";
import { EmulatorError, failedPrecondition, GrpcCode, invalidArgument, notFound } from "../errors";
import { AccessMatrixCache } from "./access";
import { PAGE_HTML } from "./assets/page";
import { SCRIPT_JS } from "./assets/script";
import { STYLE_CSS } from "./assets/style";
import { DASHBOARD_API, DASHBOARD_ASSETS, DASHBOARD_PAGE, DASHBOARD_VOTE_HEADER } from "./paths";
import { feedOf, objectsOf, organizations } from "./snapshot";
import { FAVICON_SVG } from "./assets/favicon";
import { authSettingsOf, otpMessages } from "./auth-settings";
import { RequestLog } from "./request-log";
import { webhooksOf } from "./webhooks";
import type { ResetSummary } from "../reset";

export { DASHBOARD_API, DASHBOARD_PAGE } from "./paths";

/** How many policy denials the feed keeps (in memory, newest last). */
const KEPT_DENIALS = 100;

/** What the dashboard does beyond reading, given by the emulator that owns the data. */
export interface DashboardHooks {
  /** Resets the data to a first start's (see `reset.ts`); absent, the dashboard offers no reset. */
  readonly resetData?: () => ResetSummary;
}

/** Whether a request comes from this machine (the reset is refused from anywhere else). */
export function isLoopback(ip: string): boolean {
  return ip === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(ip);
}

/** Adds the dashboard's routes to the emulator's server; `dispatcher` is read once the server is ready. */
export function registerDashboard(app: FastifyInstance, dispatcher: () => Dispatcher, hooks: DashboardHooks = {}): void {
  const denials: PolicyDenial[] = [];
  const requests = new RequestLog();
  requests.attach(app, () => dispatcher().store);
  const access = new AccessMatrixCache();
  app.addHook("onReady", async () => {
    dispatcher().denialListeners.push((denial) => {
      denials.push(denial);
      if (denials.length > KEPT_DENIALS) denials.shift();
    });
  });

  const page = (_req: unknown, reply: FastifyReply) => reply.type("text/html; charset=utf-8").header("cache-control", "no-cache").send(PAGE_HTML);
  app.get("/", page);
  app.get(DASHBOARD_PAGE, page);
  app.get(`${DASHBOARD_ASSETS}/dashboard.js`, (_req, reply) => reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(SCRIPT_JS));
  app.get("/favicon.ico", (_req, reply) => reply.type("image/svg+xml").header("cache-control", "max-age=86400").send(FAVICON_SVG));
  app.get(`${DASHBOARD_ASSETS}/dashboard.css`, (_req, reply) => reply.type("text/css; charset=utf-8").header("cache-control", "no-cache").send(STYLE_CSS));

  const json = (reply: FastifyReply, value: unknown) => reply.type("application/json").header("cache-control", "no-store").send(JSON.stringify(value));
  const found = <T>(value: T | undefined, organizationId: string): T => {
    if (value === undefined) throw notFound(`organization: no organization ${organizationId}`);
    return value;
  };

  app.get(`${DASHBOARD_API}/organizations`, (_req, reply) => json(reply, organizations(dispatcher().store)));
  app.get<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/objects`, (req, reply) =>
    json(reply, found(objectsOf(dispatcher().store, req.params.id), req.params.id)),
  );
  app.get<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/activities`, (req, reply) =>
    json(reply, found(feedOf(dispatcher().store, req.params.id, denials, Date.now()), req.params.id)),
  );
  app.get<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/access`, async (req, reply) => {
    const matrix = found(access.matrixOf(dispatcher().store, req.params.id), req.params.id);
    try {
      return json(reply, await matrix);
    } catch (error) {
      // Say what failed in the page rather than a bare "internal error".
      throw new EmulatorError(GrpcCode.INTERNAL, `access matrix: the policy prover failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  app.get<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/webhooks`, (req, reply) =>
    json(reply, { endpoints: found(webhooksOf(dispatcher().store, req.params.id), req.params.id) }),
  );
  app.get<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/auth`, (req, reply) =>
    json(reply, found(authSettingsOf(dispatcher().store, req.params.id), req.params.id)),
  );
  app.get(`${DASHBOARD_API}/otp-outbox`, (_req, reply) => json(reply, { messages: otpMessages(dispatcher().store, Date.now()) }));
  app.get<{ Querystring: { organizationId?: string } }>(`${DASHBOARD_API}/requests`, (req, reply) =>
    json(reply, { capacity: requests.capacity, requests: requests.list(req.query.organizationId || undefined) }),
  );
  app.post(`${DASHBOARD_API}/reset`, (req, reply) => {
    if (req.headers[DASHBOARD_VOTE_HEADER] === undefined) throw invalidArgument(`${DASHBOARD_VOTE_HEADER}: header required for a reset`);
    if (!hooks.resetData) throw new EmulatorError(GrpcCode.UNIMPLEMENTED, "reset: this server was started without a data directory to reset");
    if (!isLoopback(req.ip)) throw new EmulatorError(GrpcCode.PERMISSION_DENIED, `reset: only from this machine (the request came from ${req.ip})`);
    const confirm = jsonBody(req.body, "{confirm: \"reset\"}").confirm;
    if (confirm !== "reset") throw invalidArgument('confirm: required, the string "reset"');
    let removed: ResetSummary;
    try {
      removed = hooks.resetData();
    } catch (error) {
      // The reset is one transaction: a failure (a fixtures file gone) changed nothing.
      throw failedPrecondition(`reset: nothing was changed: ${error instanceof Error ? error.message : String(error)}`);
    }
    // What the feed kept in memory was about the data that is gone.
    denials.length = 0;
    return json(reply, { removed });
  });
  app.post<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/votes`, (req, reply) => {
    if (req.headers[DASHBOARD_VOTE_HEADER] === undefined) throw invalidArgument(`${DASHBOARD_VOTE_HEADER}: header required for a dashboard vote`);
    const vote = voteRequest(req.body);
    const result = dispatcher().voteWithoutStamp(req.params.id, vote.userId, vote.fingerprint, vote.approve);
    return reply.code(result.status).type("application/json").send(JSON.stringify(result.body));
  });
}

/** The raw body as a JSON object. @throws 400 saying what was expected */
function jsonBody(body: unknown, expected: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(body) ? body.toString("utf8") : "");
  } catch {
    throw invalidArgument(`body: expected a JSON object ${expected}`);
  }
  return (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
}

/** `{fingerprint, userId, approve}` from the raw body, each field checked. */
function voteRequest(body: unknown): { fingerprint: string; userId: string; approve: boolean } {
  const v = jsonBody(body, "{fingerprint, userId, approve}");
  for (const field of ["fingerprint", "userId"] as const) {
    if (typeof v[field] !== "string" || v[field] === "") throw invalidArgument(`${field}: required, a non-empty string`);
  }
  if (typeof v.approve !== "boolean") throw invalidArgument("approve: required, true (approve) or false (reject)");
  return { fingerprint: v.fingerprint as string, userId: v.userId as string, approve: v.approve };
}

