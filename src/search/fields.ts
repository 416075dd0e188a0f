/**
 * The fields of each index and their types: the single description both backends build from
 * (OpenSearch mappings; the PostgreSQL backend's query compiler). Field names follow the peer's
 * documents (peer-api-notes section 4) so Explore queries written for misp-workbench keep working.
 *
 * Types, with OpenSearch semantics:
 * - `keyword`: exact, case-sensitive string (no length cut, unlike the peer's ignore_above 256);
 * - `text`: analysed with the standard analyzer (lower-cased words), with a `.keyword` sub-field
 *   holding the exact value;
 * - `long`, `boolean`, `date` (ISO 8601; `@timestamp`), `ip` (v4/v6, CIDR queries), `ip_range`.
 */
import type { IndexName } from "./search-index.ts";

export type FieldType = "keyword" | "text" | "long" | "boolean" | "date" | "ip" | "ip_range";

export interface IndexFields {
  fields: Record<string, FieldType>;
  /** Fields searched by a term written without a field. */
  defaultFields: string[];
}

/**
 * Access control: every document carries its audience (`src/auth/distribution.ts` `audienceOf`):
 * `[-1]` for every organisation, otherwise the organisations that may read it. A caller who is not
 * an administrator sees a document when it holds -1 or their organisation (`audienceFilter`).
 */
export const AUDIENCE_FIELD = "visible_to";

const tagFields: Record<string, FieldType> = {
  "tags.name": "text",
  "tags.colour": "keyword",
  "tags.local": "boolean",
  "tags.is_galaxy": "boolean",
};

/** The event's access fields, copied into the documents of what it holds (queries may use them). */
const accessFields = (prefix: string): Record<string, FieldType> => ({
  [`${prefix}distribution`]: "long",
  [`${prefix}org_id`]: "long",
  [`${prefix}orgc_id`]: "long",
});

export const INDEX_FIELDS: Record<IndexName, IndexFields> = {
  "svc-events": {
    // A term without a field finds an event by its title or by the text of its reports.
    defaultFields: ["info", "reports.name", "reports.content"],
    fields: {
      uuid: "keyword",
      info: "text",
      org_id: "long",
      orgc_id: "long",
      user_id: "long",
      date: "date",
      published: "boolean",
      analysis: "long",
      threat_level: "long",
      distribution: "long",
      attribute_count: "long",
      object_count: "long",
      timestamp: "long",
      publish_timestamp: "long",
      sighting_timestamp: "long",
      locked: "boolean",
      protected: "boolean",
      disable_correlation: "boolean",
      deleted: "boolean",
      extends_uuid: "keyword",
      "organisation.uuid": "keyword",
      "organisation.name": "text",
      "orgc.uuid": "keyword",
      "orgc.name": "text",
      ...tagFields,
      // Its live event reports that every reader of the document may read (src/indexing/documents.ts).
      "reports.uuid": "keyword",
      "reports.name": "text",
      "reports.content": "text",
      "@timestamp": "date",
      ...accessFields("event_"),
      [AUDIENCE_FIELD]: "long",
    },
  },
  "svc-attributes": {
    defaultFields: ["value"],
    fields: {
      uuid: "keyword",
      event_uuid: "keyword",
      object_uuid: "keyword",
      object_relation: "text",
      category: "text",
      type: "text",
      value: "text",
      comment: "text",
      to_ids: "boolean",
      deleted: "boolean",
      disable_correlation: "boolean",
      timestamp: "long",
      first_seen: "long",
      last_seen: "long",
      distribution: "long",
      ...tagFields,
      // Its hits on the enabled warninglists (src/modules/warninglists): warnings.name:"List of known IPv4 public DNS resolvers".
      "warnings.id": "long",
      "warnings.name": "text",
      "expanded.ip": "ip",
      "expanded.ip_range": "ip_range",
      // The value lower-cased, and each half of a composite value (value1, value2) lower-cased:
      // MISP's case-insensitive value match (restSearch `value`) as exact terms.
      "expanded.value": "keyword",
      "@timestamp": "date",
      ...accessFields("event_"),
      object_distribution: "long",
      [AUDIENCE_FIELD]: "long",
    },
  },
  "svc-correlations": {
    defaultFields: ["target_attribute_value"],
    fields: {
      source_attribute_uuid: "keyword",
      source_event_uuid: "keyword",
      source_attribute_type: "text",
      source_attribute_value: "text",
      target_attribute_uuid: "keyword",
      target_event_uuid: "keyword",
      target_attribute_type: "text",
      target_attribute_value: "text",
      match_type: "keyword",
      "@timestamp": "date",
      ...accessFields("source_event_"),
      ...accessFields("target_event_"),
      [AUDIENCE_FIELD]: "long",
    },
  },
};

/**
 * Documents an older indexer wrote, by the fields they lack (Lucene): the worker writes them
 * again from PostgreSQL at start (`src/indexing/stale-access.ts`); until it has, a query on a
 * newer field must not rely on it alone (`SearchService.hasStaleDocuments`).
 * - every index: no audience (`AUDIENCE_FIELD`);
 * - attributes: no `expanded.value`, though the value is indexed (`value.keyword`: a value over
 *   the keyword length cap has neither).
 */
export const STALE_DOCUMENTS: Record<IndexName, string> = {
  "svc-events": `NOT _exists_:${AUDIENCE_FIELD}`,
  // Parenthesised: Lucene reads `NOT a OR b` as `b AND NOT a`.
  "svc-attributes": `(NOT _exists_:${AUDIENCE_FIELD}) OR (_exists_:value.keyword AND NOT _exists_:expanded.value)`,
  "svc-correlations": `NOT _exists_:${AUDIENCE_FIELD}`,
};
