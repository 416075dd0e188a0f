/**
 * The JSONB path of the PostgreSQL backend on table version 12 (src/search/postgres/statements.ts
 * `jsonbDriver`): the candidate source with the fewest postings, when they are few, selects the
 * rows it tests, read by `doc` (the planner, left to join every source, hashed their postings
 * beside a sequential scan of the documents). The driver only chooses the rows to test, so every
 * answer must be the one the rows' own tests give without it: compared here over the conformance
 * queries in the two orders the postings do not answer (`@timestamp` ascending, `_score`), with exact
 * and bounded totals.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { withFuzzyExpanded } from "../../src/search/postgres/fuzzy.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import { candidateSources, planPostings } from "../../src/search/postgres/postings-plan.ts";
import { searchByPostings } from "../../src/search/postgres/postings-search.ts";
import { jsonbDriver, ROW_PATTERNS, searchStatements } from "../../src/search/postgres/statements.ts";
import { SearchQueryError, type IndexName, type SearchAccess, type SearchRequest } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { buildSearchDocuments } from "../support/search-fixtures.ts";
import { recordStatements } from "../support/statement-counter.ts";
import { CASES } from "./search-conformance.queries.ts";

const r = String.raw;
const ADMIN: SearchAccess = { admin: true, orgId: null };
const ORG1: SearchAccess = { admin: false, orgId: 1 };

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let jsonb: PostgresSearchIndex;

function request(index: IndexName, q: string, extra: Partial<SearchRequest> = {}): SearchRequest {
  return {
    index,
    query: parseLucene(q),
    defaultFields: INDEX_FIELDS[index].defaultFields,
    access: ADMIN,
    from: 0,
    size: 50,
    sort: { field: "@timestamp", order: "asc" },
    timeoutMs: 20_000,
    trackTotalHits: true,
    ...extra,
  };
}

type Outcome = { error: string } | { total: number; relation: string; ids: string[] };

/** The backend's answer (with its driver). */
const driven = (req: SearchRequest) => outcome(jsonb, req);

async function outcome(backend: PostgresSearchIndex, req: SearchRequest): Promise<Outcome> {
  try {
    const res = await backend.search(req);
    return { total: res.total, relation: res.totalRelation, ids: res.hits.map((h) => h.id) };
  } catch (err) {
    if (err instanceof SearchQueryError) return { error: err.kind };
    throw err;
  }
}

/** The same statements without a driver, run as the backend runs them (collect, count, top-N page). */
async function undriven(req: SearchRequest): Promise<Outcome> {
  const now = Date.now();
  let st: ReturnType<typeof searchStatements>;
  try {
    st = searchStatements({ ...req, query: await withFuzzyExpanded(pool, req, now, req.timeoutMs) }, now);
  } catch (err) {
    if (err instanceof SearchQueryError) return { error: err.kind };
    throw err;
  }
  const collected = (await pool.query<{ n: string; ids: string[] }>(st.collect.text, st.collect.values)).rows[0]!;
  let total = Number(collected.n);
  let ids = collected.ids;
  if (total >= st.collectLimit) {
    if (st.bound === null) total = Number((await pool.query<{ n: string }>(st.count.text, st.count.values)).rows[0]!.n);
    const page = st.page(false);
    ids = (await pool.query<{ id: string }>(page.text, page.values)).rows.map((r) => r.id);
  }
  const capped = st.bound !== null && total > st.bound;
  return { total: capped ? st.bound! : total, relation: capped ? "gte" : "eq", ids };
}

beforeAll(async () => {
  db = await createTestDatabase("search_pg_v12_plans");
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  jsonb = new PostgresSearchIndex(pool, { postings: false });
  await jsonb.ensureIndices();
  const { events, attributes } = buildSearchDocuments();
  await jsonb.bulkIndex("svc-events", events);
  await jsonb.bulkIndex("svc-attributes", attributes);
  await pool.query("VACUUM (ANALYZE) search_documents, search_postings");
}, 300_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe("the page's walk of the ts index", () => {
  it("reads it forwards newest first and backwards oldest first, with no sort of the matches", async () => {
    // Sorting is only forbidden, not impossible: a page whose order no index gives still plans a Sort.
    for (const order of ["desc", "asc"] as const) {
      const page = searchStatements(request("svc-attributes", "type:domain", { size: 10, sort: { field: "@timestamp", order } }), Date.now()).page(true);
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        await client.query("SET LOCAL enable_sort = off");
        const plan = (await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${page.text}`, page.values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(plan, order).toContain(order === "asc" ? "Index Scan Backward using search_documents_ts_idx" : "Index Scan using search_documents_ts_idx");
        expect(plan, order).not.toMatch(/Sort/);
      } finally {
        await client.query("ROLLBACK");
        client.release();
      }
    }
  });
});

/** A plan's nodes, depth first (EXPLAIN (FORMAT JSON)). */
type PlanNode = { "Node Type": string; "Index Name"?: string; "Scan Direction"?: string; "Subplan Name"?: string; "Parent Relationship"?: string; Plans?: PlanNode[] };
const nodesOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodesOf)];
/** The same without subplans (a probe's lookup per row is one). */
const streamOf = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).filter((c) => c["Parent Relationship"] !== "SubPlan").flatMap(streamOf)];

describe("the postings' ordered read", () => {
  it("walks the postings index forwards newest first and backwards oldest first, with no sort of the matches, as the JSONB path answers", async () => {
    const postings = new PostgresSearchIndex(pool);
    for (const q of ["type:md5", "type:md5 OR type:sha1", "type:ip-dst AND category:network"]) {
      for (const order of ["desc", "asc"] as const) {
        const req = request("svc-attributes", q, { size: 10, trackTotalHits: 100, sort: { field: "@timestamp", order } });
        const client = await pool.connect();
        const statements: { text: string; values: unknown[] }[] = [];
        try {
          await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
          // The statements the executor sends, recorded (its ordered read is a WITH m ... statement).
          const recorded = recordStatements(client);
          const answer = await searchByPostings(recorded.client, req, planPostings(req, Date.now())!, 100);
          statements.push(...recorded.sent);
          expect(answer && "ids" in answer && answer.ids?.length, `${q} ${order}`).toBe(10);
          const read = statements.find((s) => s.text.startsWith("WITH m AS MATERIALIZED"));
          expect(read, `${q} ${order}`).toBeDefined();
          await client.query("SET LOCAL enable_sort = off");
          const plan = (await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (FORMAT JSON) ${read!.text}`, read!.values)).rows[0]!["QUERY PLAN"][0].Plan;
          const cte = nodesOf(plan).find((n) => n["Subplan Name"] === "CTE m")!;
          const scans = streamOf(cte).filter((n) => n["Index Name"] === "search_postings_key_idx");
          expect(scans.length, `${q} ${order}`).toBeGreaterThan(0);
          for (const scan of scans) {
            expect(scan["Node Type"], `${q} ${order}`).toBe("Index Only Scan");
            expect(scan["Scan Direction"], `${q} ${order}`).toBe(order === "asc" ? "Backward" : "Forward");
          }
          // Sorting is only forbidden, not impossible: an order the index does not give still plans a Sort.
          expect(nodesOf(cte).map((n) => n["Node Type"]), `${q} ${order}`).not.toContain("Sort");
        } finally {
          await client.query("ROLLBACK");
          client.release();
        }
        expect(await outcome(postings, req), `${q} ${order}`).toEqual(await driven(req));
      }
    }
  });
});

describe("the JSONB path's driver", () => {
  it("takes candidates from exact posting keys only: key ranges and patterns are the rows' own tests", () => {
    const keys = (q: string) => candidateSources("svc-attributes", [], Date.now(), parseLucene(q)).map((s) => ({ keys: s.keys.length, ranges: s.ranges.length }));
    expect(keys("timestamp:[1700000000 TO *]")).toEqual([]);
    expect(keys("value:ukraine*")).toEqual([]);
    expect(keys("value:/[0-9a-f]{32}/")).toEqual([]);
    expect(keys("_exists_:comment")).toEqual([]);
    // An OR gives a source only when each of its clauses has one of exact keys.
    expect(keys("type:md5 OR timestamp:[1700000000 TO *]")).toEqual([]);
    expect(keys("type:md5 OR type:sha1")).toEqual([{ keys: 2, ranges: 0 }]);
    expect(keys("type:md5 AND timestamp:[1700000000 TO *]")).toEqual([{ keys: 1, ranges: 0 }]);
    expect(keys('category:"network activity" AND type:ip-dst')).toEqual([
      { keys: 1, ranges: 0 },
      { keys: 2, ranges: 0 },
    ]);
  });

  it("is the source with the fewest postings, and its documents are read by doc, not a scan of the table", async () => {
    const req = request("svc-attributes", 'category:"network activity" AND type:ip-dst');
    const sources = candidateSources(req.index, req.defaultFields, Date.now(), req.query);
    const count = async (keys: string[]) => Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM search_postings WHERE key = ANY($1::text[])", [keys])).rows[0]!.n);
    const counts = await Promise.all(sources.map((s) => count(s.keys)));
    expect(counts[0]).not.toBe(counts[1]);
    const fewest = counts.indexOf(Math.min(...counts));
    const driver = await jsonbDriver(pool, req, Date.now());
    // A driver of few postings reads its documents without looking the other sources up.
    expect(driver).toEqual({ keys: sources[fewest]!.keys, probes: [], postings: counts[fewest] });
    const st = searchStatements(req, Date.now(), driver);
    const plan = (await pool.query<{ "QUERY PLAN": string }>(`EXPLAIN ${st.collect.text}`, st.collect.values)).rows.map((r) => r["QUERY PLAN"]).join("\n");
    expect(plan).toContain("search_documents_doc_idx");
    expect(plan).not.toContain("Seq Scan on search_documents");
    // The walk of the ts index for a page among more matches than collect holds tests rows without the driver's array.
    expect(st.page(true).text).not.toContain("search_postings");
    expect(st.page(false).text).toContain("search_postings");
    expect(await driven(req)).toEqual(await undriven(req));
  });

  it("a large driver looks the other sources up per posting: the same answers", async () => {
    const cases: [string, number][] = [
      ['category:"network activity" AND type:ip-dst', 2],
      ["type:md5 AND NOT comment:x AND category:payload", 2],
      ["type:domain AND value:no-such-value", 2],
    ];
    for (const [q, n] of cases) {
      const req = request("svc-attributes", q);
      const sources = candidateSources(req.index, req.defaultFields, Date.now(), req.query);
      expect(sources, q).toHaveLength(n);
      const undrivenSt = searchStatements(req, Date.now());
      const want = (await pool.query(undrivenSt.collect.text, undrivenSt.collect.values)).rows[0];
      for (const [drive, probe] of [
        [0, 1],
        [1, 0],
      ] as const) {
        const st = searchStatements(req, Date.now(), { keys: sources[drive]!.keys, probes: [sources[probe]!.keys], postings: 10_001 });
        expect(st.collect.text).toContain("SELECT true FROM search_postings q");
        expect((await pool.query(st.collect.text, st.collect.values)).rows[0], `${q} driven by ${drive}`).toEqual(want);
      }
    }
  });

  it("of few postings has the patterns tested on its rows, without the term dictionary: the same answers", async () => {
    const value1 = r`(type.keyword:*\|* AND value:iechecker.exe AND value.keyword:/[iI][eE][cC][hH][eE][cC][kK][eE][rR]\.[eE][xX][eE]\|.*/) OR (NOT type.keyword:*\|* AND value:iechecker.exe)`;
    for (const q of [value1, r`value:iechecker.exe AND NOT value.keyword:*\|7a200c*`, "value:iechecker.exe AND value:/[0-9a-f]{64}/"]) {
      const req = request("svc-attributes", q);
      const driver = await jsonbDriver(pool, req, Date.now());
      expect(driver?.postings, q).toBeLessThanOrEqual(ROW_PATTERNS);
      const st = searchStatements(req, Date.now(), driver);
      expect(st.collect.text, q).not.toContain("search_terms");
      // Without a driver the patterns' candidates come from the dictionary.
      expect(searchStatements(req, Date.now()).collect.text, q).toContain("search_terms");
      const got = await driven(req);
      expect(got, q).toEqual(await undriven(req));
      expect("total" in got && got.total, q).toBeGreaterThan(0);
    }
    // A driver of more postings keeps the dictionary's candidates (they may spare most of its rows).
    const broad = request("svc-attributes", "type:md5 AND value.keyword:/[0-9a-f]{32}/");
    const st = searchStatements(broad, Date.now(), { keys: candidateSources(broad.index, broad.defaultFields, Date.now(), broad.query)[0]!.keys, probes: [], postings: ROW_PATTERNS + 1 });
    expect(st.collect.text).toContain("search_terms");
  });

  it("is none when no source is known (a pattern, a range, a negation alone)", async () => {
    for (const q of ["value:*.top", "timestamp:[1700000000 TO *]", "NOT type:domain", "*"]) {
      expect(await jsonbDriver(pool, request("svc-attributes", q), Date.now()), q).toBeNull();
    }
  });

  it("a query that cannot match (a term no posting has) reads nothing", async () => {
    const req = request("svc-attributes", "type:no-such-type AND category:network");
    expect((await jsonbDriver(pool, req, Date.now()))?.keys).toEqual(candidateSources(req.index, req.defaultFields, Date.now(), req.query)[0]!.keys);
    expect(await driven(req)).toEqual({ total: 0, relation: "eq", ids: [] });
  });

  it("changes no answer: every conformance query, oldest first and by _score, exact and bounded totals, as a non-administrator too", async () => {
    const variants: Partial<SearchRequest>[] = [
      {},
      { sort: { field: "_score", order: "desc" }, size: 10_000 },
      { trackTotalHits: 5, size: 7, from: 3 },
      { access: ORG1, filters: { deleted: false } },
    ];
    let compared = 0;
    let drivenCases = 0;
    for (const c of CASES) {
      const first = request(c.index, c.q);
      const expanded = { ...first, query: await withFuzzyExpanded(pool, first, Date.now(), first.timeoutMs).catch(() => first.query) };
      if ((await jsonbDriver(pool, expanded, Date.now()).catch(() => null)) !== null) drivenCases++;
      for (const v of variants) {
        const req = request(c.index, c.q, { ...v, ...(c.filters && !v.filters ? { filters: c.filters } : {}) });
        const got = await driven(req);
        const want = await undriven(req);
        // `_score` sorts compare hit sets (every hit scores 1: id order in both).
        expect(got, `${c.index} ${c.q} ${JSON.stringify(v)}`).toEqual(want);
        compared++;
      }
    }
    expect(compared).toBe(CASES.length * variants.length);
    // Most of them through a driver (the fixtures hold no term of more than DRIVER_POSTINGS postings).
    expect(drivenCases).toBeGreaterThan(CASES.length / 2);
  }, 600_000);
});
