/**
 * Facets: an index's one single-valued field of few distinct values (an attribute's `type`) copied
 * into every posting of its document as a code (`search_postings.fct`, `./codes.ts`, in the index
 * tuple beside `live` and `aud`) and into the dictionary's inlined postings (`search_terms.fct`).
 *
 * `type:domain AND value:*.xyz` then reads the pattern's postings and keeps those whose facet is one
 * of the `type` values holding the token `domain`, instead of looking up `type:domain` once per
 * posting (one index descent, ~2-3 us: 10,001 of them were most of that query's 80 ms at 1,000,000
 * attributes, bench/README.md "Search"). Those values come from the dictionary's exact terms of the
 * field (a few hundred), matched in Node with the analyser the postings were written with.
 *
 * The facet is NULL when the document has no value, several, or one longer than FACET_MAX_LENGTH
 * (kept out of the index tuples); such postings are looked up as before (`facetCondition`).
 */
import type pg from "pg";
import { INDEX_FIELDS } from "../fields.ts";
import type { IndexName } from "../search-index.ts";
import { analyze } from "./analyzer.ts";
import { dictionaryField, keyField, pairKey, termKey } from "./postings.ts";

/** The faceted field of each index (text or keyword, one value per document in practice). */
const FACET_FIELDS: Partial<Record<IndexName, string>> = { "svc-attributes": "type" };
export const FACET_MAX_LENGTH = 64;
/** A field with more distinct short values than this is no facet (its values are not read). */
const MAX_FACET_VALUES = 4_096;

/** The key of `fields` (`./documents.ts`) holding the faceted field's exact values. */
function exactKey(index: IndexName): string | null {
  const field = FACET_FIELDS[index];
  if (field === undefined) return null;
  return INDEX_FIELDS[index].fields[field] === "text" ? `${field}.keyword` : field;
}

/** SQL: the facet of the `search_documents` row `t` (NULL: none, see the header). */
export function facetSql(t: string): string {
  const branches = (Object.keys(FACET_FIELDS) as IndexName[]).map((index) => {
    const values = `${t}.fields -> '${exactKey(index)}'`;
    return `WHEN ${t}.index_name = '${index}' AND jsonb_array_length(${values}) = 1 AND char_length(${values} ->> 0) <= ${FACET_MAX_LENGTH} THEN ${values} ->> 0`;
  });
  return `CASE ${branches.join(" ")} END`;
}

/** The posting keys a document whose only value of the faceted field is `value` has in that field. */
function keysOfValue(index: IndexName, field: string, value: string): string[] {
  if (INDEX_FIELDS[index].fields[field] !== "text") return [termKey(index, field, value)];
  const tokens = analyze(value);
  const keys = [termKey(index, `${field}.keyword`, value), ...tokens.map((t) => termKey(index, field, t))];
  for (let i = 0; i + 1 < tokens.length; i++) keys.push(pairKey(index, field, tokens[i]!, tokens[i + 1]!));
  return keys;
}

/** Whether a posting key is one of the faceted field's (its terms, pairs, or exact values). */
function isFacetKey(index: IndexName, key: string): boolean {
  const of = keyField(key);
  const field = FACET_FIELDS[index]!;
  return of !== null && of.index === index && (of.field === field || of.field === exactKey(index));
}

/**
 * The facet codes (`./codes.ts`) of the documents that have one of `keys` (all of them keys of the
 * faceted field), or null when these keys are not the faceted field's (or it has too many values
 * to be one). A document whose facet is NULL is to be looked up. A value without a code is no
 * posting's facet.
 */
export async function facetValues(client: pg.PoolClient, index: IndexName, keys: string[]): Promise<number[] | null> {
  const exact = exactKey(index);
  if (exact === null || keys.length === 0 || !keys.every((k) => isFacetKey(index, k))) return null;
  const { rows } = await client.query<{ term: string; code: number | null }>(
    "SELECT t.term, f.id AS code FROM search_terms t LEFT JOIN search_facets f ON f.value = t.term WHERE t.field = $1 AND t.length <= $2 LIMIT $3",
    [dictionaryField(index, exact), FACET_MAX_LENGTH, MAX_FACET_VALUES + 1],
  );
  if (rows.length > MAX_FACET_VALUES) return null;
  const wanted = new Set(keys);
  const field = FACET_FIELDS[index]!;
  return rows.filter((r) => r.code !== null && keysOfValue(index, field, r.term).some((k) => wanted.has(k))).map((r) => r.code!);
}

/**
 * SQL: the posting row `alias` belongs to a document that has one of the keys (`present`) or none
 * (`!present`): its facet code is one of `codes`, or, without a facet, `lookup` holds (the keys looked
 * up: true when the document has one).
 */
export function facetCondition(alias: string, codes: string, lookup: string, present: boolean): string {
  const condition = `CASE WHEN ${alias}.fct IS NULL THEN ${lookup} ELSE ${alias}.fct = ANY(${codes}) END`;
  return present ? condition : `NOT (${condition})`;
}
