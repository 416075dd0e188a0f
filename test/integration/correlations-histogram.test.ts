/**
 * GET /correlations/histogram and its GraphQL twin, on each search backend (the OpenSearch pass
 * needs OPENSEARCH_URL): without a query counted from PostgreSQL, with one over the documents the
 * search finds; both must give the buckets the stored pairs give (two documents per pair).
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const PAIRS = 600; // 1 200 documents: more than one search reads at once, so the histogram splits its range
const DAY = 86_400_000;

/** The buckets the stored pairs give, as the peer's date_histogram (UTC, empty buckets included). */
function expectedBuckets(createdAt: number[], interval: "1d" | "1w" | "1M") {
  const start = (ms: number) => {
    const d = new Date(ms);
    if (interval === "1M") return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return interval === "1d" ? midnight : midnight - ((d.getUTCDay() + 6) % 7) * DAY;
  };
  const next = (s: number) => (interval === "1M" ? Date.UTC(new Date(s).getUTCFullYear(), new Date(s).getUTCMonth() + 1, 1) : s + (interval === "1d" ? DAY : 7 * DAY));
  const counts = new Map<number, number>();
  for (const t of createdAt) counts.set(start(t), (counts.get(start(t)) ?? 0) + 2);
  const starts = [...counts.keys()].sort((a, b) => a - b);
  const out = [];
  for (let s = starts[0]; s <= starts[starts.length - 1]; s = next(s)) out.push({ key_as_string: new Date(s).toISOString(), key: s, doc_count: counts.get(s) ?? 0 });
  return out;
}

describe.each(SEARCH_BACKENDS)("correlation histogram on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser; // role 3, the admin's organisation
  let outsider: TestUser; // role 3, another organisation
  const events: string[] = [];
  const histogram = (params: string, user: TestUser = analyst) => app.http.get(`/correlations/histogram${params}`, { token: user.token });

  beforeAll(async () => {
    app = await startTestApp("correlations-histogram", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, 3);
    outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
    const values = Array.from({ length: PAIRS }, (_, i) => `h${i}-${crypto.randomBytes(3).toString("hex")}.example`);
    for (let e = 0; e < 2; e++) {
      const Attribute = values.map((value) => ({ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value }));
      const res = await app.http.post("/events/import", { token: admin.token, json: { Event: { uuid: crypto.randomUUID(), info: `histogram ${e}`, distribution: 0, Attribute } } });
      expect(res.status, res.text).toBe(201);
      events.push(res.body.uuid);
    }
    await settled(app, 60_000);
    // Half of the pairs were found ten days ago: their documents are rewritten when the event changes.
    await app.booted.ctx.db.pool.query(
      "UPDATE correlations SET created_at = created_at - interval '10 days' WHERE id IN (SELECT id FROM correlations ORDER BY id LIMIT $1)",
      [PAIRS / 2],
    );
    expect((await app.http.patch(`/events/${events[0]}`, { token: admin.token, json: { distribution: 0 } })).status).toBe(200);
    await settled(app, 60_000);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  const storedTimes = async () =>
    (await app.booted.ctx.db.pool.query<{ t: number }>("SELECT (extract(epoch FROM created_at) * 1000)::float8 AS t FROM correlations")).rows.map((r) => r.t);

  it("counts the documents per UTC day, week and month from PostgreSQL, empty buckets included; GraphQL agrees", async () => {
    const times = await storedTimes();
    expect(times).toHaveLength(PAIRS);
    for (const interval of ["1d", "1w", "1M"] as const) {
      const res = await histogram(`?interval=${interval}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body).toEqual({ buckets: expectedBuckets(times, interval) });
      const gql = await app.http.graphql(`query($i: String) { correlationHistogram(interval: $i) { keyAsString key docCount } }`, { i: interval }, analyst.token);
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.correlationHistogram).toEqual(res.body.buckets.map((b: any) => ({ keyAsString: b.key_as_string, key: b.key, docCount: b.doc_count })));
    }
    const daily = (await histogram("")).body.buckets;
    expect(daily).toHaveLength(11);
    expect(daily.slice(1, -1).every((b: any) => b.doc_count === 0)).toBe(true);
  });

  it("with a query, counts the matching documents through the search, as PostgreSQL counts them", async () => {
    const times = await storedTimes();
    const everything = encodeURIComponent("match_type:(term OR composite OR cidr)");
    const mine = encodeURIComponent(`source_event_uuid:${events[0]} OR source_event_uuid:${events[1]}`);
    for (const interval of ["1d", "1w", "1M"] as const) {
      const fromSearch = await histogram(`?query=${everything}&interval=${interval}`);
      expect(fromSearch.status, fromSearch.text).toBe(200);
      expect(fromSearch.body).toEqual({ buckets: expectedBuckets(times, interval) });
      expect((await histogram(`?query=${mine}&interval=${interval}`)).body).toEqual(fromSearch.body);
    }
    // One pair: the bucket of today holds its two documents.
    const [{ value }] = (await app.booted.ctx.db.pool.query("SELECT value FROM correlations ORDER BY id DESC LIMIT 1")).rows;
    const one = await histogram(`?query=${encodeURIComponent(`"${value}"`)}`);
    expect(one.body.buckets).toEqual([{ key_as_string: expect.any(String), key: expect.any(Number), doc_count: 2 }]);
    expect((await histogram(`?query=${encodeURIComponent('"no such value anywhere"')}`)).body).toEqual({ buckets: [] });
    const gql = await app.http.graphql(`query($q: String) { correlationHistogram(query: $q) { key docCount } }`, { q: `"${value}"` }, analyst.token);
    expect(gql.body.data.correlationHistogram).toEqual([{ key: one.body.buckets[0].key, docCount: 2 }]);
  });

  it("shows another organisation nothing of org-only events, with or without a query", async () => {
    expect((await histogram("", outsider)).body).toEqual({ buckets: [] });
    expect((await histogram(`?query=${encodeURIComponent("match_type:term")}`, outsider)).body).toEqual({ buckets: [] });
  });

  it("answers bad input with a 4xx JSON error", async () => {
    for (const [params, status, code] of [
      ["?interval=1y", 422, "validation_error"],
      ["?interval=1000000d", 422, "validation_error"],
      ["?interval=", 422, "validation_error"],
      ["?interval=1d&interval=1w", 422, "validation_error"],
      ["?junk=1", 422, "validation_error"],
      [`?query=${"a".repeat(10_001)}`, 422, "validation_error"],
      ["?query=a%20AND", 400, "invalid_query"],
      ["?query=(((", 400, "invalid_query"],
      // A NUL anywhere in a request is refused before any route looks at it (rest-shim/register.ts).
      ["?query=%00", 422, "validation_error"],
    ] as const) {
      const res = await histogram(params);
      expect(res.status, `${params.slice(0, 40)}: ${res.text.slice(0, 200)}`).toBe(status);
      expect(res.body.code).toBe(code);
    }
    const gql = await app.http.graphql(`{ correlationHistogram(interval: "5m") { key } }`, {}, analyst.token);
    expect(gql.body.errors?.[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    expect((await app.http.get("/correlations/histogram")).status).toBe(401);
  });
});
