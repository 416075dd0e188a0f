import { z } from "zod";
import { SEARCH_HIT_DOC as H, SEARCH_PAGE_DOC as P, SEARCH_TYPES_DOC, type SearchPage, type SearchTarget } from "../../src/modules/search/index.ts";
import type { SearchHit } from "../../src/search/search-index.ts";
import { timestampMillis } from "../../src/search/timestamps.ts";
import { named } from "../contract.ts";

/**
 * Search documents: the `_source` of a hit, as the indexer writes them (`src/indexing/documents.ts`,
 * the peer's documents). Loose: the named fields are those a client relies on; an index holds more
 * (access fields, `expanded.*`), and a document indexed by an older version may lack newer ones.
 */
const DocumentTagSchema = named(
  "SearchDocumentTag",
  z.looseObject({ name: z.string(), colour: z.string().optional(), local: z.boolean().optional(), is_galaxy: z.boolean().optional() }),
  "A tag as search documents carry it",
);
const epochSeconds = z.number().describe("Unix time in seconds");

export const EventDocumentSchema = named(
  "EventDocument",
  z.looseObject({
    uuid: z.string(),
    info: z.string(),
    date: z.string().optional().describe("The event's date, YYYY-MM-DD"),
    published: z.boolean().optional(),
    deleted: z.boolean().optional(),
    distribution: z.int().optional(),
    threat_level: z.int().optional(),
    analysis: z.int().optional(),
    timestamp: epochSeconds.optional().describe("Last change, Unix time in seconds"),
    attribute_count: z.int().optional().describe("Attributes you may read (the owners' count for their organisation's events)"),
    object_count: z.int().optional(),
    organisation: z.looseObject({ uuid: z.string(), name: z.string() }).optional(),
    orgc: z.looseObject({ uuid: z.string(), name: z.string() }).optional(),
    tags: z.array(DocumentTagSchema).optional(),
    "@timestamp": z.string().describe("The last change as an ISO 8601 date-time without offset (UTC), as the peer writes it"),
  }),
  "An event as the events index holds it",
);

export const AttributeDocumentSchema = named(
  "AttributeDocument",
  z.looseObject({
    uuid: z.string(),
    event_uuid: z.string(),
    object_uuid: z.string().nullable().optional().describe("Its object; null for an attribute outside objects"),
    category: z.string().optional(),
    type: z.string(),
    value: z.string(),
    comment: z.string().optional(),
    to_ids: z.boolean().optional(),
    deleted: z.boolean().optional().describe("Its own, its object's or its event's soft deletion"),
    distribution: z.int().optional(),
    timestamp: epochSeconds.optional().describe("Last change, Unix time in seconds"),
    first_seen: epochSeconds.nullable().optional(),
    last_seen: epochSeconds.nullable().optional(),
    tags: z.array(DocumentTagSchema).optional(),
    expanded: z
      .looseObject({
        ip: z.string().optional().describe("The address an ip-src/ip-dst value or composite carries"),
        ip_range: z.string().optional().describe("The CIDR block an ip-src/ip-dst value holds"),
        value: z.array(z.string()).optional().describe("The value and each half of a composite value (value1, value2), lower-cased: MISP's case-insensitive value match"),
      })
      .optional()
      .describe("Values derived from the attribute's value (expanded.ip, expanded.ip_range, expanded.value)"),
    "@timestamp": z.string().describe("The last change, ISO 8601 in UTC"),
  }),
  "An attribute as the attributes index holds it",
);

export const CorrelationDocumentSchema = named(
  "CorrelationDocument",
  z.looseObject({
    source_attribute_uuid: z.string(),
    source_attribute_type: z.string().optional(),
    source_attribute_value: z.string().optional(),
    source_event_uuid: z.string(),
    target_attribute_uuid: z.string(),
    target_attribute_type: z.string().optional(),
    target_attribute_value: z.string().optional(),
    target_event_uuid: z.string(),
    match_type: z.enum(["term", "composite", "cidr"]).optional(),
    value: z.string().optional().describe("The value the two attributes share"),
    "@timestamp": z.string().describe("When the pair was found, ISO 8601 with +00:00"),
  }),
  "One direction of a correlating pair, as the correlations index holds it (two documents per pair)",
);

function hitSchema<T extends z.ZodType>(id: string, source: T) {
  return named(
    id,
    z.object({
      _index: z.string().describe(H.index),
      _id: z.string().describe(H.id),
      _score: z.number().nullable().describe(H.score),
      _source: source,
      sort: z.tuple([z.number().nullable(), z.string()]).describe("The sort values: the score (sort_by _score) or @timestamp in epoch milliseconds, then the id"),
    }),
    `${SEARCH_TYPES_DOC.SearchHit}: a raw hit, as the peer's OpenSearch answers it`,
  );
}

export const SEARCH_HIT_SCHEMAS = {
  events: hitSchema("EventSearchHit", EventDocumentSchema),
  attributes: hitSchema("AttributeSearchHit", AttributeDocumentSchema),
  correlations: hitSchema("CorrelationSearchHit", CorrelationDocumentSchema),
} as const;

function searchPageSchema<T extends z.ZodType>(id: string, hit: T) {
  return named(
    id,
    z.object({
      page: z.int().min(1),
      size: z.int().min(1),
      total: z.int().min(0).describe(`${P.total} (total_relation gte)`),
      total_relation: z.enum(["eq", "gte"]).describe(`Ours. ${P.totalRelation}`),
      took: z.int().min(0).describe(P.took),
      timed_out: z.literal(false).describe("Always false: a search that times out answers 503"),
      max_score: z.number().nullable().describe(P.maxScore),
      results: z.array(hit).describe(P.hits),
    }),
    `${SEARCH_TYPES_DOC.SearchPage}, with raw hits`,
  );
}

export const SEARCH_PAGE_SCHEMAS = {
  events: searchPageSchema("EventSearchPage", SEARCH_HIT_SCHEMAS.events),
  attributes: searchPageSchema("AttributeSearchPage", SEARCH_HIT_SCHEMAS.attributes),
  correlations: searchPageSchema("CorrelationSearchPage", SEARCH_HIT_SCHEMAS.correlations),
} as const;

type DocumentOf<T extends SearchTarget> = z.output<(typeof SEARCH_HIT_SCHEMAS)[T]>["_source"];
/** A raw hit of the index `T`: the shape every hit schema shares, with that index's document. */
export type SearchHitOut<T extends SearchTarget = SearchTarget> = Omit<z.output<(typeof SEARCH_HIT_SCHEMAS)["events"]>, "_source"> & { _source: DocumentOf<T> };
export type SearchPageOut<T extends SearchTarget = SearchTarget> = Omit<z.output<(typeof SEARCH_PAGE_SCHEMAS)["events"]>, "results"> & { results: SearchHitOut<T>[] };

/** The peer's P3 envelope with raw-hit-shaped results (`_index`, `_id`, `_score`, `_source`, `sort`). */
export function searchPageOut<T extends SearchTarget>(page: SearchPage, sortBy: "@timestamp" | "_score"): SearchPageOut<T> {
  return {
    page: page.page,
    size: page.size,
    total: page.total,
    total_relation: page.totalRelation,
    took: page.took,
    timed_out: page.timedOut,
    max_score: page.maxScore,
    results: page.hits.map((h) => searchHitOut<T>(h, sortBy)),
  };
}

/** One raw hit as the peer's OpenSearch answers it (search results and the Explore export). */
export function searchHitOut<T extends SearchTarget>(h: SearchHit, sortBy: "@timestamp" | "_score"): SearchHitOut<T> {
  return {
    _index: h.index,
    _id: h.id,
    _score: h.score,
    // The index's document as stored: its schema (above) names the fields clients rely on.
    _source: h.source as DocumentOf<T>,
    sort: [sortBy === "_score" ? h.score : timestampMillis(h.source["@timestamp"]), h.id],
  };
}
