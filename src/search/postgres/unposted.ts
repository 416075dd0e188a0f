/**
 * The part of a document's `fields` that the postings do not hold (table version 12,
 * bench/README.md "Search", "Table version 12"): the fields without postings (`./postings.ts`
 * `hasPostings`: identifiers, the bookkeeping fields, ip ranges) and an entry for each of the
 * optional ones among them that the document has (`PRESENT`, `presenceEntry`). One GIN index
 * (`jsonb_path_ops`) on `search_document_unposted(fields)` answers their terms (`@>`) and the
 * presence of those fields; every other field's terms and presence come from the postings. The GIN
 * on all of `fields` and the one on its keys repeated the postings and were 40-60% of a document
 * insert's time.
 *
 * The function removes the fields that have postings, so that a field added to `../fields.ts`
 * without postings is indexed here too; which fields it removes is part of the table version (an
 * index on an IMMUTABLE function is not rebuilt when the function changes):
 * test/integration/search-postgres-schema.test.ts checks the stored function against this list.
 *
 * Table version 13: the presence of those optional fields is also a partial B-tree each
 * (`presenceIndexesSql`), which `_exists_` and the ip range tests read instead of the GIN: a
 * `jsonb_path_ops` GIN rechecks every row it finds with its expression (~62 keys removed from
 * `fields`, 3-10 us a row), a partial index's predicate is proved by the planner and never
 * rechecked. The GIN keeps its presence entries (no rebuild of it in the upgrade).
 */
import { INDEX_FIELDS, type FieldType } from "../fields.ts";
import { hasPostings } from "./postings.ts";

export const UNPOSTED = "search_document_unposted";

/**
 * Optional fields without postings, of few documents each: `_exists_` on them, and the ip range
 * tests (which first select the documents that have a range), read their partial index.
 */
const PRESENT = ["expanded.ip_range", "object_uuid", "extends_uuid"];

const keyTypes = (): [string, FieldType][] =>
  Object.values(INDEX_FIELDS).flatMap((f) =>
    Object.entries(f.fields).flatMap(([key, type]): [string, FieldType][] => (type === "text" ? [[key, type], [`${key}.keyword`, "keyword"]] : [[key, type]])),
  );

/** The keys of `fields` that have postings (`@timestamp`: the `ts` column), sorted. */
export function postedKeys(): string[] {
  return [...new Set(keyTypes().filter(([key, type]) => key === "@timestamp" || hasPostings(key, type)).map(([key]) => key))].sort();
}

/** Whether `key` is in `search_document_unposted(fields)`. */
export const unposted = (key: string, type: FieldType): boolean => key !== "@timestamp" && !hasPostings(key, type);

/** Whether a partial index holds the documents that have `key` (`presenceIndexesSql`). */
export const presenceIndexed = (key: string): boolean => PRESENT.includes(key);

/**
 * The documents that have `key` (`presenceIndexed`), as written in the partial index's predicate: a
 * literal, not a bind parameter, so that the planner proves the predicate in generic plans too (the
 * key is one of PRESENT, never the caller's text).
 */
export const presenceCondition = (key: string, row = "d"): string => `${row}.fields ? '${key.replaceAll("'", "''")}'`;

const presenceIndexName = (key: string) => `search_documents_has_${key.replace(/[^a-z0-9_]/gi, "_")}_idx`;

/** The partial index of each field of PRESENT (table version 13), each statement idempotent. */
export const presenceIndexesSql = (): string[] =>
  PRESENT.map((k) => `CREATE INDEX IF NOT EXISTS "${presenceIndexName(k)}" ON "search_documents" ("doc") WHERE ${presenceCondition(k, '"search_documents"')}`);

/** Their names, sorted. */
export const presenceIndexNames = (): string[] => PRESENT.map(presenceIndexName).sort();

const textArray = (xs: string[]) => `'{${xs.map((x) => `"${x}"`).join(",")}}'::text[]`;

/** The GIN's entry of the documents that have `key` (versions 12 and on; read since version 13 by none). */
const presenceEntry = (key: string): Record<string, true> => ({ [`_exists_:${key}`]: true });

/**
 * Immutable operators and constants only (not `jsonb_build_object`, `to_jsonb`: stable, nor a
 * `keyvalue()` jsonpath: ~60 us a row), so that PostgreSQL inlines the body where it is called:
 * every recheck of a row found by the index computes it again (~10 us, mostly the key removal).
 */
export function unpostedFunctionSql(): string {
  const marks = PRESENT.map((k) => `CASE WHEN fields ? '${k}' THEN '${JSON.stringify(presenceEntry(k))}'::jsonb ELSE '{}'::jsonb END`).join(" || ");
  const rest = `fields - ${textArray(postedKeys())}`;
  return `CREATE OR REPLACE FUNCTION ${UNPOSTED}(fields jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN fields ?| ${textArray(PRESENT)} THEN (${rest}) || ${marks} ELSE ${rest} END $$;`;
}
