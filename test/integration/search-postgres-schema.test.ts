/**
 * The PostgreSQL backend's table at start (src/search/postgres/schema.ts): a database migrated to
 * version 1 (the migration's table and jsonb_ops index) that already holds documents is upgraded in
 * place by `ensureIndices`, by several processes at once (postings computed for the stored
 * documents), and searches answer the same afterwards, on both paths;
 * the stored access value (`visible_to`) is each document's own audience field.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { buildRow } from "../../src/search/postgres/documents.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import { planPostings, type PostingSource } from "../../src/search/postgres/postings-plan.ts";
import { allKey, bookkeepingKeyRanges, longTerm, termKey } from "../../src/search/postgres/postings.ts";
import { ensureSearchSchema } from "../../src/search/postgres/schema.ts";
import { unpack } from "../../src/search/postgres/packing.ts";
import { searchStatements } from "../../src/search/postgres/statements.ts";
import { UNPOSTED, unpostedFunctionSql } from "../../src/search/postgres/unposted.ts";
import { patternTermsSql } from "../../src/search/postgres/terms.ts";
import type { IndexName, SearchAccess, SearchDocument } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { buildSearchDocuments } from "../support/search-fixtures.ts";
import { checkDictionary, postingsOutOfStep } from "../support/search-terms.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
// Every event, a third of the attributes (of every event, type and distribution) and the few .cn
// values that value:*.cn finds: each upgrade rewrites all of them, and none needs more than a few
// of the batches it is given (300-500).
const fixtures = buildSearchDocuments();
const events = fixtures.events;
const attributes = fixtures.attributes.filter((d, i) => i % 3 === 0 || String(d.source.value).endsWith(".cn"));

/** Rows written as version 1 wrote them (no visible_to), straight into the migration's table. */
async function insertVersion1(index: IndexName, docs: SearchDocument[]): Promise<void> {
  const rows = docs.map((d) => buildRow(index, d));
  await pool.query(
    `INSERT INTO search_documents (index_name, id, source, fields, phrases, search_text, ts)
     SELECT $1, r.id, r.source, r.fields, r.phrases, r.search_text, r.ts
     FROM unnest($2::text[], $3::jsonb[], $4::jsonb[], $5::jsonb[], $6::text[], $7::timestamptz[]) AS r(id, source, fields, phrases, search_text, ts)`,
    [
      index,
      rows.map((r) => r.id),
      rows.map((r) => JSON.stringify(r.source)),
      rows.map((r) => JSON.stringify(r.fields)),
      rows.map((r) => JSON.stringify(r.phrases)),
      // Version 1's column, dropped by version 9.
      rows.map(() => ""),
      rows.map((r) => r.ts),
    ],
  );
}

/**
 * The documents as version 10 stored them: `source` JSONB and `posting_keys` text[], unpacked from
 * version 11's `body` (src/search/postgres/packing.ts).
 */
async function toVersion10Documents(): Promise<void> {
  const { rows } = await pool.query<{ doc: string; body: Buffer }>("SELECT doc, body FROM search_documents");
  const unpacked = rows.map((r) => ({ doc: r.doc, ...unpack(r.body) }));
  await pool.query(`ALTER TABLE search_documents ADD COLUMN source JSONB, ADD COLUMN posting_keys TEXT[]`);
  await pool.query(
    `UPDATE search_documents d SET source = x.source, posting_keys = array(SELECT jsonb_array_elements_text(x.keys))
     FROM unnest($1::bigint[], $2::jsonb[], $3::jsonb[]) AS x(doc, source, keys) WHERE d.doc = x.doc`,
    [unpacked.map((u) => u.doc), unpacked.map((u) => JSON.stringify(u.source)), unpacked.map((u) => JSON.stringify(u.keys))],
  );
  await pool.query("ALTER TABLE search_documents DROP COLUMN body, ALTER COLUMN source SET NOT NULL");
}

/**
 * The postings and dictionary as version 9 stored them: the audience as `vis` numeric[] and the
 * facet as text in every row and index tuple, no code tables (src/search/postgres/codes.ts); its
 * documents as version 10 stored them.
 */
async function toVersion9Layout(): Promise<void> {
  await toVersion10Documents();
  await pool.query(`ALTER TABLE search_postings ADD COLUMN vis NUMERIC[], ADD COLUMN facet TEXT;
    UPDATE search_postings p SET vis = a.vis FROM search_audiences a WHERE a.id = p.aud;
    UPDATE search_postings p SET facet = f.value FROM search_facets f WHERE f.id = p.fct;
    ALTER TABLE search_postings DROP COLUMN aud, DROP COLUMN fct;
    CREATE INDEX search_postings_key_idx ON search_postings ("key", "ts" DESC, "doc") INCLUDE ("live", "vis", "facet");
    ALTER TABLE search_terms ADD COLUMN vis NUMERIC[], ADD COLUMN facet TEXT;
    UPDATE search_terms t SET vis = a.vis FROM search_audiences a WHERE a.id = t.aud;
    UPDATE search_terms t SET facet = f.value FROM search_facets f WHERE f.id = t.fct;
    ALTER TABLE search_terms DROP COLUMN aud, DROP COLUMN fct;
    CREATE INDEX search_terms_length_cover_idx ON search_terms ("field", "length") INCLUDE ("term", "pulse", "ts", "doc", "live", "vis", "facet");
    CREATE INDEX search_terms_suffix_idx ON search_terms ("field", reverse("term")) INCLUDE ("term", "pulse", "ts", "doc", "live", "vis", "facet");
    DROP TABLE search_audiences, search_facets`);
}

const indexes = async () =>
  (await pool.query<{ name: string }>("SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'search_documents'::regclass ORDER BY 1")).rows.map(
    (r) => r.name,
  );

const VERSION_13_INDEXES = [
  "search_documents_doc_idx",
  "search_documents_has_expanded_ip_range_idx",
  "search_documents_has_extends_uuid_idx",
  "search_documents_has_object_uuid_idx",
  "search_documents_pkey",
  "search_documents_ts_idx",
  "search_documents_unposted_idx",
];

/** The plan of the JSONB path's collect statement for `q` (by `_score`). */
async function collectPlan(q: string, access: SearchAccess, index: IndexName = "svc-attributes"): Promise<string> {
  const st = searchStatements({ index, query: parseLucene(q), defaultFields: [], access, from: 0, size: 10, sort: { field: "_score", order: "desc" }, timeoutMs: 10_000 }, Date.now());
  return (await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${st.collect.text}`, st.collect.values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
}

async function total(search: PostgresSearchIndex, index: IndexName, q: string, access: SearchAccess): Promise<number> {
  const res = await search.search({
    index,
    query: parseLucene(q),
    defaultFields: [],
    access,
    from: 0,
    size: 0,
    sort: { field: "@timestamp", order: "desc" },
    timeoutMs: 10_000,
    trackTotalHits: true,
  });
  return res.total;
}

beforeAll(async () => {
  db = await createTestDatabase("search_pg_schema");
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe("search_documents schema", () => {
  it("upgrades a populated version-1 table in place, once, with concurrent starts", async () => {
    expect(await indexes()).toContain("search_documents_fields_gin_idx");
    await insertVersion1("svc-events", events);
    await insertVersion1("svc-attributes", attributes);

    await Promise.all([0, 1, 2].map(() => new PostgresSearchIndex(pool).ensureIndices()));
    expect(await indexes()).toEqual(VERSION_13_INDEXES);
    const unfilled = await pool.query("SELECT 1 FROM search_documents WHERE visible_to IS NULL OR body IS NULL OR doc IS NULL");
    expect(unfilled.rowCount).toBe(0);
    // Version 3: the documents stored before got their postings, each once (version 7: with presence keys).
    expect(await postingsOutOfStep(pool)).toBe(0);
    const postings = await pool.query<{ stored: string; presence: string }>("SELECT count(*) AS stored, count(*) FILTER (WHERE key LIKE '%' || chr(3)) AS presence FROM search_postings");
    expect(Number(postings.rows[0]!.stored)).toBeGreaterThan(attributes.length * 10);
    expect(Number(postings.rows[0]!.presence)).toBeGreaterThan(100);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    // Version 4: their terms are in the dictionary.
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    for (const q of ["", "type:ip-dst", "category:\"Network activity\" AND NOT to_ids:false", "value:www*", "value:*.cn", "type:/sha(1|256)/"]) {
      for (const access of [{ admin: true, orgId: null }, { admin: false, orgId: 1 }]) {
        expect(await total(new PostgresSearchIndex(pool), "svc-attributes", q, access), q).toBe(await total(jsonbPath, "svc-attributes", q, access));
      }
    }
    await new PostgresSearchIndex(pool).ensureIndices();

    const search = new PostgresSearchIndex(pool);
    for (const orgId of [1, 4, null]) {
      const owner = (s: Record<string, unknown>) => orgId !== null && (s.event_org_id === orgId || s.event_orgc_id === orgId);
      const visible = (s: Record<string, unknown>) => [1, 2, 3].includes(s.event_distribution as number) || owner(s);
      const sharedItem = (level: unknown) => level === null || level === undefined || [1, 2, 3, 5].includes(level as number);
      const visibleAttribute = (s: Record<string, unknown>) => owner(s) || (visible(s) && sharedItem(s.distribution) && sharedItem(s.object_distribution));
      const access = { admin: false, orgId };
      expect(await total(search, "svc-attributes", "", access)).toBe(attributes.filter((d) => visibleAttribute(d.source)).length);
      expect(await total(search, "svc-events", "", access)).toBe(events.filter((d) => visible(d.source)).length);
    }
    expect(await total(search, "svc-attributes", "_exists_:expanded.ip", { admin: true, orgId: null })).toBe(
      attributes.filter((d) => (d.source.expanded as { ip?: string }).ip !== undefined).length,
    );
  }, 180_000);

  it("upgrades a version-3 table (postings, no dictionary): the dictionary is filled from the stored documents", async () => {
    const before = await checkDictionary(pool);
    expect(before).toMatchObject({ missing: [], wrong: [] });
    await toVersion10Documents();
    await pool.query("TRUNCATE search_terms");
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v3'");
    expect((await checkDictionary(pool)).missing.length).toBeGreaterThan(1_000);
    await Promise.all([0, 1].map(() => new PostgresSearchIndex(pool).ensureIndices()));
    const after = await checkDictionary(pool);
    expect(after).toMatchObject({ missing: [], wrong: [] });
    // The same entries, in the same states, as when they were written one batch at a time.
    expect([after.entries, after.inlined]).toEqual([before.entries, before.inlined]);
    expect(after.inlined).toBeGreaterThan(0);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    for (const q of ["value:*.cn", "value:*forukraine*", "type:/sha(1|256)/", "comment:*"]) {
      expect(await total(new PostgresSearchIndex(pool), "svc-attributes", q, { admin: true, orgId: null }), q).toBe(
        await total(jsonbPath, "svc-attributes", q, { admin: true, orgId: null }),
      );
    }
  }, 120_000);

  it("upgrades a version-4 table: the dictionary's pattern indexes hold every column a pattern reads", async () => {
    const termIndexes = async () =>
      (await pool.query<{ name: string; def: string }>("SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename = 'search_terms' ORDER BY 1")).rows;
    // Version 4's tables: no facet column (its indexes go with it), a plain length index.
    await toVersion9Layout();
    await pool.query(`ALTER TABLE search_postings DROP COLUMN facet; ALTER TABLE search_terms DROP COLUMN facet;
      CREATE INDEX search_postings_key_idx ON search_postings ("key", "ts" DESC, "doc") INCLUDE ("live", "vis");
      CREATE INDEX search_terms_length_idx ON search_terms ("field", "length")`);
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v4'");
    await Promise.all([0, 1].map(() => new PostgresSearchIndex(pool).ensureIndices()));
    const after = await termIndexes();
    expect(after.map((i) => i.name)).toEqual(["search_terms_field_trgm_idx", "search_terms_length_cover_idx", "search_terms_pkey", "search_terms_suffix_idx"]);
    for (const i of after.filter((x) => x.name !== "search_terms_pkey" && x.name !== "search_terms_field_trgm_idx")) expect(i.def, i.name).toContain("INCLUDE (term, pulse, ts, doc, aud, fct, live)");
    await pool.query("VACUUM ANALYZE search_terms");
    // Endings and lengths are read from the indexes alone.
    for (const [q, index] of [
      ["value:*.cn", "search_terms_suffix_idx"],
      ["type:/md[0-9]/", "search_terms_length_cover_idx"],
      ["value:*forukraine*", "search_terms_field_trgm_idx"],
    ] as const) {
      const req = { index: "svc-attributes" as const, query: parseLucene(q), defaultFields: [], access: { admin: true, orgId: null }, from: 0, size: 10, sort: { field: "@timestamp" as const, order: "desc" as const }, timeoutMs: 10_000 };
      const plan = planPostings(req, Date.now())!;
      const pattern = (plan.conjunction!.pos[0] as { source: PostingSource }).source.patterns![0]!;
      const values: unknown[] = [];
      const sql = patternTermsSql((v) => (values.push(v), `$${values.length}`), pattern);
      const explained = (await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${sql}`, values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
      expect(explained, q).toMatch(new RegExp(`(Index Only|Bitmap Index) Scan on ${index}|Index Only Scan using ${index}`));
    }
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    for (const q of ["value:*.cn", "type:*5", "value:*forukraine*", "type:/md[0-9]/", "value:/[0-9a-f]{32}/"]) {
      for (const access of [{ admin: true, orgId: null }, { admin: false, orgId: 1 }]) {
        expect(await total(new PostgresSearchIndex(pool), "svc-attributes", q, access), q).toBe(await total(jsonbPath, "svc-attributes", q, access));
      }
    }
  }, 120_000);

  it("upgrades a version-5 table: postings and inlined postings are copied once with their documents' facets", async () => {
    const count = async (table: string) => Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${table}`)).rows[0]!.n);
    const before = { postings: await count("search_postings"), terms: await count("search_terms"), dictionary: await checkDictionary(pool) };
    // Version 5's tables: no facet column, indexes without it.
    await toVersion9Layout();
    await pool.query(`ALTER TABLE search_postings DROP COLUMN facet; ALTER TABLE search_terms DROP COLUMN facet;
      CREATE INDEX search_postings_key_idx ON search_postings ("key", "ts" DESC, "doc") INCLUDE ("live", "vis");
      CREATE INDEX search_terms_length_cover_idx ON search_terms ("field", "length") INCLUDE ("term", "pulse", "ts", "doc", "live", "vis");
      CREATE INDEX search_terms_suffix_idx ON search_terms ("field", reverse("term")) INCLUDE ("term", "pulse", "ts", "doc", "live", "vis");
      COMMENT ON TABLE search_documents IS 'search_documents v5'`);
    await Promise.all([0, 1].map(() => new PostgresSearchIndex(pool).ensureIndices()));
    expect(await count("search_postings")).toBe(before.postings);
    expect(await count("search_terms")).toBe(before.terms);
    expect(await postingsOutOfStep(pool)).toBe(0);
    const after = await checkDictionary(pool);
    expect(after).toMatchObject({ missing: [], wrong: [], entries: before.dictionary.entries, inlined: before.dictionary.inlined });
    const facets = await pool.query<{ n: string }>("SELECT count(DISTINCT fct) AS n FROM search_postings");
    expect(Number(facets.rows[0]!.n)).toBeGreaterThan(10);
    expect((await pool.query("SELECT 1 FROM search_terms WHERE pulse = 1 AND fct IS NOT NULL LIMIT 1")).rowCount).toBe(1);
    const definitions = await pool.query<{ name: string; def: string }>(
      "SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename IN ('search_postings', 'search_terms') ORDER BY 1",
    );
    expect(definitions.rows.map((r) => r.name)).toEqual(["search_postings_key_idx", "search_terms_field_trgm_idx", "search_terms_length_cover_idx", "search_terms_pkey", "search_terms_suffix_idx"]);
    for (const r of definitions.rows.filter((x) => x.name.endsWith("cover_idx") || x.name.endsWith("suffix_idx") || x.name.endsWith("key_idx"))) expect(r.def, r.name).toMatch(/INCLUDE \(.*aud, fct, live\)/);
    expect((await pool.query("SELECT 1 FROM pg_class WHERE relname LIKE '%\\_v5%'")).rowCount).toBe(0);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    for (const q of ["type:domain AND value:*.cn", "type:ip-dst AND NOT value:1*", "NOT type:md5", "type.keyword:sha256 AND value:*a*"]) {
      for (const access of [{ admin: true, orgId: null }, { admin: false, orgId: 1 }]) {
        expect(await total(new PostgresSearchIndex(pool), "svc-attributes", q, access), q).toBe(await total(jsonbPath, "svc-attributes", q, access));
      }
    }
  }, 120_000);

  it("upgrades a version-6 table: presence keys are added for the documents stored before them", async () => {
    const presence = async () =>
      (await pool.query<{ key: string; n: string }>("SELECT key, count(*) AS n FROM search_postings WHERE key LIKE '%' || chr(3) GROUP BY key ORDER BY key")).rows.map((r) => [r.key, Number(r.n)]);
    const before = await presence();
    expect(before.map(([key]) => key)).toEqual(["atags.name\u0003", "aexpanded.ip\u0003", "etags.name\u0003"].sort());
    await toVersion9Layout();
    await pool.query("DELETE FROM search_postings WHERE key LIKE '%' || chr(3)");
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v6'");
    await Promise.all([0, 1].map(() => new PostgresSearchIndex(pool).ensureIndices()));
    expect(await presence()).toEqual(before);
    expect(await postingsOutOfStep(pool)).toBe(0);
    const req = { index: "svc-attributes" as const, query: parseLucene("_exists_:expanded.ip"), defaultFields: [], access: { admin: true, orgId: null }, from: 0, size: 10, sort: { field: "@timestamp" as const, order: "desc" as const }, timeoutMs: 10_000 };
    expect(planPostings(req, Date.now())!.conjunction!.pos).toEqual([{ source: { keys: ["aexpanded.ip\u0003"], ranges: [] } }]);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    for (const q of ["_exists_:expanded.ip", "type:ip-dst AND NOT _exists_:expanded.ip", "_exists_:tags.name AND value:*.cn", "NOT _exists_:tags.name"]) {
      for (const access of [{ admin: true, orgId: null }, { admin: false, orgId: 1 }]) {
        expect(await total(new PostgresSearchIndex(pool), "svc-attributes", q, access), q).toBe(await total(jsonbPath, "svc-attributes", q, access));
      }
    }
    expect(await total(new PostgresSearchIndex(pool), "svc-events", "_exists_:tags.name", { admin: true, orgId: null })).toBe(await total(jsonbPath, "svc-events", "_exists_:tags.name", { admin: true, orgId: null }));
  }, 120_000);

  it("upgrades a version-8 table in committed steps, with progress: a kill between steps resumes at the next start", async () => {
    const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
    const bookkeeping = `SELECT count(*) AS n FROM search_postings WHERE ${bookkeepingKeyRanges().map(([lo, hi]) => `(key >= '${lo}' AND key < '${hi}')`).join(" OR ")}`;
    const queries = ["type:ip-dst AND deleted:false", "event_org_id:1 OR distribution:0", "value:*.cn AND NOT disable_correlation:true", "category:/net.*/"];
    const totals = async () => Promise.all(queries.map((q) => total(new PostgresSearchIndex(pool), "svc-attributes", q, { admin: false, orgId: 1 })));
    const before = { postings: await count("SELECT count(*) AS n FROM search_postings"), totals: await totals() };
    expect(await count(bookkeeping)).toBe(0);

    // Version 8's layout: search_text with its trigram index, postings (and stored keys) of the bookkeeping fields.
    await toVersion9Layout();
    await pool.query(`ALTER TABLE search_documents ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
      CREATE INDEX search_documents_search_text_trgm_idx ON search_documents USING GIN (search_text gin_trgm_ops)`);
    const { rows } = await pool.query<{ doc: string; index_name: IndexName; fields: Record<string, unknown[]> }>("SELECT doc, index_name, fields FROM search_documents");
    const added = rows.flatMap((r) =>
      Object.entries(r.fields)
        .filter(([field]) => bookkeepingKeyRanges().some(([lo]) => lo === `${allKey(r.index_name).slice(0, 1)}${field}\u0001`))
        .flatMap(([field, values]) => values.map((v) => ({ doc: r.doc, all: allKey(r.index_name), key: termKey(r.index_name, field, typeof v === "boolean" ? String(v) : longTerm(BigInt(v as number))) }))),
    );
    expect(added.length).toBeGreaterThan(attributes.length * 5);
    await pool.query(
      `INSERT INTO search_postings (key, ts, doc, live, vis, facet)
       SELECT x.key, p.ts, p.doc, p.live, p.vis, p.facet FROM unnest($1::text[], $2::bigint[], $3::text[]) AS x(key, doc, all_key)
       JOIN search_postings p ON p.key = x.all_key AND p.doc = x.doc`,
      [added.map((a) => a.key), added.map((a) => a.doc), added.map((a) => a.all)],
    );
    await pool.query(
      `UPDATE search_documents d SET posting_keys = d.posting_keys || x.keys
       FROM (SELECT doc, array_agg(key) AS keys FROM unnest($1::text[], $2::bigint[]) AS u(key, doc) GROUP BY doc) x WHERE d.doc = x.doc`,
      [added.map((a) => a.key), added.map((a) => a.doc)],
    );
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v8'");
    expect(await count(bookkeeping)).toBe(added.length);

    // Killed after its third committed step.
    const messages: string[] = [];
    const kill = (m: string) => {
      messages.push(m);
      if (messages.length === 3) throw new Error("killed");
    };
    await expect(ensureSearchSchema(pool, { batch: 500, progress: kill })).rejects.toThrow("killed");
    expect(messages[0]).toBe("search schema: search_text and its trigram index dropped");
    expect((await pool.query("SELECT obj_description('search_documents'::regclass, 'pg_class') AS v")).rows[0].v).toBe("search_documents v8");
    const left = await count(bookkeeping);
    expect(left).toBeLessThan(added.length);
    expect(left).toBeGreaterThan(0);

    // The next start (two processes at once) takes it up where it stopped.
    const resumed: string[] = [];
    await Promise.all([0, 1].map(() => ensureSearchSchema(pool, { batch: 500, progress: (m) => resumed.push(m) })));
    expect(resumed).toContain("search schema: search_documents v9");
    expect(resumed).toContain("search schema: search_documents v10");
    expect(resumed.slice(-3)).toEqual(["search schema: search_documents v13", "search schema: 0 dictionary entries of removed postings cleared", "search schema: search_documents v14"]);
    expect(resumed.filter((m) => m.startsWith("search schema: stored keys")).length).toBeGreaterThan(1);
    expect(await count(bookkeeping)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM search_postings")).toBe(before.postings);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    expect(await indexes()).not.toContain("search_documents_search_text_trgm_idx");
    expect((await pool.query("SELECT 1 FROM pg_attribute WHERE attrelid = 'search_documents'::regclass AND attname = 'search_text' AND NOT attisdropped")).rowCount).toBe(0);
    expect(await totals()).toEqual(before.totals);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    for (const q of queries) expect(await total(jsonbPath, "svc-attributes", q, { admin: false, orgId: 1 }), q).toBe(before.totals[queries.indexOf(q)]);
    expect(before.totals.every((n) => n > 0)).toBe(true);
  }, 180_000);

  it("upgrades a version-9 table to coded audiences and facets in committed steps: a kill mid-copy resumes at the next start", async () => {
    const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
    const queries = ["type:ip-dst", "type:domain AND value:*.cn", "value:*forukraine*", "NOT type:md5", "category:/net.*/", ""];
    const accesses = [{ admin: true, orgId: null }, { admin: false, orgId: 1 }, { admin: false, orgId: 4 }];
    const totals = async () => Promise.all(queries.flatMap((q) => accesses.map((a) => total(new PostgresSearchIndex(pool), "svc-attributes", q, a))));
    const before = { postings: await count("SELECT count(*) AS n FROM search_postings"), terms: await count("SELECT count(*) AS n FROM search_terms"), totals: await totals() };
    expect(await count("SELECT count(*) AS n FROM search_postings WHERE aud IS NOT NULL")).toBeGreaterThan(0);
    expect(await count("SELECT count(*) AS n FROM search_postings WHERE aud IS NULL")).toBeGreaterThan(0);
    await toVersion9Layout();
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v9'");

    // Killed after its third committed step, inside the postings' copy.
    const messages: string[] = [];
    const kill = (m: string) => {
      messages.push(m);
      if (messages.length === 3) throw new Error("killed");
    };
    await expect(ensureSearchSchema(pool, { batch: 500, progress: kill })).rejects.toThrow("killed");
    expect(messages.every((m) => / postings coded$/.test(m))).toBe(true);
    expect((await pool.query("SELECT obj_description('search_documents'::regclass, 'pg_class') AS v")).rows[0].v).toBe("search_documents v9");
    const copied = await count("SELECT count(*) AS n FROM search_postings_v10");
    expect(copied).toBeGreaterThanOrEqual(1_500);
    expect(copied).toBeLessThan(before.postings);
    // The old tables still answer until the swap.
    expect(await count("SELECT count(*) AS n FROM search_postings")).toBe(before.postings);

    // The next start (two processes at once) takes it up after the last key copied.
    const resumed: string[] = [];
    await Promise.all([0, 1].map(() => ensureSearchSchema(pool, { batch: 500, progress: (m) => resumed.push(m) })));
    expect(Number(/^search schema: (\d+) postings coded$/.exec(resumed[0]!)![1])).toBeGreaterThan(copied);
    expect(resumed.filter((m) => m.endsWith("dictionary entries coded")).length).toBeGreaterThan(1);
    expect(resumed).toContain("search schema: search_documents v10");
    expect(resumed.slice(-3)).toEqual(["search schema: search_documents v13", "search schema: 0 dictionary entries of removed postings cleared", "search schema: search_documents v14"]);
    expect(await count("SELECT count(*) AS n FROM search_postings")).toBe(before.postings);
    expect(await count("SELECT count(*) AS n FROM search_terms")).toBe(before.terms);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    expect((await pool.query("SELECT 1 FROM pg_class WHERE relname LIKE '%\\_v10%'")).rowCount).toBe(0);
    const definitions = await pool.query<{ name: string; def: string }>("SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE tablename IN ('search_postings', 'search_terms') ORDER BY 1");
    expect(definitions.rows.map((r) => r.name)).toEqual(["search_postings_key_idx", "search_terms_field_trgm_idx", "search_terms_length_cover_idx", "search_terms_pkey", "search_terms_suffix_idx"]);
    for (const r of definitions.rows.filter((x) => !x.name.endsWith("pkey") && !x.name.endsWith("trgm_idx"))) expect(r.def, r.name).toMatch(/INCLUDE \(.*aud, fct, live\)/);
    expect(await totals()).toEqual(before.totals);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    for (const [i, q] of queries.entries()) {
      for (const [j, a] of accesses.entries()) expect(await total(jsonbPath, "svc-attributes", q, a), `${q} ${a.orgId}`).toBe(before.totals[i * accesses.length + j]);
    }
  }, 180_000);

  it("upgrades a version-10 table to packed documents in committed steps: a kill mid-way resumes at the next start", async () => {
    const count = async (sql: string) => Number((await pool.query<{ n: string }>(sql)).rows[0]!.n);
    const column = async (name: string) => (await pool.query("SELECT 1 FROM pg_attribute WHERE attrelid = 'search_documents'::regclass AND attname = $1 AND NOT attisdropped", [name])).rowCount;
    const queries = ["type:ip-dst", "value:*.cn", "category:\"Network activity\" AND NOT to_ids:false", ""];
    const hits = async (search: PostgresSearchIndex) =>
      Promise.all(
        queries.map(async (q) => {
          const res = await search.search({
            index: "svc-attributes",
            query: parseLucene(q),
            defaultFields: [],
            access: { admin: false, orgId: 1 },
            from: 0,
            size: 20,
            sort: { field: "@timestamp", order: "desc" },
            timeoutMs: 10_000,
            trackTotalHits: true,
          });
          return { total: res.total, hits: res.hits.map((h) => [h.id, h.source]) };
        }),
      );
    const before = await hits(new PostgresSearchIndex(pool));
    const documents = await count("SELECT count(*) AS n FROM search_documents");
    await toVersion10Documents();
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v10'");

    // Killed after its third committed step.
    const messages: string[] = [];
    const kill = (m: string) => {
      messages.push(m);
      if (messages.length === 3) throw new Error("killed");
    };
    await expect(ensureSearchSchema(pool, { batch: 300, progress: kill })).rejects.toThrow("killed");
    expect(messages).toEqual([1, 2, 3].map((i) => `search schema: ${300 * i} of ${documents} documents packed`));
    expect((await pool.query("SELECT obj_description('search_documents'::regclass, 'pg_class') AS v")).rows[0].v).toBe("search_documents v10");
    expect(await count("SELECT count(*) AS n FROM search_documents WHERE body IS NOT NULL AND source IS NULL")).toBe(900);

    // The next start packs the rest only; killed once the columns are dropped, before the rewrite.
    const resumed: string[] = [];
    const killAtDrop = (m: string) => {
      resumed.push(m);
      if (m.endsWith("dropped")) throw new Error("killed");
    };
    await expect(ensureSearchSchema(pool, { batch: 300, progress: killAtDrop })).rejects.toThrow("killed");
    expect(resumed[0]).toBe(`search schema: 300 of ${documents - 900} documents packed`);
    expect(resumed.at(-2)).toBe(`search schema: ${documents - 900} of ${documents - 900} documents packed`);
    expect((await pool.query("SELECT obj_description('search_documents'::regclass, 'pg_class') AS v")).rows[0].v).toBe("search_documents v10");
    expect(await column("source")).toBe(0);

    // The start after that (two processes at once) only rewrites the table.
    const rewritten: string[] = [];
    await Promise.all([0, 1].map(() => ensureSearchSchema(pool, { batch: 300, progress: (m) => rewritten.push(m) })));
    expect(rewritten).toEqual([
      "search schema: documents rewritten",
      "search schema: search_documents v11",
      "search schema: index of the fields without postings built",
      "search schema: indexes of all fields and their keys dropped",
      "search schema: search_documents v12",
      "search schema: partial indexes of the optional fields' presence built",
      "search schema: search_documents v13",
      "search schema: 0 dictionary entries of removed postings cleared",
      "search schema: search_documents v14",
    ]);
    expect(await column("source")).toBe(0);
    expect(await column("posting_keys")).toBe(0);
    expect(await count("SELECT count(*) AS n FROM search_documents")).toBe(documents);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await hits(new PostgresSearchIndex(pool))).toEqual(before);
    expect(await hits(new PostgresSearchIndex(pool, { postings: false }))).toEqual(before);
    expect(before.every((b) => b.total > 0 && b.hits.length > 0)).toBe(true);

    // Upgraded documents are replaced and deleted by their unpacked keys.
    const search = new PostgresSearchIndex(pool);
    const changed = attributes.slice(0, 50).map((d) => ({ id: d.id, source: { ...d.source, value: `changed-${d.id}.example`, type: "hostname" } }));
    await search.bulkIndex("svc-attributes", changed);
    await search.deleteByIds("svc-attributes", attributes.slice(50, 60).map((d) => d.id));
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    expect(await total(search, "svc-attributes", "value:changed*", { admin: true, orgId: null })).toBe(50);
  }, 180_000);

  it("upgrades a version-11 table: the GIN of the fields without postings replaces those of all fields and their keys; a kill between the two resumes", async () => {
    const search = new PostgresSearchIndex(pool);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    const a = attributes.find((d) => d.source.object_uuid && (d.source.expanded as { ip_range?: string }).ip_range)!;
    const ipRange = (a.source.expanded as { ip_range: string }).ip_range;
    const queries = [
      `uuid:${a.id}`,
      `event_uuid:"${String(a.source.event_uuid)}" AND type:ip-dst`,
      "_exists_:object_uuid",
      "NOT _exists_:object_uuid AND type:md5",
      `expanded.ip_range:${ipRange.split("/")[0]}`,
      "event_org_id:1 OR distribution:0",
      "type:ip-dst AND deleted:false",
      'category:"Network activity" AND NOT to_ids:false',
      "_exists_:expanded.ip AND value:1*",
      "type:domain AND NOT value:*.cn",
    ];
    const access = { admin: false, orgId: 1 };
    const totals = async (s: PostgresSearchIndex) => Promise.all(queries.map((q) => total(s, "svc-attributes", q, access)));
    const before = await totals(search);
    expect(before.every((n) => n > 0)).toBe(true);
    // Version 11's indexes.
    await pool.query(`DROP INDEX search_documents_unposted_idx;
      CREATE FUNCTION search_document_keys(fields jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT array(SELECT jsonb_object_keys(fields)) $$;
      CREATE INDEX search_documents_fields_path_idx ON search_documents USING GIN (fields jsonb_path_ops);
      CREATE INDEX search_documents_keys_idx ON search_documents USING GIN (search_document_keys(fields));
      COMMENT ON TABLE search_documents IS 'search_documents v11'`);

    // Killed once the new index is built, before the old ones are dropped.
    const kill = (m: string) => {
      if (m.endsWith("built")) throw new Error("killed");
    };
    await expect(ensureSearchSchema(pool, { progress: kill })).rejects.toThrow("killed");
    expect((await pool.query("SELECT obj_description('search_documents'::regclass, 'pg_class') AS v")).rows[0].v).toBe("search_documents v11");
    expect(await indexes()).toEqual(expect.arrayContaining(["search_documents_fields_path_idx", "search_documents_keys_idx", "search_documents_unposted_idx"]));

    const resumed: string[] = [];
    await Promise.all([0, 1].map(() => ensureSearchSchema(pool, { progress: (m) => resumed.push(m) })));
    expect(resumed).toEqual([
      "search schema: index of the fields without postings built",
      "search schema: indexes of all fields and their keys dropped",
      "search schema: search_documents v12",
      "search schema: partial indexes of the optional fields' presence built",
      "search schema: search_documents v13",
      "search schema: 0 dictionary entries of removed postings cleared",
      "search schema: search_documents v14",
    ]);
    expect(await indexes()).toEqual(VERSION_13_INDEXES);
    expect((await pool.query("SELECT 1 FROM pg_proc WHERE proname = 'search_document_keys'")).rowCount).toBe(0);
    // The stored function removes the fields that have postings now (a change needs a table version).
    const stored = await pool.query<{ src: string }>(`SELECT prosrc AS src FROM pg_proc WHERE proname = '${UNPOSTED}'`);
    expect(unpostedFunctionSql()).toContain(stored.rows[0]!.src.trim());
    expect(await totals(search)).toEqual(before);
    expect(await totals(jsonbPath)).toEqual(before);
    // An identifier's documents are found by the GIN, an ip range's by the partial index of its presence (version 13).
    await pool.query("ANALYZE search_documents");
    expect(await collectPlan(`uuid:${a.id}`, access)).toContain("search_documents_unposted_idx");
    expect(await collectPlan(`expanded.ip_range:${ipRange.split("/")[0]}`, access)).toContain("search_documents_has_expanded_ip_range_idx");
  }, 120_000);

  it("upgrades a version-12 table: partial indexes of the optional fields' presence answer _exists_; a kill mid-way resumes", async () => {
    const search = new PostgresSearchIndex(pool);
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    const a = attributes.find((d) => (d.source.expanded as { ip_range?: string }).ip_range)!;
    const ipRange = (a.source.expanded as { ip_range: string }).ip_range;
    const queries = [
      "_exists_:object_uuid",
      "NOT _exists_:object_uuid",
      "NOT _exists_:object_uuid AND type:md5",
      "_exists_:expanded.ip_range",
      "NOT _exists_:expanded.ip_range AND _exists_:expanded.ip",
      `expanded.ip_range:${ipRange.split("/")[0]}`,
      "_exists_:object_uuid AND NOT _exists_:expanded.ip_range",
    ];
    const access = { admin: false, orgId: 1 };
    const eventQueries = ["_exists_:extends_uuid", "NOT _exists_:extends_uuid", "_exists_:extends_uuid OR distribution:0"];
    const totals = async (s: PostgresSearchIndex) => [
      ...(await Promise.all(queries.map((q) => total(s, "svc-attributes", q, access)))),
      ...(await Promise.all(eventQueries.map((q) => total(s, "svc-events", q, access)))),
    ];
    const present = (key: "object_uuid" | "extends_uuid") => attributes.filter((d) => d.source[key] !== undefined && d.source[key] !== null).length;
    expect(await total(jsonbPath, "svc-attributes", "_exists_:object_uuid", { admin: true, orgId: null })).toBe(present("object_uuid"));
    expect(present("object_uuid")).toBeGreaterThan(0);
    const before = await totals(search);
    expect(await totals(jsonbPath)).toEqual(before);
    expect(before[0]! + before[1]!).toBe(await total(search, "svc-attributes", "", access));

    // Version 12: the GIN only; killed after one partial index of three was built.
    await pool.query(`DROP INDEX search_documents_has_expanded_ip_range_idx, search_documents_has_extends_uuid_idx, search_documents_has_object_uuid_idx;
      CREATE INDEX search_documents_has_extends_uuid_idx ON search_documents ("doc") WHERE fields ? 'extends_uuid';
      COMMENT ON TABLE search_documents IS 'search_documents v12'`);
    expect(await totals(jsonbPath)).toEqual(before);

    // Killed once they are built, before the version is set: the next start builds nothing and sets it.
    const kill = (m: string) => {
      if (m.endsWith("built")) throw new Error("killed");
    };
    await expect(ensureSearchSchema(pool, { progress: kill })).rejects.toThrow("killed");
    expect((await pool.query("SELECT obj_description('search_documents'::regclass, 'pg_class') AS v")).rows[0].v).toBe("search_documents v12");
    expect(await indexes()).toEqual(VERSION_13_INDEXES);
    const resumed: string[] = [];
    await Promise.all([0, 1].map(() => ensureSearchSchema(pool, { progress: (m) => resumed.push(m) })));
    expect(resumed).toEqual([
      "search schema: partial indexes of the optional fields' presence built",
      "search schema: search_documents v13",
      "search schema: 0 dictionary entries of removed postings cleared",
      "search schema: search_documents v14",
    ]);
    expect(await indexes()).toEqual(VERSION_13_INDEXES);
    const partial = await pool.query<{ name: string; def: string }>("SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE indexname LIKE 'search_documents_has_%' ORDER BY 1");
    expect(partial.rows.map((r) => r.def.replace(/^.* USING /, ""))).toEqual([
      "btree (doc) WHERE (fields ? 'expanded.ip_range'::text)",
      "btree (doc) WHERE (fields ? 'extends_uuid'::text)",
      "btree (doc) WHERE (fields ? 'object_uuid'::text)",
    ]);
    expect(await totals(search)).toEqual(before);
    expect(await totals(jsonbPath)).toEqual(before);

    // The presence and the ip range tests read the partial indexes, not the GIN (whose recheck computes its expression on every row).
    await pool.query("ANALYZE search_documents");
    for (const [q, index, of] of [
      ["_exists_:object_uuid", "search_documents_has_object_uuid_idx", "svc-attributes"],
      ["_exists_:extends_uuid", "search_documents_has_extends_uuid_idx", "svc-events"],
      ["_exists_:expanded.ip_range", "search_documents_has_expanded_ip_range_idx", "svc-attributes"],
    ] as const) {
      const plan = await collectPlan(q, access, of);
      expect(plan, q).toContain(index);
      expect(plan, q).not.toContain("search_documents_unposted_idx");
    }
    // A negation is a test on the row, without the GIN's expression.
    expect(await collectPlan("NOT _exists_:object_uuid AND type:md5", access)).not.toContain(UNPOSTED);
  }, 120_000);

  it("upgrades a version-13 table: a term whose one inlined posting its writer removed without noticing is counted from the postings again", async () => {
    // Version 13's writers in the service (int8 read as numbers) left pulse 1 and the removed posting on such terms.
    const inlined = async () => Number((await pool.query("SELECT count(*) AS n FROM search_terms WHERE pulse = 1")).rows[0].n);
    const before = await inlined();
    expect(before).toBeGreaterThan(2);
    const stale = await pool.query<{ field: string; term: string }>(
      "UPDATE search_terms SET doc = -doc WHERE (field, term) IN (SELECT field, term FROM search_terms WHERE pulse = 1 ORDER BY field, term LIMIT 2) RETURNING field, term",
    );
    expect((await checkDictionary(pool)).wrong).toHaveLength(2);
    await pool.query("COMMENT ON TABLE search_documents IS 'search_documents v13'");
    const messages: string[] = [];
    await Promise.all([0, 1].map(() => ensureSearchSchema(pool, { progress: (m) => messages.push(m) })));
    expect(messages).toEqual(["search schema: 2 dictionary entries of removed postings cleared", "search schema: search_documents v14"]);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    expect(await inlined()).toBe(before - 2);
    const cleared = await pool.query("SELECT pulse, doc FROM search_terms WHERE (field, term) IN (SELECT * FROM unnest($1::text[], $2::text[]))", [
      stale.rows.map((r) => r.field),
      stale.rows.map((r) => r.term),
    ]);
    expect(cleared.rows).toEqual([{ pulse: null, doc: null }, { pulse: null, doc: null }]);
  });

  it("the stored access value is the document's audience: -1 for everyone, else its organisations; without a usable one, administrators only", async () => {
    const search = new PostgresSearchIndex(pool);
    const audiences: unknown[] = [[-1], [7], [7, 9], [8], undefined, "7", [], ["7"], [null, 9], { 7: true }, "x", [true]];
    await search.bulkIndex(
      "svc-correlations",
      audiences.map((visible_to, i) => ({ id: `c${i}`, source: { match_type: "term", "@timestamp": "2024-01-01T00:00:00Z", ...(visible_to === undefined ? {} : { visible_to }) } })),
    );
    // A long field, as OpenSearch maps it: numeric strings count as their number.
    const orgs = (a: unknown) => [a].flat().filter((v) => typeof v === "number" || (typeof v === "string" && /^-?\d+$/.test(v))).map(Number);
    const grants = (a: unknown, orgId: number | null) => orgs(a).includes(-1) || (orgId !== null && orgs(a).includes(orgId));
    for (const orgId of [7, 8, 9, null]) {
      const want = audiences.filter((a) => grants(a, orgId)).length;
      expect(await total(search, "svc-correlations", "", { admin: false, orgId }), `org ${orgId}`).toBe(want);
    }
    expect(await total(search, "svc-correlations", "", { admin: true, orgId: null })).toBe(audiences.length);
  });
});
