/**
 * Writes of the PostgreSQL backend: documents (`search_documents`) and their postings
 * (`search_postings`, `./postings.ts`) change together, in one transaction.
 *
 * A document's postings are found again through the keys it stores (in its packed `body`,
 * `./packing.ts`) with its ts and doc number: one index descent per posting, no index on `doc` needed. The postings to delete or
 * insert are computed here and sent as arrays (`unnest`), so that each statement's plan is a plain
 * loop over index descents: joined in SQL with the stored keys, the planner once chose to read every
 * posting of each key (minutes for a batch).
 *
 * The term dictionary (`search_terms`, `./terms.ts`) follows the postings in the same transaction.
 *
 * Writers of the same documents are serialised on 64 advisory lock buckets (by id), taken in order:
 * otherwise two writers of one new document could both insert postings, or one could delete the
 * postings the other just wrote.
 */
import type pg from "pg";
import { INDEX_NAMES, type IndexName } from "../search-index.ts";
import type { DocumentRow } from "./documents.ts";
import { codesOf, MAX_FACET_CODE, type Codes } from "./codes.ts";
import { pack, unpack } from "./packing.ts";
import { facetSql } from "./facets.ts";
import { indexKeyRange, presenceFields, termKey, withPresenceKeys } from "./postings.ts";
import { UNPOSTED, unposted } from "./unposted.ts";
import { applyTermChanges, type TermPosting } from "./terms.ts";

/** pg_advisory_xact_lock(LOCK_SPACE, bucket): the first key of the writers' locks (arbitrary, fixed). */
const LOCK_SPACE = 734_621_096;
const BUCKETS = 64;
/** Postings per statement. */
const CHUNK = 20_000;

/**
 * A stored document as its postings carry it: `live` (its `deleted` holds false), `vis` (NULL:
 * everyone) and `facet`, whose codes (`./codes.ts`) the postings hold.
 */
interface StoredDocument {
  id: string;
  doc: string;
  /** timestamptz text; `-infinity` without `@timestamp`. */
  ts: string;
  live: boolean;
  vis: string | null;
  /** `./facets.ts` */
  facet: string | null;
  keys: string[];
}

/**
 * The columns of a StoredDocument, from the row `t` (a table name or alias), and its keys: `body`
 * (packed, `storedDocuments` unpacks them), `posting_keys` (a table of version 10 or older, which
 * stored them so: the schema upgrade's backfills) or none (the writer has them).
 */
const storedColumns = (t: string, keys: "body" | "posting_keys" | null = "body") => `${t}.id, ${t}.doc, COALESCE(${t}.ts, '-infinity')::text AS ts,
  COALESCE((${t}.fields -> 'deleted') @> '[false]', false) AS live, NULLIF(${t}.visible_to, '{-1}')::text AS vis,
  ${facetSql(t)} AS facet${keys === "body" ? `, ${t}.body` : keys === "posting_keys" ? `, ${t}.posting_keys AS keys` : ""}`;

/**
 * `FROM` `columns` of documents `$1` / `$2` (ids) `d`, as `s`: one primary-key lookup per id. As
 * `id = ANY($2)` the planner, whose estimate of an index's share lags a bulk load, read the whole
 * index's range of the index name and every heap page of it: 80 ms for 500 ids at 100,000 documents,
 * growing with the table (the writers' second-slowest statement, bench/README.md "table version 11").
 */
const byIds = (columns: string) =>
  `unnest($2::text[]) AS x(id) CROSS JOIN LATERAL (SELECT ${columns} FROM search_documents d WHERE d.index_name = $1 AND d.id = x.id LIMIT 1) s`;

/** A row of `storedColumns`, its keys still packed. */
type StoredRow = Omit<StoredDocument, "keys"> & { body: Buffer };

/** Rows of `storedColumns` with their keys unpacked. */
const storedDocuments = (rows: StoredRow[]): StoredDocument[] =>
  rows.map(({ body, ...d }) => ({ ...d, keys: unpack(body).keys }));

/** Locks the buckets of these ids (all buckets: null). */
export async function lockDocuments(client: pg.PoolClient, index: IndexName, ids: string[] | null): Promise<void> {
  await client.query(
    `SELECT pg_advisory_xact_lock($1, b) FROM (
       SELECT DISTINCT b FROM (SELECT abs(hashtext($2 || x)) % ${BUCKETS} AS b FROM unnest($3::text[]) AS x
                               UNION ALL SELECT generate_series(0, ${BUCKETS - 1}) WHERE $4) s) t ORDER BY b`,
    [LOCK_SPACE, index, ids ?? [], ids === null],
  );
}

type Posting = [key: string, doc: StoredDocument];

async function deletePostings(client: pg.PoolClient, postings: Posting[]): Promise<void> {
  for (let i = 0; i < postings.length; i += CHUNK) {
    const chunk = postings.slice(i, i + CHUNK);
    await client.query(
      `DELETE FROM search_postings p USING unnest($1::text[], $2::timestamptz[], $3::bigint[]) AS x(key, ts, doc)
       WHERE p.key = x.key AND p.ts = x.ts AND p.doc = x.doc`,
      [chunk.map(([k]) => k), chunk.map(([, d]) => d.ts), chunk.map(([, d]) => d.doc)],
    );
  }
}

/** The codes (`./codes.ts`) of the audiences and facets of these postings' documents. */
const codesFor = (client: pg.PoolClient, postings: Posting[]): Promise<Codes> =>
  codesOf(
    client,
    postings.map(([, d]) => d.vis),
    postings.map(([, d]) => d.facet),
  );
const audOf = (codes: Codes, d: StoredDocument) => (d.vis === null ? null : codes.aud.get(d.vis)!);
const fctOf = (codes: Codes, d: StoredDocument) => {
  const code = d.facet === null ? null : codes.fct.get(d.facet)!;
  return code !== null && code <= MAX_FACET_CODE ? code : null;
};

async function insertPostings(client: pg.PoolClient, postings: Posting[], codes: Codes): Promise<void> {
  // In key order: consecutive entries land on the same index pages.
  const sorted = [...postings].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < sorted.length; i += CHUNK) {
    const chunk = sorted.slice(i, i + CHUNK);
    await client.query(
      `INSERT INTO search_postings (key, ts, doc, live, aud, fct)
       SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::bigint[], $4::boolean[], $5::int[], $6::smallint[])`,
      [chunk.map(([k]) => k), chunk.map(([, d]) => d.ts), chunk.map(([, d]) => d.doc), chunk.map(([, d]) => d.live), chunk.map(([, d]) => audOf(codes, d)), chunk.map(([, d]) => fctOf(codes, d))],
    );
  }
}

/** The keys of a stored document's postings: its stored keys and the presence keys they imply. */
const keysOf = (index: IndexName, d: StoredDocument): string[] => withPresenceKeys(index, d.keys ?? []);
const postingsWith = (d: StoredDocument, keys: string[]): Posting[] => keys.map((k): Posting => [k, d]);
const postingsOf = (index: IndexName, docs: StoredDocument[]): Posting[] => docs.flatMap((d) => postingsWith(d, keysOf(index, d)));
/** Without codes: postings deleted (the dictionary reads their doc only). */
const asTerms = (postings: Posting[], codes: Codes | null): TermPosting[] =>
  postings.map(([key, d]) => ({ key, ts: d.ts, doc: d.doc, live: d.live, aud: codes && audOf(codes, d), fct: codes && fctOf(codes, d) }));

/**
 * Inserts or replaces documents (ids unique within the call) and their postings. A replaced
 * document whose ts, `live`, `vis` and facet are unchanged keeps the postings of the terms it still has:
 * only the terms it lost are deleted and the new ones inserted (re-indexing an unchanged document
 * writes no postings).
 */
/** A row with its packed `body` (`./packing.ts`), made before its transaction starts. */
export type PackedRow = DocumentRow & { body: Buffer };

export const packedRow = (row: DocumentRow): PackedRow => ({ ...row, body: pack(row.source, row.postingKeys) });

export async function upsertDocuments(client: pg.PoolClient, index: IndexName, rows: PackedRow[]): Promise<void> {
  const ids = rows.map((r) => r.id);
  await lockDocuments(client, index, ids);
  const { rows: stored } = await client.query<StoredRow>(`SELECT s.* FROM ${byIds(storedColumns("d"))}`, [index, ids]);
  const old = new Map(storedDocuments(stored).map((d) => [d.id, d]));
  const keysById = new Map(rows.map((r) => [r.id, r.postingKeys]));
  // The stored keys are the ones just written: not read back.
  const { rows: written } = await client.query<Omit<StoredDocument, "keys">>(
    `INSERT INTO search_documents (index_name, id, body, fields, phrases, ts)
     SELECT $1, r.id, r.body, r.fields, r.phrases, r.ts
     FROM unnest($2::text[], $3::bytea[], $4::jsonb[], $5::jsonb[], $6::timestamptz[]) AS r(id, body, fields, phrases, ts)
     ON CONFLICT (index_name, id) DO UPDATE SET body = EXCLUDED.body, fields = EXCLUDED.fields,
       phrases = EXCLUDED.phrases, ts = EXCLUDED.ts
     RETURNING ${storedColumns("search_documents", null)}`,
    [
      index,
      ids,
      rows.map((r) => r.body),
      rows.map((r) => JSON.stringify(r.fields)),
      rows.map((r) => JSON.stringify(r.phrases)),
      rows.map((r) => r.ts),
    ],
  );
  const gone: Posting[] = [];
  const added: Posting[] = [];
  for (const returned of written) {
    const now: StoredDocument = { ...returned, keys: keysById.get(returned.id)! };
    const before = old.get(now.id);
    const same = before !== undefined && before.ts === now.ts && before.live === now.live && before.vis === now.vis && before.facet === now.facet;
    const nowKeys = keysOf(index, now);
    if (!same) {
      if (before) gone.push(...postingsOf(index, [before]));
      added.push(...postingsWith(now, nowKeys));
      continue;
    }
    const beforeKeys = keysOf(index, before);
    const kept = new Set(nowKeys);
    const had = new Set(beforeKeys);
    gone.push(...postingsWith(before, beforeKeys.filter((k) => !kept.has(k))));
    added.push(...postingsWith(now, nowKeys.filter((k) => !had.has(k))));
  }
  const codes = await codesFor(client, added);
  await deletePostings(client, gone);
  await insertPostings(client, added, codes);
  await applyTermChanges(client, asTerms(gone, null), asTerms(added, codes));
}

export async function deleteDocumentsByIds(client: pg.PoolClient, index: IndexName, ids: string[]): Promise<void> {
  await lockDocuments(client, index, ids);
  // The rows found one primary-key lookup each (`byIds`), deleted by their ctid (writers of these ids wait on their locks).
  const { rows } = await client.query<StoredRow>(
    `DELETE FROM search_documents d WHERE d.ctid = ANY (ARRAY(SELECT s.ctid FROM ${byIds("d.ctid")}))
     RETURNING ${storedColumns("d")}`,
    [index, ids],
  );
  const gone = postingsOf(index, storedDocuments(rows));
  await deletePostings(client, gone);
  await applyTermChanges(client, asTerms(gone, null), []);
}

/**
 * Documents with one of `values` in `key` (a keyword field) of `fields`: one containment test per
 * value, through the GIN (`./unposted.ts`) for a field without postings, else the documents of the
 * values' postings tested on the row.
 */
export async function deleteDocumentsByTerms(client: pg.PoolClient, index: IndexName, key: string, values: string[]): Promise<void> {
  await lockDocuments(client, index, null);
  const contains = "jsonb_build_object($2::text, jsonb_build_array(v.x))";
  const where = unposted(key, "keyword")
    ? `${UNPOSTED}(d.fields) @> ${contains}`
    : `d.doc IN (SELECT p.doc FROM search_postings p WHERE p.key = ANY ($4::text[])) AND d.fields @> ${contains}`;
  const { rows } = await client.query<StoredRow>(
    `DELETE FROM search_documents d USING unnest($3::text[]) AS v(x)
     WHERE d.index_name = $1 AND ${where}
     RETURNING ${storedColumns("d")}`,
    [index, key, values, ...(unposted(key, "keyword") ? [] : [values.map((v) => termKey(index, key, v))])],
  );
  const gone = postingsOf(index, storedDocuments(rows));
  await deletePostings(client, gone);
  await applyTermChanges(client, asTerms(gone, null), []);
}

export async function clearIndex(client: pg.PoolClient, index: IndexName): Promise<void> {
  await lockDocuments(client, index, null);
  const [lo, hi] = indexKeyRange(index);
  await client.query("DELETE FROM search_postings WHERE key >= $1 AND key <= $2", [lo, hi]);
  await client.query("DELETE FROM search_terms WHERE field >= $1 AND field <= $2", [lo, hi]);
  await client.query("DELETE FROM search_documents WHERE index_name = $1", [index]);
}

/** Writes the postings of documents stored before the table had them (schema upgrade, to version 10's layout). */
export async function backfillPostings(client: pg.PoolClient, index: IndexName, rows: { doc: string; row: DocumentRow }[]): Promise<void> {
  const { rows: updated } = await client.query<StoredDocument>(
    `UPDATE search_documents d SET posting_keys = array(SELECT jsonb_array_elements_text(r.keys::jsonb))
     FROM unnest($2::bigint[], $3::text[]) AS r(doc, keys)
     WHERE d.index_name = $1 AND d.doc = r.doc
     RETURNING ${storedColumns("d", "posting_keys")}`,
    [index, rows.map((r) => r.doc), rows.map((r) => JSON.stringify(r.row.postingKeys))],
  );
  const added = postingsOf(index, updated);
  const codes = await codesFor(client, added);
  await insertPostings(client, added, codes);
  await applyTermChanges(client, [], asTerms(added, codes));
}

/**
 * Dictionary entries for the postings of documents `after` < doc <= the batch's last; returns it
 * (null: none left). Schema upgrade from version 3, to version 10's layout.
 */
export async function backfillTerms(client: pg.PoolClient, after: string, batch: number): Promise<string | null> {
  const { rows } = await client.query<StoredDocument>(
    `SELECT ${storedColumns("d", "posting_keys")} FROM search_documents d WHERE d.posting_keys IS NOT NULL AND d.doc > $1 ORDER BY d.doc LIMIT ${batch}`,
    [after],
  );
  if (rows.length === 0) return null;
  // Presence keys have no dictionary entries: the stored keys are enough.
  const added = rows.flatMap((d) => postingsWith(d, d.keys ?? []));
  await applyTermChanges(client, [], asTerms(added, await codesFor(client, added)));
  return rows[rows.length - 1]!.doc;
}

/**
 * The presence postings (`./postings.ts` `presenceKey`) of the documents stored before them (schema
 * upgrade): one per document with a posting of the field's terms, copied from one of those.
 * Idempotent: a field's presence postings are replaced.
 */
export async function backfillPresence(client: pg.PoolClient): Promise<void> {
  for (const index of INDEX_NAMES) {
    for (const { key, ranges } of presenceFields(index)) {
      const params: unknown[] = [key];
      const within = ranges.map(([lo, hi]) => `(p.key >= $${params.push(lo)} AND p.key < $${params.push(hi)})`).join(" OR ");
      await client.query("DELETE FROM search_postings WHERE key = $1", [key]);
      await client.query(
        `INSERT INTO search_postings (key, ts, doc, live, aud, fct)
         SELECT DISTINCT ON (p.doc) $1, p.ts, p.doc, p.live, p.aud, p.fct FROM search_postings p WHERE ${within} ORDER BY p.doc`,
        params,
      );
    }
  }
}
