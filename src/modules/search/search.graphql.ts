import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { SearchHit } from "../../search/search-index.ts";
import type { SearchPage, SearchTarget } from "./search.service.ts";
import { exportUrl } from "./explore-export.ts";

export const SearchHitType = builder.objectRef<SearchHit>("SearchHit").implement({
  description: "One document: `source` is the indexed document (fields of the peer's search documents).",
  fields: (t) => ({
    index: t.exposeString("index"),
    id: t.exposeString("id"),
    score: t.exposeFloat("score", { nullable: true, description: "Relevance; null unless sorted by _score" }),
    source: t.field({ type: "JSON", resolve: (h) => h.source }),
  }),
});

export const SearchPageType = builder.objectRef<SearchPage>("SearchPage").implement({
  fields: (t) => ({
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
    total: t.exposeInt("total", { description: "Number of matching documents, exact up to 10 000 (see totalRelation)" }),
    totalRelation: t.exposeString("totalRelation", { description: "eq: total is exact; gte: there are more (the count stops at 10 000)" }),
    took: t.exposeInt("took", { description: "Milliseconds the backend spent" }),
    maxScore: t.exposeFloat("maxScore", { nullable: true }),
    hits: t.field({ type: [SearchHitType], resolve: (p) => p.hits }),
  }),
});

const SearchSort = builder.enumType("SearchSort", { values: { TIMESTAMP: { value: "@timestamp" }, SCORE: { value: "_score" } } as const });
const SortOrder = builder.enumType("SearchSortOrder", { values: { ASC: { value: "asc" }, DESC: { value: "desc" } } as const });

const searchField = (target: SearchTarget, defaultField: string) =>
  builder.queryField(`search${target[0].toUpperCase()}${target.slice(1)}`, (t) =>
    t.field({
      type: SearchPageType,
      description: `Lucene search over the ${target} index (default field \`${defaultField}\`), as GET /${target}/search`,
      extensions: cost.search("size"),
      args: {
        query: t.arg.string({ required: true }),
        page: t.arg.int({ defaultValue: 1 }),
        size: t.arg.int({ defaultValue: 10 }),
        sortBy: t.arg({ type: SearchSort, defaultValue: "@timestamp" }),
        sortOrder: t.arg({ type: SortOrder, defaultValue: "desc" }),
        includeDeleted: t.arg.boolean({ defaultValue: false }),
      },
      resolve: (_root, a, ctx) =>
        ctx.services.search.search(caller(ctx), target, {
          query: a.query,
          page: a.page ?? 1,
          size: a.size ?? 10,
          sortBy: a.sortBy ?? "@timestamp",
          sortOrder: a.sortOrder ?? "desc",
          includeDeleted: a.includeDeleted ?? false,
        }),
    }),
  );

searchField("events", "info");
searchField("attributes", "value");
searchField("correlations", "target_attribute_value");

const ExportTargetEnum = builder.enumType("ExploreExportTarget", { values: { EVENTS: { value: "events" }, ATTRIBUTES: { value: "attributes" } } as const });
const ExportFormatEnum = builder.enumType("ExploreExportFormat", { values: { JSON: { value: "json" }, NDJSON: { value: "ndjson" }, CSV: { value: "csv" } } as const });

builder.queryField("exploreExportUrl", (t) =>
  t.string({
    description:
      "The relative URL of GET /events/export or /attributes/export for this query: every matching document the caller may read, streamed as a download " +
      "(GraphQL answers JSON, so it names the stream). Checked now as the download would be (scope, parameters 422, query 400); the search runs when the URL is fetched, with the caller's token.",
    args: {
      target: t.arg({ type: ExportTargetEnum, required: true }),
      query: t.arg.string({ required: true }),
      format: t.arg({ type: ExportFormatEnum, defaultValue: "json" }),
      from: t.arg.string({ description: "Lower bound of @timestamp, inclusive: epoch seconds, YYYY-MM-DD or ISO 8601 date-time" }),
      to: t.arg.string({ description: "Upper bound of @timestamp, inclusive (a date alone: its last millisecond)" }),
    },
    resolve: (_root, a, ctx) =>
      exportUrl(caller(ctx), a.target, { query: a.query, format: a.format ?? "json", from: a.from ?? undefined, to: a.to ?? undefined }),
  }),
);
