import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { SearchHit } from "../../search/search-index.ts";
import type { SearchField, SearchPage, SearchTarget } from "./search.service.ts";
import { exportUrl } from "./explore-export.ts";
import { PAGE_DOC } from "../../graphql/page.ts";
import { enumValues } from "../../graphql/enums.ts";
import { SEARCH_HIT_DOC as H, SEARCH_PAGE_DOC as P, SEARCH_TYPES_DOC } from "./search.docs.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

const QUERY = "A Lucene query (field:value, AND/OR/NOT, wildcards, ranges, fuzzy~ and phrase slop)";

export const SearchHitType = builder.objectRef<SearchHit>("SearchHit").implement({
  description: `${SEARCH_TYPES_DOC.SearchHit}; source is the document`,
  fields: (t) => ({
    index: t.exposeString("index", { description: rest(H.index, "_index") }),
    id: t.exposeString("id", { description: rest(H.id, "_id") }),
    score: t.exposeFloat("score", { nullable: true, description: rest(H.score, "_score") }),
    source: t.field({
      type: "JSON",
      description: rest(`${H.source}: JSON for that reason`, "_source"),
      resolve: (h) => h.source,
    }),
  }),
});

export const SearchPageType = builder.objectRef<SearchPage>("SearchPage").implement({
  description: `${SEARCH_TYPES_DOC.SearchPage}, as the REST searches answer it`,
  fields: (t) => ({
    page: t.exposeInt("page", { description: PAGE_DOC.pageField }),
    size: t.exposeInt("size", { description: PAGE_DOC.sizeField }),
    total: t.exposeInt("total", { description: `${P.total} (see totalRelation)` }),
    totalRelation: t.exposeString("totalRelation", { description: rest(P.totalRelation, "total_relation") }),
    took: t.exposeInt("took", { description: P.took }),
    maxScore: t.exposeFloat("maxScore", { nullable: true, description: rest(P.maxScore, "max_score") }),
    hits: t.field({ type: [SearchHitType], description: rest(P.hits, "results"), resolve: (p) => p.hits }),
  }),
});

const SearchSort = builder.enumType("SearchSort", {
  description: "What a search sorts by (REST sort_by)",
  values: {
    TIMESTAMP: { value: "@timestamp", description: "The document's last change (REST value `@timestamp`)" },
    SCORE: { value: "_score", description: "Relevance to the query (REST value `_score`)" },
  } as const,
});
const SortOrder = builder.enumType("SearchSortOrder", {
  description: "Sort direction (REST sort_order)",
  values: { ASC: { value: "asc", description: "Ascending (REST value `asc`)" }, DESC: { value: "desc", description: "Descending (REST value `desc`)" } } as const,
});

const searchField = (target: SearchTarget, defaultField: string) =>
  builder.queryField(`search${target[0].toUpperCase()}${target.slice(1)}`, (t) =>
    t.field({
      type: SearchPageType,
      description: `Lucene search over the ${target} index (default field \`${defaultField}\`), as GET /${target}/search`,
      extensions: cost.search("size"),
      args: {
        query: t.arg.string({ required: true, description: QUERY }),
        page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
        size: t.arg.int({ defaultValue: 10, description: PAGE_DOC.size(10) }),
        sortBy: t.arg({ type: SearchSort, defaultValue: "@timestamp", description: "What to sort by (REST sort_by)" }),
        sortOrder: t.arg({ type: SortOrder, defaultValue: "desc", description: "Sort direction (REST sort_order)" }),
        includeDeleted: t.arg.boolean({ defaultValue: false, description: "Include soft-deleted documents (REST include_deleted)" }),
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

const ExportTargetEnum = builder.enumType("ExploreExportTarget", {
  description: "Which index an Explore download reads",
  values: enumValues({ events: "GET /events/export: the events index", attributes: "GET /attributes/export: the attributes index" }),
});
const ExportFormatEnum = builder.enumType("ExploreExportFormat", {
  description: "The file format of an Explore download (REST format)",
  values: enumValues({ json: "One JSON array", ndjson: "One JSON document per line", csv: "CSV, one row per document" }),
});

builder.queryField("exploreExportUrl", (t) =>
  t.string({
    description:
      "The relative URL of GET /events/export or /attributes/export for this query: every matching document the caller may read, streamed as a download " +
      "(GraphQL answers JSON, so it names the stream). Checked now as the download would be (scope, parameters 422, query 400); the search runs when the URL is fetched, with the caller's token.",
    args: {
      target: t.arg({ type: ExportTargetEnum, required: true, description: "Events or attributes" }),
      query: t.arg.string({ required: true, description: QUERY }),
      format: t.arg({ type: ExportFormatEnum, defaultValue: "json", description: "The file format" }),
      from: t.arg.string({ description: "Lower bound of @timestamp, inclusive: epoch seconds, YYYY-MM-DD or ISO 8601 date-time" }),
      to: t.arg.string({ description: "Upper bound of @timestamp, inclusive (a date alone: its last millisecond)" }),
    },
    resolve: (_root, a, ctx) =>
      exportUrl(caller(ctx), a.target, { query: a.query, format: a.format ?? "json", from: a.from ?? undefined, to: a.to ?? undefined }),
  }),
);

const SearchFieldType = builder.objectRef<SearchField>("SearchField").implement({
  description: "A field an Explore query may name, with its type (field-name completion)",
  fields: (t) => ({
    index: t.exposeString("index", { description: "The index holding it: events or attributes" }),
    name: t.exposeString("name", { description: "The field name as written in a query (e.g. tags.name, @timestamp)" }),
    type: t.exposeString("type", { description: "keyword, text, long, boolean, date, ip or ip_range (OpenSearch semantics)" }),
  }),
});

builder.queryField("searchFields", (t) =>
  t.field({
    type: [SearchFieldType],
    description: "The searchable fields of the events and attributes indices the caller may search (events:read, attributes:read)",
    resolve: (_root, _a, ctx) => ctx.services.search.fields(caller(ctx)),
  }),
);
