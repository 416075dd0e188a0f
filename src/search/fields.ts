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
  /**
   * Access control: a caller who is not an administrator sees a document only when, for every
   * prefix listed, `<prefix>distribution` is 1-3 or `<prefix>org_id`/`<prefix>orgc_id` is theirs.
   */
  accessPrefixes: string[];
}

const tagFields: Record<string, FieldType> = {
  "tags.name": "text",
  "tags.colour": "keyword",
  "tags.local": "boolean",
  "tags.is_galaxy": "boolean",
};

const accessFields = (prefix: string): Record<string, FieldType> => ({
  [`${prefix}distribution`]: "long",
  [`${prefix}org_id`]: "long",
  [`${prefix}orgc_id`]: "long",
});

export const INDEX_FIELDS: Record<IndexName, IndexFields> = {
  "svc-events": {
    defaultFields: ["info"],
    accessPrefixes: ["event_"],
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
      "@timestamp": "date",
      ...accessFields("event_"),
    },
  },
  "svc-attributes": {
    defaultFields: ["value"],
    accessPrefixes: ["event_"],
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
      "expanded.ip": "ip",
      "expanded.ip_range": "ip_range",
      "@timestamp": "date",
      ...accessFields("event_"),
    },
  },
  "svc-correlations": {
    defaultFields: ["target_attribute_value"],
    accessPrefixes: ["source_event_", "target_event_"],
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
    },
  },
};
