/**
 * Writes of the PostgreSQL backend: documents (`search_documents`) and their postings
 * (`search_postings`, `./postings.ts`) change together, in one transaction.
 *
 * A document's postings are found again through the keys it stores (`posting_keys`) with its ts and
 * doc number: one index descent per posting, no index on `doc` needed. Writers of the same documents
 * are serialised on 64 advisory lock buckets (by id), taken in order: otherwise two writers of one new
 * document could both insert postings, or one could delete the postings the other just wrote.
 */
import type pg from "pg";
import type { IndexName } from "../search-index.ts";
import type { DocumentRow } from "./documents.ts";
import { indexKeyRange } from "./postings.ts";

/** pg_advisory_xact_lock(LOCK_SPACE, bucket): the first key of the writers' locks (arbitrary, fixed). */
const LOCK_SPACE = 734_621_096;
const BUCKETS = 64;

/** The postings of rows being inserted or updated, from their RETURNING values. */
const INSERT_POSTINGS = `INSERT INTO search_postings (key, ts, doc, live, vis)
  SELECT k, COALESCE(w.ts, '-infinity'), w.doc, COALESCE((w.fields -> 'deleted') @> '[false]', false), NULLIF(w.visible_to, '{-1}')
  FROM w, unnest(w.posting_keys) AS k
  ORDER BY k`;

/** Deletes the postings of the rows `gone` (doc, ts, posting_keys). */
const DELETE_POSTINGS = `DELETE FROM search_postings p USING gone, unnest(gone.posting_keys) AS k
  WHERE p.key = k AND p.ts = COALESCE(gone.ts, '-infinity') AND p.doc = gone.doc`;

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const out = await work(client);
    await client.query("COMMIT");
    return out;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/** Locks the buckets of these ids (all buckets: null). */
export async function lockDocuments(client: pg.PoolClient, index: IndexName, ids: string[] | null): Promise<void> {
  await client.query(
    `SELECT pg_advisory_xact_lock($1, b) FROM (
       SELECT DISTINCT b FROM (SELECT abs(hashtext($2 || x)) % ${BUCKETS} AS b FROM unnest($3::text[]) AS x
                               UNION ALL SELECT generate_series(0, ${BUCKETS - 1}) WHERE $4) s) t ORDER BY b`,
    [LOCK_SPACE, index, ids ?? [], ids === null],
  );
}

/** Inserts or replaces documents (ids unique within the call) and their postings. */
export async function upsertDocuments(client: pg.PoolClient, index: IndexName, rows: DocumentRow[]): Promise<void> {
  const ids = rows.map((r) => r.id);
  await lockDocuments(client, index, ids);
  await client.query(
    `WITH gone AS (SELECT doc, ts, posting_keys FROM search_documents WHERE index_name = $1 AND id = ANY($2::text[])) ${DELETE_POSTINGS}`,
    [index, ids],
  );
  await client.query(
    `WITH w AS (
       INSERT INTO search_documents (index_name, id, source, fields, phrases, search_text, ts, posting_keys)
       SELECT $1, r.id, r.source, r.fields, r.phrases, r.search_text, r.ts, pk.posting_keys
       FROM unnest($2::text[], $3::jsonb[], $4::jsonb[], $5::jsonb[], $6::text[], $7::timestamptz[], $8::text[])
         AS r(id, source, fields, phrases, search_text, ts, posting_keys_json)
       CROSS JOIN LATERAL (SELECT array(SELECT jsonb_array_elements_text(r.posting_keys_json::jsonb)) AS posting_keys) pk
       ON CONFLICT (index_name, id) DO UPDATE SET source = EXCLUDED.source, fields = EXCLUDED.fields,
         phrases = EXCLUDED.phrases, search_text = EXCLUDED.search_text, ts = EXCLUDED.ts, posting_keys = EXCLUDED.posting_keys
       RETURNING doc, ts, fields, visible_to, posting_keys)
     ${INSERT_POSTINGS}`,
    [
      index,
      ids,
      rows.map((r) => JSON.stringify(r.source)),
      rows.map((r) => JSON.stringify(r.fields)),
      rows.map((r) => JSON.stringify(r.phrases)),
      rows.map((r) => r.searchText),
      rows.map((r) => r.ts),
      rows.map((r) => JSON.stringify(r.postingKeys)),
    ],
  );
}

export async function deleteDocumentsByIds(client: pg.PoolClient, index: IndexName, ids: string[]): Promise<void> {
  await lockDocuments(client, index, ids);
  await client.query(
    `WITH gone AS (DELETE FROM search_documents WHERE index_name = $1 AND id = ANY($2::text[]) RETURNING doc, ts, posting_keys) ${DELETE_POSTINGS}`,
    [index, ids],
  );
}

/** Documents with one of `values` in `key` of `fields` (one containment test per value, GIN). */
export async function deleteDocumentsByTerms(client: pg.PoolClient, index: IndexName, key: string, values: string[]): Promise<void> {
  await lockDocuments(client, index, null);
  await client.query(
    `WITH gone AS (DELETE FROM search_documents d USING unnest($3::text[]) AS v(x)
       WHERE d.index_name = $1 AND d.fields @> jsonb_build_object($2::text, jsonb_build_array(v.x))
       RETURNING d.doc, d.ts, d.posting_keys) ${DELETE_POSTINGS}`,
    [index, key, values],
  );
}

export async function clearIndex(client: pg.PoolClient, index: IndexName): Promise<void> {
  await lockDocuments(client, index, null);
  const [lo, hi] = indexKeyRange(index);
  await client.query("DELETE FROM search_postings WHERE key >= $1 AND key <= $2", [lo, hi]);
  await client.query("DELETE FROM search_documents WHERE index_name = $1", [index]);
}

/** Writes the postings of documents stored before the table had them (schema upgrade). */
export async function backfillPostings(client: pg.PoolClient, index: IndexName, rows: { doc: string; row: DocumentRow }[]): Promise<void> {
  await client.query(
    `WITH w AS (
       UPDATE search_documents d SET posting_keys = array(SELECT jsonb_array_elements_text(r.keys::jsonb))
       FROM unnest($2::bigint[], $3::text[]) AS r(doc, keys)
       WHERE d.index_name = $1 AND d.doc = r.doc
       RETURNING d.doc, d.ts, d.fields, d.visible_to, d.posting_keys)
     ${INSERT_POSTINGS}`,
    [index, rows.map((r) => r.doc), rows.map((r) => JSON.stringify(r.row.postingKeys))],
  );
}
