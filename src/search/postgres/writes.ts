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
import { applyTermChanges, type TermPostings } from "./terms.ts";

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

/** Postings of one document: its keys (all or some) with the document's ts, doc, live, vis and facet. */
interface DocumentPostings {
  d: StoredDocument;
  keys: string[];
}

/**
 * The parameters of a set of postings, one entry per document and one per posting: a posting is its
 * key and the index (1-based) of its document. Sent per posting, each of a document's ~18 postings
 * repeated its ts, doc, live, aud and fct: node-postgres quoted and escaped six elements per
 * posting (~110,000 per chunk of 500 documents, the Node side's costliest step after the analysis).
 */
interface PostingParams {
  keys: string[];
  /** int[] literal: the document of each posting (`intArray`). */
  owners: string;
  docs: StoredDocument[];
}

/**
 * An int[] parameter as its literal. node-postgres quotes and escapes each element of an array
 * parameter (two regex replacements), numbers too; digits need neither.
 */
const intArray = (values: (number | string)[]) => `{${values.join(",")}}`;

/** `postings` in chunks of at most CHUNK postings. */
function postingParams(postings: DocumentPostings[]): PostingParams[] {
  const keys: string[] = [];
  const owners: number[] = [];
  postings.forEach(({ keys: ks }, i) => {
    for (const k of ks) {
      keys.push(k);
      owners.push(i + 1);
    }
  });
  const docs = postings.map((p) => p.d);
  const out: PostingParams[] = [];
  for (let i = 0; i < keys.length; i += CHUNK) out.push({ keys: keys.slice(i, i + CHUNK), owners: intArray(owners.slice(i, i + CHUNK)), docs });
  return out;
}

/**
 * SQL: the postings `$1` (keys), `$2` (owners) with their documents' columns taken from the arrays
 * of `columns` (name and element type; `$3` on), one subscript per posting. NULL audiences and
 * facets are sent as 0 (never a code: identities start at 1), so that the arrays hold no NULL: a
 * subscript into an array with NULLs walks its null bitmap from the start. `order`: in key order,
 * so that consecutive entries land on the same index pages (sorted by the statement: the same sort
 * in Node, by UTF-16 comparisons, cost more than encoding the statement's parameters).
 */
const postingRows = (columns: [name: string, type: string, nullable?: boolean][], order = false) =>
  `SELECT x.key, ${columns.map(([name, type, nullable], i) => (nullable ? `NULLIF(($${i + 3}::${type}[])[x.i], 0) AS ${name}` : `($${i + 3}::${type}[])[x.i] AS ${name}`)).join(", ")}
   FROM unnest($1::text[], $2::int[]) AS x(key, i)${order ? ' ORDER BY x.key COLLATE "C"' : ""}`;

async function deletePostings(client: pg.PoolClient, postings: DocumentPostings[]): Promise<void> {
  for (const { keys, owners, docs } of postingParams(postings)) {
    await client.query(
      `DELETE FROM search_postings p USING (${postingRows([["ts", "timestamptz"], ["doc", "bigint"]])}) x
       WHERE p.key = x.key AND p.ts = x.ts AND p.doc = x.doc`,
      [keys, owners, docs.map((d) => d.ts), intArray(docs.map((d) => d.doc))],
    );
  }
}

/** The codes (`./codes.ts`) of the audiences and facets of these documents. */
const codesFor = (client: pg.PoolClient, docs: StoredDocument[]): Promise<Codes> =>
  codesOf(
    client,
    docs.map((d) => d.vis),
    docs.map((d) => d.facet),
  );
const audOf = (codes: Codes, d: StoredDocument) => (d.vis === null ? null : codes.aud.get(d.vis)!);
const fctOf = (codes: Codes, d: StoredDocument) => {
  const code = d.facet === null ? null : codes.fct.get(d.facet)!;
  return code !== null && code <= MAX_FACET_CODE ? code : null;
};

async function insertPostings(client: pg.PoolClient, postings: DocumentPostings[], codes: Codes): Promise<void> {
  for (const { keys, owners, docs } of postingParams(postings)) {
    await client.query(
      `INSERT INTO search_postings (key, ts, doc, live, aud, fct)
       ${postingRows([["ts", "timestamptz"], ["doc", "bigint"], ["live", "boolean"], ["aud", "int", true], ["fct", "smallint", true]], true)}`,
      [
        keys,
        owners,
        docs.map((d) => d.ts),
        intArray(docs.map((d) => d.doc)),
        docs.map((d) => d.live),
        intArray(docs.map((d) => audOf(codes, d) ?? 0)),
        intArray(docs.map((d) => fctOf(codes, d) ?? 0)),
      ],
    );
  }
}

/** The keys of a stored document's postings: its stored keys and the presence keys they imply. */
const keysOf = (index: IndexName, d: StoredDocument): string[] => withPresenceKeys(index, d.keys ?? []);
const postingsOf = (index: IndexName, docs: StoredDocument[]): DocumentPostings[] => docs.map((d) => ({ d, keys: keysOf(index, d) }));
/** Without codes: postings deleted (the dictionary reads their doc only). */
const asTerms = (postings: DocumentPostings[], codes: Codes | null): TermPostings[] =>
  postings.map(({ d, keys }) => ({ keys, posting: { ts: d.ts, doc: d.doc, live: d.live, aud: codes && audOf(codes, d), fct: codes && fctOf(codes, d) } }));

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
  const gone: DocumentPostings[] = [];
  const added: DocumentPostings[] = [];
  for (const returned of written) {
    const now: StoredDocument = { ...returned, keys: keysById.get(returned.id)! };
    const before = old.get(now.id);
    const same = before !== undefined && before.ts === now.ts && before.live === now.live && before.vis === now.vis && before.facet === now.facet;
    const nowKeys = keysOf(index, now);
    if (!same) {
      if (before) gone.push({ d: before, keys: keysOf(index, before) });
      added.push({ d: now, keys: nowKeys });
      continue;
    }
    const beforeKeys = keysOf(index, before);
    const kept = new Set(nowKeys);
    const had = new Set(beforeKeys);
    const lost = beforeKeys.filter((k) => !kept.has(k));
    const got = nowKeys.filter((k) => !had.has(k));
    if (lost.length) gone.push({ d: before, keys: lost });
    if (got.length) added.push({ d: now, keys: got });
  }
  const codes = await codesFor(client, added.map((p) => p.d));
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
  const codes = await codesFor(client, updated);
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
  const added = rows.map((d) => ({ d, keys: d.keys ?? [] }));
  await applyTermChanges(client, [], asTerms(added, await codesFor(client, rows)));
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
