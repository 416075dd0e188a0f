/**
 * Compaction of the PostgreSQL backend's B-tree indexes (src/search/postgres/compaction.ts): which
 * indexes are rebuilt (small, never compacted, grown, compact, forced), that a rebuild leaves every
 * search's answer and the postings as they were, even with writers indexing during it, and that an
 * interrupted rebuild's invalid copy is dropped. Also the worker's weekly task.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactSearchIndexesTask } from "../../src/jobs/tasks/compact-search-indexes.ts";
import { OpenSearchSearchIndex } from "../../src/search/opensearch/index.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { COMPACTED_INDEXES, compactSearchIndexes } from "../../src/search/postgres/compaction.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import type { IndexName, SearchAccess } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { buildSearchDocuments, type Doc } from "../support/search-fixtures.ts";
import { checkDictionary, postingsOutOfStep } from "../support/search-terms.ts";

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let search: PostgresSearchIndex;
const { events, attributes } = buildSearchDocuments();
const half = Math.floor(attributes.length / 2);

const QUERIES = ["", "type:ip-dst", 'category:"Network activity" AND NOT to_ids:false', "value:www*", "value:*.cn", "type:/sha(1|256)/", "_exists_:expanded.ip"];
const ACCESSES: SearchAccess[] = [
  { admin: true, orgId: null },
  { admin: false, orgId: 1 },
];

async function answers(index: IndexName = "svc-attributes"): Promise<string[]> {
  const out: string[] = [];
  for (const q of QUERIES) {
    for (const access of ACCESSES) {
      const res = await search.search({
        index,
        query: parseLucene(q),
        defaultFields: [],
        access,
        filters: { deleted: false },
        from: 0,
        size: 20,
        sort: { field: "@timestamp", order: "desc" },
        timeoutMs: 10_000,
        trackTotalHits: true,
      });
      out.push(`${q} ${JSON.stringify(access)} ${res.total} ${res.hits.map((h) => h.id).join(",")}`);
    }
  }
  return out;
}

/** The file each index lives in: a rebuild gives it a new one. */
async function filenodes(): Promise<Record<string, string>> {
  const { rows } = await pool.query<{ name: string; node: string }>("SELECT n AS name, pg_relation_filenode(to_regclass(n))::text AS node FROM unnest($1::text[]) AS n", [[...COMPACTED_INDEXES]]);
  return Object.fromEntries(rows.map((r) => [r.name, r.node]));
}

const invalidIndexes = async () =>
  (await pool.query<{ name: string }>("SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE NOT i.indisvalid")).rows.map((r) => r.name);

const comment = async (index: string) => (await pool.query<{ c: string | null }>("SELECT obj_description(to_regclass($1), 'pg_class') AS c", [index])).rows[0]!.c;

async function write(docs: Doc[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 200) await search.bulkIndex("svc-attributes", docs.slice(i, i + 200));
}

beforeAll(async () => {
  db = await createTestDatabase("search_pg_compaction");
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  search = new PostgresSearchIndex(pool);
  await search.ensureIndices();
  await search.bulkIndex("svc-events", events);
  await write(attributes.slice(0, half));
  await pool.query("ANALYZE search_documents, search_postings, search_terms");
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe("compaction of the PostgreSQL search indexes", () => {
  it("leaves small indexes alone; rebuilds those never compacted, records their size, and then only grown ones", async () => {
    const before = await filenodes();
    const expected = await answers();

    const small = await compactSearchIndexes(pool, { minEntries: 100_000_000 });
    expect(small.map((r) => r.reason)).toEqual(COMPACTED_INDEXES.map(() => "small"));
    expect(await filenodes()).toEqual(before);

    const first = await compactSearchIndexes(pool, { minEntries: 1 });
    expect(first.map((r) => [r.index, r.reason])).toEqual(COMPACTED_INDEXES.map((i) => [i, "never compacted"]));
    const rebuilt = await filenodes();
    for (const index of COMPACTED_INDEXES) {
      expect(rebuilt[index], index).not.toBe(before[index]);
      expect(await comment(index)).toMatch(/^compacted \S+ bytes_per_entry=[0-9.]+$/);
    }
    expect(first.every((r) => r.bytesAfter !== null && r.bytesAfter > 0 && r.entries > 0)).toBe(true);
    expect(await invalidIndexes()).toEqual([]);
    expect(await answers()).toEqual(expected);

    // Nothing has grown since: nothing is rebuilt.
    const second = await compactSearchIndexes(pool, { minEntries: 1 });
    expect(second.map((r) => r.reason)).toEqual(COMPACTED_INDEXES.map(() => "compact"));
    expect(await filenodes()).toEqual(rebuilt);

    // The postings index as if it had taken twice the bytes per entry it takes now.
    const recorded = Number(/bytes_per_entry=([0-9.]+)/.exec((await comment("search_postings_key_idx"))!)![1]);
    await pool.query(`COMMENT ON INDEX search_postings_key_idx IS 'compacted 2026-01-01T00:00:00.000Z bytes_per_entry=${(recorded / 2).toFixed(2)}'`);
    const grown = await compactSearchIndexes(pool, { minEntries: 1 });
    expect(grown.filter((r) => r.bytesAfter !== null).map((r) => [r.index, r.reason])).toEqual([["search_postings_key_idx", "grown"]]);
    expect((await filenodes())["search_postings_key_idx"]).not.toBe(rebuilt["search_postings_key_idx"]);
    expect(await answers()).toEqual(expected);
  }, 120_000);

  it("drops the invalid copy an interrupted rebuild left, and rebuilds beside writers without losing a posting", async () => {
    // What a cancelled REINDEX CONCURRENTLY leaves: an invalid index named after the one it rebuilt.
    const failed = await pool.query("CREATE UNIQUE INDEX CONCURRENTLY search_postings_key_idx_ccnew ON search_postings (live)").then(
      () => null,
      (e: Error) => e,
    );
    expect(failed?.message).toMatch(/could not create unique index/);
    expect(await invalidIndexes()).toEqual(["search_postings_key_idx_ccnew"]);

    const [results] = await Promise.all([compactSearchIndexes(pool, { force: true }), write(attributes.slice(half))]);
    expect(results.map((r) => r.reason)).toEqual(COMPACTED_INDEXES.map(() => "forced"));
    expect(await invalidIndexes()).toEqual([]);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });

    // Every attribute is found through the rebuilt indexes, as the JSONB path finds it.
    const jsonbPath = new PostgresSearchIndex(pool, { postings: false });
    const viaPostings = await answers();
    const postingsSearch = search;
    search = jsonbPath;
    try {
      expect(viaPostings).toEqual(await answers());
    } finally {
      search = postingsSearch;
    }
    expect(viaPostings[0]).toContain(` ${attributes.filter((d) => d.source.deleted !== true).length} `);
  }, 120_000);

  it("the weekly task rebuilds what writers have grown on the PostgreSQL backend, and does nothing on OpenSearch", async () => {
    const logged: string[] = [];
    const helpers = { logger: { info: (m: string) => logged.push(m) } } as unknown as Parameters<ReturnType<typeof compactSearchIndexesTask>>[1];
    const before = await filenodes();
    await compactSearchIndexesTask({ db: { pool } as never, search: new OpenSearchSearchIndex(["http://127.0.0.1:9"], { prefix: "compaction-" }) })({}, helpers);
    expect(await filenodes()).toEqual(before);
    expect(logged).toEqual([]);

    // Writers re-index every attribute a second later: each one's postings are all written again,
    // in no key order, and the old entries' space stays in the index. It takes more bytes per entry
    // than after its last rebuild (the only index here past COMPACT_MIN_ENTRIES).
    const later = (v: unknown) => new Date(new Date(v as string).getTime() + 1_000).toISOString();
    await write(attributes.map((d) => ({ ...d, source: { ...d.source, "@timestamp": later(d.source["@timestamp"]) } })));
    await pool.query("VACUUM ANALYZE search_postings");
    const expected = await answers();
    await compactSearchIndexesTask({ db: { pool } as never, search })({}, helpers);
    const after = await filenodes();
    expect(Object.keys(after).filter((i) => after[i] !== before[i])).toEqual(["search_postings_key_idx"]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^search index search_postings_key_idx rebuilt \(grown\): (\d+) -> (\d+) bytes/);
    const [, bytesBefore, bytesAfter] = /: (\d+) -> (\d+) bytes/.exec(logged[0]!)!;
    expect(Number(bytesAfter)).toBeLessThan(Number(bytesBefore) * 0.8);
    expect(await answers()).toEqual(expected);
  }, 60_000);
});
