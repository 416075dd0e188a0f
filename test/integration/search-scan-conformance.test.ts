/**
 * `SearchIndex.scan` conformance (Explore export, issue 21): PostgreSQL's keyset walk and
 * OpenSearch's point in time must hand out the same documents in the same order: `@timestamp`
 * desc, ties by id in code point order, documents without `@timestamp` last by id. The real MISP
 * documents of test/support/search-fixtures.ts (every organisation and distribution) plus documents
 * made to test the order: many with one shared `@timestamp` (ties across page boundaries), some
 * without `@timestamp`, ids that sort differently by code point and by locale. Small pages (97) so
 * that every walk crosses many boundaries. Each scan must also equal the hit sequence of `search`
 * (sorted by `@timestamp`, exact totals) on the same backend.
 *
 * Needs `OPENSEARCH_URL` (skipped without it) and the test PostgreSQL server.
 */
import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTimeRange } from "../../src/modules/search/explore-export.ts";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { OpenSearchSearchIndex } from "../../src/search/opensearch/index.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import type { IndexName, ScanRequest, SearchAccess, SearchDocument, SearchIndex } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { OPENSEARCH } from "../support/search-backends.ts";
import { buildSearchDocuments } from "../support/search-fixtures.ts";

const PAGE = 97;
const TIE = "2025-06-01T12:00:00.000Z";

const ACCESSES: SearchAccess[] = [
  { admin: true, orgId: null },
  { admin: false, orgId: 1 },
  { admin: false, orgId: 4 },
  { admin: false, orgId: null },
];

const CASES: { index: IndexName; q: string; from?: string; to?: string }[] = [
  { index: "svc-attributes", q: "" },
  { index: "svc-attributes", q: "type:domain" },
  { index: "svc-attributes", q: "type:md5 OR type:sha1 OR type:sha256" },
  { index: "svc-attributes", q: "value:*.top OR ordering" },
  { index: "svc-attributes", q: "", from: "2023-01-01T00:00:00.000Z", to: TIE },
  { index: "svc-attributes", q: "ordering", from: TIE, to: TIE },
  { index: "svc-attributes", q: "no-such-value-anywhere" },
  { index: "svc-events", q: "" },
  { index: "svc-events", q: "info:ransomware OR tags.name:tlp*" },
  // Fuzzy terms are expanded against the dictionary before the walk; phrase slop checks positions.
  { index: "svc-events", q: 'info:ransomwar~1 OR info:"ransomware samsam"~2' },
  { index: "svc-attributes", q: "type:domian~1 AND NOT value:gugehotl.cn~1" },
];

/** Documents that test the order: one shared timestamp, no timestamp, ids where case and locale disagree. */
function orderingDocuments(template: Record<string, unknown>): SearchDocument[] {
  const ids = ["Zeta", "alpha", "Alpha", "_under", "zeta", "éclair", "10", "9", "a-b", "a_b", "aB", "ab"];
  const docs: SearchDocument[] = [];
  for (let i = 0; i < 250; i++) {
    const id = `${ids[i % ids.length]}-${String(i).padStart(3, "0")}`;
    docs.push({ id, source: { ...template, uuid: id, value: `ordering-${i}`, comment: "ordering", visible_to: [i % 3 === 0 ? 1 : -1], deleted: false, "@timestamp": TIE } });
  }
  for (const [i, id] of ids.entries()) {
    const { "@timestamp": _ts, ...rest } = template;
    docs.push({ id: `undated-${id}`, source: { ...rest, uuid: `undated-${id}`, value: `ordering-undated-${i}`, comment: "ordering", visible_to: [-1], deleted: false } });
  }
  return docs;
}

describe.skipIf(!OPENSEARCH)("scan conformance: PostgreSQL vs OpenSearch", () => {
  const { events, attributes } = buildSearchDocuments();
  const extra = orderingDocuments(attributes[0]!.source);
  const prefix = `wbs-${process.pid}-${crypto.randomUUID().slice(0, 8)}-`;
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let pool: pg.Pool | undefined;
  let postgres: PostgresSearchIndex;
  let opensearch: OpenSearchSearchIndex;

  beforeAll(async () => {
    db = await createTestDatabase("scan_conf");
    pool = new pg.Pool({ connectionString: db.url, max: 4 });
    postgres = new PostgresSearchIndex(pool);
    opensearch = new OpenSearchSearchIndex([OPENSEARCH!], { prefix });
    for (const backend of [postgres, opensearch] as SearchIndex[]) {
      await backend.ensureIndices();
      await backend.bulkIndex("svc-events", events);
      await backend.bulkIndex("svc-attributes", [...attributes, ...extra]);
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

  const scanRequest = (c: (typeof CASES)[number], access: SearchAccess): ScanRequest => ({
    index: c.index,
    query: withTimeRange(parseLucene(c.q), c.from ? new Date(c.from) : undefined, c.to ? new Date(c.to) : undefined),
    defaultFields: INDEX_FIELDS[c.index].defaultFields,
    access,
    filters: { deleted: false },
    pageSize: PAGE,
    timeoutMs: 20_000,
  });

  async function scanned(backend: SearchIndex, req: ScanRequest): Promise<{ ids: string[]; pages: number[] }> {
    const ids: string[] = [];
    const pages: number[] = [];
    for await (const page of backend.scan(req)) {
      pages.push(page.length);
      for (const h of page) {
        expect(h.score).toBeNull();
        expect(h.index).toBe(req.index);
        ids.push(h.id);
      }
    }
    return { ids, pages };
  }

  it.each(CASES.flatMap((c) => ACCESSES.map((access) => ({ ...c, access, name: `${c.index} ${JSON.stringify(c.q)} ${c.from ?? ""}..${c.to ?? ""} ${JSON.stringify(access)}` }))))(
    "$name",
    async (c) => {
      const req = scanRequest(c, c.access);
      const [p, o] = [await scanned(postgres, req), await scanned(opensearch, req)];
      expect(p.ids.length).toBe(new Set(p.ids).size);
      expect(p.ids).toEqual(o.ids);
      expect(p.pages.every((n) => n <= PAGE)).toBe(true);
      // The same sequence as an exact-total search sorted by @timestamp (its first 10 000, the window).
      const searched = await opensearch.search({ ...req, from: 0, size: Math.min(10_000, p.ids.length + 1), sort: { field: "@timestamp", order: "desc" }, trackTotalHits: true });
      expect(searched.total).toBe(p.ids.length);
      expect(searched.hits.map((h) => h.id)).toEqual(p.ids.slice(0, 10_000));
    },
    60_000,
  );

  it("the ordering documents: ties by code point order across pages, undated last", async () => {
    const req = scanRequest({ index: "svc-attributes", q: "comment:ordering" }, ACCESSES[0]!);
    const { ids } = await scanned(postgres, req);
    const dated = extra.filter((d) => d.source["@timestamp"]).map((d) => d.id);
    const undated = extra.filter((d) => !d.source["@timestamp"]).map((d) => d.id);
    const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    expect(ids).toEqual([...dated.sort(byCodePoint), ...undated.sort(byCodePoint)]);
    expect((await scanned(opensearch, req)).ids).toEqual(ids);
  });

  it("a walk given up early closes its point in time", async () => {
    const pits = async () => {
      const res = await fetch(new URL("/_search/point_in_time/_all", OPENSEARCH));
      const body = (await res.json()) as { pits?: { pit_id: string }[] };
      return (body.pits ?? []).filter((x) => Buffer.from(x.pit_id, "base64").toString("latin1").includes(prefix)).length;
    };
    const walk = opensearch.scan(scanRequest(CASES[0]!, ACCESSES[0]!))[Symbol.asyncIterator]();
    expect((await walk.next()).value).toHaveLength(PAGE);
    expect(await pits()).toBe(1);
    await walk.return?.();
    expect(await pits()).toBe(0);
  });
});
