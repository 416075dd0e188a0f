import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import type { SearchHit } from "../../search/search-index.ts";
import type { IndicatorLookup, SearchField, SearchPage, SearchTarget } from "./search.service.ts";
import type { HistogramBucket, SearchHistogram } from "./search-histogram.ts";
import type { LookupEvent } from "./lookup-store.ts";
import { EVENTS_PER_VALUE } from "./lookup-store.ts";
import { MAX_LOOKUP_VALUE_LENGTH, MAX_LOOKUP_VALUES } from "./search.contracts.ts";
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
    type: t.exposeString("type", { description: "The field type, OpenSearch semantics: keyword, text, long, boolean, date, ip or ip_range" }),
  }),
});

builder.queryField("searchFields", (t) =>
  t.field({
    type: [SearchFieldType],
    description: "The searchable fields of the events and attributes indices the caller may search (events:read, attributes:read)",
    resolve: (_root, _a, ctx) => ctx.services.search.fields(caller(ctx)),
  }),
);

const ExploreIndexEnum = builder.enumType("ExploreIndex", {
  description: "One of the two indices Explore searches",
  values: enumValues({ events: "The events index (searchEvents)", attributes: "The attributes index (searchAttributes)" }),
});

const HistogramBucketType = builder.objectRef<HistogramBucket>("SearchHistogramBucket").implement({
  description: "One interval of a histogram of matches",
  fields: (t) => ({
    start: t.expose("start", { type: "DateTime", description: "Start of the interval (UTC)" }),
    count: t.exposeInt("count", { description: "Matches whose @timestamp falls in the interval" }),
  }),
});

const SearchHistogramType = builder.objectRef<SearchHistogram>("SearchHistogram").implement({
  description: "A query's matches over time on one index, counted by @timestamp, empty intervals included",
  fields: (t) => ({
    index: t.exposeString("index", { description: "The index counted: events or attributes" }),
    interval: t.exposeString("interval", {
      description: "The bucket length chosen for the range (at most 100 buckets): 1m, 5m, 15m, 30m, 1h, 3h, 6h, 12h, 1d, 1w (from Monday), 1M, 1q or 1y",
    }),
    from: t.expose("from", { type: "DateTime", description: "Start of the range counted (the given from, or the earliest match)" }),
    to: t.expose("to", { type: "DateTime", description: "End of the range counted (the given to, or now)" }),
    total: t.exposeInt("total", { description: "Matches in the range (the sum of the buckets)" }),
    buckets: t.field({ type: [HistogramBucketType], description: "The intervals from the one holding from to the one holding to", resolve: (h) => h.buckets }),
  }),
});

builder.queryField("searchHistogram", (t) =>
  t.field({
    type: SearchHistogramType,
    description:
      "Explore's histogram: the matches of a Lucene query on one index per interval of @timestamp, under the searches' access rule (scope events:read or attributes:read as the index). " +
      "A bad query is refused as the searches refuse it (400 with the parser's position); from after to, or a range over 1,000 years, 422",
    extensions: cost.search(),
    args: {
      index: t.arg({ type: ExploreIndexEnum, required: true, description: "The index to count" }),
      query: t.arg.string({ required: true, description: QUERY }),
      from: t.arg.string({ description: "Lower bound of @timestamp, inclusive: epoch seconds, YYYY-MM-DD or ISO 8601 date-time; omitted: the earliest match" }),
      to: t.arg.string({ description: "Upper bound of @timestamp, inclusive (a date alone: its last millisecond); omitted: now" }),
    },
    resolve: (_root, a, ctx) =>
      ctx.services.search.histogram(caller(ctx), { index: a.index, query: a.query, from: a.from ?? undefined, to: a.to ?? undefined }),
  }),
);

const LookupEventType = builder.objectRef<LookupEvent>("IndicatorLookupEvent").implement({
  description: "An event holding a looked-up value",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: "The event's UUID" }),
    info: t.exposeString("info", { description: "The event's title" }),
    organisation: t.exposeString("organisation", { description: "The name of the organisation that created it" }),
  }),
});

const IndicatorLookupType = builder.objectRef<IndicatorLookup>("IndicatorLookup").implement({
  description: "One value of a bulk lookup: refanged as feeds refang it, and where attributes the caller may read hold it",
  fields: (t) => ({
    input: t.exposeString("input", { description: "The value as given" }),
    value: t.exposeString("value", { description: "The value refanged (hxxp, [.], [at]...) and normalised as feeds store it" }),
    detectedType: t.exposeString("detectedType", { nullable: true, description: "The attribute type a feed would give it; null when it is no known indicator" }),
    found: t.boolean({ description: "Whether live attributes the caller may read hold it", resolve: (l) => l.found !== null }),
    count: t.int({ description: "How many such attributes hold it", resolve: (l) => l.found?.count ?? 0 }),
    eventCount: t.int({ description: "How many events those attributes are in", resolve: (l) => l.found?.eventCount ?? 0 }),
    types: t.stringList({ description: "The attribute types holding it", resolve: (l) => l.found?.types ?? [] }),
    firstSeen: t.field({
      type: "DateTime",
      nullable: true,
      description: "The earliest first_seen of those attributes (their timestamp where first_seen is unset)",
      resolve: (l) => l.found?.firstSeen ?? null,
    }),
    lastSeen: t.field({
      type: "DateTime",
      nullable: true,
      description: "The latest last_seen of those attributes (first_seen or their timestamp where unset)",
      resolve: (l) => l.found?.lastSeen ?? null,
    }),
    events: t.field({
      type: [LookupEventType],
      description: `Up to ${EVENTS_PER_VALUE} of those events, the most recently changed first`,
      resolve: (l) => l.found?.events ?? [],
    }),
  }),
});

builder.queryField("lookupIndicators", (t) =>
  t.field({
    type: [IndicatorLookupType],
    description:
      `Explore's bulk lookup: which of these values (at most ${MAX_LOOKUP_VALUES}, each at most ${MAX_LOOKUP_VALUE_LENGTH} characters, 422 beyond) live attributes the caller may read hold, ` +
      "where and since when, one answer per value in the order given. Values are refanged as feeds refang them. Scopes attributes:read and events:read",
    extensions: cost.search(),
    args: { values: t.arg.stringList({ required: true, description: "The indicators, defanged or not" }) },
    resolve: (_root, a, ctx) => ctx.services.search.lookupIndicators(caller(ctx), { values: a.values }),
  }),
);
