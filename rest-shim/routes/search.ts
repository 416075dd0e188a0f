import { z } from "zod";
import { defineRoute } from "../route.ts";
import { queryBool, queryInt } from "../schemas.ts";
import { SEARCH_PAGE_SCHEMAS, searchPageOut } from "../serializers/search.ts";
import type { SearchTarget } from "../../src/modules/search/index.ts";

/** The peer's search parameters (P3 paging: size 1..100, default 10). The query may be empty (match all). */
const searchQuery = z
  .object({
    query: z.string(),
    page: queryInt(1, 10_000, 1),
    size: queryInt(1, 100, 10),
    sort_by: z.enum(["@timestamp", "_score"]).default("@timestamp"),
    sort_order: z.enum(["asc", "desc"]).default("desc"),
    include_deleted: queryBool.default(false),
  })
  .strict();

const capitalized = (s: string) => s[0].toUpperCase() + s.slice(1);

const searchRoute = (target: SearchTarget, defaultField: string) =>
  defineRoute({
    method: "GET", path: `/${target}/search`, operationId: `search${capitalized(target)}`, tag: target,
    summary: `Lucene search over the ${target} index (default field \`${defaultField}\`${target === "correlations" ? "" : "; soft-deleted documents left out unless include_deleted"}); P3 envelope with total_relation (total exact up to 10 000, then gte); 400 invalid_query with the parser's position; 503 search_timeout when cancelled`,
    scopes: [`${target}:read`], status: 200, response: SEARCH_PAGE_SCHEMAS[target],
    query: searchQuery,
    handler: async ({ principal, query, services }) =>
      searchPageOut(
        await services.search.search(principal, target, {
          query: query.query,
          page: query.page,
          size: query.size,
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          includeDeleted: query.include_deleted,
        }),
        query.sort_by,
      ),
  });

export const searchRoutes = [searchRoute("events", "info"), searchRoute("attributes", "value"), searchRoute("correlations", "target_attribute_value")];
