/**
 * Search conformance: the PostgreSQL backend must return what OpenSearch returns.
 *
 * The same documents (svc-events and svc-attributes built from ALL real MISP events in
 * `../shared/data/misp-feed-sample` and `../shared/data/misp-events`, test/support/search-fixtures.ts)
 * are indexed into a scratch PostgreSQL database and into OpenSearch under a unique index prefix.
 * Every query of `./search-conformance.queries.ts` is parsed once and run on both backends with the
 * same access, filters and default fields; hit id SETS and `total` must be identical (a query both
 * backends reject must be rejected with the same error kind). A subset also runs as
 * non-administrators of three organisations, and a subset compares the first pages in `@timestamp`
 * order (desc and asc; ties broken by id). Differences are bugs of the PostgreSQL backend, except
 * the documented ones (`known`, run as `it.fails`; see docs/search-conformance.md).
 *
 * Needs `OPENSEARCH_URL` (skipped without it) and the test PostgreSQL server.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import type { LuceneAst } from "../../src/search/lucene/ast.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { OpenSearchSearchIndex } from "../../src/search/opensearch/index.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import { SearchQueryError, type SearchAccess, type SearchIndex, type SearchRequest } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { buildSearchDocuments } from "../support/search-fixtures.ts";
import { CASES, FEATURES, type ConformanceCase, type Feature } from "./search-conformance.queries.ts";

const urls = (process.env.OPENSEARCH_URL ?? "")
  .split(",")
  .map((u) => u.trim())
  .filter(Boolean);

const ADMIN: SearchAccess = { admin: true, orgId: null };
/** CIRCL (1), Infoblox (4) and a user without an organisation: each sees a different subset. */
const NON_ADMINS: SearchAccess[] = [
  { admin: false, orgId: 1 },
  { admin: false, orgId: 4 },
  { admin: false, orgId: null },
];
const MAX = 10_000;
const PAGE = 50;

type Outcome = { error: string } | { total: number; ids: string[] };

function request(c: ConformanceCase, query: LuceneAst, access: SearchAccess, extra: Partial<SearchRequest> = {}): SearchRequest {
  return {
    index: c.index,
    query,
    defaultFields: c.defaultFields ?? INDEX_FIELDS[c.index].defaultFields,
    access,
    ...(c.filters ? { filters: c.filters } : {}),
    from: 0,
    size: MAX,
    sort: { field: "@timestamp", order: "desc" },
    timeoutMs: 20_000,
    ...extra,
  };
}

/** The whole hit set as a sorted id list (or the error kind). */
async function outcome(backend: SearchIndex, req: SearchRequest): Promise<Outcome> {
  try {
    const res = await backend.search(req);
    if (res.total > MAX) throw new Error(`more than ${MAX} hits: page through`);
    return { total: res.total, ids: res.hits.map((h) => h.id).sort() };
  } catch (err) {
    if (err instanceof SearchQueryError) return { error: err.kind };
    throw err;
  }
}

/** Readable comparison: totals, errors and the first ids found by only one backend. */
function diff(pgRes: Outcome, osRes: Outcome): Record<string, unknown> {
  if ("error" in pgRes || "error" in osRes) {
    return { postgres: "error" in pgRes ? `error ${pgRes.error}` : `${pgRes.total} hits`, opensearch: "error" in osRes ? `error ${osRes.error}` : `${osRes.total} hits` };
  }
  const inOs = new Set(osRes.ids);
  const inPg = new Set(pgRes.ids);
  return {
    total: { postgres: pgRes.total, opensearch: osRes.total },
    onlyPostgres: pgRes.ids.filter((id) => !inOs.has(id)).slice(0, 5),
    onlyOpenSearch: osRes.ids.filter((id) => !inPg.has(id)).slice(0, 5),
  };
}

const same = (a: Outcome, b: Outcome): boolean => JSON.stringify(a) === JSON.stringify(b);

describe("conformance corpus", () => {
  it("has at least 150 queries, unique labels, every feature covered", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
    const labels = CASES.map((c) => `${c.index} ${c.label}`);
    expect(new Set(labels).size).toBe(labels.length);
    const counts = new Map<Feature, number>();
    for (const c of CASES) for (const f of c.features) counts.set(f, (counts.get(f) ?? 0) + 1);
    expect(Object.keys(FEATURES).filter((f) => !counts.has(f as Feature))).toEqual([]);
    for (const c of CASES) expect(() => parseLucene(c.q), c.q).not.toThrow();
  });
});

describe.skipIf(urls.length === 0)("search conformance: PostgreSQL vs OpenSearch", () => {
  const { events, attributes } = buildSearchDocuments();
  const prefix = `wbc-${process.pid}-${crypto.randomUUID().slice(0, 8)}-`;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  let postgres: PostgresSearchIndex;
  let opensearch: OpenSearchSearchIndex;

  beforeAll(async () => {
    db = await createTestDatabase("search_conf");
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    postgres = new PostgresSearchIndex(pool);
    opensearch = new OpenSearchSearchIndex(urls, { prefix });
    for (const backend of [postgres, opensearch] as SearchIndex[]) {
      await backend.ensureIndices();
      await backend.bulkIndex("svc-events", events);
      await backend.bulkIndex("svc-attributes", attributes);
      await backend.refresh();
    }
  }, 300_000);

  afterAll(async () => {
    if (opensearch) {
      await opensearch.client.indices.delete({ index: `${prefix}*` }, { ignore: [404] });
      await opensearch.client.indices.deleteIndexTemplate({ name: `${prefix}*` }, { ignore: [404] });
      await opensearch.close();
    }
    await pool?.end();
    await db?.drop();
  });

  it("indexed the same documents into both backends", async () => {
    expect(events.length).toBeGreaterThan(20);
    expect(attributes.length).toBeGreaterThan(5_000);
    for (const [index, docs] of [
      ["svc-events", events],
      ["svc-attributes", attributes],
    ] as const) {
      const c: ConformanceCase = { label: "all", index, q: "", features: [] };
      const [p, o] = [await outcome(postgres, request(c, parseLucene(""), ADMIN)), await outcome(opensearch, request(c, parseLucene(""), ADMIN))];
      expect(o).toEqual({ total: docs.length, ids: docs.map((d) => d.id).sort() });
      expect(p).toEqual(o);
    }
  });

  it("bound totals the same way (trackTotalHits): the bound and gte past it, exact below, and the same first page", async () => {
    for (const q of ["", "type:domain", "type:md5 OR type:sha1", "value:*.top", "info:ransomware"]) {
      for (const index of ["svc-events", "svc-attributes"] as const) {
        const c: ConformanceCase = { label: "bounded", index, q, features: [] };
        const req = request(c, parseLucene(q), NON_ADMINS[0], { size: 20, trackTotalHits: 100 });
        const [p, o] = [await postgres.search(req), await opensearch.search(req)];
        expect({ total: p.total, relation: p.totalRelation }, `${index} ${q}`).toEqual({ total: o.total, relation: o.totalRelation });
        expect(p.hits.map((h) => h.id)).toEqual(o.hits.map((h) => h.id));
      }
    }
  });

  CASES.forEach((c, i) => {
    const withAccess = c.access === true || i % 3 === 0;
    const withOrder = c.order === true || i % 4 === 0;
    const run = c.known ? it.fails : it;
    run(`${c.index === "svc-events" ? "events" : "attributes"} | ${c.label} | ${c.q}`, async () => {
      const query = parseLucene(c.q);
      const accesses = withAccess ? [ADMIN, ...NON_ADMINS] : [ADMIN];
      for (const access of accesses) {
        const req = request(c, query, access);
        const [p, o] = [await outcome(postgres, req), await outcome(opensearch, req)];
        if (!same(p, o)) expect.fail(`${c.q} (${JSON.stringify(access)}): ${JSON.stringify(diff(p, o))}`);
        if (c.expect && access === ADMIN) expect("error" in o ? "error" : o.total > 0 ? "hits" : "none", `OpenSearch's answer to ${c.q}`).toBe(c.expect);
      }
      if (!withOrder) return;
      for (const order of ["desc", "asc"] as const) {
        const req = request(c, query, ADMIN, { size: PAGE, sort: { field: "@timestamp", order } });
        const ids = async (b: SearchIndex) => {
          try {
            return (await b.search(req)).hits.map((h) => h.id);
          } catch (err) {
            if (err instanceof SearchQueryError) return [`error ${err.kind}`];
            throw err;
          }
        };
        expect(await ids(postgres), `first page, @timestamp ${order}`).toEqual(await ids(opensearch));
      }
    });
  });
});
