/**
 * PostgreSQL search backend (src/search/postgres) against real PostgreSQL, over event and attribute
 * documents built from the real MISP data (test/support/search-fixtures.ts). Every expected hit set
 * is derived independently here by filtering the fixture documents with plain JS predicates.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import { PostgresSearchIndex } from "../../src/search/postgres/index.ts";
import { SearchQueryError, type IndexName, type SearchRequest } from "../../src/search/search-index.ts";
import { createTestDatabase } from "../support/databases.ts";
import { buildSearchDocuments, type Doc } from "../support/search-fixtures.ts";

type Src = Record<string, unknown>;
type Pred = (s: Src) => boolean;

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let pool: pg.Pool;
let search: PostgresSearchIndex;
const { events, attributes } = buildSearchDocuments();
const DOCS: Record<"svc-events" | "svc-attributes", Doc[]> = { "svc-events": events, "svc-attributes": attributes };
const DEFAULT_FIELDS = { "svc-events": ["info"], "svc-attributes": ["value"] };

// ---- independent expectation helpers --------------------------------------------------------
/**
 * Rough standard-analyzer words (UAX #29 for the characters in the data): runs of letters, digits
 * and `_`, joined by `.` `:` `'` between two letters or `.` `,` between two digits; lower-cased.
 */
const WORD = /[\p{L}\p{N}_]+(?:(?:(?<=\p{L})[.:'](?=\p{L})|(?<=\p{N})[.,'](?=\p{N}))[\p{L}\p{N}_]+)*/gu;
const words = (v: unknown): string[] => (typeof v === "string" ? (v.toLowerCase().match(WORD) ?? []) : []);
const str = (s: Src, f: string) => (typeof s[f] === "string" ? (s[f] as string) : "");
const has = (s: Src, f: string, w: string) => words(s[f]).includes(w);
const tagNames = (s: Src) => ((s.tags as { name: string }[] | undefined) ?? []).map((t) => t.name);
const tsMs = (s: Src) => Date.parse(/Z$/.test(s["@timestamp"] as string) ? (s["@timestamp"] as string) : `${s["@timestamp"] as string}Z`);
const ipOf = (s: Src) => (s.expanded as { ip?: string } | undefined)?.ip;
const ipNum = (ip: string) => ip.split(".").reduce((n, o) => n * 256 + Number(o), 0);
const yearAgo = () => {
  const d = new Date();
  d.setUTCFullYear(d.getUTCFullYear() - 1);
  return d.getTime();
};

function request(index: IndexName, query: string, extra: Partial<SearchRequest> = {}): SearchRequest {
  return {
    index,
    query: parseLucene(query),
    defaultFields: DEFAULT_FIELDS[index as "svc-events"] ?? [],
    access: { admin: true, orgId: null },
    from: 0,
    size: 10_000,
    sort: { field: "@timestamp", order: "desc" },
    timeoutMs: 10_000,
    ...extra,
  };
}

async function ids(index: IndexName, query: string, extra: Partial<SearchRequest> = {}): Promise<string[]> {
  const res = await search.search(request(index, query, extra));
  expect(res.total).toBe(res.hits.length);
  return res.hits.map((h) => h.id).sort();
}
const expected = (index: "svc-events" | "svc-attributes", pred: Pred) =>
  DOCS[index].filter((d) => pred(d.source)).map((d) => d.id).sort();

beforeAll(async () => {
  db = await createTestDatabase("search_pg");
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  search = new PostgresSearchIndex(pool);
  await search.ensureIndices();
  await search.bulkIndex("svc-events", events);
  await search.bulkIndex("svc-attributes", attributes);
  await search.refresh();
}, 180_000);

afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

// ---- analyst queries on attributes ------------------------------------------------------------
const ATTRIBUTE_QUERIES: [string, Pred][] = [
  ["type:domain", (s) => has(s, "type", "domain")],
  ["type:DOMAIN", (s) => has(s, "type", "domain")],
  ["type:ip-dst", (s) => has(s, "type", "ip") || has(s, "type", "dst")],
  ['type:"ip-dst"', (s) => /(^|[^a-z])ip-dst($|[^a-z])/.test(str(s, "type"))],
  ["type.keyword:ip-dst", (s) => s.type === "ip-dst"],
  ["type.keyword:IP-DST", () => false],
  ["type:(md5 OR sha1)", (s) => has(s, "type", "md5") || has(s, "type", "sha1")],
  ["type:(md5 sha1)", (s) => has(s, "type", "md5") || has(s, "type", "sha1")],
  ["type.keyword:(md5 sha1)", () => false],
  ["type.keyword:(md5 OR sha1)", (s) => s.type === "md5" || s.type === "sha1"],
  ["value:comalign.pro", (s) => has(s, "value", "comalign.pro")],
  ["comalign.pro", (s) => has(s, "value", "comalign.pro")],
  ["value:comalign\\.pro", (s) => has(s, "value", "comalign.pro")],
  ["value.keyword:comalign.pro", (s) => s.value === "comalign.pro"],
  ['category:"Network activity"', (s) => /network activity/i.test(str(s, "category"))],
  ["category:network", (s) => has(s, "category", "network")],
  ['category.keyword:"Payload delivery"', (s) => s.category === "Payload delivery"],
  ["category:(payload OR artifacts)", (s) => has(s, "category", "payload") || has(s, "category", "artifacts")],
  ["type:md5 AND to_ids:true", (s) => has(s, "type", "md5") && s.to_ids === true],
  ["type:md5 AND NOT to_ids:true", (s) => has(s, "type", "md5") && s.to_ids !== true],
  ["type:md5 && !to_ids:true", (s) => has(s, "type", "md5") && s.to_ids !== true],
  // No precedence (Lucene): sha256 becomes an optional should clause.
  ["type:sha256 OR type:sha1 AND to_ids:false", (s) => has(s, "type", "sha1") && s.to_ids === false],
  ["(type:sha256 OR type:sha1) AND to_ids:false", (s) => (has(s, "type", "sha256") || has(s, "type", "sha1")) && s.to_ids === false],
  ["type:sha256 OR NOT to_ids:true", (s) => has(s, "type", "sha256") && s.to_ids !== true],
  ["+type:url -category:network", (s) => has(s, "type", "url") && !has(s, "category", "network")],
  ["-type:domain", (s) => !has(s, "type", "domain")],
  ["NOT type:domain AND NOT type:url", (s) => !has(s, "type", "domain") && !has(s, "type", "url")],
  ["type:url AND (comment:c2 OR comment:rtf)", (s) => has(s, "type", "url") && (has(s, "comment", "c2") || has(s, "comment", "rtf"))],
  ["(type:md5 OR type:sha1) AND NOT (to_ids:false)", (s) => (has(s, "type", "md5") || has(s, "type", "sha1")) && s.to_ids !== false],
  ["type:md5^2 OR type:sha512", (s) => has(s, "type", "md5") || has(s, "type", "sha512")],
  ["value:*.pro", (s) => words(s.value).some((w) => w.endsWith(".pro"))],
  ["value.keyword:*.pro", (s) => str(s, "value").endsWith(".pro")],
  ["value:comal?gn.pro", (s) => words(s.value).some((w) => /^comal.gn\.pro$/.test(w))],
  ["value:COMALIGN*", (s) => words(s.value).some((w) => w.startsWith("comalign"))],
  ["value.keyword:COMALIGN*", (s) => str(s, "value").startsWith("COMALIGN")],
  ["*align*", (s) => words(s.value).some((w) => w.includes("align"))],
  ["value.keyword:*align*", (s) => str(s, "value").includes("align")],
  ["value.keyword:https\\:\\/\\/*", (s) => str(s, "value").startsWith("https://")],
  ["value:/[a-z]+\\.pro/", (s) => words(s.value).some((w) => /^[a-z]+\.pro$/.test(w))],
  ["value.keyword:/.*\\.(pro|top)/", (s) => /^.*\.(pro|top)$/s.test(str(s, "value"))],
  ["value.keyword:/[0-9]{1,3}(\\.[0-9]{1,3}){3}/", (s) => /^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(str(s, "value"))],
  ["type:/ip-.*/", () => false],
  ["type.keyword:/ip-(src|dst)/", (s) => s.type === "ip-src" || s.type === "ip-dst"],
  ["value.keyword:/\\d+\\.\\d+\\.\\d+\\.\\d+/", (s) => /^\d+\.\d+\.\d+\.\d+$/.test(str(s, "value"))],
  ["expanded.ip:158.94.209.29", (s) => ipOf(s) === "158.94.209.29"],
  ['expanded.ip:"158.94.0.0/16"', (s) => ipOf(s)?.startsWith("158.94.") === true],
  ["expanded.ip:158.94.0.0\\/16", (s) => ipOf(s)?.startsWith("158.94.") === true],
  ["expanded.ip:[160.0.0.0 TO 170.0.0.0]", (s) => !!ipOf(s) && ipNum(ipOf(s)!) >= ipNum("160.0.0.0") && ipNum(ipOf(s)!) <= ipNum("170.0.0.0")],
  ["expanded.ip:{160.153.176.197 TO *]", (s) => !!ipOf(s) && ipNum(ipOf(s)!) > ipNum("160.153.176.197")],
  ["expanded.ip_range:158.94.209.1", (s) => ipOf(s)?.startsWith("158.94.209.") === true],
  ["_exists_:expanded.ip", (s) => !!ipOf(s)],
  ["timestamp:[1700000000 TO *]", (s) => (s.timestamp as number) >= 1700000000],
  ["timestamp:>1715767131", (s) => (s.timestamp as number) > 1715767131],
  ["timestamp:<=1715767131", (s) => (s.timestamp as number) <= 1715767131],
  ["timestamp:{1715767121 TO 1715767142}", (s) => (s.timestamp as number) > 1715767121 && (s.timestamp as number) < 1715767142],
  ["timestamp:[1715767121.5 TO 1715767142.5]", (s) => (s.timestamp as number) >= 1715767122 && (s.timestamp as number) <= 1715767142],
  ["timestamp:1715767131.5", () => false],
  ["@timestamp:[2024-01-01 TO 2024-12-31]", (s) => tsMs(s) >= Date.UTC(2024, 0, 1) && tsMs(s) < Date.UTC(2025, 0, 1)],
  ["@timestamp:[2024-01-01 TO 2024-12-31}", (s) => tsMs(s) >= Date.UTC(2024, 0, 1) && tsMs(s) < Date.UTC(2024, 11, 31)],
  ["@timestamp:{2024-05-15 TO *]", (s) => tsMs(s) >= Date.UTC(2024, 4, 16)],
  ["@timestamp:>=2024-05-15T10\\:00\\:00", (s) => tsMs(s) >= Date.UTC(2024, 4, 15, 10)],
  ["@timestamp:<now-1y", (s) => tsMs(s) < yearAgo()],
  ["@timestamp:[2024-01-01||+1M TO 2024-06-01||/M}", (s) => tsMs(s) >= Date.UTC(2024, 1, 1) && tsMs(s) < Date.UTC(2024, 5, 1)],
  ["first_seen:*", (s) => s.first_seen !== null],
  ["_exists_:object_uuid", (s) => s.object_uuid !== null],
  ["object_uuid:*", (s) => s.object_uuid !== null],
  ["-_exists_:object_uuid", (s) => s.object_uuid === null],
  ["_exists_:comment", () => true],
  ["_exists_:tags", (s) => tagNames(s).length > 0],
  ["_exists_:nonexistent", () => false],
  ["tags.name.keyword:\"tlp:white\"", (s) => tagNames(s).includes("tlp:white")],
  ['tags.name:"blog-post"', (s) => tagNames(s).some((t) => t.includes("blog-post"))],
  ["expanded.ip2geo.country_iso_code:RU", () => false],
  ["-expanded.ip2geo.country_iso_code:RU AND type:md5", (s) => has(s, "type", "md5")],
  ["nosuchfield:x OR type:sha512", (s) => has(s, "type", "sha512")],
  ["distribution:5", (s) => s.distribution === 5],
  ["to_ids:false AND disable_correlation:false AND type:url", (s) => s.to_ids === false && s.disable_correlation === false && has(s, "type", "url")],
  ['comment:"Associated with 180.169.28.58 TCP/8080"', (s) => str(s, "comment").toLowerCase().includes("associated with 180.169.28.58 tcp/8080")],
  ["comment:TCP\\/8080", (s) => has(s, "comment", "tcp") || has(s, "comment", "8080")],
  ['comment:"Imported via the freetext import."', (s) => str(s, "comment").toLowerCase().includes("imported via the freetext import")],
  ['comment:"freetext via"', (s) => / freetext via /.test(` ${words(s.comment).join(" ")} `)],
  ["object_relation:filename", (s) => has(s, "object_relation", "filename")],
  ["*:*", () => true],
  ["*", () => true],
  ["", () => true],
  ["+type:url +value:http*", (s) => has(s, "type", "url") && words(s.value).some((w) => w.startsWith("http"))],
  ['value:"--"', () => false],
  ['type:md5 OR value:"--"', (s) => has(s, "type", "md5")],
  ["category.keyword:[Network* TO Other]", (s) => str(s, "category") >= "Network*" && str(s, "category") <= "Other"],
];

const EVENT_QUERIES: [string, Pred][] = [
  ["info:ransomware", (s) => has(s, "info", "ransomware")],
  ["ransomware", (s) => has(s, "info", "ransomware")],
  ['info:"SamSam ransomware"', (s) => /samsam ransomware/i.test(str(s, "info"))],
  ["info:osint AND tags.name.keyword:\"type:OSINT\"", (s) => has(s, "info", "osint") && tagNames(s).includes("type:OSINT")],
  ["tags.name:tlp\\:white", (s) => tagNames(s).includes("tlp:white")],
  ['tags.name:"misp-galaxy:ransomware"', (s) => tagNames(s).some((t) => t.toLowerCase().includes("misp-galaxy:ransomware"))],
  ["tags.name:infoblox AND NOT tags.name:tlp\\:clear", (s) => tagNames(s).includes("infoblox") && !tagNames(s).includes("tlp:clear")],
  ["tags.colour:\"#ff00ff\"", (s) => ((s.tags as { colour: string }[]) ?? []).some((t) => t.colour === "#ff00ff")],
  ["tags.is_galaxy:true", (s) => tagNames(s).some((t) => t.startsWith("misp-galaxy:"))],
  ["orgc.name:circl", (s) => has((s.orgc as Src | null) ?? {}, "name", "circl")],
  ["organisation.name:*", (s) => s.organisation !== null],
  ["threat_level:1", (s) => s.threat_level === 1],
  ["published:true", (s) => s.published === true],
  ["published:false", (s) => s.published === false],
  ["distribution:[1 TO 3]", (s) => (s.distribution as number) >= 1 && (s.distribution as number) <= 3],
  ["distribution:{1 TO 3}", (s) => s.distribution === 2],
  ["attribute_count:>100", (s) => (s.attribute_count as number) > 100],
  ["attribute_count:[* TO 10]", (s) => (s.attribute_count as number) <= 10],
  ["date:2018-11-27", (s) => s.date === "2018-11-27"],
  ["date:[2024-01-01 TO *]", (s) => str(s, "date") >= "2024-01-01"],
  ["date:[2016 TO 2017]", (s) => str(s, "date") >= "2016-01-01" && str(s, "date") <= "2017-12-31"],
  ["info:*_iocs", (s) => words(s.info).some((w) => w.endsWith("_iocs"))],
  ["info:/[a-z_]+_2024[0-9]{4}_iocs/", (s) => words(s.info).some((w) => /^[a-z_]+_2024[0-9]{4}_iocs$/.test(w))],
  ["deleted:true", (s) => s.deleted === true],
  ["_exists_:extends_uuid", (s) => s.extends_uuid !== null],
  ["uuid:0dbb179a-1c8c-4e7c-a264-2440414dbac8", (s) => s.uuid === "0dbb179a-1c8c-4e7c-a264-2440414dbac8"],
  ["(info:osint OR info:mar) AND -tags.name:tlp\\:white", (s) => (has(s, "info", "osint") || has(s, "info", "mar")) && !tagNames(s).includes("tlp:white")],
];

describe("PostgresSearchIndex: analyst queries (exact hit sets)", () => {
  it("indexed every fixture document", async () => {
    expect(events.length).toBeGreaterThan(20);
    expect(attributes.length).toBeGreaterThan(5000);
    expect((await search.search(request("svc-attributes", "", { size: 0 }))).total).toBe(attributes.length);
    expect((await search.search(request("svc-events", "", { size: 0 }))).total).toBe(events.length);
  });

  it.each(ATTRIBUTE_QUERIES)("svc-attributes %s", async (query, pred) => {
    expect(await ids("svc-attributes", query)).toEqual(expected("svc-attributes", pred));
  });

  it.each(EVENT_QUERIES)("svc-events %s", async (query, pred) => {
    expect(await ids("svc-events", query)).toEqual(expected("svc-events", pred));
  });

  it("the expectations are not trivial", () => {
    const nonEmpty = ATTRIBUTE_QUERIES.filter(([, p]) => expected("svc-attributes", p).length > 0).length;
    expect(nonEmpty).toBeGreaterThan(ATTRIBUTE_QUERIES.length * 0.7);
  });
});

describe("PostgresSearchIndex: access, filters, paging, sort, totals", () => {
  // Oldest first is newest first reversed: ties in descending id order (as the ts index read backwards).
  const newestFirst = (docs: Doc[]) => [...docs].sort((a, b) => tsMs(b.source) - tsMs(a.source) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const sorted = (docs: Doc[], order: "asc" | "desc") => (order === "desc" ? newestFirst(docs) : newestFirst(docs).reverse());

  it("non-administrators see distribution 1-3 or their organisation's events, and inside them attributes and objects of 1-3 or 5", async () => {
    const sharedItem = (level: unknown) => level === null || level === undefined || [1, 2, 3, 5].includes(level as number);
    for (const orgId of [1, 2, 3, null]) {
      const owner = (s: Src) => orgId !== null && (s.event_org_id === orgId || s.event_orgc_id === orgId);
      const visible = (s: Src) => ((s.event_distribution as number) >= 1 && (s.event_distribution as number) <= 3) || owner(s);
      const visibleAttribute = (s: Src) => owner(s) || (visible(s) && sharedItem(s.distribution) && sharedItem(s.object_distribution));
      const access = { admin: false, orgId };
      expect(await ids("svc-events", "", { access })).toEqual(expected("svc-events", visible));
      expect(await ids("svc-attributes", "type:md5", { access })).toEqual(expected("svc-attributes", (s) => visibleAttribute(s) && has(s, "type", "md5")));
    }
    // The data holds attributes that the event's distribution alone would show but their own hides.
    expect(attributes.some((d) => [1, 2, 3].includes(d.source.event_distribution as number) && !sharedItem(d.source.distribution) && has(d.source, "type", "md5"))).toBe(true);
  });

  it("filters are ANDed (deleted:false, text fields on .keyword, unknown filter fields match nothing)", async () => {
    expect(await ids("svc-events", "", { filters: { deleted: false } })).toEqual(expected("svc-events", (s) => s.deleted === false));
    expect(await ids("svc-attributes", "", { filters: { type: "md5" } })).toEqual(expected("svc-attributes", (s) => s.type === "md5"));
    expect(await ids("svc-attributes", "", { filters: { nosuch: 1 } })).toEqual([]);
  });

  it("sorts by @timestamp (then id) both ways, pages with from/size and counts the exact total", async () => {
    for (const order of ["asc", "desc"] as const) {
      const all = sorted(attributes.filter((d) => has(d.source, "type", "domain")), order).map((d) => d.id);
      const pages: string[] = [];
      for (let from = 0; from < all.length; from += 1000) {
        const res = await search.search(request("svc-attributes", "type:domain", { from, size: 1000, sort: { field: "@timestamp", order } }));
        expect(res.total).toBe(all.length);
        expect(res.hits.every((h) => h.score === null)).toBe(true);
        pages.push(...res.hits.map((h) => h.id));
      }
      expect(pages).toEqual(all);
    }
    const events30 = sorted(events, "desc").map((d) => d.id);
    const page = await search.search(request("svc-events", "", { from: 5, size: 7 }));
    expect(page.hits.map((h) => h.id)).toEqual(events30.slice(5, 12));
    expect(page.total).toBe(events.length);
    const beyond = await search.search(request("svc-events", "", { from: 9000, size: 10 }));
    expect(beyond).toMatchObject({ total: events.length, hits: [] });
  });

  it("counts exactly up to trackTotalHits, then answers the bound with gte; the page is the same either way (index walk or top-N)", async () => {
    for (const q of ["", "type:domain", "type:md5 OR type:sha1", "category:\"Network activity\" AND NOT value:*.com", "info:ransomware"]) {
      for (const index of ["svc-attributes", "svc-events"] as const) {
        for (const order of ["desc", "asc"] as const) {
          const exact = await search.search(request(index, q, { trackTotalHits: true, from: 3, size: 20, sort: { field: "@timestamp", order } }));
          expect(exact.totalRelation).toBe("eq");
          // A bound of 2 makes every query with more matches take the ts-index walk.
          const bounded = await search.search(request(index, q, { trackTotalHits: 2, from: 3, size: 20, sort: { field: "@timestamp", order } }));
          expect(bounded.hits.map((h) => h.id), `${index} ${q} ${order}`).toEqual(exact.hits.map((h) => h.id));
          expect(bounded).toMatchObject(exact.total > 2 ? { total: 2, totalRelation: "gte" } : { total: exact.total, totalRelation: "eq" });
        }
      }
    }
    const all = await search.search(request("svc-attributes", ""));
    expect(all).toMatchObject({ total: DOCS["svc-attributes"].length, totalRelation: "eq" });
  });

  it("_score sort returns the same set (constant scores)", async () => {
    const res = await search.search(request("svc-attributes", "type:md5 OR type:sha1", { sort: { field: "_score", order: "desc" } }));
    expect(res.hits.map((h) => h.id).sort()).toEqual(expected("svc-attributes", (s) => has(s, "type", "md5") || has(s, "type", "sha1")));
    expect(res.hits.every((h) => typeof h.score === "number")).toBe(true);
  });

  it("from + size over 10 000 is rejected", async () => {
    await expect(search.search(request("svc-events", "", { from: 9995, size: 10 }))).rejects.toBeInstanceOf(SearchQueryError);
  });

  it("replaces documents by id, deletes by ids and by terms", async () => {
    const e = events[0]!;
    await search.bulkIndex("svc-events", [{ id: e.id, source: { ...e.source, info: "replaced_marker_info" } }]);
    expect(await ids("svc-events", "replaced_marker_info")).toEqual([e.id]);
    await search.bulkIndex("svc-events", [e]);
    expect(await ids("svc-events", "replaced_marker_info")).toEqual([]);
    const scratch = { id: "scratch-1", source: { ...attributes[0]!.source, uuid: "scratch-1", event_uuid: "scratch-event" } };
    await search.bulkIndex("svc-attributes", [scratch, { ...scratch, id: "scratch-2" }]);
    expect(await ids("svc-attributes", "event_uuid:scratch-event")).toEqual(["scratch-1", "scratch-2"]);
    await search.deleteByIds("svc-attributes", ["scratch-1"]);
    await search.deleteByTerms("svc-attributes", "event_uuid", ["scratch-event"]);
    expect(await ids("svc-attributes", "event_uuid:scratch-event")).toEqual([]);
    expect((await search.search(request("svc-attributes", "", { size: 0 }))).total).toBe(attributes.length);
  });
});

describe("PostgresSearchIndex: bad input", () => {
  const rejectsInvalid = async (index: IndexName, q: string) => {
    const err = await search.search(request(index, q)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchQueryError);
    expect((err as SearchQueryError).kind).toBe("invalid");
  };

  it("10 000-term queries are rejected by the parser; 1 000-term queries run", async () => {
    expect(() => parseLucene(Array.from({ length: 10_000 }, (_, i) => `t${i}`).join(" OR "))).toThrow();
    const q = Array.from({ length: 1000 }, (_, i) => `q${i}z`).join(" OR ");
    expect(await ids("svc-attributes", `${q} OR type:sha512`)).toEqual(expected("svc-attributes", (s) => has(s, "type", "sha512")));
  });

  it("leading wildcards and lone wildcards work", async () => {
    expect(await ids("svc-attributes", "value:*")).toEqual(expected("svc-attributes", () => true));
    expect(await ids("svc-attributes", "value.keyword:*m")).toEqual(expected("svc-attributes", (s) => str(s, "value").endsWith("m")));
    expect(await ids("svc-attributes", "value:**")).toEqual(expected("svc-attributes", () => true));
  });

  it("type mismatches on an explicit field or a pattern are 400s (as OpenSearch); on default fields no match", async () => {
    await rejectsInvalid("svc-events", "distribution:abc");
    await rejectsInvalid("svc-events", "distribution:a*");
    await rejectsInvalid("svc-events", "@timestamp:[yesterday TO now]");
    await rejectsInvalid("svc-events", "published:maybe");
    await rejectsInvalid("svc-attributes", "expanded.ip:not-an-ip");
    await rejectsInvalid("svc-attributes", "value:/a&b/");
    await rejectsInvalid("svc-events", "distribution:1~1");
    await rejectsInvalid("svc-events", "*:emotet_cta_20221006_iocs");
    await rejectsInvalid("svc-events", "tags.\\*:tlp");
    // With all fields as default fields (none given) OpenSearch is lenient everywhere, and so is the compiler.
    const allFields = await search.search(request("svc-events", "*:emotet_cta_20221006_iocs", { defaultFields: [] }));
    expect(allFields.hits.map((h) => h.id).sort()).toEqual(expected("svc-events", (s) => s.info === "emotet_cta_20221006_iocs"));
  });

  it("SQL fragments are plain text", async () => {
    const before = (await search.search(request("svc-attributes", "", { size: 0 }))).total;
    for (const q of [
      `value:"'; DROP TABLE search_documents; --"`,
      `value:\\'\\)\\;\\ SELECT\\ pg_sleep\\(10\\)\\;\\ --`,
      `info:"\\" OR 1=1 --"`,
      `a\\'b:c`,
      `value.keyword:/.*'.*/`,
      `value.keyword:*\\'\\ OR\\ \\'1\\'=\\'1*`,
      `"$1 $2"`,
      `category.keyword:["a' TO" TO "z'"]`,
    ]) {
      const res = await search.search(request("svc-attributes", q));
      expect(res.total).toBe(res.hits.length);
    }
    expect((await search.search(request("svc-attributes", "", { size: 0 }))).total).toBe(before);
    expect(await search.health()).toEqual({ ok: true });
  });

  it("unicode values are indexed and searched; control characters are rejected by the parser", async () => {
    const doc = { id: "unicode-1", source: { uuid: "unicode-1", value: "與天空有約 Ünïcødé-ΟΔΟΣ 😀 evil\u0000nul", type: "text", "@timestamp": "2020-01-01T00:00:00Z", event_distribution: 3, visible_to: [-1] } };
    await search.bulkIndex("svc-attributes", [doc]);
    expect(await ids("svc-attributes", "天")).toContain("unicode-1");
    expect(await ids("svc-attributes", '"與天空有約"')).toContain("unicode-1");
    for (const q of ['"ünïcødé ΟΔΟΣ"', "value:ünïcødé", "value:οδοσ", "value:😀", "value:evil\\uFFFDnul"]) {
      expect(await ids("svc-attributes", q), q).toEqual(["unicode-1"]);
    }
    expect(() => parseLucene("value:a\u0001b")).toThrow();
    await search.deleteByIds("svc-attributes", ["unicode-1"]);
  });

  it("backtracking regexes against long values finish quickly (no catastrophic backtracking)", async () => {
    const long = { id: "long-1", source: { uuid: "long-1", type: "text", value: `${"a".repeat(8_000)}!`, "@timestamp": "2020-01-01T00:00:00Z" } };
    await search.bulkIndex("svc-attributes", [long]);
    const started = Date.now();
    expect(await ids("svc-attributes", "value.keyword:/(a+)+$/")).toEqual([]);
    expect(await ids("svc-attributes", "value.keyword:/(a+)+!/")).toEqual(["long-1"]);
    expect(await ids("svc-attributes", "value.keyword:/(a|aa)+!/")).toEqual(["long-1"]);
    expect(Date.now() - started).toBeLessThan(5_000);
    await search.deleteByIds("svc-attributes", ["long-1"]);
  });

  it("a search over its time limit is cancelled with a timeout error and the service stays healthy", async () => {
    const err = await search
      .search(request("svc-attributes", "value.keyword:/(.*a.*b.*c.*d.*e.*f.*g){3}/ OR comment:/.*(x|y|z).*(x|y|z).*/", { timeoutMs: 1 }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SearchQueryError);
    // Kind and message together, so a failure says what PostgreSQL answered.
    expect({ kind: (err as SearchQueryError).kind, message: (err as SearchQueryError).message }).toMatchObject({ kind: "timeout" });
    expect(await search.health()).toEqual({ ok: true });
    expect((await search.search(request("svc-events", "", { size: 0 }))).total).toBe(events.length);
    // Limits beyond statement_timeout's range are its largest; not a number is refused.
    for (const timeoutMs of [Infinity, 1e12, 0.5]) expect((await search.search(request("svc-events", "", { size: 0, timeoutMs }))).total).toBe(events.length);
    await expect(search.search(request("svc-events", "", { timeoutMs: NaN }))).rejects.toMatchObject({ kind: "invalid" });
  });
});
