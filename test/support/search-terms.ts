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
import { unpack } from "../../src/search/postgres/packing.ts";
import { dictionaryEntry, presenceFields } from "../../src/search/postgres/postings.ts";
import type { IndexName } from "../../src/search/search-index.ts";

/**
 * Postings rows that are not exactly the stored keys of the stored documents (unpacked from their
 * `body`, src/search/postgres/packing.ts) and the presence keys they imply (src/search/postgres/postings.ts
 * `presenceKey`, here worked out from the key ranges) (0: in step).
 */
export async function postingsOutOfStep(pool: pg.Pool): Promise<number> {
  const { rows: docs } = await pool.query<{ index_name: IndexName; ts: string; doc: string; facet: string | null; vis: string | null; body: Buffer }>(
    `SELECT d.index_name, COALESCE(d.ts, '-infinity')::text AS ts, d.doc, ${facetSql("d")} AS facet, NULLIF(d.visible_to, '{-1}')::text AS vis, d.body
     FROM search_documents d`,
  );
  // Multisets of rows, compared in Node (the keys are only there once unpacked).
  const row = (key: string, ts: string, doc: string, facet: string | null, vis: string | null) => JSON.stringify([key, ts, doc, facet, vis]);
  const expected = new Map<string, number>();
  for (const d of docs) {
    const keys = unpack(d.body).keys;
    const presence = presenceFields(d.index_name)
      .filter(({ ranges }) => keys.some((k) => ranges.some(([lo, hi]) => k >= lo && k < hi)))
      .map(({ key }) => key);
    for (const key of [...keys, ...presence]) {
      const r = row(key, d.ts, d.doc, d.facet, d.vis);
      expected.set(r, (expected.get(r) ?? 0) + 1);
    }
  }
  const { rows: stored } = await pool.query<{ key: string; ts: string; doc: string; facet: string | null; vis: string | null }>(
    `SELECT p.key, p.ts::text AS ts, p.doc, f.value AS facet, a.vis::text AS vis FROM search_postings p
     LEFT JOIN search_facets f ON f.id = p.fct LEFT JOIN search_audiences a ON a.id = p.aud`,
  );
  let differ = 0;
  for (const p of stored) {
    const r = row(p.key, p.ts, p.doc, p.facet, p.vis);
    const n = expected.get(r) ?? 0;
    if (n === 0) differ++;
    else expected.set(r, n - 1);
  }
  for (const n of expected.values()) differ += n;
  return differ;
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
