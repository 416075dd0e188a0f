/**
 * MISP's restSearch (rest-shim/misp/rest-search.ts) against the native search routes it is
 * compiled onto, in the same run, on the same data (issue 26's restSearch benchmark, at a scale
 * this machine can build in minutes: the 1,000,000-attribute run is left to bench/misp-api).
 *
 *   npx tsx bench/misp-rest-search.ts                       # 200 events x 100 attributes, PostgreSQL backend
 *   npx tsx bench/misp-rest-search.ts --events 1000 --runs 30
 *   OPENSEARCH_URL=http://127.0.0.1:9200 npx tsx bench/misp-rest-search.ts --opensearch
 *
 * Setup: the service in this process (startTestApp, ROLE=all so indexing runs), a database cloned
 * from the test template, `--events` events of 100 attributes imported through POST /events/import
 * (each event two tags, dates across January 2026, one in ten published now), then a wait until
 * indexing has caught up. The caller is the importing user's API key (their organisation's
 * distribution rules apply, as for any caller).
 *
 * Pairs (restSearch through /misp/ with `Authorization: <key>` / the native route with the same key),
 * each warmed up once, then `--runs` runs interleaved; median and p95 (nearest rank) milliseconds
 * and the restSearch/native ratio of the medians (goal of the issue: at most 1.5):
 *   1. value lookup: attributes/restSearch {value} / GET /attributes/search?query=value.keyword:"v"
 *   2. tag with a time range: events/restSearch {tags, from, to, limit 10, metadata} /
 *      GET /events/search?query=tags.name.keyword:"t" AND date:[from TO to]&size=10
 *   3. last 1d: events/restSearch {last: "1d", limit 10, metadata} / GET /events/search?query=publish_timestamp:>=t&size=10
 *   4. the same as 2 with full events (their attributes, objects: what restSearch loads beyond the search).
 * Both sides must find the same uuids (checked on the warm-up). Prints one JSON document on stdout.
 */
import crypto from "node:crypto";
import { parseArgs } from "node:util";
import setupTemplate from "../test/support/global-setup.ts";
import { startTestApp } from "../test/support/app.ts";
import { createUser, loginAdmin } from "../test/support/fixtures.ts";
import { settled } from "../test/support/settled.ts";
import { median, round } from "./lib.ts";

const { values: args } = parseArgs({ options: { events: { type: "string", default: "200" }, runs: { type: "string", default: "20" }, opensearch: { type: "boolean", default: false } } });
const EVENTS = Number(args.events);
const RUNS = Number(args.runs);
const PER_EVENT = 100;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;

await setupTemplate();
const env: Record<string, string> = { ROLE: "all", LOG_LEVEL: "warn" };
const OPENSEARCH = process.env.OPENSEARCH_URL ?? "http://127.0.0.1:9200";
const prefix = `bench-misp-${crypto.randomBytes(4).toString("hex")}-`;
if (args.opensearch) Object.assign(env, { OPENSEARCH_URL: OPENSEARCH, OPENSEARCH_INDEX_PREFIX: prefix });
const app = await startTestApp("bench-misp-rest-search", env);
try {
  const admin = await loginAdmin(app);
  const user = await createUser(app, admin, ["events:read", "events:create", "attributes:read", "api_keys:create"]);
  const key = (await app.http.post("/api-keys/", { token: user.token, json: { name: "bench", scopes: ["events:read", "events:create", "attributes:read"] } })).body.token as string;
  const now = Math.floor(Date.now() / 1000);
  const started = performance.now();
  for (let i = 0; i < EVENTS; i++) {
    const res = await app.http.post("/events/import", {
      token: user.token,
      json: {
        Event: {
          uuid: crypto.randomUUID(), info: `bench ${i}`, date: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`, distribution: "1", published: i % 10 === 0, ...(i % 10 === 0 ? { publish_timestamp: String(now) } : {}),
          Tag: [{ name: `bench:event-${i % 20}` }, { name: "tlp:green" }],
          Attribute: Array.from({ length: PER_EVENT }, (_, j) => ({ uuid: crypto.randomUUID(), type: "ip-dst", value: `10.${i % 250}.${Math.floor(i / 250)}.${j}`, to_ids: j % 2 === 0 })),
        },
      },
    });
    if (res.status !== 201) throw new Error(`import ${i}: ${res.status} ${res.text}`);
  }
  const imported = performance.now() - started;
  await settled(app, 30 * 60_000);
  const indexed = performance.now() - started;

  const misp = async (path: string, body: unknown) => {
    const res = await app.http.request("POST", `/misp/${path}`, { authorization: key, json: body });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body;
  };
  const native = async (target: string, query: string, size: number) => {
    const res = await app.http.get(`/${target}/search?query=${encodeURIComponent(query)}&size=${size}`, { authorization: key });
    if (res.status !== 200) throw new Error(`native ${query}: ${res.status} ${res.text}`);
    return res.body as { results: { _id: string }[] };
  };
  const value = `10.${7 % 250}.0.42`;
  const tag = "bench:event-3";
  const pairs = [
    {
      name: "value lookup (attributes)",
      rest: async () => (await misp("attributes/restSearch", { value })).response.Attribute.map((a: { uuid: string }) => a.uuid),
      native: async () => (await native("attributes", `value.keyword:"${value}"`, 100)).results.map((h) => h._id),
    },
    {
      name: "tag + date range (events, metadata)",
      rest: async () => (await misp("events/restSearch", { tags: tag, from: "2026-01-01", to: "2026-01-15", limit: 10, metadata: 1 })).response.map((e: { Event: { uuid: string } }) => e.Event.uuid),
      native: async () => (await native("events", `tags.name.keyword:"${tag}" AND date:[2026-01-01 TO 2026-01-15]`, 10)).results.map((h) => h._id),
    },
    {
      name: "last 1d (events, metadata)",
      rest: async () => (await misp("events/restSearch", { last: "1d", limit: 10, metadata: 1 })).response.map((e: { Event: { uuid: string } }) => e.Event.uuid),
      native: async () => (await native("events", `publish_timestamp:>=${now - 86_400}`, 10)).results.map((h) => h._id),
    },
    {
      name: "tag + date range (events, full)",
      rest: async () => (await misp("events/restSearch", { tags: tag, from: "2026-01-01", to: "2026-01-15", limit: 10 })).response.map((e: { Event: { uuid: string } }) => e.Event.uuid),
      native: async () => (await native("events", `tags.name.keyword:"${tag}" AND date:[2026-01-01 TO 2026-01-15]`, 10)).results.map((h) => h._id),
    },
  ];
  const results = [];
  for (const pair of pairs) {
    const [a, b] = [await pair.rest(), await pair.native()];
    if (JSON.stringify([...a].sort()) !== JSON.stringify([...b].sort()) || a.length === 0) throw new Error(`${pair.name}: restSearch found ${a.length}, native ${b.length}, or they differ`);
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
    process.stderr.write(`${pair.name}: ${JSON.stringify(results.at(-1))}\n`);
  }
  console.log(JSON.stringify({ backend: args.opensearch ? "opensearch" : "postgres", events: EVENTS, attributes: EVENTS * PER_EVENT, runs: RUNS, import_s: round(imported / 1000, 1), indexed_s: round(indexed / 1000, 1), results }, null, 2));
} finally {
  await app.close();
  // Only this run's indices and templates.
  if (args.opensearch) for (const path of [`/${prefix}*`, `/_index_template/${prefix}*`]) await fetch(new URL(path, OPENSEARCH), { method: "DELETE" });
}
