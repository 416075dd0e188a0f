/**
 * Explore export, streamed (issue 21): GET /events/export and GET /attributes/export on each search
 * backend (OpenSearch when OPENSEARCH_URL is set). 25 000 synthetic attributes (bench/search-data.ts)
 * are bulk-indexed straight into the service's index, visible to every organisation, beside
 * distribution-0 attributes of the administrator's organisation (A), soft-deleted ones, a few
 * without @timestamp and values built for CSV formula injection. The exports must hold exactly
 * what an exact-total search counts, each uuid once, newest @timestamp first; B never gets A's
 * documents; errors before the first byte answer as JSON; a client that stops reading stops the
 * walk, one that leaves ends it (no PIT, no pool connection, no search slot left behind).
 */
import http from "node:http";
import v8 from "node:v8";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateEvents } from "../../bench/search-data.ts";
import { EVERYONE } from "../../src/auth/distribution.ts";
import { CSV_COLUMNS } from "../../src/modules/search/export-formats.ts";
import { INDEX_FIELDS } from "../../src/search/fields.ts";
import { parseLucene } from "../../src/search/lucene/parse.ts";
import type { IndexName, ScanRequest, SearchAccess, SearchDocument, SearchHit } from "../../src/search/search-index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { OPENSEARCH, SEARCH_BACKENDS } from "../support/search-backends.ts";

const PUBLIC_ATTRIBUTES = 25_000;
const PRIVATE_A = 60;
const DELETED = 40;
const UNDATED = 5;
/** Values a spreadsheet would run as formulas, and cells RFC 4180 must quote. */
const HOSTILE_VALUES = ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(1,2)", "\tTAB", "\rCR", 'a,"b"\nc', "plain"];

interface Corpus {
  attributes: SearchDocument[];
  events: SearchDocument[];
  /** A's distribution-0 attributes. */
  privateIds: Set<string>;
  deletedIds: Set<string>;
}

function buildCorpus(orgA: number): Corpus {
  const attributes: SearchDocument[] = [];
  const events: SearchDocument[] = [];
  for (const { event, attributes: attrs } of generateEvents({ events: PUBLIC_ATTRIBUTES / 100, attributesPerEvent: 100, seed: 21 })) {
    events.push({ id: event.id, source: { ...event.source, visible_to: [EVERYONE] } });
    for (const a of attrs) attributes.push({ id: a.id, source: { ...a.source, deleted: false, visible_to: [EVERYONE] } });
  }
  const template = attributes[0]!.source;
  const extra = (id: string, source: Record<string, unknown>) => attributes.push({ id, source: { ...template, uuid: id, ...source } });
  const uuid = (kind: number, i: number) => `00000000-0000-4000-8000-${kind.toString(16).padStart(4, "0")}${i.toString(16).padStart(8, "0")}`;
  const privateIds = new Set<string>();
  const deletedIds = new Set<string>();
  for (let i = 0; i < PRIVATE_A; i++) {
    privateIds.add(uuid(1, i));
    extra(uuid(1, i), { value: `private-a-${i}.example`, distribution: 0, deleted: false, visible_to: [orgA], "@timestamp": new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() });
  }
  for (let i = 0; i < DELETED; i++) {
    deletedIds.add(uuid(2, i));
    extra(uuid(2, i), { value: `deleted-${i}.example`, deleted: true, visible_to: [EVERYONE] });
  }
  for (let i = 0; i < UNDATED; i++) {
    const { "@timestamp": _ts, ...rest } = template;
    attributes.push({ id: uuid(3, i), source: { ...rest, uuid: uuid(3, i), value: `undated-${i}.example`, deleted: false, visible_to: [EVERYONE] } });
  }
  HOSTILE_VALUES.forEach((value, i) => extra(uuid(4, i), { value, comment: value, deleted: false, visible_to: [EVERYONE], tags: [{ name: "=tag", colour: null }, { name: "tlp:clear", colour: null }] }));
  return { attributes, events, privateIds, deletedIds };
}

/** RFC 4180 records (quoted cells, doubled quotes, CRLF or LF inside quotes). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
      i++;
    } else cell += ch;
  }
  if (cell !== "" || row.length) throw new Error("CSV does not end with CRLF");
  return rows;
}

/** A request whose response is paused (nothing read) until the caller reads or destroys it. */
function openPaused(url: string, token: string): Promise<{ res: http.IncomingMessage; req: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.pause();
      resolve({ res, req });
    });
    req.on("error", reject);
  });
}

/** Reads a whole response, counting bytes only (the client keeps no body). */
function drain(url: string, token: string, onChunk: (chunk: Buffer) => void): Promise<{ status: number; complete: boolean; error: string | null }> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.on("data", onChunk);
      res.on("end", () => resolve({ status: res.statusCode ?? 0, complete: res.complete, error: null }));
      res.on("error", (err) => resolve({ status: res.statusCode ?? 0, complete: false, error: err.message }));
      res.on("aborted", () => resolve({ status: res.statusCode ?? 0, complete: false, error: "aborted" }));
    });
    req.on("error", (err) => resolve({ status: 0, complete: false, error: err.message }));
  });
}

interface ScanRecord {
  pages: number;
  closed: boolean;
}

describe.each(SEARCH_BACKENDS)("Explore export on $name", ({ name, env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser; // A's organisation (the administrator's)
  let outsider: TestUser; // B
  let eventsOnly: TestUser;
  let corpus: Corpus;
  let prefix = "";
  const scans: ScanRecord[] = [];
  /** Makes the next scan fail after this many pages (a mid-stream failure). */
  let failAfterPages: number | null = null;
  const logs: string[] = [];

  const url = (target: "events" | "attributes", params: Record<string, string>) => `${app.url}/${target}/export?${new URLSearchParams(params)}`;
  const get = async (target: "events" | "attributes", params: Record<string, string>, user: TestUser) => {
    const res = await fetch(url(target, params), { headers: { authorization: `Bearer ${user.token}` } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const exactTotal = async (index: IndexName, access: SearchAccess, q = "") =>
    (
      await app.booted.ctx.search.search({
        index, query: parseLucene(q), defaultFields: INDEX_FIELDS[index].defaultFields, access, filters: { deleted: false },
        from: 0, size: 0, sort: { field: "@timestamp", order: "desc" }, timeoutMs: 30_000, trackTotalHits: true,
      })
    ).total;
  const newestFirst = (hits: { _id: string; _source: Record<string, unknown> }[]) => {
    const key = (h: { _source: Record<string, unknown> }) => (typeof h._source["@timestamp"] === "string" ? Date.parse(h._source["@timestamp"] as string) : -Infinity);
    for (let i = 1; i < hits.length; i++) {
      const [a, b] = [hits[i - 1]!, hits[i]!];
      if (key(a) < key(b) || (key(a) === key(b) && Buffer.compare(Buffer.from(a._id), Buffer.from(b._id)) > 0)) return `${a._id} before ${b._id} at ${i}`;
    }
    return null;
  };

  beforeAll(async () => {
    const started = Date.now();
    const backendEnv = env();
    prefix = backendEnv.OPENSEARCH_INDEX_PREFIX ?? "";
    app = await startTestApp("explore-export", backendEnv, undefined, { logDestination: { write: (line: string) => void logs.push(line) } });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, ["events:read", "attributes:read"]);
    outsider = await createUser(app, admin, ["events:read", "attributes:read"], await createOrganisation(app, admin));
    eventsOnly = await createUser(app, admin, ["events:read"]);
    corpus = buildCorpus(admin.orgId);
    const search = app.booted.ctx.search;
    await search.bulkIndex("svc-attributes", corpus.attributes);
    await search.bulkIndex("svc-events", corpus.events);
    await search.refresh();
    // Every scan counted page by page, to see walks stop.
    const scan = search.scan.bind(search);
    search.scan = (req: ScanRequest) => {
      const record: ScanRecord = { pages: 0, closed: false };
      scans.push(record);
      const failAt = failAfterPages;
      failAfterPages = null;
      return (async function* (): AsyncGenerator<SearchHit[]> {
        try {
          for await (const page of scan(req)) {
            if (failAt !== null && record.pages >= failAt) throw new Error("injected failure in the middle of an export");
            record.pages += 1;
            yield page;
          }
        } finally {
          record.closed = true;
        }
      })();
    };
    console.log(`[${name}] indexed ${corpus.attributes.length} attributes and ${corpus.events.length} events in ${Date.now() - started} ms`);
  }, 600_000);
  afterAll(async () => {
    await app?.close();
  });

  it("json: every attribute the caller may read once, newest first, as many as an exact-total search counts, in the search routes' hit shape", async () => {
    const started = Date.now();
    const res = await get("attributes", { query: "" }, admin);
    const ms = Date.now() - started;
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="attributes-\d{8}T\d{6}Z\.json"$/);
    const hits = JSON.parse(res.text) as { _index: string; _id: string; _score: null; _source: Record<string, unknown>; sort: unknown[] }[];
    const total = await exactTotal("svc-attributes", { admin: true, orgId: null });
    expect(total).toBe(PUBLIC_ATTRIBUTES + PRIVATE_A + UNDATED + HOSTILE_VALUES.length);
    expect(hits.length).toBe(total);
    expect(new Set(hits.map((h) => h._id)).size).toBe(total);
    expect(newestFirst(hits)).toBeNull();
    expect(hits.slice(-UNDATED).every((h) => h._source["@timestamp"] === undefined)).toBe(true);
    expect(hits.some((h) => corpus.deletedIds.has(h._id))).toBe(false);
    // The same objects as the search route's results.
    const page = await fetch(`${app.url}/attributes/search?query=&size=20`, { headers: { authorization: `Bearer ${admin.token}` } }).then((r) => r.json());
    expect(hits.slice(0, 20)).toEqual(page.results);
    console.log(`[${name}] json export of ${hits.length} attributes: ${(res.text.length / 1e6).toFixed(1)} MB in ${ms} ms`);
  }, 120_000);

  it("ndjson: the same hits, one per line, in the same order; csv: the peer's columns, one row each", async () => {
    const json = JSON.parse((await get("attributes", { query: "", format: "json" }, analyst)).text) as { _id: string }[];
    const nd = await get("attributes", { query: "", format: "ndjson" }, analyst);
    expect(nd.status).toBe(200);
    expect(nd.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
    expect(nd.headers.get("content-disposition")).toMatch(/filename="attributes-\d{8}T\d{6}Z\.ndjson"/);
    expect(nd.text.endsWith("\n")).toBe(true);
    const lines = nd.text.trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(lines).toEqual(json);

    const csv = await get("attributes", { query: "", format: "csv" }, analyst);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toMatch(/filename="attributes-\d{8}T\d{6}Z\.csv"/);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).toEqual([...CSV_COLUMNS.attributes]);
    expect(rows.map((r) => r[0])).toEqual(json.map((h) => h._id));
    expect(rows.every((r) => r.length === header!.length)).toBe(true);
    expect(json.length).toBe(await exactTotal("svc-attributes", { admin: false, orgId: analyst.orgId }));
  }, 120_000);

  it("csv: cells starting with = + - @ TAB or CR are prefixed with a single quote; quotes, commas and line breaks are quoted", async () => {
    const csv = await get("attributes", { query: "uuid:00000000-0000-4000-8000-0004*", format: "csv" }, admin);
    expect(csv.status, csv.text).toBe(200);
    const [header, ...rows] = parseCsv(csv.text);
    const col = (n: string) => header!.indexOf(n);
    const byValue = new Map(rows.map((r) => [r[col("uuid")], r]));
    HOSTILE_VALUES.forEach((value, i) => {
      const row = byValue.get(`00000000-0000-4000-8000-0004${i.toString(16).padStart(8, "0")}`)!;
      const expected = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
      expect(row[col("value")], JSON.stringify(value)).toBe(expected);
      expect(row[col("comment")]).toBe(expected);
      expect(row[col("tags")]).toBe("'=tag|tlp:clear");
      expect(row[col("to_ids")]).toMatch(/^(true|false)$/);
    });
    expect(csv.text).toContain('"a,""b""\nc"');
    expect(rows).toHaveLength(HOSTILE_VALUES.length);
  });

  it("events: json and csv with the peer's event columns", async () => {
    const json = await get("events", { query: "" }, outsider);
    expect(json.status).toBe(200);
    const hits = JSON.parse(json.text) as { _id: string; _source: Record<string, unknown> }[];
    expect(hits.length).toBe(await exactTotal("svc-events", { admin: false, orgId: outsider.orgId }));
    expect(hits.length).toBe(corpus.events.filter((e) => e.source.deleted === false).length);
    expect(newestFirst(hits)).toBeNull();
    const csv = await get("events", { query: "", format: "csv" }, outsider);
    expect(csv.headers.get("content-disposition")).toMatch(/filename="events-\d{8}T\d{6}Z\.csv"/);
    const [header, ...rows] = parseCsv(csv.text);
    expect(header).toEqual(["uuid", "info", "date", "threat_level", "analysis", "published", "timestamp", "org_id", "orgc_id", "tags"]);
    expect(rows.map((r) => r[0])).toEqual(hits.map((h) => h._id));
    const first = hits[0]!._source;
    expect(rows[0]!.slice(1, 9)).toEqual([first.info, first.date, first.threat_level, first.analysis, first.published, first.timestamp, first.org_id, first.orgc_id].map(String));
  });

  it("from / to bound @timestamp (inclusive; ISO, dates and epoch seconds), the query still applies", async () => {
    const all = JSON.parse((await get("attributes", { query: "type:domain" }, admin)).text) as { _id: string; _source: Record<string, string> }[];
    const dated = all.filter((h) => h._source["@timestamp"]);
    const ts = (h: { _source: Record<string, string> }) => Date.parse(h._source["@timestamp"]!);
    const hi = ts(dated[Math.floor(dated.length * 0.2)]!);
    const lo = ts(dated[Math.floor(dated.length * 0.6)]!);
    const expected = dated.filter((h) => ts(h) >= lo && ts(h) <= hi).map((h) => h._id);
    for (const [from, to] of [
      [new Date(lo).toISOString(), new Date(hi).toISOString()],
      [String(lo / 1000), String(hi / 1000)],
      [new Date(lo).toISOString().replace(/\.000Z$/, "+00:00"), new Date(hi).toISOString().replace("Z", "")],
    ]) {
      const got = JSON.parse((await get("attributes", { query: "type:domain", from: from!, to: to! }, admin)).text) as { _id: string }[];
      expect(got.map((h) => h._id), `${from} .. ${to}`).toEqual(expected);
    }
    expect(expected.length).toBeGreaterThan(1000);
    // A date alone: `to` takes the whole day.
    const day = new Date(hi).toISOString().slice(0, 10);
    const byDay = JSON.parse((await get("attributes", { query: "type:domain", from: day, to: day }, admin)).text) as { _id: string }[];
    expect(byDay.map((h) => h._id)).toEqual(dated.filter((h) => h._source["@timestamp"]!.startsWith(day)).map((h) => h._id));
    const onlyFrom = JSON.parse((await get("attributes", { query: "type:domain", from: new Date(hi).toISOString() }, admin)).text) as { _id: string }[];
    expect(onlyFrom.map((h) => h._id)).toEqual(dated.filter((h) => ts(h) >= hi).map((h) => h._id));
  }, 60_000);

  it("another organisation's distribution-0 attributes are never exported to B; A's own users get them; deleted documents to nobody", async () => {
    for (const format of ["json", "ndjson", "csv"]) {
      const b = await get("attributes", { query: "", format }, outsider);
      expect(b.status).toBe(200);
      for (const id of corpus.privateIds) expect(b.text.includes(id), `${format}: ${id}`).toBe(false);
      expect(b.text.includes("private-a-")).toBe(false);
      for (const id of corpus.deletedIds) expect(b.text.includes(id)).toBe(false);
    }
    const privateQuery = "uuid:00000000-0000-4000-8000-0001*";
    const targeted = await get("attributes", { query: privateQuery }, outsider);
    expect(JSON.parse(targeted.text)).toEqual([]);
    const a = JSON.parse((await get("attributes", { query: privateQuery }, analyst)).text) as { _id: string }[];
    expect(new Set(a.map((h) => h._id))).toEqual(corpus.privateIds);
    const deleted = JSON.parse((await get("attributes", { query: "uuid:00000000-0000-4000-8000-0002*" }, admin)).text);
    expect(deleted).toEqual([]);
  });

  it("errors before the first byte are JSON {detail, code}: 400 invalid_query, 422 parameters, 401, 403", async () => {
    const bad = await get("attributes", { query: "value:(a OR b" }, analyst);
    expect(bad.status).toBe(400);
    expect(bad.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(bad.text)).toMatchObject({ code: "invalid_query", position: { offset: 13, line: 1, column: 14 } });
    for (const params of [
      { query: "*", format: "xml" },
      { query: "*", from: "yesterday" },
      { query: "*", from: "2024-02-30" },
      { query: "*", to: "2024-01-01T25:00:00Z" },
      { query: "*", from: "99999999999999" },
      { query: "*", from: "2024-02-01", to: "2024-01-01" },
      { query: "*", size: "10" },
      { format: "json" },
    ] as Record<string, string>[]) {
      const res = await get("attributes", params, analyst);
      expect(res.status, JSON.stringify(params)).toBe(422);
      expect(JSON.parse(res.text), JSON.stringify(params)).toMatchObject({ code: "validation_error", detail: expect.any(Array) });
    }
    const anonymous = await fetch(url("attributes", { query: "*" }));
    expect(anonymous.status).toBe(401);
    const noScope = await get("attributes", { query: "*" }, eventsOnly);
    expect(noScope.status).toBe(403);
    expect(JSON.parse(noScope.text).code).toBe("insufficient_scope");
    expect((await get("events", { query: "*" }, eventsOnly)).status).toBe(200);
    // Other methods on the path: 405, not the event routes.
    const post = await fetch(url("events", { query: "*" }), { method: "POST", headers: { authorization: `Bearer ${admin.token}` } });
    expect(post.status).toBe(405);
  });

  it("a client that stops reading stops the walk (backpressure); one that leaves ends it: no PIT, no pool connection, no search slot held", async () => {
    const before = scans.length;
    const { res, req } = await openPaused(url("attributes", { query: "" }), analyst.token);
    expect(res.statusCode).toBe(200);
    await eventually(async () => scans.length > before, "the scan started", 5_000, 20);
    const record = scans[scans.length - 1]!;
    // Unread: the walk advances only as far as socket and stream buffers take, then waits.
    await new Promise((r) => setTimeout(r, 1_500));
    const paused = record.pages;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(record.pages).toBe(paused);
    console.log(`[${name}] an unread export stopped after ${paused} of ${Math.ceil(PUBLIC_ATTRIBUTES / 1_000)} pages`);
    expect(paused).toBeLessThan(PUBLIC_ATTRIBUTES / 1_000 / 2);
    if (name === "opensearch") expect(await openPits()).toBe(1);
    req.destroy();
    await eventually(async () => record.closed, "the walk closed", 10_000, 20);
    expect(record.pages).toBe(paused);
    if (name === "opensearch") await eventually(async () => (await openPits()) === 0, "the PIT deleted", 10_000, 50);
    const pool = app.booted.ctx.db.searchPool;
    await eventually(async () => pool.totalCount === pool.idleCount, "search connections back in the pool", 10_000, 20);
    // Clients that leave at once, before the first page or the headers: nothing is left behind either.
    const quick = scans.length;
    for (const ms of [0, 5, 20, 60]) {
      const controller = new AbortController();
      const leaving = fetch(url("attributes", { query: "" }), { headers: { authorization: `Bearer ${analyst.token}` }, signal: controller.signal }).then((r) => r.body?.cancel());
      setTimeout(() => controller.abort(), ms);
      await leaving.catch(() => undefined);
    }
    await eventually(async () => scans.slice(quick).every((s) => s.closed), "the walks of clients that left at once closed", 10_000, 20);
    if (name === "opensearch") await eventually(async () => (await openPits()) === 0, "their PITs deleted", 10_000, 50);
    await eventually(async () => pool.totalCount === pool.idleCount, "their connections back in the pool", 10_000, 20);
    // The slots went back: two exports at once (the default limit) still start.
    const two = await Promise.all([openPaused(url("attributes", { query: "" }), analyst.token), openPaused(url("attributes", { query: "" }), analyst.token)]);
    expect(two.map((t) => t.res.statusCode)).toEqual([200, 200]);
    for (const t of two) t.req.destroy();
    await eventually(async () => scans.slice(-2).every((s) => s.closed), "both walks closed", 10_000, 20);
  }, 60_000);

  it("an export holds one of the caller's concurrent searches while it streams: beyond the limit 429 with Retry-After, before any byte", async () => {
    // As many large exports as the default limit (4), unread: the events export (250 documents)
    // would fit in the socket buffers and end.
    const held = [];
    for (const format of ["json", "csv", "ndjson", "json"]) held.push(await openPaused(url("attributes", { query: "", format }), outsider.token));
    try {
      const refused = await get("attributes", { query: "" }, outsider);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("1");
      expect(JSON.parse(refused.text)).toMatchObject({ code: "rate_limited", detail: expect.any(String) });
      const search = await fetch(`${app.url}/attributes/search?query=*`, { headers: { authorization: `Bearer ${outsider.token}` } });
      expect(search.status).toBe(429);
      // Other users are not limited by B's exports.
      expect((await fetch(`${app.url}/attributes/search?query=*`, { headers: { authorization: `Bearer ${analyst.token}` } })).status).toBe(200);
    } finally {
      for (const h of held) h.req.destroy();
    }
    await eventually(async () => (await fetch(`${app.url}/attributes/search?query=*`, { headers: { authorization: `Bearer ${outsider.token}` } })).status === 200, "B's slots released", 10_000, 50);
  }, 60_000);

  it("a failure in the middle cuts the response (the client sees it truncated) and is logged", async () => {
    failAfterPages = 2;
    const result = await drain(url("attributes", { query: "" }), admin.token, () => undefined);
    expect(result.status).toBe(200);
    expect(result.complete).toBe(false);
    const record = scans[scans.length - 1]!;
    expect(record.pages).toBe(2);
    await eventually(async () => record.closed, "the walk closed", 10_000, 20);
    await eventually(async () => logs.some((l) => l.includes("explore export failed mid-stream")), "the failure logged", 5_000, 20);
    if (name === "opensearch") await eventually(async () => (await openPits()) === 0, "the PIT deleted", 10_000, 50);
  }, 60_000);

  it("memory: streaming every attribute keeps the server's live heap about one page deep", async () => {
    // Garbage is collected at each sample, so that what is measured is what the export holds.
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as () => void;
    gc();
    const baseline = process.memoryUsage();
    let peakLive = baseline.heapUsed;
    let peakRss = baseline.rss;
    let samples = 0;
    const sampler = setInterval(() => {
      const before = process.memoryUsage().heapUsed;
      gc();
      const m = process.memoryUsage();
      peakLive = Math.max(peakLive, m.heapUsed);
      peakRss = Math.max(peakRss, m.rss);
      samples += before > 0 ? 1 : 0;
    }, 100);
    let bytes = 0;
    const started = Date.now();
    const result = await drain(url("attributes", { query: "", format: "ndjson" }), admin.token, (chunk) => {
      bytes += chunk.length;
    });
    clearInterval(sampler);
    expect(result).toMatchObject({ status: 200, complete: true });
    const liveGrowth = peakLive - baseline.heapUsed;
    const rssGrowth = peakRss - baseline.rss;
    console.log(
      `[${name}] ndjson export: ${(bytes / 1e6).toFixed(1)} MB in ${Date.now() - started} ms (${samples} samples); peak live heap growth ${(liveGrowth / 1e6).toFixed(1)} MB, ` +
        `peak RSS growth ${(rssGrowth / 1e6).toFixed(1)} MB (baseline heap ${(baseline.heapUsed / 1e6).toFixed(0)} MB, RSS ${(baseline.rss / 1e6).toFixed(0)} MB)`,
    );
    expect(bytes).toBeGreaterThan(15e6);
    expect(samples).toBeGreaterThan(5);
    // Client and server share this process; a buffered export would hold the whole body (and its objects) at once.
    expect(liveGrowth).toBeLessThan(bytes / 3);
  }, 120_000);

  it("GraphQL exploreExportUrl names the same download, checked as the download would be", async () => {
    const q = `query($q: String!, $from: String) { exploreExportUrl(target: ATTRIBUTES, query: $q, format: CSV, from: $from) }`;
    const ok = await app.http.graphql(q, { q: "type:domain", from: "2024-01-01" }, analyst.token);
    expect(ok.body.errors).toBeUndefined();
    const link = ok.body.data.exploreExportUrl as string;
    expect(link).toBe("/attributes/export?query=type%3Adomain&format=csv&from=2024-01-01");
    const res = await fetch(`${app.url}${link}`, { headers: { authorization: `Bearer ${analyst.token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
    await res.text();
    const bad = await app.http.graphql(`{ exploreExportUrl(target: EVENTS, query: "info:(open") }`, {}, analyst.token);
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: "invalid_query", status: 400 });
    const badDate = await app.http.graphql(`{ exploreExportUrl(target: EVENTS, query: "*", from: "soon") }`, {}, analyst.token);
    expect(badDate.body.errors?.[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    const noScope = await app.http.graphql(`{ exploreExportUrl(target: ATTRIBUTES, query: "*") }`, {}, eventsOnly.token);
    expect(noScope.body.errors?.[0].extensions).toMatchObject({ code: "insufficient_scope" });
  });

  /** Open PITs on this file's indices (a PIT id holds its index names). */
  async function openPits(): Promise<number> {
    const res = await fetch(new URL("/_search/point_in_time/_all", OPENSEARCH));
    const body = (await res.json()) as { pits?: { pit_id: string }[] };
    return (body.pits ?? []).filter((p) => Buffer.from(p.pit_id, "base64").toString("latin1").includes(prefix)).length;
  }
});
