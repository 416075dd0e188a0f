/**
 * The PostgreSQL backend's two ways of answering a search must agree: the postings
 * (src/search/postgres/postings*.ts, index-only) and the JSONB path (compile.ts), which the
 * conformance suite holds to OpenSearch. Every conformance query the postings plan runs on both
 * over the real documents, as administrators and as three non-administrators, with and without Explore's
 * `deleted: false` filter, with exact and bounded totals and pages that cut through timestamps
 * shared by many documents. The writers keep postings and documents in step, also when several
 * write the same documents at once.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { hasFuzzy } from "../../src/search/postgres/fuzzy.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import { planPostings } from "../../src/search/postgres/postings-plan.ts";
import { searchByPostings } from "../../src/search/postgres/postings-search.ts";
import { ROW_PATTERNS, searchStatements } from "../../src/search/postgres/statements.ts";
import { SearchQueryError, type IndexName, type SearchAccess, type SearchRequest } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { buildSearchDocuments } from "../support/search-fixtures.ts";
import { checkDictionary, postingsOutOfStep } from "../support/search-terms.ts";
import { recordStatements } from "../support/statement-counter.ts";
import { CASES } from "./search-conformance.queries.ts";

const ACCESSES: SearchAccess[] = [
  { admin: true, orgId: null },
  { admin: false, orgId: 1 },
  { admin: false, orgId: 4 },
  { admin: false, orgId: null },
];

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let postings: PostgresSearchIndex;
let jsonb: PostgresSearchIndex;

type Outcome = { error: string } | { total: number; relation: string; ids: string[] };
type PlanNode = { Alias?: string; "Actual Loops"?: number; Plans?: PlanNode[] };

async function outcome(backend: PostgresSearchIndex, req: SearchRequest): Promise<Outcome> {
  try {
    const res = await backend.search(req);
    return { total: res.total, relation: res.totalRelation, ids: res.hits.map((h) => h.id) };
  } catch (err) {
    if (err instanceof SearchQueryError) return { error: err.kind };
    throw err;
  }
}

function request(index: IndexName, q: string, access: SearchAccess, extra: Partial<SearchRequest> = {}): SearchRequest {
  return {
    index,
    query: parseLucene(q),
    defaultFields: INDEX_FIELDS[index].defaultFields,
    access,
    from: 0,
    size: 10_000,
    sort: { field: "@timestamp", order: "desc" },
    timeoutMs: 20_000,
    trackTotalHits: true,
    ...extra,
  };
}

function unplanned(req: SearchRequest): boolean {
  try {
    return planPostings(req, Date.now()) === null;
  } catch {
    return false;
  }
}

/** The postings' pages of `q` over attributes (admin) for each [from, size, bound], each required equal to the JSONB path's. */
async function pagesAgree(q: string, pages: readonly (readonly [number, number, number])[], label = q): Promise<string[][]> {
  const ids: string[][] = [];
  for (const [from, size, bound] of pages) {
    const req = request("svc-attributes", q, ACCESSES[0]!, { from, size, trackTotalHits: bound });
    const got = await outcome(postings, req);
    expect(got, `${label} ${from}/${size}/${bound}`).toEqual(await outcome(jsonb, req));
    ids.push((got as { ids: string[] }).ids);
  }
  return ids;
}

beforeAll(async () => {
  db = await createTestDatabase("search_pg_postings");
  pool = new pg.Pool({ connectionString: db.url, max: 6 });
  postings = new PostgresSearchIndex(pool);
  jsonb = new PostgresSearchIndex(pool, { postings: false });
  await postings.ensureIndices();
  const { events, attributes } = buildSearchDocuments();
  await postings.bulkIndex("svc-events", events);
  await postings.bulkIndex("svc-attributes", attributes);
  // Index-only scans need the visibility map, as after autovacuum.
  await pool.query("VACUUM (ANALYZE) search_documents, search_postings");
}, 300_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

describe("postings and JSONB path agree", () => {
  it("the postings answer most of the conformance queries", () => {
    const planned = CASES.filter((c) => {
      const req = request(c.index, c.q, ACCESSES[0]!, c.filters ? { filters: c.filters } : {});
      try {
        return planPostings(req, Date.now()) !== null;
      } catch {
        return false;
      }
    });
    expect(planned.length).toBeGreaterThanOrEqual(CASES.length / 2);
  });

  // A pattern beside a rare exact term is tested on that term's few documents (the JSONB path's
  // statement driven by its postings): counted as answered, with proof that its rows come from the
  // postings and that no pattern is evaluated against the dictionary or a scan.
  it("wildcards and regexes are answered through the term dictionary, or tested on a rare term's documents (not a JSONB scan)", async () => {
    const patterned = CASES.filter((c) => c.features.some((f) => ["wildcard-leading", "wildcard-single", "regex"].includes(f)) && !c.known);
    expect(patterned.length).toBeGreaterThanOrEqual(15);
    const answered: string[] = [];
    const rowTested: string[] = [];
    const client = await pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      for (const c of patterned) {
        const req = request(c.index, c.q, ACCESSES[1]!, c.filters ? { filters: c.filters } : {});
        let plan;
        try {
          plan = planPostings(req, Date.now());
        } catch {
          continue; // a 400, decided by the compiler
        }
        const answer = plan === null ? null : await searchByPostings(client, req, plan, 10_000);
        if (answer === null) continue;
        answered.push(c.q);
        if (!("driver" in answer)) continue;
        rowTested.push(c.q);
        expect(answer.driver.probes, c.q).toEqual([]);
        expect(answer.driver.postings, c.q).toBeLessThanOrEqual(ROW_PATTERNS);
        const st = searchStatements(req, Date.now(), answer.driver);
        expect(st.collect.text, c.q).not.toContain("search_terms");
        expect(st.collect.text, c.q).toContain("search_postings");
      }
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    expect(answered.length, `answered: ${answered.join(" | ")}`).toBeGreaterThanOrEqual(patterned.length * 0.8);
    expect(answered).toEqual(expect.arrayContaining(["value:*forukraine*", "type:/sha(1|256)/", "type:md?"]));
    // Patterns without a rare term beside them still go through the dictionary.
    expect(rowTested.length, `row-tested: ${rowTested.join(" | ")}`).toBeGreaterThan(0);
    expect(answered.length - rowTested.length).toBeGreaterThanOrEqual(patterned.length / 2);
    const dictionary = await checkDictionary(pool);
    expect(dictionary.missing).toEqual([]);
    expect(dictionary.wrong).toEqual([]);
    expect(dictionary.entries).toBeGreaterThan(1_000);
    // Most terms are one value's: their posting is inlined.
    expect(dictionary.inlined).toBeGreaterThan(dictionary.entries / 3);
  });

  it("on every conformance query: totals and whole ordered hit lists, every access, with and without deleted: false", async () => {
    const failures: string[] = [];
    let requests = 0;
    let compared = 0;
    for (const c of CASES) {
      for (const access of ACCESSES) {
        for (const filters of [c.filters, { ...c.filters, deleted: false }]) {
          const req = request(c.index, c.q, access, filters ? { filters } : {});
          requests++;
          // Without a plan (and without fuzzy terms, planned once expanded) both run the JSONB
          // path's statements: nothing to compare. A plan that throws is compared (the JSONB path may not).
          if (!hasFuzzy(req.query) && unplanned(req)) continue;
          compared++;
          const [a, b] = [await outcome(postings, req), await outcome(jsonb, req)];
          if (JSON.stringify(a) !== JSON.stringify(b)) failures.push(`${c.index} ${c.q} ${JSON.stringify(access)} ${JSON.stringify(filters)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(requests / 2);
  }, 600_000);

  it("oldest first is newest first reversed: every planned conformance query, whole hit lists, as the JSONB path answers", async () => {
    const failures: string[] = [];
    let compared = 0;
    let reversed = 0;
    for (const c of CASES) {
      for (const access of [ACCESSES[0]!, ACCESSES[1]!]) {
        const desc = request(c.index, c.q, access, { filters: { ...c.filters, deleted: false } });
        const asc: SearchRequest = { ...desc, sort: { field: "@timestamp", order: "asc" } };
        if (!hasFuzzy(asc.query) && unplanned(asc)) continue;
        compared++;
        const [got, want, newest] = [await outcome(postings, asc), await outcome(jsonb, asc), await outcome(postings, desc)];
        if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`as the JSONB path: ${c.index} ${c.q} ${JSON.stringify(access)}`);
        // Whole lists only (a page of 10,000 of more matches is not the reverse of the other end's).
        if ("ids" in newest && newest.total <= desc.size) {
          reversed++;
          if (JSON.stringify(got) !== JSON.stringify({ ...newest, ids: [...newest.ids].reverse() })) failures.push(`reversed: ${c.index} ${c.q} ${JSON.stringify(access)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(CASES.length);
    expect(reversed).toBeGreaterThanOrEqual(compared / 2);
  }, 600_000);

  it("bounded totals and pages that start and end inside a run of equal timestamps, both orders", async () => {
    const queries = ["", "type:domain", "type:md5 OR type:sha1", "category:\"Network activity\"", "value:ukraine*", "timestamp:[1500000000 TO *]", "_exists_:expanded.ip", "-type:domain"];
    for (const q of queries) {
      for (const [from, size, bound] of [
        [0, 10, 10_000],
        [0, 10, 100],
        [95, 20, 100],
        [7, 3, 5],
        [0, 0, 10_000],
        [990, 25, 1_000],
        [4_990, 20, 10_000],
      ] as const) {
        for (const access of [ACCESSES[0]!, ACCESSES[1]!]) {
          for (const order of ["desc", "asc"] as const) {
            const req = request("svc-attributes", q, access, { from, size, trackTotalHits: bound, filters: { deleted: false }, sort: { field: "@timestamp", order } });
            expect(await outcome(postings, req), `${q} ${order} ${from}/${size}/${bound}`).toEqual(await outcome(jsonb, req));
          }
        }
      }
    }
  }, 300_000);
});

describe("numeric ranges with many matches", () => {
  it("leave the page to the newest-first walk, and give it from the postings when the walk is too slow", async () => {
    const q = "timestamp:[1500000000 TO *]";
    for (const [from, size, bound] of [
      [0, 10, 100],
      [5, 20, 50],
    ] as const) {
      for (const access of [ACCESSES[0]!, ACCESSES[1]!]) {
        const req = request("svc-attributes", q, access, { from, size, trackTotalHits: bound, filters: { deleted: false } });
        const client = await pool.connect();
        let answer;
        let fallback;
        try {
          await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
          answer = await searchByPostings(client, req, planPostings(req, Date.now())!, bound);
          fallback = answer && !("driver" in answer) ? await answer.fallback?.() : undefined;
        } finally {
          await client.query("COMMIT");
          client.release();
        }
        const expected = (await outcome(jsonb, req)) as { total: number; ids: string[] };
        expect(expected.total).toBe(bound);
        expect(answer).toMatchObject({ matches: bound + 1, ids: null });
        expect(fallback, `${from}/${size}/${bound}`).toEqual(expected.ids);
        expect(await outcome(postings, req)).toEqual(expected);
      }
    }
  });
});

describe("postings writers", () => {
  const doc = (id: string, type: string, value: string, extra: Record<string, unknown> = {}) => ({
    id,
    source: { uuid: id, type, value, category: "Network activity", deleted: false, event_distribution: 3, visible_to: [-1], timestamp: 1_700_000_000, "@timestamp": "2024-05-01T00:00:00Z", ...extra },
  });

  it("replacing, deleting by id and by term and clearing keep postings in step with documents", async () => {
    expect(await postingsOutOfStep(pool)).toBe(0);
    await postings.bulkIndex("svc-correlations", [{ id: "c1", source: { match_type: "term", source_attribute_type: "ip-dst", "@timestamp": "2024-01-01T00:00:00Z" } }]);
    await postings.bulkIndex("svc-attributes", [doc("w1", "ip-dst", "10.0.0.1"), doc("w2", "domain", "evil.example")]);
    await postings.bulkIndex("svc-attributes", [doc("w1", "domain", "changed.example", { "@timestamp": "2025-01-01T00:00:00Z" }), doc("w1", "md5", "d41d8cd98f00b204e9800998ecf8427e")]);
    expect(await postingsOutOfStep(pool)).toBe(0);
    const found = async (q: string) => (await postings.search(request("svc-attributes", q, ACCESSES[0]!))).hits.map((h) => h.id).filter((id) => id.startsWith("w"));
    expect(await found("value:d41d8cd98f00b204e9800998ecf8427e")).toEqual(["w1"]);
    expect(await found("value:changed.example")).toEqual([]);
    expect(await found("type:ip-dst")).toEqual([]);
    await postings.deleteByTerms("svc-attributes", "value", ["evil.example"]);
    await postings.deleteByIds("svc-attributes", ["w1"]);
    expect(await found("type:md5 OR type:domain")).toEqual([]);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect((await pool.query("SELECT 1 FROM search_terms WHERE field LIKE 'c%'")).rowCount).toBeGreaterThan(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    await postings.clear("svc-correlations");
    expect((await pool.query("SELECT 1 FROM search_postings WHERE key LIKE 'c%'")).rowCount).toBe(0);
    expect((await pool.query("SELECT 1 FROM search_terms WHERE field LIKE 'c%'")).rowCount).toBe(0);
    expect(await postingsOutOfStep(pool)).toBe(0);
  });

  it("re-indexing rewrites only the postings that changed (all of them when type, ts, deleted or access change)", async () => {
    const versions = async () =>
      new Map(
        (
          await pool.query<{ key: string; xmin: string }>(
            "SELECT p.key, p.xmin::text AS xmin FROM search_postings p JOIN search_documents d ON d.doc = p.doc AND d.index_name = 'svc-attributes' WHERE d.id = 'k1'",
          )
        ).rows.map((r) => [r.key, r.xmin]),
      );
    await postings.bulkIndex("svc-attributes", [doc("k1", "ip-dst", "10.0.0.9")]);
    const first = await versions();
    await postings.bulkIndex("svc-attributes", [doc("k1", "ip-dst", "10.0.0.9")]);
    expect(await versions()).toEqual(first);
    let current: Record<string, unknown> = { comment: "Seen twice" };
    await postings.bulkIndex("svc-attributes", [doc("k1", "ip-dst", "10.0.0.9", current)]);
    const second = await versions();
    const changed = [...second.keys()].filter((key) => first.get(key) !== second.get(key));
    expect(changed.sort()).toEqual(["acomment\u0001seen", "acomment\u0001twice", "acomment\u0002seen twice", "acomment.keyword\u0001Seen twice"].sort());
    expect(await postingsOutOfStep(pool)).toBe(0);
    // A presence key (src/search/postgres/postings.ts presenceKey) comes with the field's first term,
    // stays while it has one, and goes with the last.
    const tagged = (names: string[]) => doc("k1", "ip-dst", "10.0.0.9", { ...current, tags: names.map((name) => ({ name })) });
    await postings.bulkIndex("svc-attributes", [tagged(["tlp:green"])]);
    const withTag = await versions();
    expect(withTag.has("atags.name\u0003")).toBe(true);
    await postings.bulkIndex("svc-attributes", [tagged(["osint", "tlp:amber"])]);
    expect((await versions()).get("atags.name\u0003")).toBe(withTag.get("atags.name\u0003"));
    expect(await postingsOutOfStep(pool)).toBe(0);
    await postings.bulkIndex("svc-attributes", [doc("k1", "ip-dst", "10.0.0.9", current)]);
    expect((await versions()).has("atags.name\u0003")).toBe(false);
    expect(await postingsOutOfStep(pool)).toBe(0);
    // The type is every posting's facet (src/search/postgres/facets.ts).
    for (const extra of [{ type: "ip-src" }, { deleted: true }, { event_distribution: 0, event_org_id: 9, visible_to: [9] }, { "@timestamp": "2024-06-01T00:00:00Z" }]) {
      current = { ...current, ...extra };
      const before = await versions();
      await postings.bulkIndex("svc-attributes", [doc("k1", "ip-dst", "10.0.0.9", current)]);
      const after = await versions();
      expect([...after.keys()].filter((key) => before.get(key) === after.get(key)), JSON.stringify(extra)).toEqual([]);
      expect(await postingsOutOfStep(pool)).toBe(0);
      expect(await checkDictionary(pool), JSON.stringify(extra)).toMatchObject({ missing: [], wrong: [] });
      const req = request("svc-attributes", "type:ip-src", ACCESSES[1]!, { filters: { deleted: false } });
      expect(await outcome(postings, req)).toEqual(await outcome(jsonb, req));
    }
    await postings.deleteByIds("svc-attributes", ["k1"]);
    // Each step checks the whole dictionary and postings against the documents: 20-25 s alone here.
  }, 120_000);

  it("concurrent writers of the same documents leave exactly the last version's postings", async () => {
    const ids = Array.from({ length: 40 }, (_, i) => `race-${i}`);
    for (let round = 0; round < 5; round++) {
      await Promise.all(
        [0, 1, 2, 3].map((w) => postings.bulkIndex("svc-attributes", ids.map((id, i) => doc(id, `type-${w}`, `racevalue-${w}-${round}-${i}`, { "@timestamp": `2024-0${w + 1}-01T00:00:00Z` })))),
      );
      expect(await postingsOutOfStep(pool)).toBe(0);
      expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
      const req = request("svc-attributes", "value:racevalue*", ACCESSES[0]!);
      const [a, b] = [await outcome(postings, req), await outcome(jsonb, req)];
      expect(a).toEqual(b);
      expect((a as { total: number }).total).toBe(ids.length);
    }
    await postings.deleteByIds("svc-attributes", ids);
    expect(await postingsOutOfStep(pool)).toBe(0);
  }, 120_000);

  it("concurrent writers of different documents that bring the same new terms neither deadlock nor lose an entry", async () => {
    // Ids whose writers' lock buckets (src/search/postgres/writes.ts) do not overlap, so that the four run at once.
    const candidates = Array.from({ length: 2_000 }, (_, i) => `dict-${i}`);
    const { rows } = await pool.query<{ id: string; b: number }>("SELECT x AS id, abs(hashtext('svc-attributes' || x)) % 64 AS b FROM unnest($1::text[]) x", [candidates]);
    const idsOf = (w: number) => rows.filter((r) => r.b % 4 === w).slice(0, 30).map((r) => r.id);
    const words = Array.from({ length: 30 }, (_, i) => `newterm${i}`);
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        [0, 1, 2, 3].map((w) => {
          const order = w % 2 ? [...words].reverse() : words;
          const docs = idsOf(w).map((id, i) => doc(id, "comment", `${order[i]}-${round}.example`, { comment: order.slice(i).map((x) => `${x}r${round}`).join(" ") }));
          return postings.bulkIndex("svc-attributes", docs);
        }),
      );
      expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
      const req = request("svc-attributes", `comment:*r${round}`, ACCESSES[0]!);
      const [a, b] = [await outcome(postings, req), await outcome(jsonb, req)];
      expect(a).toEqual(b);
      expect((a as { total: number }).total).toBe(words.length * 4);
    }
    await postings.deleteByTerms("svc-attributes", "type", ["comment"]);
    expect(await postingsOutOfStep(pool)).toBe(0);
  });

  it("patterns over terms that lost their postings, and over too many terms to probe with, answer as the JSONB path", async () => {
    // Text tokens (never capped, unlike long .keyword values, which send unbounded patterns to the JSONB path).
    const gone = Array.from({ length: 20 }, (_, i) => doc(`gone-${i}`, "gonetype", "x", { comment: `gone${i}lostterm` }));
    const many = Array.from({ length: 300 }, (_, i) => doc(`many-${i}`, "manytype", "x", { comment: `probe${i}manyterm` }));
    const rare = [0, 1, 2].map((i) => doc(`rare-${i}`, "raretype", "x", { comment: `probe${i * 7}manyterm` }));
    await postings.bulkIndex("svc-attributes", [...gone, ...many, ...rare]);
    await postings.deleteByIds("svc-attributes", gone.map((d) => d.id));
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    const states = await pool.query<{ pulse: number | null; n: number }>("SELECT pulse, count(*) AS n FROM search_terms WHERE field = 'acomment' AND term LIKE '%lostterm' GROUP BY pulse");
    expect(states.rows).toEqual([{ pulse: 0, n: 20 }]);
    for (const q of ["comment:*lostterm", "comment:*lostterm OR type:raretype", "type:raretype AND comment:*manyterm", "type:raretype AND NOT comment:*manyterm", "comment:*manyterm"]) {
      for (const trackTotalHits of [true, 10_000] as const) {
        const req = request("svc-attributes", q, ACCESSES[0]!, { trackTotalHits });
        expect(await outcome(postings, req), q).toEqual(await outcome(jsonb, req));
      }
    }
    expect(await outcome(postings, request("svc-attributes", "type:raretype AND comment:*manyterm", ACCESSES[0]!))).toMatchObject({ total: 3 });
    await postings.deleteByIds("svc-attributes", [...many, ...rare].map((d) => d.id));
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
  });

  it("prefixes and _exists_ over few dictionary terms are read as those terms (driver, probe, negative); over many, as a key range", async () => {
    const docs = Array.from({ length: 300 }, (_, i) =>
 doc(`prefix-${i}`, i % 3 === 0 ? "prefixtype" : "othertype", "x", { comment: `pfx${i}term lone${i % 5}word twin${i}a twin${i}b`, "@timestamp": new Date(Date.UTC(2024, 0, 1 + (i % 40))).toISOString() }),
    );
    await postings.bulkIndex("svc-attributes", docs);
    const answered = async (q: string) => {
      const req = request("svc-attributes", q, ACCESSES[1]!, { trackTotalHits: 10_000 });
      const client = await pool.connect();
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        return (await searchByPostings(client, req, planPostings(req, Date.now())!, 10_000)) !== null;
      } finally {
        await client.query("COMMIT");
        client.release();
      }
    };
    // pfx1* has 111 terms (a probe may have 256), pfx* 300 (a key range, which may only drive).
    const fewTerms = ["comment:lone*", "comment:pfx1*", "type:prefixtype AND comment:pfx1*", "type:prefixtype AND NOT comment:pfx2*", "comment:lone* AND NOT comment:lone3*", "comment:lone1* OR comment:lone2*", "type:prefixtype AND _exists_:comment"];
    for (const q of fewTerms) expect(await answered(q), q).toBe(true);
    // Two key ranges, or a range as a negative: the JSONB path.
    expect(await answered("comment:pfx* AND NOT comment:pfx*")).toBe(false);
    // twin*: 600 terms, two of each document next to each other in key order.
    for (const q of [...fewTerms, "comment:pfx*", "comment:twin*", "comment:pfx* AND NOT comment:pfx*", "type:prefixtype AND comment:nosuchprefix*", "comment:Lone*"]) {
      for (const trackTotalHits of [true, 10_000, 50] as const) {
        for (const access of ACCESSES) {
          const req = request("svc-attributes", q, access, { trackTotalHits, size: 30 });
          expect(await outcome(postings, req), `${q} ${trackTotalHits} ${JSON.stringify(access)}`).toEqual(await outcome(jsonb, req));
        }
      }
    }
    const expected = docs.filter((d) => d.source.type === "prefixtype" && Number(d.id.slice(7)).toString().startsWith("1")).length;
    expect(expected).toBe(36);
    expect(await outcome(postings, request("svc-attributes", "type:prefixtype AND comment:pfx1*", ACCESSES[0]!))).toMatchObject({ total: expected });
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
  });

  it("key ranges and many-term patterns whose page ends inside a run of equal timestamps longer than what is kept for it", async () => {
    // 400 documents of one @timestamp (more than the 2k + 64 postings kept for a page), ids in a shuffled order.
    const docs = Array.from({ length: 400 }, (_, i) =>
      doc(`run-${(i * 7919) % 400}`, i % 2 ? "runtype" : "runother", "x", { timestamp: 1_900_000_000 + i, comment: `runterm${i}`, "@timestamp": "2031-01-01T00:00:00Z" }),
    );
    await postings.bulkIndex("svc-attributes", docs);
    for (const q of ["timestamp:[1900000000 TO 1900000399]", "comment:runterm*", "comment:*unterm*", "type:runtype AND timestamp:[1900000000 TO 1900000399]", "type:runtype AND comment:*unterm*"]) {
      await pagesAgree(q, [
        [0, 10, 10_000],
        [0, 10, 50],
        [40, 10, 50],
        [5, 3, 4],
      ]);
    }
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
  });

  it("a key range's page read from the postings no older than its counted sample's threshold, whichever end of the range is newest", async () => {
    // 300 terms of one prefix (a key range): 200 of distinct timestamps and 100 tied on the newest,
    // the tied ones at the high end of the range's keys, then at the low end (in the first postings
    // counted, so that the threshold is their timestamp: a strict test would lose them all).
    for (const tiedFirst of [false, true]) {
      const docs = Array.from({ length: 300 }, (_, i) => {
        const tied = tiedFirst ? i < 100 : i >= 200;
        const at = tied ? Date.UTC(2031, 0, 1) : Date.UTC(2030, 0, 1) + (tiedFirst ? 300 - i : i) * 60_000;
        return doc(`thr-${i}`, "thrtype", "x", { comment: `thr${String(i).padStart(3, "0")}`, "@timestamp": new Date(at).toISOString() });
      });
      await postings.bulkIndex("svc-attributes", docs);
      const pages = [
        [0, 10, 120],
        [0, 10, 250],
        [90, 20, 250],
        [0, 10, 10_000],
        [0, 50, 299],
      ] as const;
      const ids = await pagesAgree("comment:thr*", pages, `tied first: ${tiedFirst}`);
      expect(ids.map((page) => page.length)).toEqual(pages.map(([, size]) => size));
      await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
    }
  });

  it("a key range whose counted sample is its oldest postings: more than NEWEST_CAP newer, the page comes from the general read", async () => {
    // 6,000 terms of one prefix, newer the higher the term: the first postings counted (lowest keys)
    // are the oldest, so nearly all 6,000 are no older than the sample's threshold, over the cap (5,000).
    const docs = Array.from({ length: 6_000 }, (_, i) =>
      doc(`mnw-${i}`, "mnwtype", "x", { comment: `mnw${String(i).padStart(4, "0")}`, "@timestamp": new Date(Date.UTC(2032, 0, 1) + i * 60_000).toISOString() }),
    );
    await postings.bulkIndex("svc-attributes", docs);
    const pages = [
      [0, 10, 10],
      [0, 10, 100],
      [40, 20, 1_000],
      [0, 10, 10_000],
    ] as const;
    const ids = await pagesAgree("comment:mnw*", pages);
    expect(ids).toEqual(pages.map(([from, size]) => Array.from({ length: size }, (_, j) => `mnw-${5_999 - from - j}`)));
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
  });

  it("a numeric range whose first matches oldest first lie past many documents: the page from its lowest postings' sample, however many it has", async () => {
    // 2,500 documents below the range, then 300 in it: timestamp rises with @timestamp.
    const docs = Array.from({ length: 2_800 }, (_, i) =>
      doc(`sparse-${i}`, "sparsetype", "x", { timestamp: 1_950_000_000 + i, "@timestamp": new Date(Date.UTC(2031, 0, 1) + i * 60_000).toISOString() }),
    );
    await postings.bulkIndex("svc-attributes", docs);
    const q = "timestamp:[1950002500 TO *]";
    for (const [from, size, bound] of [
      [0, 10, 100],
      [5, 20, 100],
      [0, 10, 299],
    ] as const) {
      const req = request("svc-attributes", q, ACCESSES[0]!, { from, size, trackTotalHits: bound, sort: { field: "@timestamp", order: "asc" } });
      const statements: string[] = [];
      const client = await pool.connect();
      let answer;
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const recorded = recordStatements(client);
        answer = await searchByPostings(recorded.client, req, planPostings(req, Date.now())!, bound);
        statements.push(...recorded.sent.map((s) => s.text));
      } finally {
        await client.query("COMMIT");
        client.release();
      }
      const expected = (await outcome(jsonb, req)) as { total: number; ids: string[] };
      expect(expected.ids, `${from}/${size}/${bound}`).toEqual(Array.from({ length: size }, (_, j) => `sparse-${2_500 + from + j}`));
      expect(answer, `${from}/${size}/${bound}`).toMatchObject({ matches: bound + 1 });
      expect(answer && "ids" in answer ? answer.ids : null, `${from}/${size}/${bound}`).toEqual(expected.ids);
      // Not left to the size of the range (a planner's estimate against HUGE): at 100,000 attributes
      // `timestamp:[1700000000 TO *]` has more postings, and its walk passes 44,806 older documents.
      expect(statements.filter((t) => t.startsWith("EXPLAIN")), `${from}/${size}/${bound}`).toEqual([]);
      expect(await outcome(postings, req)).toEqual(expected);
    }
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
  });

  it("probes beside a driver of several keys test each document once, after the keys' postings are merged", async () => {
    // `type:prbone-prbtwo` is the OR of its two tokens, both on each of its 40 documents (80 postings):
    // it drives, and the phrase (more than SMALL_PROBE = 5,000 postings) is looked up per row.
    const docs = [
      ...Array.from({ length: 40 }, (_, i) =>
        doc(`prb-${i}`, "prbone-prbtwo", `v${i}`, { category: i % 4 === 0 ? "Prb other" : "Prb activity", "@timestamp": new Date(Date.UTC(2033, 0, 1 + (i % 13))).toISOString() }),
      ),
      ...Array.from({ length: 5_010 }, (_, i) => doc(`prbc-${i}`, "prbthree", `c${i}`, { category: "Prb activity" })),
    ];
    await postings.bulkIndex("svc-attributes", docs);
    await pool.query("VACUUM (ANALYZE) search_postings");
    const q = 'category:"prb activity" AND type:prbone-prbtwo';
    for (const order of ["desc", "asc"] as const) {
      for (const [from, size, bound] of [
        [0, 10, 10_000],
        [25, 10, 10_000],
        [0, 5, 20],
      ] as const) {
        const req = request("svc-attributes", q, ACCESSES[0]!, { from, size, trackTotalHits: bound, sort: { field: "@timestamp", order } });
        const expected = await outcome(jsonb, req);
        expect(expected, `${order} ${from}/${size}/${bound}`).toMatchObject({ total: Math.min(30, bound) });
        expect(await outcome(postings, req), `${order} ${from}/${size}/${bound}`).toEqual(expected);
      }
      const req = request("svc-attributes", q, ACCESSES[0]!, { size: 10, trackTotalHits: 10_000, sort: { field: "@timestamp", order } });
      const statements: { text: string; values: unknown[] }[] = [];
      const client = await pool.connect();
      try {
        await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
        const recorded = recordStatements(client);
        await searchByPostings(recorded.client, req, planPostings(req, Date.now())!, 10_000);
        statements.push(...recorded.sent);
        const read = statements.find((s) => s.text.startsWith("WITH m AS MATERIALIZED"));
        const plan = (await client.query<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${read!.text}`, read!.values)).rows[0]!["QUERY PLAN"][0].Plan;
        // The probe's index scans (alias q, q_1, ...): one per document of the driver, not one per posting (80).
        const probes = (n: PlanNode): number => (/^q(_\d+)?$/.test(n.Alias ?? "") ? (n["Actual Loops"] ?? 0) : 0) + (n.Plans ?? []).reduce((sum, c) => sum + probes(c), 0);
        expect(probes(plan), order).toBe(40);
      } finally {
        await client.query("COMMIT");
        client.release();
      }
    }
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
  });

  it("type conditions are read from the postings' facets, and looked up for documents without one", async () => {
    // Without a facet: several types, none, one longer than FACET_MAX_LENGTH (64).
    const types = ["domain", "ip-dst", "Domain Name", ["domain", "url"], undefined, `domain ${"x".repeat(80)}`, "domain|ip", "DOMAIN"];
    // 300 documents: the comment pattern matches more terms than a probe may have, so it drives and the types are facets.
    const docs = Array.from({ length: 300 }, (_, i) =>
      doc(`facet-${i}`, "x", "x", {
        type: types[i % types.length],
        comment: `facetword${i} facetpair`,
        deleted: i % 11 === 0,
        event_distribution: i % 5 === 0 ? 0 : 3,
        event_org_id: i % 10 === 0 ? 1 : 2,
        visible_to: i % 5 === 0 ? [i % 10 === 0 ? 1 : 2] : [-1],
        "@timestamp": new Date(Date.UTC(2024, 0, 1 + (i % 17))).toISOString(),
      }),
    );
    await postings.bulkIndex("svc-attributes", docs);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
    const stored = await pool.query<{ facet: string | null }>(
      "SELECT DISTINCT f.value AS facet FROM search_postings p JOIN search_documents d ON d.doc = p.doc LEFT JOIN search_facets f ON f.id = p.fct WHERE d.id LIKE 'facet-%' ORDER BY 1",
    );
    expect(stored.rows.map((r) => r.facet)).toEqual(["DOMAIN", "Domain Name", "domain", "domain|ip", "ip-dst", null]);
    const queries = [
      "type:domain AND comment:*acetword*",
      "type.keyword:domain AND comment:*acetword*",
      'type:"domain name" AND comment:*acetword*',
      "type:ip AND comment:*acetword*",
      "NOT type:domain AND comment:*acetword*",
      "(type:domain OR type:dst) AND comment:*acetword*",
      "type:domain AND NOT type:name AND comment:*acetword*",
      "type:nosuchtype AND comment:*acetword*",
      // 111 terms: few enough to probe with, so not read alone beside the facet.
      "type:domain AND comment:*acetword1*",
      "type:ip AND NOT type:dst AND comment:*acetword*",
      "type:domain AND comment:facetpair",
      "NOT type:domain AND NOT comment:facetword7",
    ];
    for (const q of queries) {
      for (const trackTotalHits of [true, 50] as const) {
        for (const access of ACCESSES) {
          for (const filters of [undefined, { deleted: false }]) {
            const req = request("svc-attributes", q, access, { trackTotalHits, size: 30, ...(filters ? { filters } : {}) });
            expect(await outcome(postings, req), `${q} ${trackTotalHits} ${JSON.stringify(access)} ${JSON.stringify(filters)}`).toEqual(await outcome(jsonb, req));
          }
        }
      }
    }
    const domains = docs.filter((d) => ["domain", "Domain Name", "domain|ip", "DOMAIN"].includes(d.source.type as string) || Array.isArray(d.source.type) || String(d.source.type).startsWith("domain ")).length;
    expect(await outcome(postings, request("svc-attributes", queries[0]!, ACCESSES[0]!))).toMatchObject({ total: domains });
    // The answer is the facet's: a document given a wrong one (in its postings and its inlined posting) is missed.
    await pool.query("INSERT INTO search_facets (value) VALUES ('url') ON CONFLICT DO NOTHING");
    const url = "(SELECT id FROM search_facets WHERE value = $2)";
    await pool.query(`UPDATE search_postings SET fct = ${url} WHERE doc = (SELECT doc FROM search_documents WHERE id = $1)`, ["facet-0", "url"]);
    await pool.query(`UPDATE search_terms SET fct = ${url} WHERE pulse = 1 AND doc = (SELECT doc FROM search_documents WHERE id = $1)`, ["facet-0", "url"]);
    expect(await outcome(postings, request("svc-attributes", queries[0]!, ACCESSES[0]!))).toMatchObject({ total: domains - 1 });
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
  });

  it("oldest first: documents without @timestamp first, ties by descending id, pages as the JSONB path's and newest first reversed", async () => {
    const noTs = ["nots-b", "nots-a", "nots-Z"].map((id) => doc(id, "ascorder", id, { "@timestamp": null, comment: `ascword ${id}` }));
    const tied = ["asc-b", "asc-a", "asc-Z", "asc-é"].map((id) => doc(id, "ascorder", id, { "@timestamp": "2030-01-01T00:00:00Z", comment: `ascword ${id}` }));
    const spread = Array.from({ length: 40 }, (_, i) => doc(`asc-${i}`, "ascorder", `v${i}`, { "@timestamp": new Date(Date.UTC(2029, 0, 1 + (i % 10))).toISOString(), comment: `ascword ascw${i}` }));
    const docs = [...noTs, ...tied, ...spread];
    await postings.bulkIndex("svc-attributes", docs);
    const { rows } = await pool.query<{ n: number }>("SELECT count(*) AS n FROM search_documents WHERE id LIKE 'nots-%' AND ts IS NULL");
    expect(rows[0]!.n).toBe(3);
    const byId = (xs: string[]) => [...xs].sort((a, b) => Buffer.compare(Buffer.from(b), Buffer.from(a)));
    for (const q of ["type:ascorder", "type:ascorder AND comment:ascword", "comment:ascw*", "comment:*scw*", "type:ascorder OR type:nosuchtype", "type:ascorder AND NOT comment:ascw3"]) {
      const asc = (extra: Partial<SearchRequest> = {}) => request("svc-attributes", q, ACCESSES[0]!, { sort: { field: "@timestamp", order: "asc" }, ...extra });
      const whole = (await outcome(postings, asc())) as { ids: string[] };
      expect(whole, q).toEqual(await outcome(jsonb, asc()));
      const newest = (await outcome(postings, request("svc-attributes", q, ACCESSES[0]!))) as { ids: string[] };
      expect(whole.ids, q).toEqual([...newest.ids].reverse());
      if (q.startsWith("type:ascorder") && !q.includes("NOT")) expect(whole.ids.slice(0, 3), q).toEqual(byId(noTs.map((d) => d.id)));
      for (const [from, size, bound] of [
        [0, 2, 10_000],
        [2, 3, 10_000],
        [1, 5, 4],
        [5, 4, 10],
        [30, 20, 30],
      ] as const) {
        const req = asc({ from, size, trackTotalHits: bound });
        expect(await outcome(postings, req), `${q} ${from}/${size}/${bound}`).toEqual(await outcome(jsonb, req));
      }
    }
    await postings.deleteByIds("svc-attributes", docs.map((d) => d.id));
    expect(await postingsOutOfStep(pool)).toBe(0);
  });

  it("ties on @timestamp are broken by id in code point order; long and hostile values are stored and found", async () => {
    const ids = ["tie-b", "tie-a", "tie-Z", "tie-é", "tie-\u{1F600}", "tie-\uFFFD", "tie-a0", "tie-"];
    const long = `${"ukraine".repeat(200)}-long`;
    await postings.bulkIndex("svc-attributes", [
      ...ids.map((id) => doc(id, "tie", `tie ${id}`, { "@timestamp": "2030-01-01T00:00:00Z" })),
      doc("long-1", "tie", long, { "@timestamp": "2030-01-01T00:00:00Z", comment: "x\u0000y \u202e" }),
    ]);
    for (const [from, size] of [
      [0, 3],
      [2, 4],
      [0, 20],
    ] as const) {
      const req = request("svc-attributes", "type:tie", ACCESSES[0]!, { from, size, trackTotalHits: 4 });
      expect(await outcome(postings, req)).toEqual(await outcome(jsonb, req));
    }
    const all = await outcome(postings, request("svc-attributes", "type:tie", ACCESSES[0]!));
    const byId = [...ids, "long-1"].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect((all as { ids: string[] }).ids).toEqual(byId);
    // Oldest first: descending id order.
    expect(await outcome(postings, request("svc-attributes", "type:tie", ACCESSES[0]!, { sort: { field: "@timestamp", order: "asc" } }))).toMatchObject({ ids: [...byId].reverse() });
    // value.keyword holds the long value's capped prefix only: patterns that may reach past it take the JSONB path.
    for (const q of [`value.keyword:${"ukraine".repeat(30)}*`, "value:ukraineukraine*", `value.keyword:"${long}"`, "value.keyword:*-long", "value.keyword:/(ukraine)+-long/", "value.keyword:*ukraine?long"]) {
      const req = request("svc-attributes", q, ACCESSES[0]!);
      expect(await outcome(postings, req), q).toEqual(await outcome(jsonb, req));
      expect((await outcome(postings, req)) as { ids: string[] }, q).toMatchObject({ ids: ["long-1"] });
    }
    for (const q of ["value.keyword:/[a-z]{5}/", "value.keyword:????", "value:*-long", "value:/ukraine.*/"]) {
      const req = request("svc-attributes", q, ACCESSES[0]!);
      expect(await outcome(postings, req), q).toEqual(await outcome(jsonb, req));
    }
    await postings.deleteByIds("svc-attributes", [...ids, "long-1"]);
    expect(await postingsOutOfStep(pool)).toBe(0);
    expect(await checkDictionary(pool)).toMatchObject({ missing: [], wrong: [] });
  });
});
