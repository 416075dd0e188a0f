/**
 * Explore search end to end, on each backend: real MISP events imported through the API, indexed
 * by the worker from the change records (ROLE=all), searched through GET /events/search,
 * GET /attributes/search and their GraphQL twins. The OpenSearch run needs OPENSEARCH_URL.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // 23 domains, tags tlp:clear + infoblox
const METACOIN = "1733d613-f09f-43ec-8e6a-3926f75e5fa4"; // 210 domains
const feedEvent = (uuid: string) => JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${uuid}.json`), "utf8"));

describe.each(SEARCH_BACKENDS)("Explore search on $name", ({ name, env }) => {
  let app: TestApp;
  let admin: TestUser;
  let analyst: TestUser; // admin's organisation, events:read + attributes:read
  let outsider: TestUser; // another organisation
  let eventsOnly: TestUser;
  const search = (target: "events" | "attributes", q: string, user: TestUser | null, extra = "") =>
    app.http.get(`/${target}/search?query=${encodeURIComponent(q)}${extra}`, user ? { token: user.token } : {});

  beforeAll(async () => {
    app = await startTestApp("search-api", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    analyst = await createUser(app, admin, ["events:read", "attributes:read"]);
    outsider = await createUser(app, admin, ["events:read", "attributes:read"], await createOrganisation(app, admin));
    eventsOnly = await createUser(app, admin, ["events:read"]);
    for (const uuid of [VOLTA, METACOIN]) {
      const res = await app.http.post("/events/import", { token: admin.token, json: feedEvent(uuid) });
      expect(res.status, res.text).toBe(201);
    }
    await settled(app);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it("finds imported attributes by value, type and tag, in the peer's P3 envelope", async () => {
    const res = await search("attributes", "comalign.pro", analyst);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ page: 1, size: 10, total: 1, total_relation: "eq", timed_out: false, max_score: null });
    const [hit] = res.body.results;
    expect(hit).toMatchObject({ _index: "svc-attributes", _score: null, _source: { value: "comalign.pro", type: "domain", event_uuid: VOLTA, deleted: false } });
    expect(hit._id).toBe(hit._source.uuid);
    expect(hit.sort).toEqual([Date.parse(hit._source["@timestamp"]), hit._id]);
    expect((await search("attributes", `event_uuid:${METACOIN}`, analyst)).body.total).toBe(210);
    expect((await search("attributes", "type:domain AND value:*.pro", analyst)).body.total).toBeGreaterThan(0);
    const tagged = await search("events", 'tags.name:"tlp:clear"', analyst);
    expect(tagged.body.results.map((r: any) => r._id)).toEqual([VOLTA]);
    expect(tagged.body.results[0]._source).toMatchObject({ info: "volta_stealer_20260629_iocs", attribute_count: 23 });
  });

  it("pages (size 1..100, default 10) with an exact total, sorts by score or time, and a page past the end is empty", async () => {
    const q = `event_uuid:${METACOIN}`;
    const p1 = await search("attributes", q, analyst, "&size=100");
    const p3 = await search("attributes", q, analyst, "&size=100&page=3");
    expect(p1.body.results).toHaveLength(100);
    expect(p3.body.results).toHaveLength(10);
    expect(new Set([...p1.body.results, ...p3.body.results].map((r: any) => r._id)).size).toBe(110);
    expect((await search("attributes", q, analyst, "&size=100&page=4")).body).toMatchObject({ total: 210, results: [] });
    const asc = await search("attributes", q, analyst, "&sort_order=asc&size=100");
    const times = asc.body.results.map((r: any) => Date.parse(r._source["@timestamp"]));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const scored = await search("attributes", "comalign.pro OR type:domain", analyst, "&sort_by=_score");
    expect(scored.body.max_score).toBeGreaterThan(0);
    expect(scored.body.total).toBe(229); // the domains of both events (a few feed attributes are of other types)
    // The PostgreSQL backend does not rank (every hit scores 1; README, "Search"): only OpenSearch orders by relevance.
    if (name === "opensearch") expect(scored.body.results[0]._source.value).toBe("comalign.pro");
  });

  it("follows the data: updates, soft deletes (include_deleted), tags and event deletion reach the index", async () => {
    const created = await app.http.post("/events/", { token: admin.token, json: { info: "search follow-up", distribution: 0 } });
    expect(created.status, created.text).toBe(201);
    const eventUuid = created.body.uuid;
    const attr = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: eventUuid, type: "ip-dst", value: "198.51.100.7" } });
    expect(attr.status, attr.text).toBe(201);
    await settled(app);
    const byIp = await search("attributes", "expanded.ip:198.51.100.0\\/24", analyst);
    expect(byIp.body.results.map((r: any) => r._id)).toEqual([attr.body.uuid]);

    await app.http.patch(`/attributes/${attr.body.uuid}`, { token: admin.token, json: { value: "198.51.100.8" } });
    await app.http.post(`/events/${eventUuid}/tag/${encodeURIComponent("tlp:amber")}`, { token: admin.token });
    await settled(app);
    expect((await search("attributes", '"198.51.100.7"', analyst)).body.total).toBe(0);
    expect((await search("attributes", "value:198.51.100.8", analyst)).body.total).toBe(1);
    expect((await search("events", 'tags.name:"tlp:amber"', analyst)).body.results.map((r: any) => r._id)).toEqual([eventUuid]);

    await app.http.delete(`/attributes/${attr.body.uuid}`, { token: admin.token });
    await settled(app);
    expect((await search("attributes", "value:198.51.100.8", analyst)).body.total).toBe(0);
    const withDeleted = await search("attributes", "value:198.51.100.8", analyst, "&include_deleted=true");
    expect(withDeleted.body.results[0]._source.deleted).toBe(true);

    // A soft-deleted event leaves the default search with all its attributes; include_deleted finds them.
    expect((await app.http.delete(`/events/${eventUuid}`, { token: admin.token })).status).toBe(204);
    await settled(app);
    expect((await search("events", `uuid:${eventUuid}`, analyst)).body.total).toBe(0);
    expect((await search("attributes", `event_uuid:${eventUuid}`, analyst)).body.total).toBe(0);
    expect((await search("attributes", `event_uuid:${eventUuid}`, analyst, "&include_deleted=true")).body.total).toBeGreaterThan(0);
    expect((await search("events", `uuid:${eventUuid}`, analyst, "&include_deleted=true")).body.results[0]._source.deleted).toBe(true);

    expect((await app.http.delete(`/events/${eventUuid}?force=true`, { token: admin.token })).status).toBe(204);
    await settled(app);
    expect((await search("attributes", `event_uuid:${eventUuid}`, analyst, "&include_deleted=true")).body.total).toBe(0);
    expect((await search("events", `uuid:${eventUuid}`, analyst)).body.total).toBe(0);
  });

  it("shows other organisations only what they may read; anonymous 401, missing scope 403", async () => {
    // The imported feed events have no distribution: 0, the admin's organisation only.
    expect((await search("attributes", `event_uuid:${VOLTA}`, outsider)).body.total).toBe(0);
    expect((await search("events", "*", outsider)).body.total).toBe(0);
    const shared = await app.http.post("/events/", { token: admin.token, json: { info: "shared with the community", distribution: 1 } });
    await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: shared.body.uuid, type: "domain", value: "community-shared.example" } });
    await settled(app);
    expect((await search("attributes", "community-shared.example", outsider)).body.total).toBe(1);
    expect((await search("events", "*", outsider)).body.results.map((r: any) => r._id)).toEqual([shared.body.uuid]);

    const anon = await search("attributes", "*", null);
    expect(anon.status).toBe(401);
    const noScope = await search("attributes", "*", eventsOnly);
    expect(noScope.status).toBe(403);
    expect(noScope.body.code).toBe("insufficient_scope");
    expect((await search("events", "*", eventsOnly)).status).toBe(200);
  });

  it("GraphQL searchEvents / searchAttributes give what REST gives", async () => {
    const q = "type:domain AND value:21c*";
    const rest = await search("attributes", q, analyst, "&size=50");
    const gql = await app.http.graphql(
      `query($q: String!) { searchAttributes(query: $q, size: 50) { total page size hits { id index score source } } }`,
      { q },
      analyst.token,
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.searchAttributes.total).toBe(rest.body.total);
    expect(gql.body.data.searchAttributes.hits.map((h: any) => h.id)).toEqual(rest.body.results.map((r: any) => r._id));
    const bad = await app.http.graphql(`{ searchEvents(query: "info:(open") { total } }`, {}, analyst.token);
    expect(bad.body.errors?.[0].extensions).toMatchObject({ code: "invalid_query", status: 400, position: { offset: 10 } });
    const big = await app.http.graphql(`{ searchEvents(query: "*", size: 101) { total } }`, {}, analyst.token);
    expect(big.body.errors?.[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
  });

  describe("hostile input", () => {
    it("bad Lucene is a 400 with the parser's message and position", async () => {
      for (const [q, reason] of [
        ["value:(a OR b", "syntax"],
        ['value:"unterminated', "syntax"],
        ["type:domain AND", "syntax"],
        ["value:x\u0001", "control_character"],
        [Array.from({ length: 10_000 }, (_, i) => `v${i}`).join(" OR "), null],
      ] as const) {
        const res = await search("attributes", q, analyst);
        expect(res.status, q.slice(0, 40)).toBe(400);
        expect(res.body.code).toBe("invalid_query");
        expect(typeof res.body.detail).toBe("string");
        if (reason) expect(res.body.reason).toBe(reason);
        expect(res.body.position).toMatchObject({ line: 1 });
      }
      const res = await search("attributes", "value:(a OR b", analyst);
      expect(res.body.position).toEqual({ offset: 13, line: 1, column: 14 });
    });

    it("page sizes out of range and windows past 10 000 are 422; the query parameter is required", async () => {
      for (const extra of ["&size=0", "&size=-1", "&size=1000000", "&page=0", "&page=-1", "&page=abc", "&size=100&page=101", "&sort_by=value", "&sort_order=up", "&unknown=1"]) {
        const res = await search("attributes", "*", analyst, extra);
        expect(res.status, extra).toBe(422);
        expect(res.body.code).toBe("validation_error");
      }
      expect((await app.http.get("/attributes/search", { token: analyst.token })).status).toBe(422);
    });

    it("wildcards, regexes built to backtrack, SQL fragments and unicode answer quickly with 200 or 400, and nothing is written", async () => {
      const before = (await search("attributes", "*", admin, "&include_deleted=true")).body.total;
      const queries = [
        "*",
        "*:*",
        "value:*pro",
        "value:/(a+)+$/",
        `value:/${"(a|aa)+".repeat(20)}$/`,
        "'; DROP TABLE events; --",
        "value:\"' OR 1=1 --\"",
        "value:x') OR ('1'='1",
        "info:ünïcødé☃ OR value:тест OR 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
        "_exists_:no_such_field",
        "no.such.field:value",
        "timestamp:[now-7d TO *]",
      ];
      for (const q of queries) {
        const started = Date.now();
        const res = await search("attributes", q, analyst);
        expect([200, 400], `${q}: ${res.text}`).toContain(res.status);
        expect(Date.now() - started, q).toBeLessThan(5_000);
      }
      expect((await search("attributes", "no.such.field:value", analyst)).body.total).toBe(0);
      expect((await app.http.get("/healthz")).status).toBe(200);
      expect((await search("attributes", "*", admin, "&include_deleted=true")).body.total).toBe(before);
    });
  });
});
