/**
 * Pagination over real HTTP (docs/service-facts.md#6-pagination): `after = <last id>` with a short last page, and
 * `pageInfo.endCursor/hasNextPage` when the response carries it.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { KeyformClient, paginateQuery, Transport } from "../../sdk/client";
import { defineQuery } from "../../sdk/wire/define";
import { Id, PageInfo, PaginationOptions, opt } from "../../sdk/wire/shared";
import { activity, json, newStamper, ORGANIZATION_ID, startServer, type TestServer } from "./helpers";

let server: TestServer;
const { stamper } = newStamper();

beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

/** Serves `count` activities newest first, paging with `after = <id>` like the service. */
function serveActivities(count: number) {
  const all = Array.from({ length: count }, (_, i) => activity({ id: `act-${String(count - i).padStart(3, "0")}` }));
  server.handle((req, res) => {
    const options = req.json.paginationOptions ?? {};
    const limit = Number(options.limit ?? "10");
    const start = options.after ? all.findIndex((a) => a.id === options.after) + 1 : 0;
    json(res, 200, { activities: all.slice(start, start + limit) });
  });
  return all.map((a) => a.id);
}

function client() {
  return new KeyformClient({ baseUrl: server.url, organizationId: ORGANIZATION_ID, stamper });
}

describe("paginate (cursor = last item id)", () => {
  it("walks every item once and stops on a short page", async () => {
    const ids = serveActivities(25);
    const seen: string[] = [];
    for await (const item of client().paginate("listActivities", { paginationOptions: { limit: "10" } })) seen.push(item.id);

    expect(seen).toEqual(ids);
    expect(server.requests).toHaveLength(3);
    expect(server.requests.map((r) => r.json.paginationOptions)).toEqual([
      { limit: "10" },
      { limit: "10", after: "act-016" },
      { limit: "10", after: "act-006" },
    ]);
    expect(server.requests[0]!.json.organizationId).toBe(ORGANIZATION_ID);
    expect(server.requests[0]!.path).toBe("/public/v1/query/list_activities");
  });

  it("handles an exact multiple of the page size (the last page is empty)", async () => {
    const ids = serveActivities(20);
    const seen: string[] = [];
    for await (const item of client().paginate("listActivities", { paginationOptions: { limit: "10" } })) seen.push(item.id);
    expect(seen).toEqual(ids);
    expect(server.requests).toHaveLength(3);
  });

  it("asks for the largest page when no limit is given, and keeps filters on every page", async () => {
    serveActivities(3);
    const seen = [];
    for await (const item of client().paginate("listActivities", { filterByStatus: ["ACTIVITY_STATUS_COMPLETED"] })) seen.push(item);
    expect(seen).toHaveLength(3);
    expect(server.requests[0]!.json).toEqual({
      organizationId: ORGANIZATION_ID,
      filterByStatus: ["ACTIVITY_STATUS_COMPLETED"],
      paginationOptions: { limit: "100" },
    });
  });

  it("refuses a query that is not paginated", () => {
    // @ts-expect-error listUserTags is not paginated
    expect(() => client().paginate("listUserTags")).toThrow(TypeError);
  });
});

describe("paginate (pageInfo)", () => {
  const listThings = defineQuery("list_things", {
    request: z.object({ organizationId: Id, paginationOptions: opt(PaginationOptions) }),
    response: z.object({ things: z.array(z.object({ name: z.string() })), pageInfo: opt(PageInfo) }),
    pageItems: "things",
  });

  it("follows endCursor while hasNextPage, even with full-length pages and no id field", async () => {
    const pages: Record<string, { things: { name: string }[]; pageInfo: object }> = {
      "": { things: [{ name: "a" }, { name: "b" }], pageInfo: { hasNextPage: true, endCursor: "opaque-1" } },
      "opaque-1": { things: [{ name: "c" }, { name: "d" }], pageInfo: { hasNextPage: true, endCursor: "opaque-2" } },
      "opaque-2": { things: [{ name: "e" }, { name: "f" }], pageInfo: { hasNextPage: false, endCursor: "opaque-3" } },
    };
    server.handle((req, res) => json(res, 200, pages[req.json.paginationOptions.after ?? ""]));
    const transport = new Transport({ baseUrl: server.url, stamper });
    const fetchPage = async (request: Record<string, unknown>) =>
      (await transport.send({ operation: "listThings", path: listThings.path, body: request, schema: listThings.response })).data;

    const names: string[] = [];
    for await (const thing of paginateQuery<{ name: string }>(listThings, { organizationId: ORGANIZATION_ID, paginationOptions: { limit: "2" } }, fetchPage)) {
      names.push(thing.name);
    }
    expect(names).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(server.requests.map((r) => r.json.paginationOptions.after)).toEqual([undefined, "opaque-1", "opaque-2"]);
    expect(server.requests[0]!.path).toBe("/public/v1/query/list_things");
  });
});
