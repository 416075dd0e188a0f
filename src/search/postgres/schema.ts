/**
 * The `search_documents` table of the PostgreSQL backend: created by migration
 * `20261123110000_search_documents` (version 1) and brought to the current version here, at start
 * (`ensureSearchSchema`, from `ensureIndices`). Every statement is idempotent; the version is kept in
 * the table's comment, so a started service checks one catalog row. Several processes starting at
 * once serialise on an advisory lock.
 *
 * Version 2 (the search benchmark, bench/README.md "Search"):
 * - `fields` is indexed with `jsonb_path_ops` instead of `jsonb_ops`: one index entry per
 *   field/value pair, so `fields @> {"type":["ip"]}` reads one posting list; `jsonb_ops` keeps keys
 *   and values apart and intersected the list of every document that has a `type` with the list of
 *   every `"ip"` string, which cost 30-200 ms at 1 000 000 documents.
 * - `jsonb_path_ops` cannot answer `fields ? key`: field existence goes through a small GIN index
 *   on the keys (`search_document_keys(fields)`, ~30 distinct entries), which also gives the planner
 *   per-field frequencies.
 * - `visible_to`: the access filter as one value (`./access.ts`), computed by PostgreSQL from
 *   `fields` (a generated column, so writers need not know it and the upgrade fills it).
 * - statistics on the boolean filter expressions (`booleanStatistics`).
 * - `fields` and `search_text` are stored inline (STORAGE MAIN): in a row over ~2 KB PostgreSQL
 *   moves `source` out of line first, not the values every filter and recheck reads (rows written
 *   before keep their layout).
 *
 * Version 3: the postings (`./postings.ts`): table `search_postings`, and per document a number
 * (`doc`, identity) and the keys of its postings (`posting_keys`); documents stored before get their
 * postings computed here, from their source, in the upgrade's transaction.
 *
 * Version 4: the term dictionary (`search_terms`, `./terms.ts`), filled from the stored documents'
 * postings when the table had postings already (version 3).
 *
 * Version 5: the dictionary's length index and a reversed-term index (`*.xyz`) hold every column a
 * pattern reads, so that patterns are matched index-only (a pattern's terms are scattered over the
 * table: 13,000 heap pages for the 30,000 terms ending in `xyz` at 1,000,000 attributes).
 *
 * Version 6: postings and inlined dictionary postings carry their document's facet (`./facets.ts`);
 * both tables are copied once with it and their indexes built again. The dictionary's trigram index
 * holds the field too (btree_gin): `value:*forukraine*` matched 13,891 candidates of every field over
 * 7,208 heap pages, now 5,816 of `value` over 3,055.
 *
 * Version 7: presence keys (`./postings.ts` `presenceKey`, `_exists_` of optional fields of many
 * values), copied from the postings of the fields' terms.
 *
 * Version 8: `visible_to` is the document's own audience field (the distribution rule of
 * `src/auth/distribution.ts`, which also reads attribute and object distribution), no longer worked
 * out from its events' access fields. Only the function changes: stored rows keep their value until
 * they are indexed again, which the indexer does for every document without an audience at start
 * (`src/indexing/stale-access.ts`).
 *
 * Version 9 (bench/README.md "Search", "Where the writes go"): a quarter fewer bytes, writes ~1.25x.
 * - No `search_text` and no trigram index on it (55% of a document insert's time, 120 trigrams per
 *   attribute): the JSONB path's wildcards and regexes take their candidates from the term
 *   dictionary's trigram index and the postings (`./compile.ts` `matchingTerm`).
 * - No postings for the bookkeeping fields (`./postings.ts` `hasPostings`): a quarter of the postings.
 *   Their postings are deleted and their keys taken out of `posting_keys`.
 * From version 8 the upgrade runs in steps, each committed, that a restart after a kill takes up
 * where they stopped (the version changes last); progress goes to `progress`.
 *
 * Version 10 (bench/README.md "Search", "table version 10"): postings and inlined dictionary
 * postings carry their document's audience and facet as codes (`./codes.ts`: `aud`, `fct`) instead
 * of the `numeric[]` and the text, in the heap and in the index tuple. From version 9 the upgrade
 * copies both tables in committed steps (`recodeInSteps`, batches of keys, resumed after the last
 * key copied), then builds the indexes and swaps the tables in one transaction.
 *
 * Version 11 (bench/README.md "Search", "table version 11"): a document's source and its posting keys
 * are one compressed value, `body` (`./packing.ts`), instead of `source` JSONB and `posting_keys`
 * text[]: only Node reads them, and PostgreSQL compressed neither in rows under ~2 KB, which most
 * are. From version 10 the upgrade packs the documents in committed steps, in doc order, resumed
 * at the first document not packed yet (`packInSteps`), then drops the two columns and rewrites the
 * table. Older versions are first brought to version 10 in one transaction, as before, then packed.
 * Measured (bench/search.ts, interleaved with version 10): tables 147 -> 131 MiB at 20,000 attributes
 * (documents' heap and TOAST 43.9 -> 27.6 MiB), 671 -> 588 MiB at 100,000; writes 1.35x in
 * balanced pairs at 100,000 (the document insert 42% shorter, and Node's share now overlaps the
 * database's, `bulkIndex`); the upgrade of 20,200 documents took 4.0 s and left the tables at 124 MiB.
 *
 * Version 12 (bench/README.md "Search", "table version 12"): no GIN on `fields` nor on its keys: one
 * GIN (`jsonb_path_ops`) on `search_document_unposted(fields)` (`./unposted.ts`), the fields without
 * postings and the presence of the optional ones; the JSONB path's conditions on the other fields
 * take their candidates from the postings (`./statements.ts`). From version 11 the upgrade builds
 * the new index, then drops the two old ones, each statement idempotent (a start after a kill
 * builds again or only drops).
 *
 * Version 13 (bench/README.md "Search", "table version 13"): a partial B-tree on `doc` for each
 * optional field without postings (`./unposted.ts` `presenceIndexesSql`: `object_uuid`,
 * `extends_uuid`, `expanded.ip_range`), which `_exists_` and the ip range tests read: the GIN's
 * presence entries are rechecked row by row with its expression. From version 12 the upgrade only
 * builds them (each `IF NOT EXISTS`: a start after a kill builds the rest), then sets the version.
 *
 * Upgrading a table that holds documents rewrites it once (the generated column) and builds its
 * indexes, holding an exclusive lock: 24 s for 100 000 documents, 340 s for 1 000 000 on the bench
 * machine (2 cores, busy). Start waits for it; searches and indexing wait too.
 */
import type pg from "pg";
import { INDEX_FIELDS } from "../fields.ts";
import { INDEX_NAMES, type IndexName } from "../search-index.ts";
import { visibilityFunctionSql } from "./access.ts";
import { pgCode } from "./failures.ts";
import { SLOPPY_PHRASE_DDL, SLOPPY_PHRASE_SIGNATURE } from "./phrase-slop.ts";
import { buildRow } from "./documents.ts";
import { CODES_DDL, insertCodedSql } from "./codes.ts";
import { facetSql } from "./facets.ts";
import { bookkeepingKeyRanges } from "./postings.ts";
import { pack } from "./packing.ts";
import { backfillPostings, backfillPresence, backfillTerms } from "./writes.ts";
import { presenceIndexesSql, UNPOSTED, unpostedFunctionSql } from "./unposted.ts";

const VERSION = "search_documents v14";
/** The versions upgraded in committed steps (`upgradeInSteps`: bookkeeping, `recode`, `packInSteps`). */
const STEPPED_FROM = "search_documents v8";
const RECODED_FROM = "search_documents v9";
const PACKED_FROM = "search_documents v10";
const UNPOSTED_FROM = "search_documents v11";
const PRESENCE_FROM = "search_documents v12";
const REPAIRED_FROM = "search_documents v13";
const POSTINGS_VERSION = "search_documents v3";
/** Versions whose postings lack the presence keys (version 7). */
const WITHOUT_PRESENCE = ["search_documents v3", "search_documents v4", "search_documents v5", "search_documents v6"];
/** Documents read per statement when postings are written for an upgraded table. */
const BACKFILL_BATCH = 2_000;
/** Rows per statement of the stepped upgrade: each a short transaction. */
const STEP_BATCH = 50_000;
/** Documents per statement when they are packed (each read into Node and written back). */
const PACK_BATCH = 2_000;
/** pg_advisory_xact_lock key of the schema upgrade (arbitrary, fixed). */
const LOCK_KEY = 7_346_210_952;

/**
 * Boolean request filters (`deleted: false`) are tested as `(fields -> key) @> '[v]'` (`./compile.ts`);
 * statistics on that expression tell the planner it holds for ~all rows (its default guess is 1%,
 * which made it pick index intersections over a ts-index walk).
 */
const booleanStatistics = [...new Set(Object.values(INDEX_FIELDS).flatMap((f) => Object.keys(f.fields).filter((k) => f.fields[k] === "boolean")))]
  .map((key) => `CREATE STATISTICS IF NOT EXISTS "search_documents_${key.replace(/[^a-z0-9_]/gi, "_")}_stats" ON (fields -> '${key}') FROM "search_documents";`)
  .join("\n");

const DROP_SEARCH_TEXT = 'ALTER TABLE "search_documents" DROP COLUMN IF EXISTS "search_text";';

const DDL = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE TABLE IF NOT EXISTS "search_documents" (
  "index_name" TEXT NOT NULL, "id" TEXT NOT NULL, "source" JSONB NOT NULL, "fields" JSONB NOT NULL,
  "phrases" JSONB NOT NULL, "ts" TIMESTAMPTZ,
  CONSTRAINT "search_documents_pkey" PRIMARY KEY ("index_name", "id"));
${visibilityFunctionSql()}
ALTER TABLE "search_documents" ADD COLUMN IF NOT EXISTS "visible_to" NUMERIC[]
  GENERATED ALWAYS AS (search_document_visibility("index_name", "fields")) STORED;
ALTER TABLE "search_documents" ALTER COLUMN "fields" SET STORAGE MAIN;
DROP INDEX IF EXISTS "search_documents_fields_gin_idx";
${DROP_SEARCH_TEXT}
CREATE INDEX IF NOT EXISTS "search_documents_ts_idx" ON "search_documents" ("index_name", "ts" DESC NULLS LAST, "id" COLLATE "C");
${booleanStatistics}
ALTER TABLE "search_documents" ADD COLUMN IF NOT EXISTS "doc" BIGINT GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE "search_documents" ADD COLUMN IF NOT EXISTS "posting_keys" TEXT[];
CREATE UNIQUE INDEX IF NOT EXISTS "search_documents_doc_idx" ON "search_documents" ("doc") INCLUDE ("id");
`;

// Fixed-width columns widest first: no padding between them (the heap row and the index tuple).
const postingsTable = (name: string) => `CREATE TABLE IF NOT EXISTS "${name}" (
  "key" TEXT COLLATE "C" NOT NULL, "ts" TIMESTAMPTZ NOT NULL, "doc" BIGINT NOT NULL, "aud" INTEGER, "fct" SMALLINT, "live" BOOLEAN NOT NULL);`;
const termsTable = (name: string, pkey: boolean) => `CREATE TABLE IF NOT EXISTS "${name}" (
  "field" TEXT COLLATE "C" NOT NULL, "term" TEXT COLLATE "C" NOT NULL, "ts" TIMESTAMPTZ, "doc" BIGINT, "length" INTEGER NOT NULL,
  "aud" INTEGER, "pulse" SMALLINT, "fct" SMALLINT, "live" BOOLEAN${pkey ? `, CONSTRAINT "search_terms_pkey" PRIMARY KEY ("field", "term")` : ""});`;

const POSTINGS_TABLES_DDL = `${CODES_DDL}${postingsTable("search_postings")}${termsTable("search_terms", true)}`;

const POSTINGS_INDEXES_DDL = `
CREATE INDEX IF NOT EXISTS "search_postings_key_idx" ON "search_postings" ("key", "ts" DESC, "doc") INCLUDE ("aud", "fct", "live");
DROP INDEX IF EXISTS "search_terms_trgm_idx";
CREATE INDEX IF NOT EXISTS "search_terms_field_trgm_idx" ON "search_terms" USING GIN ("field", "term" gin_trgm_ops);
CREATE INDEX IF NOT EXISTS "search_terms_length_cover_idx" ON "search_terms" ("field", "length") INCLUDE ("term", "pulse", "ts", "doc", "aud", "fct", "live");
CREATE INDEX IF NOT EXISTS "search_terms_suffix_idx" ON "search_terms" ("field", reverse("term")) INCLUDE ("term", "pulse", "ts", "doc", "aud", "fct", "live");
`;

/**
 * Postings and dictionary written before version 6 (no `facet`): set aside, to be copied into the
 * new tables with their documents' facets (a copy and one index build each, instead of an update
 * of every row through every index). Returns what was set aside (null: nothing).
 */
async function setAsideUnfaceted(client: pg.PoolClient): Promise<"postings" | "postings and terms" | null> {
  const { rows } = await client.query<{ postings: boolean; facet: boolean; terms: boolean }>(
    `SELECT to_regclass('search_postings') IS NOT NULL AS postings, to_regclass('search_terms') IS NOT NULL AS terms,
       EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass('search_postings') AND attname IN ('facet', 'fct') AND NOT attisdropped) AS facet`,
  );
  const { postings, terms, facet } = rows[0]!;
  if (!postings || facet) return null;
  await client.query(`ALTER TABLE "search_postings" RENAME TO "search_postings_v5"; DROP INDEX "search_postings_key_idx"`);
  if (terms) {
    await client.query(`ALTER TABLE "search_terms" RENAME TO "search_terms_v5";
      ALTER TABLE "search_terms_v5" DROP CONSTRAINT "search_terms_pkey";
      DROP INDEX IF EXISTS "search_terms_trgm_idx", "search_terms_field_trgm_idx", "search_terms_length_idx", "search_terms_length_cover_idx", "search_terms_suffix_idx"`);
  }
  return terms ? "postings and terms" : "postings";
}

/** The rows set aside by `setAsideUnfaceted`, with their documents' facets (coded), then dropped. */
async function copyWithFacets(client: pg.PoolClient, aside: "postings" | "postings and terms"): Promise<void> {
  const facets = `(SELECT d.doc, ${facetSql("d")} AS facet FROM "search_documents" d) f`;
  const postings = `SELECT p.key, p.ts, p.doc, p.live, p.vis, f.facet FROM "search_postings_v5" p LEFT JOIN ${facets} ON f.doc = p.doc`;
  for (const sql of insertCodedSql("search_postings", POSTING_COLUMNS, postings)) await client.query(sql);
  await client.query('DROP TABLE "search_postings_v5"');
  if (aside === "postings") return;
  const terms = `SELECT t.field, t.term, t.length, t.pulse, t.ts, t.doc, t.live, t.vis, f.facet FROM "search_terms_v5" t LEFT JOIN ${facets} ON t.pulse = 1 AND f.doc = t.doc`;
  for (const sql of insertCodedSql("search_terms", TERM_COLUMNS, terms)) await client.query(sql);
  await client.query('DROP TABLE "search_terms_v5"');
}

/** The columns of postings and dictionary rows beside the coded `aud` and `fct` (`./codes.ts`). */
const POSTING_COLUMNS = ["key", "ts", "doc", "live"];
const TERM_COLUMNS = ["field", "term", "length", "pulse", "ts", "doc", "live"];

const hasColumn = async (client: pg.PoolClient, table: string, column: string) =>
  (await client.query("SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped", [table, column])).rowCount === 1;

/**
 * Version 9's postings and dictionary (`vis` numeric[], `facet` text) copied into tables of
 * version 10's layout (coded, `./codes.ts`), `batch` rows per statement, each committed when the
 * caller runs outside a transaction: postings by whole keys, the dictionary by (field, term), both
 * after the last row already copied (a restart after a kill resumes). Then, in one transaction, the
 * old tables are dropped, the copies renamed and their indexes built. A no-op on version 10 tables.
 */
async function recode(client: pg.PoolClient, batch: number, progress: (message: string) => void, inTransaction: boolean): Promise<void> {
  if (!(await hasColumn(client, "search_postings", "vis"))) return;
  await client.query(`${CODES_DDL}${postingsTable("search_postings_v10")}${termsTable("search_terms_v10", false)}`);
  let copied = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM search_postings_v10")).rows[0]!.n);
  let after = (await client.query<{ k: string | null }>("SELECT max(key) AS k FROM search_postings_v10")).rows[0]!.k;
  for (;;) {
    // Whole keys up to the batch-th posting's key (a key is copied by one statement or none).
    const from = after === null ? "" : "WHERE p.key > $1";
    const params = after === null ? [] : [after];
    const upTo = (await client.query<{ k: string }>(`SELECT p.key AS k FROM search_postings p ${from} ORDER BY p.key OFFSET ${batch} LIMIT 1`, params)).rows[0]?.k ?? null;
    const range = [...(after === null ? [] : ["p.key > $1"]), ...(upTo === null ? [] : [`p.key <= $${params.length + 1}`])];
    const source = `SELECT p.key, p.ts, p.doc, p.live, p.vis, p.facet FROM search_postings p${range.length ? ` WHERE ${range.join(" AND ")}` : ""}`;
    const sqls = insertCodedSql("search_postings_v10", POSTING_COLUMNS, source);
    const all = upTo === null ? params : [...params, upTo];
    for (const sql of sqls.slice(0, -1)) await client.query(sql, all);
    copied += (await client.query(sqls.at(-1)!, all)).rowCount ?? 0;
    progress(`search schema: ${copied} postings coded`);
    if (upTo === null) break;
    after = upTo;
  }
  let terms = Number((await client.query<{ n: string }>("SELECT count(*) AS n FROM search_terms_v10")).rows[0]!.n);
  let last = (await client.query<{ field: string; term: string }>("SELECT field, term FROM search_terms_v10 ORDER BY field DESC, term DESC LIMIT 1")).rows[0] ?? null;
  for (;;) {
    // Up to the batch-th entry after the last copied, inclusive (the primary key's order).
    const params: string[] = last === null ? [] : [last.field, last.term];
    const from = last === null ? "" : "WHERE (t.field, t.term) > ($1, $2)";
    const upTo = (await client.query<{ field: string; term: string }>(`SELECT t.field, t.term FROM search_terms t ${from} ORDER BY t.field, t.term OFFSET ${batch - 1} LIMIT 1`, params)).rows[0] ?? null;
    const range = [...(last === null ? [] : ["(t.field, t.term) > ($1, $2)"]), ...(upTo === null ? [] : [`(t.field, t.term) <= ($${params.length + 1}, $${params.length + 2})`])];
    const all = upTo === null ? params : [...params, upTo.field, upTo.term];
    const source = `SELECT t.field, t.term, t.length, t.pulse, t.ts, t.doc, t.live, t.vis, t.facet FROM search_terms t${range.length ? ` WHERE ${range.join(" AND ")}` : ""}`;
    const sqls = insertCodedSql("search_terms_v10", TERM_COLUMNS, source);
    for (const sql of sqls.slice(0, -1)) await client.query(sql, all);
    terms += (await client.query(sqls.at(-1)!, all)).rowCount ?? 0;
    progress(`search schema: ${terms} dictionary entries coded`);
    if (upTo === null) break;
    last = upTo;
  }
  if (!inTransaction) await client.query("BEGIN");
  try {
    await client.query(`DROP TABLE search_postings; DROP TABLE search_terms;
      ALTER TABLE search_postings_v10 RENAME TO search_postings; ALTER TABLE search_terms_v10 RENAME TO search_terms;
      ALTER TABLE search_terms ADD CONSTRAINT "search_terms_pkey" PRIMARY KEY ("field", "term");
      SET LOCAL maintenance_work_mem = '256MB'`);
    await client.query(POSTINGS_INDEXES_DDL);
    if (!inTransaction) await client.query("COMMIT");
  } catch (err) {
    if (!inTransaction) await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
  progress("search schema: postings and dictionary indexed");
}


/** Postings for documents written before version 3 (`posting_keys` NULL), in doc order. */
async function backfill(client: pg.PoolClient): Promise<void> {
  let after = "0";
  for (;;) {
    const { rows } = await client.query<{ doc: string; index_name: IndexName; id: string; source: Record<string, unknown> }>(
      `SELECT doc, index_name, id, source FROM search_documents WHERE posting_keys IS NULL AND doc > $1 ORDER BY doc LIMIT ${BACKFILL_BATCH}`,
      [after],
    );
    if (rows.length === 0) return;
    for (const index of INDEX_NAMES) {
      const mine = rows.filter((r) => r.index_name === index).map((r) => ({ doc: r.doc, row: buildRow(index, { id: r.id, source: r.source }) }));
      if (mine.length) await backfillPostings(client, index, mine);
    }
    after = rows[rows.length - 1]!.doc;
  }
}

/** Dictionary entries for the postings of a version 3 table, in doc order. */
async function backfillDictionary(client: pg.PoolClient): Promise<void> {
  for (let after: string | null = "0"; after !== null; ) after = await backfillTerms(client, after, BACKFILL_BATCH);
}

/**
 * What queries call beyond the tables, kept outside the versioned DDL so that a table of the current
 * version created before them gets them too: `fuzzystrmatch` (`levenshtein_less_equal`, fuzzy terms,
 * `./fuzzy.ts`; trusted since PostgreSQL 13, so the database's owner may create it) and the sloppy
 * phrase matcher (`./phrase-slop.ts`). Two processes starting at once may race: one wins.
 */
async function ensureQueryFunctions(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ fuzzy: boolean; slop: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'fuzzystrmatch') AS fuzzy, to_regprocedure($1) IS NOT NULL AS slop`,
    [SLOPPY_PHRASE_SIGNATURE],
  );
  const lost = (err: unknown) => {
    if (!["23505", "42710", "XX000"].includes(pgCode(err) ?? "")) throw err;
  };
  if (!rows[0]?.fuzzy) await pool.query("CREATE EXTENSION IF NOT EXISTS fuzzystrmatch").catch(lost);
  if (!rows[0]?.slop) await pool.query(SLOPPY_PHRASE_DDL).catch(lost);
}

export interface SchemaOptions {
  /** Told each step of an upgrade, as it ends. */
  progress?: (message: string) => void;
  /** Rows per statement of the stepped upgrade (tests use small batches). */
  batch?: number;
}

const version = async (c: pg.Pool | pg.PoolClient) =>
  (await c.query<{ v: string | null }>("SELECT obj_description(to_regclass('search_documents'), 'pg_class') AS v")).rows[0]?.v;

/** Deletes the bookkeeping fields' postings (`./postings.ts` `hasPostings`) and their stored keys, `batch` rows per statement. */
async function dropBookkeeping(client: pg.PoolClient, batch: number, progress: (message: string) => void): Promise<void> {
  const ranges = bookkeepingKeyRanges();
  const params = ranges.flat();
  const inRanges = (k: string) => ranges.map((_, i) => `(${k} COLLATE "C" >= $${2 * i + 1} AND ${k} COLLATE "C" < $${2 * i + 2})`).join(" OR ");
  let postings = 0;
  for (let i = 0; i < ranges.length; i++) {
    for (;;) {
      const { rowCount } = await client.query(
        `DELETE FROM search_postings WHERE ctid = ANY (ARRAY(SELECT ctid FROM search_postings WHERE key >= $1 AND key < $2 LIMIT ${batch}))`,
        ranges[i],
      );
      postings += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
      progress(`search schema: ${postings} bookkeeping postings deleted`);
    }
  }
  progress(`search schema: ${postings} bookkeeping postings deleted`);
  const last = Number((await client.query<{ n: string | null }>("SELECT max(doc) AS n FROM search_documents")).rows[0]?.n ?? 0);
  let documents = 0;
  for (let after = 0; after < last; after += batch) {
    const { rowCount } = await client.query(
      `UPDATE search_documents d SET posting_keys = ARRAY(SELECT k FROM unnest(d.posting_keys) k WHERE NOT (${inRanges("k")}))
       WHERE d.doc > $${params.length + 1} AND d.doc <= $${params.length + 2} AND EXISTS (SELECT 1 FROM unnest(d.posting_keys) k WHERE ${inRanges("k")})`,
      [...params, after, after + batch],
    );
    documents += rowCount ?? 0;
    progress(`search schema: stored keys of ${documents} documents rewritten (doc ${Math.min(after + batch, last)} of ${last})`);
  }
}

/**
 * Version 10's documents packed (`./packing.ts`): `batch` documents per committed statement, in doc
 * order from the first one not packed yet (a restart after a kill resumes there), then the two
 * columns dropped and `body` required in one transaction, and the table rewritten (`VACUUM FULL`:
 * the updates left a dead version of every row, and an entry for each in every index; without it
 * the files would keep the size of both). Each step may be repeated: a start after a kill during
 * the rewrite finds every document packed and the columns gone, and only rewrites.
 */
async function packInSteps(client: pg.PoolClient, batch: number, progress: (message: string) => void): Promise<void> {
  if (await hasColumn(client, "search_documents", "source")) {
    await client.query(`ALTER TABLE search_documents ADD COLUMN IF NOT EXISTS body BYTEA;
      ALTER TABLE search_documents ALTER COLUMN source DROP NOT NULL`);
    const { rows } = await client.query<{ first: string | null; left: string }>("SELECT min(doc) AS first, count(*) AS left FROM search_documents WHERE body IS NULL");
    const left = Number(rows[0]!.left);
    let after = rows[0]!.first === null ? null : String(BigInt(rows[0]!.first) - 1n);
    let packed = 0;
    while (after !== null) {
      const { rows: docs } = await client.query<{ doc: string; source: Record<string, unknown>; keys: string[] | null }>(
        `SELECT doc, source, posting_keys AS keys FROM search_documents WHERE doc > $1 AND body IS NULL ORDER BY doc LIMIT ${batch}`,
        [after],
      );
      if (docs.length === 0) break;
      await client.query(
        `UPDATE search_documents d SET body = x.body, source = NULL, posting_keys = NULL
         FROM unnest($1::bigint[], $2::bytea[]) AS x(doc, body) WHERE d.doc = x.doc`,
        [docs.map((d) => d.doc), docs.map((d) => pack(d.source, d.keys ?? []))],
      );
      packed += docs.length;
      after = docs[docs.length - 1]!.doc;
      progress(`search schema: ${packed} of ${left} documents packed`);
    }
    await client.query("BEGIN");
    try {
      await client.query(`ALTER TABLE search_documents DROP COLUMN source, DROP COLUMN posting_keys;
        ALTER TABLE search_documents ALTER COLUMN body SET NOT NULL`);
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    }
    progress("search schema: source and posting_keys dropped");
  }
  await client.query("SET maintenance_work_mem = '256MB'");
  await client.query("VACUUM (FULL, ANALYZE) search_documents");
  await client.query("RESET maintenance_work_mem");
  progress("search schema: documents rewritten");
}

/**
 * Version 11's two GIN indexes (all of `fields`, its keys) replaced by one on the fields without
 * postings (`./unposted.ts`): built first, so that a kill leaves either both old ones or the new one
 * beside them (a rerun finds it and drops).
 */
async function indexUnposted(client: pg.PoolClient, progress: (message: string) => void): Promise<void> {
  await client.query(unpostedFunctionSql());
  await client.query("SET maintenance_work_mem = '256MB'");
  await client.query(`CREATE INDEX IF NOT EXISTS "search_documents_unposted_idx" ON "search_documents" USING GIN (${UNPOSTED}("fields") jsonb_path_ops)`);
  await client.query("RESET maintenance_work_mem");
  progress("search schema: index of the fields without postings built");
  await client.query(`DROP INDEX IF EXISTS "search_documents_fields_path_idx", "search_documents_keys_idx";
    DROP FUNCTION IF EXISTS search_document_keys(jsonb)`);
  await client.query(`ANALYZE "search_documents"`);
  progress("search schema: indexes of all fields and their keys dropped");
}

/** Version 13's partial indexes of the optional fields' presence (`./unposted.ts`), each idempotent. */
async function indexPresence(client: pg.PoolClient, progress: (message: string) => void): Promise<void> {
  for (const sql of presenceIndexesSql()) await client.query(sql);
  progress("search schema: partial indexes of the optional fields' presence built");
}

/**
 * The service's writers up to version 13 missed that a document they replaced or deleted held a
 * term's one inlined posting (`./terms.ts` compared the document as the process's int8 parser read
 * it, a number, with the text of the state it read): the term kept pulse 1 and the removed posting.
 * Those entries become "not counted" (pulse NULL), which readers take from the postings; the others
 * are left as they are. Idempotent.
 */
async function clearRemovedInlinedPostings(client: pg.PoolClient, progress: (message: string) => void): Promise<void> {
  const { rowCount } = await client.query(
    `UPDATE search_terms t SET pulse = NULL, ts = NULL, doc = NULL, live = NULL, aud = NULL, fct = NULL
      WHERE t.pulse = 1 AND NOT EXISTS (
        SELECT 1 FROM search_postings p WHERE p.key = t.field || chr(1) || t.term AND p.ts IS NOT DISTINCT FROM t.ts AND p.doc = t.doc
           AND p.live IS NOT DISTINCT FROM t.live AND p.aud IS NOT DISTINCT FROM t.aud AND p.fct IS NOT DISTINCT FROM t.fct)`,
  );
  progress(`search schema: ${rowCount ?? 0} dictionary entries of removed postings cleared`);
}

/**
 * From STEPPED_FROM: each step is committed on its own and is idempotent, so that a restart after a
 * kill resumes; a session lock keeps other starting processes waiting until the version is set.
 */
async function upgradeInSteps(pool: pg.Pool, opts: SchemaOptions): Promise<void> {
  const progress = opts.progress ?? (() => undefined);
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    try {
      if ((await version(client)) === STEPPED_FROM) {
        await client.query(DROP_SEARCH_TEXT);
        progress("search schema: search_text and its trigram index dropped");
        await dropBookkeeping(client, opts.batch ?? STEP_BATCH, progress);
        await client.query(`COMMENT ON TABLE "search_documents" IS '${RECODED_FROM}'`);
        progress(`search schema: ${RECODED_FROM}`);
      }
      if ((await version(client)) === RECODED_FROM) {
        await recode(client, opts.batch ?? STEP_BATCH, progress, false);
        await client.query(`COMMENT ON TABLE "search_documents" IS '${PACKED_FROM}'`);
        await client.query('ANALYZE "search_postings", "search_terms"');
        progress(`search schema: ${PACKED_FROM}`);
      }
      if ((await version(client)) === PACKED_FROM) {
        await packInSteps(client, opts.batch ?? PACK_BATCH, progress);
        await client.query(`COMMENT ON TABLE "search_documents" IS '${UNPOSTED_FROM}'`);
        progress(`search schema: ${UNPOSTED_FROM}`);
      }
      if ((await version(client)) === UNPOSTED_FROM) {
        await indexUnposted(client, progress);
        await client.query(`COMMENT ON TABLE "search_documents" IS '${PRESENCE_FROM}'`);
        progress(`search schema: ${PRESENCE_FROM}`);
      }
      if ((await version(client)) === PRESENCE_FROM) {
        await indexPresence(client, progress);
        await client.query(`COMMENT ON TABLE "search_documents" IS '${REPAIRED_FROM}'`);
        progress(`search schema: ${REPAIRED_FROM}`);
      }
      if ((await version(client)) !== REPAIRED_FROM) return;
      await clearRemovedInlinedPostings(client, progress);
      await client.query(`COMMENT ON TABLE "search_documents" IS '${VERSION}'`);
      progress(`search schema: ${VERSION}`);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

/** Creates the table or upgrades it to the current version (idempotent). */
export async function ensureSearchSchema(pool: pg.Pool, opts: SchemaOptions = {}): Promise<void> {
  const current = async (c: pg.Pool | pg.PoolClient) => (await version(c)) === VERSION;
  await ensureQueryFunctions(pool);
  if (await current(pool)) return;
  if (!STEPPED.includes((await version(pool)) ?? "")) await upgradeToVersion10(pool, opts);
  await upgradeInSteps(pool, opts);
}

/** The versions `upgradeInSteps` takes to the current one. */
const STEPPED = [STEPPED_FROM, RECODED_FROM, PACKED_FROM, UNPOSTED_FROM, PRESENCE_FROM, REPAIRED_FROM, VERSION];

/** A new table, or one of a version before STEPPED_FROM, brought to version 10 in one transaction. */
async function upgradeToVersion10(pool: pg.Pool, opts: SchemaOptions): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [LOCK_KEY]);
    const before = await version(client);
    if (!STEPPED.includes(before ?? "")) {
      // GIN builds over an existing table run several times faster with more than the 64 MB default;
      // the facets' join (version 6) hashes one row per document.
      await client.query("SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL work_mem = '256MB'");
      await client.query(DDL);
      const aside = await setAsideUnfaceted(client);
      await client.query(POSTINGS_TABLES_DDL);
      await recode(client, BACKFILL_BATCH * 10, opts.progress ?? (() => undefined), true);
      if (aside) await copyWithFacets(client, aside);
      await client.query(POSTINGS_INDEXES_DDL);
      if (before && WITHOUT_PRESENCE.includes(before)) await backfillPresence(client);
      await backfill(client);
      if (before === POSTINGS_VERSION) await backfillDictionary(client);
      if (before) await dropBookkeeping(client, BACKFILL_BATCH * 10, opts.progress ?? (() => undefined));
      await client.query(`COMMENT ON TABLE "search_documents" IS '${PACKED_FROM}'`);
      // Statistics for the new columns and index expressions (the planner's row estimates).
      await client.query('ANALYZE "search_documents"');
      await client.query('ANALYZE "search_postings"');
      await client.query('ANALYZE "search_terms"');
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
