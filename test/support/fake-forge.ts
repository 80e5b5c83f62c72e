/**
 * @module test/support/fake-forge
 * A loopback fake of the comment endpoints of GitHub's and GitLab's REST APIs, as
 * `keyform gitops comment` calls them: list (paginated by per_page and page), create and edit
 * a pull request's issue comments (GitHub) or a merge request's notes (GitLab). It checks the
 * token, keeps the comments in memory and counts each request by method and route.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeComment {
  id: number;
  body: string;
}

export interface FakeForge {
  readonly url: string;
  /** Comments by thread: `github:<owner/name>#<n>` or `gitlab:<project>!<iid>`. */
  readonly threads: Map<string, FakeComment[]>;
  /** Requests by `<METHOD> <route>`. */
  readonly counts: Map<string, number>;
  close(): Promise<void>;
}

export async function startFakeForge(token: string): Promise<FakeForge> {
  const threads = new Map<string, FakeComment[]>();
  const counts = new Map<string, number>();
  let nextId = 1000;
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://fake");
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const github = /^\/repos\/([^/]+\/[^/]+)\/issues\/(?:(\d+)\/comments|comments\/(\d+))$/.exec(url.pathname);
      const gitlab = /^\/api\/v4\/projects\/([^/]+)\/merge_requests\/(\d+)\/notes(?:\/(\d+))?$/.exec(url.pathname);
      const route = github ? (github[2] ? "github comments" : "github comment") : gitlab ? (gitlab[3] ? "gitlab note" : "gitlab notes") : url.pathname;
      counts.set(`${req.method} ${route}`, (counts.get(`${req.method} ${route}`) ?? 0) + 1);
      const authorized = github ? req.headers.authorization === `Bearer ${token}` : req.headers["private-token"] === token;
      if (!github && !gitlab) return reply(404, { message: "Not Found" });
      if (!authorized) return reply(401, { message: "Bad credentials" });
      const body = raw === "" ? {} : (JSON.parse(raw) as { body?: string });
      const find = (id: number) => [...threads.values()].flat().find((c) => c.id === id);
      if ((github && github[3]) || (gitlab && gitlab[3])) {
        const comment = find(Number(github?.[3] ?? gitlab![3]));
        if (!comment) return reply(404, { message: "Not Found" });
        if (req.method !== (github ? "PATCH" : "PUT")) return reply(405, { message: "method" });
        comment.body = body.body ?? "";
        return reply(200, comment);
      }
      const key = github ? `github:${github[1]}#${github[2]}` : `gitlab:${decodeURIComponent(gitlab![1]!)}!${gitlab![2]}`;
      const list = threads.get(key) ?? [];
      threads.set(key, list);
      if (req.method === "GET") {
        const perPage = Number(url.searchParams.get("per_page") ?? 30);
        const page = Number(url.searchParams.get("page") ?? 1);
        return reply(200, list.slice((page - 1) * perPage, page * perPage));
      }
      if (req.method === "POST") {
        const comment = { id: nextId++, body: body.body ?? "" };
        list.push(comment);
        return reply(201, comment);
      }
      return reply(405, { message: "method" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, threads, counts, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
