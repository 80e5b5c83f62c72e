/**
 * @module client/pagination
 * Walks a paginated query page by page (docs/service-facts.md#6-pagination). `paginationOptions.before/after` are
 * object ids used as cursors. When a response carries `pageInfo`, its `hasNextPage` and
 * `endCursor` decide; otherwise the next page starts `after` the last item's id and a page
 * shorter than `limit` is the last one (what the official CLI does for list_activities).
 */
import type { QueryDef } from "../wire/define";

/** Page size asked for when the caller does not set `paginationOptions.limit` (the maximum). */
export const DEFAULT_PAGE_LIMIT = "100";

/** Options of a walk over pages. */
export interface PaginateOptions {
  /**
   * Item field used as the `after` cursor when the response has no `pageInfo`. By default:
   * the item itself when it is a string, else `id`, else the one field named
   * `<singular of the items key>Id` (e.g. `walletAccountId` for `accounts`).
   */
  cursorField?: string;
}

/** Runs one page request and returns the parsed response. */
export type PageFetcher = (request: Record<string, unknown>) => Promise<unknown>;

/**
 * Yields every item of a paginated query, fetching pages lazily.
 *
 * @param def the query; must declare `pageItems`.
 * @param request the full first request (with `organizationId`); its `paginationOptions`
 *   (`limit`, `after`) are honoured as the starting point.
 * @throws {TypeError} when `def` is not paginated, or no cursor field can be found in an item.
 */
export async function* paginateQuery<Item = unknown>(
  def: QueryDef,
  request: Record<string, unknown>,
  fetchPage: PageFetcher,
  options: PaginateOptions = {},
): AsyncGenerator<Item, void, undefined> {
  const itemsKey = def.pageItems;
  if (!itemsKey) throw new TypeError(`${def.name} is not a paginated query`);
  const given = (request["paginationOptions"] ?? {}) as Record<string, unknown>;
  const limit = typeof given["limit"] === "string" && given["limit"] !== "" ? given["limit"] : DEFAULT_PAGE_LIMIT;
  let after = typeof given["after"] === "string" && given["after"] !== "" ? given["after"] : undefined;
  const seenCursors = new Set<string>();

  for (;;) {
    const paginationOptions: Record<string, string> = { ...stringEntries(given), limit };
    if (after !== undefined) paginationOptions["after"] = after;
    const page = (await fetchPage({ ...request, paginationOptions })) as Record<string, unknown>;
    const items = page[itemsKey];
    if (!Array.isArray(items)) throw new TypeError(`${def.name}: response has no "${itemsKey}" array`);
    for (const item of items) yield item as Item;

    const pageInfo = page["pageInfo"] as { hasNextPage?: boolean; endCursor?: string } | undefined;
    let next: string | undefined;
    if (pageInfo && typeof pageInfo === "object") {
      next = pageInfo.hasNextPage === true && pageInfo.endCursor ? pageInfo.endCursor : undefined;
    } else if (items.length > 0 && items.length >= Number(limit)) {
      next = cursorOf(items[items.length - 1], itemsKey, def.name, options.cursorField);
    }
    // A cursor seen before would repeat a page forever; stop instead.
    if (next === undefined || seenCursors.has(next)) return;
    seenCursors.add(next);
    after = next;
  }
}

function stringEntries(value: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string" && entry[1] !== "" && entry[0] !== "after"),
  );
}

function cursorOf(item: unknown, itemsKey: string, operation: string, cursorField: string | undefined): string {
  if (typeof item === "string") return item;
  if (item !== null && typeof item === "object") {
    const record = item as Record<string, unknown>;
    const field = cursorField ?? defaultCursorField(record, itemsKey);
    const value = field === undefined ? undefined : record[field];
    if (typeof value === "string" && value !== "") return value;
  }
  throw new TypeError(`${operation}: cannot tell the id of a "${itemsKey}" item to continue after; pass { cursorField }`);
}

function defaultCursorField(item: Record<string, unknown>, itemsKey: string): string | undefined {
  if (typeof item["id"] === "string") return "id";
  const singular = itemsKey.endsWith("ies") ? `${itemsKey.slice(0, -3)}y` : itemsKey.replace(/s$/, "");
  const suffix = `${singular}id`.toLowerCase();
  const candidates = Object.keys(item).filter((key) => key.toLowerCase().endsWith(suffix) && typeof item[key] === "string");
  return candidates.length === 1 ? candidates[0] : undefined;
}
