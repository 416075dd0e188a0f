/**
 * The PostgreSQL backend's postings (`search_postings`) against the stored documents: the keys they
 * store, with their ts, doc, facet (src/search/postgres/facets.ts) and audience (coded,
 * src/search/postgres/codes.ts), and the term dictionary
 * (`search_terms`, src/search/postgres/terms.ts) against the postings: every keyword and text term that has a posting must have its entry (entries
 * without postings are allowed: the dictionary does not shrink), and a term's state must be true:
 * state 1 inlines its only posting exactly, state 0 has none (NULL: unknown, always true).
 */
import type pg from "pg";
import { facetSql } from "../../src/search/postgres/facets.ts";
import { dictionaryEntry, presenceFields } from "../../src/search/postgres/postings.ts";
import { INDEX_NAMES } from "../../src/search/search-index.ts";

/**
 * Postings rows that are not exactly the stored keys of the stored documents and the presence keys
 * they imply (src/search/postgres/postings.ts `presenceKey`, here written in SQL) (0: in step).
 */
const documentColumns = `COALESCE(d.ts, '-infinity') AS ts, d.doc, ${facetSql("d")} AS facet, NULLIF(d.visible_to, '{-1}') AS vis`;

export async function postingsOutOfStep(pool: pg.Pool): Promise<number> {
  const params: string[] = [];
  const p = (v: string) => `$${params.push(v)}`;
  const presence = INDEX_NAMES.flatMap((index) =>
    presenceFields(index).map(
      ({ key, ranges }) => `SELECT ${p(key)}::text, ${documentColumns} FROM search_documents d
        WHERE d.index_name = ${p(index)} AND EXISTS (SELECT 1 FROM unnest(d.posting_keys) k WHERE ${ranges.map(([lo, hi]) => `(k >= ${p(lo)} COLLATE "C" AND k < ${p(hi)} COLLATE "C")`).join(" OR ")})`,
    ),
  );
  const expected = [`SELECT k, ${documentColumns} FROM search_documents d, unnest(d.posting_keys) AS k`, ...presence].join(" UNION ALL ");
  const stored = `SELECT p.key, p.ts, p.doc, f.value, a.vis FROM search_postings p
    LEFT JOIN search_facets f ON f.id = p.fct LEFT JOIN search_audiences a ON a.id = p.aud`;
  const { rows } = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM ((${expected} EXCEPT ALL ${stored})
       UNION ALL (${stored} EXCEPT ALL (${expected}))) x`,
    params,
  );
  return Number(rows[0]!.n);
}

export interface DictionaryCheck {
  /** Keys of postings without their entry (or with a wrong length). */
  missing: string[];
  /** Keys whose state 0 or 1 is not what their postings are. */
  wrong: string[];
  entries: number;
  /** Entries in state 1. */
  inlined: number;
}

export async function checkDictionary(pool: pg.Pool): Promise<DictionaryCheck> {
  const { rows: keys } = await pool.query<{ key: string }>("SELECT DISTINCT key FROM search_postings");
  const { rows: terms } = await pool.query<{ key: string; length: number; pulse: number | null }>("SELECT field || chr(1) || term AS key, length, pulse FROM search_terms");
  const stored = new Map(terms.map((t) => [t.key, t.length]));
  const missing = keys
    .map((k) => k.key)
    .filter((key) => {
      const entry = dictionaryEntry(key);
      return entry !== null && stored.get(key) !== entry.length;
    });
  const { rows: wrong } = await pool.query<{ key: string }>(
    `SELECT t.field || chr(1) || t.term AS key FROM search_terms t
     CROSS JOIN LATERAL (SELECT count(*) AS n, min(p.ts) AS ts, min(p.doc) AS doc, bool_and(p.live) AS live, min(p.aud) AS aud, min(p.fct) AS fct
                         FROM search_postings p WHERE p.key = t.field || chr(1) || t.term) s
     WHERE (t.pulse = 0 AND s.n <> 0)
        OR (t.pulse = 1 AND (s.n <> 1 OR s.ts IS DISTINCT FROM t.ts OR s.doc IS DISTINCT FROM t.doc OR s.live IS DISTINCT FROM t.live OR s.aud IS DISTINCT FROM t.aud OR s.fct IS DISTINCT FROM t.fct))`,
  );
  return { missing, wrong: wrong.map((w) => w.key), entries: terms.length, inlined: terms.filter((t) => t.pulse === 1).length };
}
