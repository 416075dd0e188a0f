/**
 * The PostgreSQL backend's postings (`search_postings`) against the stored documents: the keys they
 * store, with their ts, doc, facet (src/search/postgres/facets.ts) and audience (coded,
 * src/search/postgres/codes.ts), and the term dictionary
 * (`search_terms`, src/search/postgres/terms.ts) against the postings: every keyword and text term that has a posting must have its entry (entries
 * without postings are allowed: the dictionary does not shrink), and a term's state must be true:
 * state 1 inlines its only posting exactly, state 0 has none (NULL: unknown, always true).
 */
import crypto from "node:crypto";
import type pg from "pg";
import { facetSql } from "../../src/search/postgres/facets.ts";
import { unpack } from "../../src/search/postgres/packing.ts";
import { dictionaryEntry, presenceFields } from "../../src/search/postgres/postings.ts";
import type { IndexName } from "../../src/search/search-index.ts";

/**
 * A document's expected postings (its stored keys, unpacked from `body`, src/search/postgres/packing.ts,
 * and the presence keys they imply, here worked out from the key ranges) as one fingerprint: md5 of
 * the keys in code point order, each preceded by its length in bytes, as `fingerprintSql` writes the
 * stored ones. By the body's md5 and index: unpacking every body again was most of each check.
 */
const expectedKeys = new Map<string, { hash: string; n: number }>();

function keysFingerprint(keys: string[]): { hash: string; n: number } {
  const sorted = keys.map((k) => Buffer.from(k, "utf8")).sort(Buffer.compare);
  const hash = crypto.createHash("md5");
  for (const k of sorted) hash.update(`${k.length}:`).update(k);
  return { hash: hash.digest("hex"), n: sorted.length };
}

/**
 * Postings rows that are not exactly the stored keys of the stored documents and the presence keys
 * they imply (src/search/postgres/postings.ts `presenceKey`), each with its document's ts, doc, facet
 * (src/search/postgres/facets.ts) and audience (coded, src/search/postgres/codes.ts) (0: in step).
 * Compared per document and (ts, facet, audience): the stored keys of each group as a fingerprint
 * made by PostgreSQL, a document's expected keys as the same fingerprint made here; a group that
 * differs counts all its rows, stored and expected.
 */
export async function postingsOutOfStep(pool: pg.Pool): Promise<number> {
  const { rows: docs } = await pool.query<{ index_name: IndexName; ts: string; doc: string; facet: string | null; vis: string | null; body_md5: string }>(
    `SELECT d.index_name, COALESCE(d.ts, '-infinity')::text AS ts, d.doc, ${facetSql("d")} AS facet, NULLIF(d.visible_to, '{-1}')::text AS vis, md5(d.body) AS body_md5
     FROM search_documents d`,
  );
  const cacheKey = (d: (typeof docs)[number]) => `${d.index_name} ${d.body_md5}`;
  const unread = docs.filter((d) => !expectedKeys.has(cacheKey(d)));
  if (unread.length) {
    const { rows: bodies } = await pool.query<{ doc: string; body: Buffer }>("SELECT doc, body FROM search_documents WHERE doc = ANY($1::bigint[])", [unread.map((d) => d.doc)]);
    const bodyOf = new Map(bodies.map((b) => [b.doc, b.body]));
    for (const d of unread) {
      const body = bodyOf.get(d.doc);
      if (body === undefined) continue; // deleted in between: counted as out of step below
      const keys = unpack(body).keys;
      const presence = presenceFields(d.index_name)
        .filter(({ ranges }) => keys.some((k) => ranges.some(([lo, hi]) => k >= lo && k < hi)))
        .map(({ key }) => key);
      expectedKeys.set(cacheKey(d), keysFingerprint([...keys, ...presence]));
    }
  }
  // Group keys as text: NUL cannot occur in PostgreSQL text, so it separates them unambiguously.
  const group = (doc: string, ts: string, facet: string | null, vis: string | null) => [doc, ts, facet === null ? "-" : `+${facet}`, vis === null ? "-" : `+${vis}`].join("\u0000");
  const expected = new Map<string, { hash: string; n: number }>();
  let differ = 0;
  for (const d of docs) {
    const keys = expectedKeys.get(cacheKey(d));
    if (keys === undefined) differ++;
    else if (keys.n > 0) expected.set(group(d.doc, d.ts, d.facet, d.vis), keys);
  }
  const { rows: stored } = await pool.query<{ doc: string; ts: string; facet: string | null; vis: string | null; hash: string; n: string }>(
    `SELECT p.doc, p.ts::text AS ts, f.value AS facet, a.vis::text AS vis,
            md5(string_agg(octet_length(p.key) || ':' || p.key, '' ORDER BY p.key COLLATE "C")) AS hash, count(*) AS n
     FROM search_postings p LEFT JOIN search_facets f ON f.id = p.fct LEFT JOIN search_audiences a ON a.id = p.aud
     GROUP BY p.doc, p.ts, f.value, a.vis`,
  );
  for (const p of stored) {
    const key = group(p.doc, p.ts, p.facet, p.vis);
    const want = expected.get(key);
    expected.delete(key);
    if (want === undefined) differ += Number(p.n);
    else if (want.hash !== p.hash || want.n !== Number(p.n)) differ += Number(p.n) + want.n;
  }
  for (const want of expected.values()) differ += want.n;
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
