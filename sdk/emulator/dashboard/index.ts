/**
 * @module emulator/dashboard
 * The emulator's local dashboard: a static page (`/` and `/dashboard`) and the JSON endpoints
 * it reads, under `/_keyform/dashboard/api/` (emulator only, not part of the service's API):
 *
 * - `GET  …/organizations`                     every organization of the data directory
 * - `GET  …/organizations/:id/objects`          users, tags, policies, API keys, wallets, keys, invitations …
 * - `GET  …/organizations/:id/activities`       the feed: activities with policy evaluations, why one waits; denials
 * - `GET  …/organizations/:id/access`           the access matrix from the policy prover
 * - `POST …/organizations/:id/votes`            `{fingerprint, userId, approve}`: vote as that user through
 *                                               the emulator's consensus code (needs the `x-keyform-dashboard` header)
 *
 * The reads change nothing. Policy denials record nothing in the store, so the last ones are
 * kept in memory for the feed.
 */
import type { FastifyInstance, FastifyReply } from "fastify";
import type { Dispatcher, PolicyDenial } from "../dispatch";
import { EmulatorError, GrpcCode, invalidArgument, notFound } from "../errors";
import { AccessMatrixCache } from "./access";
import { PAGE_HTML } from "./assets/page";
import { SCRIPT_JS } from "./assets/script";
import { STYLE_CSS } from "./assets/style";
import { DASHBOARD_API, DASHBOARD_ASSETS, DASHBOARD_PAGE, DASHBOARD_VOTE_HEADER } from "./paths";
import { feedOf, objectsOf, organizations } from "./snapshot";

export { DASHBOARD_API, DASHBOARD_PAGE } from "./paths";

/** How many policy denials the feed keeps (in memory, newest last). */
const KEPT_DENIALS = 100;

/** Adds the dashboard's routes to the emulator's server; `dispatcher` is read once the server is ready. */
export function registerDashboard(app: FastifyInstance, dispatcher: () => Dispatcher): void {
  const denials: PolicyDenial[] = [];
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
  app.post<{ Params: { id: string } }>(`${DASHBOARD_API}/organizations/:id/votes`, (req, reply) => {
    if (req.headers[DASHBOARD_VOTE_HEADER] === undefined) throw invalidArgument(`${DASHBOARD_VOTE_HEADER}: header required for a dashboard vote`);
    const vote = voteRequest(req.body);
    const result = dispatcher().voteWithoutStamp(req.params.id, vote.userId, vote.fingerprint, vote.approve);
    return reply.code(result.status).type("application/json").send(JSON.stringify(result.body));
  });
}

/** `{fingerprint, userId, approve}` from the raw body, each field checked. */
function voteRequest(body: unknown): { fingerprint: string; userId: string; approve: boolean } {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.isBuffer(body) ? body.toString("utf8") : "");
  } catch {
    throw invalidArgument("body: expected a JSON object {fingerprint, userId, approve}");
  }
  const v = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  for (const field of ["fingerprint", "userId"] as const) {
    if (typeof v[field] !== "string" || v[field] === "") throw invalidArgument(`${field}: required, a non-empty string`);
  }
  if (typeof v.approve !== "boolean") throw invalidArgument("approve: required, true (approve) or false (reject)");
  return { fingerprint: v.fingerprint as string, userId: v.userId as string, approve: v.approve };
}

