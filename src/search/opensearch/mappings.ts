/**
 * OpenSearch mappings generated from `../fields.ts` (the single source of truth).
 *
 * - `text`: `standard` analyzer (the only analyzers the bare distribution has are the built-in
 *   ones) plus a `keyword` sub-field for exact matching (`value.keyword`);
 * - `keyword`, `long`, `boolean`, `date`, `ip`, `ip_range` map one to one;
 * - keyword (and `.keyword`) fields carry `ignore_above: 8191` instead of the peer's 256: Lucene
 *   refuses terms over 32 766 UTF-8 bytes and would reject the WHOLE document, and 8 191
 *   characters fit that limit whatever the characters; every value up to 8 191 characters is
 *   matched exactly (the peer loses everything over 256);
 * - `dynamic: false` at the root (inherited by every object): fields not listed are kept in
 *   `_source` but not indexed, so writes never fail on an extra field and a query on an unlisted
 *   field matches nothing (no error), as the PostgreSQL backend does. `strict` would reject whole
 *   documents carrying one unexpected field, which the indexer cannot afford.
 */
import { INDEX_FIELDS, type FieldType } from "../fields.ts";
import type { IndexName } from "../search-index.ts";

/** Longest keyword value indexed (chars): 4 bytes per char stays under Lucene's 32 766-byte term limit. */
export const KEYWORD_IGNORE_ABOVE = 8191;

type Property = Record<string, unknown>;

function leaf(type: FieldType): Property {
  switch (type) {
    case "text":
      return { type: "text", analyzer: "standard", fields: { keyword: { type: "keyword", ignore_above: KEYWORD_IGNORE_ABOVE } } };
    case "keyword":
      return { type: "keyword", ignore_above: KEYWORD_IGNORE_ABOVE };
    default:
      return { type };
  }
}

/** `{ "a.b": t }` -> `{ a: { properties: { b: leaf(t) } } }`. */
export function propertiesFor(fields: Record<string, FieldType>): Record<string, Property> {
  const root: Record<string, Property> = {};
  for (const [name, type] of Object.entries(fields)) {
    const parts = name.split(".");
    let level = root;
    for (const part of parts.slice(0, -1)) {
      const obj = (level[part] ??= { properties: {} }) as { properties?: Record<string, Property> };
      if (!obj.properties) throw new Error(`fields.ts: ${name} nests under a leaf field`);
      level = obj.properties;
    }
    const last = parts.at(-1)!;
    if (level[last]) throw new Error(`fields.ts: ${name} is declared twice or is also an object`);
    level[last] = leaf(type);
  }
  return root;
}

export function mappingsFor(index: IndexName): Record<string, unknown> {
  return { dynamic: false, properties: propertiesFor(INDEX_FIELDS[index].fields) };
}

/** The exact-match field for `field` (text fields match exactly on their `.keyword` sub-field). */
export function exactField(index: IndexName, field: string): string {
  return INDEX_FIELDS[index].fields[field] === "text" ? `${field}.keyword` : field;
}
