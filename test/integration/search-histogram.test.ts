/**
 * Explore's histogram of matches over time (GraphQL searchHistogram) on each backend: real MISP
 * events imported through the API and indexed by the worker, counted per interval and checked
 * against counts worked out here from the source files (an oracle independent of both backends),
 * and the same buckets from both backends. Access: another organisation's private data is not
 * counted. Hostile input: a bad query 400, from after to or absurd ranges 422.
 * The OpenSearch run needs OPENSEARCH_URL.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8";
const METACOIN = "1733d613-f09f-43ec-8e6a-3926f75e5fa4"; // 210 attributes, 2022-08-30 .. 2024-02-12
const feedEvent = (uuid: string) => JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${uuid}.json`), "utf8"));
const attributeTimes = (uuid: string): number[] => feedEvent(uuid).Event.Attribute.map((a: { timestamp: string }) => Number(a.timestamp) * 1000);

const DAY = 86_400_000;
/** The oracle: counts per UTC day, or per ISO week (from Monday), written out independently of src/search/time-buckets.ts. */
function oracle(times: number[], unit: "day" | "week"): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of times) {
    const d = new Date(t);
    let start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    if (unit === "week") start -= ((d.getUTCDay() || 7) - 1) * DAY;
    const key = new Date(start).toISOString();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

interface Histogram {
  index: string;
  interval: string;
  from: string;
  to: string;
  total: number;
  buckets: { start: string; count: number }[];
}

const HISTOGRAM = `query($index: ExploreIndex!, $query: String!, $from: String, $to: String) {
  searchHistogram(index: $index, query: $query, from: $from, to: $to) { index interval from to total buckets { start count } }
}`;

/** What each backend answered, by case, compared once both ran. */
const answers = new Map<string, Map<string, Histogram>>();

describe.each(SEARCH_BACKENDS)("Explore histogram on $name", ({ name, env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser; // the admin's organisation (owner of the imported events)
  let outsider: TestUser; // another organisation
  let outsiderEvent: string;
  const answered = new Map<string, Histogram>();
  answers.set(name, answered);

  const histogram = async (user: TestUser | null, vars: { index: "events" | "attributes"; query: string; from?: string; to?: string }) => {
    const res = await app.http.graphql<{ searchHistogram: Histogram }>(HISTOGRAM, { ...vars, index: vars.index.toUpperCase() }, user?.token);
    return res.body;
  };
  const ok = async (user: TestUser, vars: Parameters<typeof histogram>[1], key?: string): Promise<Histogram> => {
    const body = await histogram(user, vars);
    expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
    if (key) answered.set(key, body.data!.searchHistogram);
    return body.data!.searchHistogram;
  };
  const searchTotal = async (user: TestUser, target: "events" | "attributes", q: string) =>
    (await app.http.get(`/${target}/search?query=${encodeURIComponent(q)}`, { token: user.token })).body.total as number;

  beforeAll(async () => {
    app = await startTestApp("search-histogram", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, ["events:read", "attributes:read"]);
    const otherOrg = await createOrganisation(app, admin);
    outsider = await createUser(app, admin, ["events:read", "attributes:read", "events:create", "attributes:create"], otherOrg);
    for (const uuid of [VOLTA, METACOIN]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: feedEvent(uuid) });
      expect(res.status, res.text).toBe(201);
    }
    // The outsider's private event (distribution 0) and a community event of the analyst's organisation.
    const own = await app.http.post("/events/", { token: outsider.token, json: { info: "outsider private", distribution: 0 } });
    expect(own.status, own.text).toBe(201);
    outsiderEvent = own.body.uuid;
    for (const value of ["198.51.100.1", "198.51.100.2"]) {
      expect((await app.http.post("/attributes/", { token: outsider.token, json: { event_uuid: outsiderEvent, type: "ip-dst", value } })).status).toBe(201);
    }
    const shared = await app.http.post("/events/", { token: admin.token, json: { info: "community event", distribution: 1 } });
    await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: shared.body.uuid, type: "domain", value: "histogram-shared.example" } });
    await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: shared.body.uuid, type: "domain", value: "histogram-org-only.example", distribution: 0 } });
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("counts a query's matches per ISO week over a given range, as the source data says", async () => {
    const h = await ok(analyst, { index: "attributes", query: `event_uuid:${METACOIN}`, from: "2022-08-01", to: "2024-03-01" }, "weeks");
    expect(h).toMatchObject({ index: "attributes", interval: "1w", from: "2022-08-01T00:00:00.000Z", to: "2024-03-01T23:59:59.999Z", total: 210 });
    // Every week of the range, empty ones included, each starting on a Monday.
    expect(h.buckets[0]!.start).toBe("2022-08-01T00:00:00.000Z");
    expect(h.buckets.at(-1)!.start).toBe("2024-02-26T00:00:00.000Z");
    expect(h.buckets.every((b) => new Date(b.start).getUTCDay() === 1)).toBe(true);
    expect(h.buckets.slice(1).every((b, i) => Date.parse(b.start) - Date.parse(h.buckets[i]!.start) === 7 * DAY)).toBe(true);
    const expected = oracle(attributeTimes(METACOIN), "week");
    expect(new Map(h.buckets.filter((b) => b.count > 0).map((b) => [b.start, b.count]))).toEqual(expected);
  });

  it("chooses finer intervals for shorter ranges (days, hours) and counts the same matches", async () => {
    const days = await ok(analyst, { index: "attributes", query: `event_uuid:${METACOIN}`, from: "2022-08-20", to: "2022-10-10" }, "days");
    expect(days.interval).toBe("1d");
    expect(days.buckets).toHaveLength(52);
    const inRange = attributeTimes(METACOIN).filter((t) => t >= Date.parse("2022-08-20") && t < Date.parse("2022-10-11"));
    expect(days.total).toBe(inRange.length);
    expect(days.total).toBeGreaterThan(0);
    expect(new Map(days.buckets.filter((b) => b.count > 0).map((b) => [b.start, b.count]))).toEqual(oracle(inRange, "day"));
    // One day: 15-minute buckets; the query and the range both narrow the count.
    const first = Math.min(...attributeTimes(METACOIN));
    const day = new Date(first).toISOString().slice(0, 10);
    const hours = await ok(analyst, { index: "attributes", query: `event_uuid:${METACOIN} AND type:domain`, from: day, to: day }, "hours");
    expect(hours.interval).toBe("15m");
    expect(hours.buckets).toHaveLength(96);
    expect(hours.total).toBe(attributeTimes(METACOIN).filter((t) => new Date(t).toISOString().startsWith(day)).length);
  });

  it("without from, starts at the earliest match and ends now; the events index too", async () => {
    const open = await ok(analyst, { index: "attributes", query: `event_uuid:${METACOIN}` });
    expect(open.total).toBe(210);
    expect(Date.parse(open.from)).toBe(Math.min(...attributeTimes(METACOIN)));
    expect(Math.abs(Date.now() - Date.parse(open.to))).toBeLessThan(60_000);
    expect(open.interval).toBe("1M");
    expect(open.buckets[0]!.start).toBe("2022-08-01T00:00:00.000Z");
    const events = await ok(analyst, { index: "events", query: "*", from: "2020-01-01", to: "2026-12-31" }, "events");
    expect(events.total).toBe(await searchTotal(analyst, "events", "*"));
    expect(events.total).toBe(3); // the two imported events and the community event
    const none = await ok(analyst, { index: "attributes", query: "value:no-such-value.example" });
    expect(none).toMatchObject({ total: 0, buckets: [] });
  });

  it("counts only what the caller may read: another organisation's private data is not counted", async () => {
    // The outsider sees its own event and the community event's shared attribute, nothing of the analyst's organisation's private data.
    const theirs = await ok(outsider, { index: "attributes", query: "*" });
    expect(theirs.total).toBe(await searchTotal(outsider, "attributes", "*"));
    expect(theirs.total).toBe(3);
    expect((await ok(outsider, { index: "attributes", query: '"histogram-org-only.example" OR "comalign.pro"' })).total).toBe(0);
    expect((await ok(outsider, { index: "events", query: "*" })).total).toBe(2);
    // And the analyst does not count the outsider's private event.
    expect((await ok(analyst, { index: "attributes", query: `event_uuid:${outsiderEvent}` })).total).toBe(0);
    expect((await ok(admin, { index: "attributes", query: `event_uuid:${outsiderEvent}` })).total).toBe(2);
  });

  it("lists the searchable fields of the indices the caller may search, for field-name completion", async () => {
    const fields = async (user: TestUser | null) => (await app.http.graphql<{ searchFields: { index: string; name: string; type: string }[] }>("{ searchFields { index name type } }", {}, user?.token)).body;
    const all = (await fields(analyst)).data!.searchFields;
    const of = (index: string) => new Map(all.filter((f) => f.index === index).map((f) => [f.name, f.type]));
    expect(of("attributes").get("value")).toBe("text");
    expect(of("attributes").get("value.keyword")).toBe("keyword");
    expect(of("attributes").get("expanded.ip")).toBe("ip");
    expect(of("events").get("info")).toBe("text");
    expect(of("events").get("@timestamp")).toBe("date");
    expect(all.some((f) => f.name === "visible_to")).toBe(false);
    // Every field listed is one the query parser and the backend take.
    for (const f of all.filter((x) => x.type === "keyword" || x.type === "text")) {
      const res = await histogram(analyst, { index: f.index as "events" | "attributes", query: `${f.name}:x*` });
      expect(res.errors, `${f.index} ${f.name}`).toBeUndefined();
    }
    const eventsOnly = await createUser(app, admin, ["events:read"]);
    expect(new Set((await fields(eventsOnly)).data!.searchFields.map((f) => f.index))).toEqual(new Set(["events"]));
    expect((await fields(null)).errors?.[0]?.extensions).toMatchObject({ status: 401 });
    const nothing = await createUser(app, admin, ["hunts:read"]);
    expect((await fields(nothing)).errors?.[0]?.extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
  });

  it("refuses hostile input with the searches' errors: 400 for bad Lucene, 422 for bad ranges, 401/403", async () => {
    const bad = await histogram(analyst, { index: "attributes", query: "value:(open" });
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: "invalid_query", status: 400, position: { offset: 11 } });
    for (const vars of [
      { from: "2024-01-02", to: "2024-01-01" }, // from after to
      { from: "0000-01-01", to: "9999-12-31" }, // ten thousand years
      { from: "1970-01-01", to: "9999-12-31" },
      { from: "yesterday" },
      { to: "2024-02-30" },
      { from: "9".repeat(13) },
      { from: "x".repeat(10_000) },
    ]) {
      const res = await histogram(analyst, { index: "attributes", query: "*", ...vars });
      expect(res.errors?.[0]?.extensions, JSON.stringify(vars).slice(0, 80)).toMatchObject({ code: "validation_error", status: 422 });
      expect(res.data ?? null).toBeNull();
    }
    // The widest range allowed: 1,000 yearly buckets.
    const wide = await ok(analyst, { index: "attributes", query: `event_uuid:${METACOIN}`, from: "1100-01-01", to: "2099-12-31" });
    expect(wide).toMatchObject({ interval: "1y", total: 210 });
    expect(wide.buckets).toHaveLength(1000);
    // Only from: up to now; a from in the future: that instant alone.
    const since = await ok(analyst, { index: "attributes", query: `event_uuid:${METACOIN}`, from: "2024-01-01" });
    expect(since).toMatchObject({ interval: "1M", from: "2024-01-01T00:00:00.000Z" });
    expect(since.total).toBe(attributeTimes(METACOIN).filter((t) => t >= Date.parse("2024-01-01")).length);
    expect(since.total).toBeGreaterThan(0);
    const later = await ok(analyst, { index: "attributes", query: "*", from: "2999-01-01" });
    expect(later).toMatchObject({ total: 0, from: "2999-01-01T00:00:00.000Z", to: "2999-01-01T00:00:00.000Z" });
    expect((await histogram(analyst, { index: "attributes", query: "*", from: "0001-01-01" })).errors?.[0]?.extensions).toMatchObject({ status: 422 });
    const instant = await ok(analyst, { index: "attributes", query: "*", from: "2024-01-01T00:00:00Z", to: "2024-01-01T00:00:00Z" });
    expect(instant).toMatchObject({ interval: "1m", total: 0 });
    expect(instant.buckets).toHaveLength(1);
    expect((await histogram(null, { index: "attributes", query: "*" })).errors?.[0]?.extensions).toMatchObject({ status: 401 });
    const eventsOnly = await createUser(app, admin, ["events:read"]);
    expect((await histogram(eventsOnly, { index: "attributes", query: "*" })).errors?.[0]?.extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect((await ok(eventsOnly, { index: "events", query: "*" })).total).toBe(3);
  });
});

describe.runIf(SEARCH_BACKENDS.length > 1)("both backends", () => {
  it("answer the same buckets", () => {
    const [a, b] = [...answers.values()];
    expect(a!.size).toBe(4);
    expect(b).toEqual(a);
  });
});
