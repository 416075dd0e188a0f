/**
 * The PostgreSQL backend's term dictionary (`search_terms`, src/search/postgres/postings.ts) against
 * its postings: every keyword and text term that has a posting must have its entry (entries
 * without postings are allowed: the dictionary does not shrink).
 */
import type pg from "pg";
import { dictionaryEntry } from "../../src/search/postgres/postings.ts";

/** The dictionary keys of postings that have no entry, and the number of entries. */
export async function dictionaryGaps(pool: pg.Pool): Promise<{ missing: string[]; entries: number }> {
  const { rows: keys } = await pool.query<{ key: string }>("SELECT DISTINCT key FROM search_postings");
  const { rows: terms } = await pool.query<{ key: string; length: number }>("SELECT field || chr(1) || term AS key, length FROM search_terms");
  const stored = new Map(terms.map((t) => [t.key, t.length]));
  const missing = keys
    .map((k) => k.key)
    .filter((key) => {
      const entry = dictionaryEntry(key);
      return entry !== null && stored.get(key) !== entry.length;
    });
  return { missing, entries: terms.length };
}
