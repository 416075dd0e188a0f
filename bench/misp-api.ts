/**
 * Issue 26's MISP API benchmark: restSearch (rest-shim/misp/rest-search.ts) over a large data set
 * against the native search route in the same run, and events/add of one 10,000-attribute event
 * through the real PyMISP. (Sync pull is bench/server-sync.ts.)
 *
 *   npx tsx bench/misp-api.ts --attributes 100000 --backend postgres
 *   OPENSEARCH_URL=http://127.0.0.1:9200 npx tsx bench/misp-api.ts --backend opensearch   # 1,000,000 attributes
 *   npx tsx bench/misp-api.ts --attributes 100000 --runs 10 --add-runs 3 --concurrency 4
 *   npx tsx bench/misp-api.ts --attributes 100000 --backend postgres --objects 40 --only events/index --add-runs 0
 *   npx tsx bench/misp-api.ts --attributes 300000 --backend postgres --add-runs 0 --keep                # keeps its database
 *   npx tsx bench/misp-api.ts --attributes 300000 --backend postgres --add-runs 0 --database wb_test_...  # measures it again
 *
 * Setup: the service in this process (startTestApp, ROLE=all so the worker indexes), a database
 * cloned from the test template, on OpenSearch a unique index prefix (deleted at the end with the
 * database). `--attributes / 100` events of 100 attributes go through the service's own import path
 * (POST /events/import, `--concurrency` requests at a time), then the bench waits until indexing and
 * correlation have caught up. Events: dates spread over the past year, three tags each (a TLP, one of
 * 20 `bench:campaign-N`, one of 50 threat actors), published, 1% with a publish_timestamp in the last
 * day; attributes: ip-dst, domain, url, md5, sha256, filename values unique per attribute, except one
 * needle ip-dst value present in 5 events. The caller is the importing user's API key.
 *
 * restSearch pairs (restSearch through /misp/ / the native GET /{events|attributes}/search with the
 * same key and page size 50), each warmed up once (both must find the same events), then `--runs`
 * runs interleaved; median and p95 (nearest rank) in ms, ratio of the medians (goal: at most 1.5):
 *   - value lookup: events/restSearch {value, limit 50} and attributes/restSearch {value, limit 50}
 *     / attributes/search value.keyword:"v" (the attribute hits name their events);
 *   - value in other case: attributes/restSearch {value: a domain in capitals} / the exact value in
 *     its own case (restSearch ignores case as MISP: a term on the lower-cased expanded.value);
 *   - tag + time range: events/restSearch {tags, from, to, limit 50} / events/search tags.name.keyword
 *     AND date:[from TO to];
 *   - last 1d: events/restSearch {last: "1d", limit 50} / events/search publish_timestamp:>=now-1d;
 *   - value1 / comment in other case: attributes/restSearch {value1: a domain in capitals} /
 *     value.keyword:"domain", {comment: "NOTE 7"} / comment.keyword:"note 7" (a case-free regex on
 *     comment.keyword; one attribute per event has a comment, note 0 .. note 39);
 *   - eventinfo LIKE prefix: events/restSearch {eventinfo: "bench event 17%", metadata} /
 *     events/search info.keyword:bench\ event\ 17*;
 *   - searchall substring: events/restSearch {searchall: "%8 hex of a domain%", metadata} /
 *     attributes/search value.keyword:*8 hex* (searchall also reads titles, comments and tags).
 * events/restSearch is measured twice: full events (PyMISP's default: every attribute of the 50
 * events loaded from PostgreSQL) and `metadata: 1` (the event rows only, as the native hits).
 *
 * events/index: MISP's default page (1,000 events) and a page of 50, through the route, and the
 * events' read behind it (EventsService.list) with each event's attribute_count as MISP counts it
 * (the attributes in objects too) and as the native lists do (standalone ones, the index's count
 * before), interleaved, for the importing organisation and another one. `--objects N` puts the last N
 * of each event's 100 attributes in objects of two (0: none, the restSearch rows' data set);
 * `--only TEXT` runs the rows whose name holds TEXT. `--keep` leaves the database in place (its name is
 * logged at the end); `--database NAME` runs on such a database without importing (PostgreSQL backend:
 * the search tables are in it; same `--attributes`), so that two copies of the code can be measured
 * in turn on one data set. Dates are relative to the run's start: a kept set is good for a day.
 *
 * events/add: `--add-runs` times (median), PyMISP (python3, PYTHONPATH=../shared/clients) builds a
 * MISPEvent of 10,000 attributes and calls add_event; timed in Python around add_event only (its
 * serialisation, the HTTP request, the service's write). Prints one JSON document on stdout,
 * progress on stderr.
 */
import crypto from "node:crypto";
import os from "node:os";
import { parseArgs } from "node:util";
import setupTemplate from "../test/support/global-setup.ts";
import { startTestApp, type TestApp } from "../test/support/app.ts";
import { createTestDatabase, databaseUrl } from "../test/support/databases.ts";
import { mispIndexFilter } from "../rest-shim/misp/event-index-filter.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../test/support/fixtures.ts";
import { runPythonJson } from "../test/support/pymisp.ts";
import { settled } from "../test/support/settled.ts";
import { median, round } from "./lib.ts";

const { values: args } = parseArgs({
  options: {
    attributes: { type: "string", default: "1000000" },
    runs: { type: "string", default: "20" },
    "add-runs": { type: "string", default: "3" },
    concurrency: { type: "string", default: "4" },
    backend: { type: "string", default: "opensearch" },
    objects: { type: "string", default: "0" },
    only: { type: "string", default: "" },
    keep: { type: "boolean", default: false },
    database: { type: "string" },
  },
});
const PER_EVENT = 100;
const EVENTS = Math.ceil(Number(args.attributes) / PER_EVENT);
const RUNS = Number(args.runs);
const ADD_RUNS = Number(args["add-runs"]);
const CONCURRENCY = Number(args.concurrency);
const LIMIT = 50;
const IN_OBJECTS = Number(args.objects);
if (!(IN_OBJECTS >= 0 && IN_OBJECTS <= PER_EVENT && IN_OBJECTS % 2 === 0)) throw new Error(`--objects: an even number of attributes, 0-${PER_EVENT}`);
const wanted = (name: string) => name.includes(args.only!);
const ADD_ATTRIBUTES = 10_000;
if (args.backend !== "postgres" && args.backend !== "opensearch") throw new Error("--backend postgres|opensearch");
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;
const log = (line: string) => process.stderr.write(`[misp-api ${new Date().toISOString()}] ${line}\n`);
const load = () => os.loadavg().map((x) => round(x, 2));

const DAY = 86_400;
const now = Math.floor(Date.now() / 1000);
const isoDate = (t: number) => new Date(t * 1000).toISOString().slice(0, 10);
const NEEDLE = "198.51.100.77";
const needleEvery = Math.max(1, Math.floor(EVENTS / 5));

/** Event i: its date i/EVENTS of a year back, 1% published within the last day. */
function benchEvent(i: number) {
  const t = now - Math.floor(((i + 1) * 365 * DAY) / (EVENTS + 1));
  const recent = i % 100 === 0;
  const published = recent ? now - ((i * 37) % (DAY - 60)) : t;
  const attributes = Array.from({ length: PER_EVENT }, (_, j) => {
    const n = i * PER_EVENT + j;
    const h = crypto.createHash("sha256").update(`bench ${n}`).digest("hex");
    const kind = n % 6;
    const [type, value] =
      j === 0 && i % needleEvery === 0 ? ["ip-dst", NEEDLE]
      : kind === 0 ? ["ip-dst", `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`]
      : kind === 1 ? ["domain", `h${h.slice(0, 10)}.example.com`]
      : kind === 2 ? ["url", `https://h${h.slice(0, 8)}.example.net/p/${h.slice(10, 18)}`]
      : kind === 3 ? ["md5", h.slice(0, 32)]
      : kind === 4 ? ["sha256", h]
      : ["filename", `${h.slice(0, 12)}.exe`];
    // One comment per event (the comment filter's needles: `note 0` .. `note 39`).
    return { uuid: crypto.randomUUID(), type, value, to_ids: kind !== 5, timestamp: String(t), ...(j === 1 ? { comment: `note ${i % 40}` } : {}) };
  });
  const inObjects = attributes.splice(PER_EVENT - IN_OBJECTS);
  const objects = Array.from({ length: inObjects.length / 2 }, (_, k) => ({
    uuid: crypto.randomUUID(), name: "bench-pair", "meta-category": "network", distribution: "5", timestamp: String(t),
    Attribute: inObjects.slice(2 * k, 2 * k + 2).map((a) => ({ ...a, object_relation: a.type })),
  }));
  return {
    Event: {
      uuid: crypto.randomUUID(), info: `bench event ${i}`, date: isoDate(t), timestamp: String(t), distribution: "1",
      published: true, publish_timestamp: String(published),
      Tag: [{ name: i % 2 ? "tlp:green" : "tlp:amber" }, { name: `bench:campaign-${i % 20}` }, { name: `misp-galaxy:threat-actor="Actor ${i % 50}"` }],
      Attribute: attributes, Object: objects,
    },
  };
}

/** PyMISP, unchanged: builds the event, times add_event only. */
const PYMISP_ADD = `
import json, sys, time, uuid
from pymisp import MISPEvent, PyMISP
req = json.load(sys.stdin)
misp = PyMISP(req["url"], req["key"], ssl=False)
ev = MISPEvent()
ev.info = "bench events/add " + str(uuid.uuid4())
ev.distribution = 1
for j in range(req["attributes"]):
    ev.add_attribute("ip-dst" if j % 2 else "domain", ("10.%d.%d.%d" % ((j >> 16) & 255, (j >> 8) & 255, j & 255)) if j % 2 else ("add%d-%s.example.org" % (j, req["tag"])), to_ids=True)
t = time.perf_counter()
answer = misp.add_event(ev)
elapsed = time.perf_counter() - t
if not isinstance(answer, dict) or "Event" not in answer:
    print(json.dumps({"error": str(answer)[:500]})); sys.exit(1)
print(json.dumps({"seconds": elapsed, "attributes": len(answer["Event"].get("Attribute", []))}))
`;

const pymispAdd = (url: string, key: string, tag: string) =>
  runPythonJson<{ seconds: number; attributes: number }>(["-c", PYMISP_ADD], { stdin: JSON.stringify({ url, key, attributes: ADD_ATTRIBUTES, tag }) });

/**
 * events/index: the route (MISP's default page and one of 50) and, in process, the events' read
 * behind it with MISP's count and the native one, interleaved, for the owner and another organisation.
 */
async function eventIndex(owner: TestUser, admin: TestUser, key: string) {
  const other = await createUser(app, admin, ["events:read"], await createOrganisation(app, admin));
  const principal = async (u: TestUser) => (await app.booted.services.authenticator.authenticate([`Bearer ${u.token}`], { ip: null, userAgent: null }))!;
  const readers = { owner: await principal(owner), "other organisation": await principal(other) };
  const out: Record<string, unknown>[] = [];
  for (const size of [1000, LIMIT]) {
    const times: number[] = [];
    for (let r = 0; r < RUNS + 1; r++) {
      const t = performance.now();
      const res = await app.http.request("POST", "/misp/events/index", { authorization: key, json: { limit: size } });
      if (res.status !== 200 || res.body.length !== Math.min(size, EVENTS)) throw new Error(`events/index: ${res.status} ${res.text.slice(0, 300)}`);
      if (r > 0) times.push(performance.now() - t);
    }
    out.push({ row: `events/index route, limit ${size}`, ms: { median: round(median(times), 1), p95: round(p95(times), 1) } });
    log(JSON.stringify(out.at(-1)));
    for (const [who, p] of Object.entries(readers)) {
      const { filter, page } = await mispIndexFilter(app.booted.services, p, { limit: size });
      const read = { all: [] as number[], standalone: [] as number[] };
      const sums = { all: 0, standalone: 0 };
      for (let r = 0; r < RUNS + 1; r++) {
        for (const count of r % 2 ? (["all", "standalone"] as const) : (["standalone", "all"] as const)) {
          const t = performance.now();
          const list = await app.booted.services.events.list(p, filter, page, { attributeCount: count });
          if (r > 0) read[count].push(performance.now() - t);
          sums[count] = list.items.reduce((n, e) => n + e.attributeCount, 0);
        }
      }
      out.push({
        row: `events' read, limit ${size}, ${who}`, attributes_counted: sums,
        with_objects_ms: { median: round(median(read.all), 1), p95: round(p95(read.all), 1) },
        standalone_ms: { median: round(median(read.standalone), 1), p95: round(p95(read.standalone), 1) },
        ratio_of_medians: round(median(read.all) / median(read.standalone), 2),
      });
      log(JSON.stringify(out.at(-1)));
    }
  }
  return out;
}

await setupTemplate();
const env: Record<string, string> = { ROLE: "all", LOG_LEVEL: "warn" };
const OPENSEARCH = process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200";
const prefix = `bench-misp-api-${crypto.randomBytes(4).toString("hex")}-`;
if (args.backend === "opensearch") Object.assign(env, { OPENSEARCH_URL: OPENSEARCH, OPENSEARCH_INDEX_PREFIX: prefix });
const loadAtStart = load();
// A kept data set (--keep, then --database NAME) is measured again without its import: A/B runs of two copies of the code.
if ((args.keep || args.database !== undefined) && args.backend !== "postgres") throw new Error("--keep and --database: postgres backend only (OpenSearch's indices are deleted at the end)");
if (args.database !== undefined && !/^wb_test_\w+$/.test(args.database)) throw new Error("--database: a database a --keep run kept (wb_test_...)");
const db = args.database === undefined ? await createTestDatabase("bench-misp-api") : { name: args.database, url: databaseUrl(args.database), drop: async () => undefined };
const app = await startTestApp("bench-misp-api", env, { databaseUrl: db.url } as TestApp);
try {
  const admin = await loginAdmin(app);
  // What PyMISP's constructor and add_event need, as test/integration/misp-api-pymisp.test.ts gives it.
  const scopes = ["events:read", "events:create", "attributes:read", "attributes:create", "tags:read", "tags:create", "users:me", "user_settings:read"];
  const user = await createUser(app, admin, [...scopes, "api_keys:create"]);
  const key = (await app.http.post("/api-keys/", { token: user.token, json: { name: "bench", scopes } })).body.token as string;

  log(`${args.database === undefined ? "importing" : "kept"} ${EVENTS} events x ${PER_EVENT} attributes (${args.backend}), load ${load().join(" ")}`);
  const started = performance.now();
  let next = args.database === undefined ? 0 : EVENTS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < EVENTS; i = next++) {
        const res = await app.http.post("/events/import", { token: user.token, json: benchEvent(i) });
        if (res.status !== 201) throw new Error(`import ${i}: ${res.status} ${res.text}`);
        if (i % 500 === 0) log(`imported ${i}/${EVENTS}`);
      }
    }),
  );
  const imported = performance.now() - started;
  log(`imported in ${round(imported / 1000, 1)} s; waiting for indexing`);
  await settled(app, 6 * 3600_000);
  const indexed = performance.now() - started;
  log(`indexed after ${round(indexed / 1000, 1)} s, load ${load().join(" ")}`);

  const misp = async (route: string, body: unknown) => {
    const res = await app.http.request("POST", `/misp/${route}`, { authorization: key, json: body });
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${res.text.slice(0, 500)}`);
    return res.body;
  };
  const native = async (target: string, query: string) => {
    const res = await app.http.get(`/${target}/search?query=${encodeURIComponent(query)}&size=${LIMIT}`, { authorization: key });
    if (res.status !== 200) throw new Error(`native ${query}: ${res.status} ${res.text.slice(0, 500)}`);
    return res.body as { results: { _id: string; _source: { event_uuid?: string } }[] };
  };
  const eventUuids = (body: { response: { Event: { uuid: string } }[] }) => body.response.map((e) => e.Event.uuid);
  const tag = "bench:campaign-3";
  const range = { from: isoDate(now - 300 * DAY), to: isoDate(now - 30 * DAY) };
  const tagQuery = `tags.name.keyword:"${tag}" AND date:[${range.from} TO ${range.to}]`;
  const lastQuery = `publish_timestamp:>=${now - DAY}`;
  const valueQuery = `value.keyword:"${NEEDLE}"`;
  // Attribute 1 of event 0, a domain, asked for in capitals: MISP's value match ignores case.
  const domain = `h${crypto.createHash("sha256").update("bench 1").digest("hex").slice(0, 10)}.example.com`;
  const nativeEventsOf = async (target: string, query: string) =>
    (await native(target, query)).results.map((h) => (target === "events" ? h._id : String(h._source.event_uuid)));
  const pairs = [
    { name: "value lookup, events/restSearch (full)", rest: async () => eventUuids(await misp("events/restSearch", { value: NEEDLE, limit: LIMIT })), native: () => nativeEventsOf("attributes", valueQuery) },
    { name: "value lookup, events/restSearch (metadata)", rest: async () => eventUuids(await misp("events/restSearch", { value: NEEDLE, limit: LIMIT, metadata: 1 })), native: () => nativeEventsOf("attributes", valueQuery) },
    {
      name: "value lookup, attributes/restSearch",
      rest: async () => (await misp("attributes/restSearch", { value: NEEDLE, limit: LIMIT, includeEventUuid: 1 })).response.Attribute.map((a: { event_uuid: string }) => a.event_uuid),
      native: () => nativeEventsOf("attributes", valueQuery),
    },
    {
      name: "value in other case, attributes/restSearch",
      rest: async () => (await misp("attributes/restSearch", { value: domain.toUpperCase(), limit: LIMIT, includeEventUuid: 1 })).response.Attribute.map((a: { event_uuid: string }) => a.event_uuid),
      native: () => nativeEventsOf("attributes", `value.keyword:"${domain}"`),
    },
    { name: "tag + time range, events/restSearch (full)", rest: async () => eventUuids(await misp("events/restSearch", { tags: tag, ...range, limit: LIMIT })), native: () => nativeEventsOf("events", tagQuery) },
    { name: "tag + time range, events/restSearch (metadata)", rest: async () => eventUuids(await misp("events/restSearch", { tags: tag, ...range, limit: LIMIT, metadata: 1 })), native: () => nativeEventsOf("events", tagQuery) },
    { name: "last 1d, events/restSearch (full)", rest: async () => eventUuids(await misp("events/restSearch", { last: "1d", limit: LIMIT })), native: () => nativeEventsOf("events", lastQuery) },
    { name: "last 1d, events/restSearch (metadata)", rest: async () => eventUuids(await misp("events/restSearch", { last: "1d", limit: LIMIT, metadata: 1 })), native: () => nativeEventsOf("events", lastQuery) },
    // The filters compared as MISP's columns collate (rest-search-query.ts).
    {
      name: "value1 in other case, attributes/restSearch",
      rest: async () => (await misp("attributes/restSearch", { value1: domain.toUpperCase(), limit: LIMIT, includeEventUuid: 1 })).response.Attribute.map((a: { event_uuid: string }) => a.event_uuid),
      native: () => nativeEventsOf("attributes", `value.keyword:"${domain}"`),
    },
    {
      name: "comment in other case, attributes/restSearch",
      rest: async () => (await misp("attributes/restSearch", { comment: "NOTE 7", limit: LIMIT, includeEventUuid: 1 })).response.Attribute.map((a: { event_uuid: string }) => a.event_uuid),
      native: () => nativeEventsOf("attributes", `comment.keyword:"note 7"`),
    },
    { name: "eventinfo LIKE prefix, events/restSearch (metadata)", rest: async () => eventUuids(await misp("events/restSearch", { eventinfo: "bench event 17%", limit: LIMIT, metadata: 1 })), native: () => nativeEventsOf("events", "info.keyword:bench\\ event\\ 17*") },
    { name: "searchall substring, events/restSearch (metadata)", rest: async () => eventUuids(await misp("events/restSearch", { searchall: `%${domain.slice(1, 9)}%`, limit: LIMIT, metadata: 1 })), native: () => nativeEventsOf("attributes", `value.keyword:*${domain.slice(1, 9)}*`) },
  ];
  const results = [];
  for (const pair of pairs.filter((p) => wanted(p.name))) {
    const [a, b] = [await pair.rest(), await pair.native()];
    const same = (xs: string[]) => JSON.stringify([...new Set(xs)].sort());
    if (a.length === 0 || same(a) !== same(b)) throw new Error(`${pair.name}: restSearch found ${a.length}, native ${b.length}, or they differ`);
    const times = { rest: [] as number[], native: [] as number[] };
    for (let r = 0; r < RUNS; r++) {
      for (const side of ["rest", "native"] as const) {
        const t = performance.now();
        await pair[side]();
        times[side].push(performance.now() - t);
      }
    }
    results.push({
      query: pair.name, hits: a.length,
      rest_search_ms: { median: round(median(times.rest), 1), p95: round(p95(times.rest), 1) },
      native_ms: { median: round(median(times.native), 1), p95: round(p95(times.native), 1) },
      ratio_of_medians: round(median(times.rest) / median(times.native), 2),
    });
    log(`${pair.name}: ${JSON.stringify(results.at(-1))}`);
  }

  const index = wanted("events/index") ? await eventIndex(user, admin, key) : null;

  const adds = [];
  for (let r = 0; r < ADD_RUNS; r++) {
    const add = await pymispAdd(`${app.url}/misp/`, key, `r${r}`);
    if (add.attributes !== ADD_ATTRIBUTES) throw new Error(`events/add answered ${add.attributes} attributes`);
    adds.push(add.seconds);
    log(`PyMISP add_event of ${ADD_ATTRIBUTES} attributes: ${round(add.seconds, 2)} s`);
  }

  console.log(JSON.stringify({
    backend: args.backend, events: EVENTS, attributes: EVENTS * PER_EVENT, runs: RUNS, page_size: LIMIT,
    import_s: round(imported / 1000, 1), indexed_s: round(indexed / 1000, 1),
    rest_search: results, events_index: index,
    // --add-runs 0: no events/add figures, not the median of none.
    events_add: adds.length ? { attributes: ADD_ATTRIBUTES, runs_s: adds.map((s) => round(s, 2)), median_s: round(median(adds), 2) } : null,
    load_average: { start: loadAtStart, end: load() }, node: process.version, date: new Date().toISOString(),
  }, null, 2));
} finally {
  await app.close();
  if (args.keep || args.database !== undefined) log(`database kept: --database ${db.name}`);
  else await db.drop();
  // Only this run's indices and templates.
  if (args.backend === "opensearch") for (const p of [`/${prefix}*`, `/_index_template/${prefix}*`]) await fetch(new URL(p, OPENSEARCH), { method: "DELETE" });
}
