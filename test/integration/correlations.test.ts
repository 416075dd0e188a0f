/**
 * Correlations end to end: attributes written through the API are correlated by the worker from
 * the change records (ROLE=all), stored once per pair, announced once, indexed both ways, and
 * guarded by the non-correlating types, the per-value cap, exclusions and the per-event switch.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const VOLTA = "0dbb179a-1c8c-4e7c-a264-2440414dbac8"; // 23 domains of a real feed event

let app: TestApp;
let admin: TestUser;
let analyst: TestUser; // role 3: correlations:read only
let outsider: TestUser;

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const unique = (s: string) => `${s}-${crypto.randomBytes(4).toString("hex")}`;

async function event(info = unique("corr-event"), extra: Record<string, unknown> = {}): Promise<string> {
  const res = await app.http.post("/events/", { token: admin.token, json: { info, distribution: 0, ...extra } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body.uuid;
}

async function attribute(eventUuid: string, type: string, value: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: eventUuid, type, value, ...extra } });
  if (res.status !== 201) throw new Error(`${type} ${value}: ${res.text}`);
  return res.body.uuid;
}

/** Stored pairs of an attribute, as [other attribute uuid, match type, value]. */
async function pairsOf(uuid: string): Promise<[string, string, string][]> {
  const { rows } = await q(
    `SELECT o.uuid::text AS other, c.match_type, c.value FROM correlations c
       JOIN attributes me ON me.id IN (c.source_attribute_id, c.target_attribute_id)
       JOIN attributes o ON o.id IN (c.source_attribute_id, c.target_attribute_id) AND o.id <> me.id
      WHERE me.uuid = $1 ORDER BY 1, 2`,
    [uuid],
  );
  return rows.map((r) => [r.other, r.match_type, r.value]);
}

const createdRecords = async (uuid: string) =>
  (await q(`SELECT payload FROM change_records WHERE kind = 'attribute.correlation.created' AND (payload->>'source_attribute_uuid' = $1 OR payload->>'target_attribute_uuid' = $1)`, [uuid])).rows;

beforeAll(async () => {
  app = await startTestApp("correlations", { ROLE: "all" });
  admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
}, 60_000);
afterAll(async () => {
  await app?.close();
});
beforeEach(async () => {
  await q("DELETE FROM runtime_settings WHERE namespace = 'correlations'");
});

describe("incremental correlation", () => {
  it("correlates a value of a real feed event with a new event once, announces it once with the spec payload, and indexes it both ways", async () => {
    const doc = JSON.parse(fs.readFileSync(sharedPath("misp-feed-sample", `${VOLTA}.json`), "utf8"));
    expect((await app.http.post("/events/import", { token: admin.token, json: doc })).status).toBe(201);
    // Correlated first, so the new attribute's job is the one that finds the pair (and is its source).
    await settled(app);
    const e = await event();
    const mine = await attribute(e, "domain", "comalign.pro");
    await settled(app);
    const [pair, ...more] = await pairsOf(mine);
    expect(more).toEqual([]);
    expect(pair.slice(1)).toEqual(["term", "comalign.pro"]);
    const records = await createdRecords(mine);
    expect(records).toHaveLength(1);
    expect(records[0].payload).toMatchObject({
      source_attribute_uuid: mine,
      source_event_uuid: e,
      target_event_uuid: VOLTA,
      target_attribute_uuid: pair[0],
      target_attribute_type: "domain",
      target_attribute_value: "comalign.pro",
      match_type: "term",
    });

    const list = await app.http.get(`/correlations/?source_attribute_uuid=${mine}`, { token: analyst.token });
    expect(list.status, list.text).toBe(200);
    expect(list.body.total).toBe(1);
    expect(list.body.results[0]).toMatchObject({
      _index: "svc-correlations",
      _id: `${mine}|${pair[0]}|term`,
      _source: { source_event_uuid: e, target_event_uuid: VOLTA, target_attribute_value: "comalign.pro", match_type: "term" },
    });
    expect(list.body.results[0]._source["@timestamp"]).toMatch(/\+00:00$/);
    const reverse = await app.http.get(`/correlations/?source_attribute_uuid=${pair[0]}&target_event_uuid=${e}`, { token: analyst.token });
    expect(reverse.body.results.map((r: any) => r._id)).toEqual([`${pair[0]}|${mine}|term`]);
    const searched = await app.http.get(`/correlations/search?query=${encodeURIComponent('"comalign.pro"')}`, { token: analyst.token });
    expect(searched.body.total).toBe(2);
    const gql = await app.http.graphql(`query($a: String) { correlations(sourceAttributeUuid: $a) { total hits { id } } }`, { a: mine }, analyst.token);
    expect(gql.body.data.correlations).toEqual({ total: 1, hits: [{ id: `${mine}|${pair[0]}|term` }] });

    // Correlating the same data again (a rebuild) announces nothing new.
    const run = await app.http.post("/correlations/run", { token: admin.token });
    expect(run.status, run.text).toBe(202);
    expect(run.body).toMatchObject({ message: "generate correlations job enqueued", rebuild: { status: "queued" } });
    await settled(app);
    const progress = await app.http.get(`/correlations/run/${run.body.rebuild.id}`, { token: analyst.token });
    expect(progress.body).toMatchObject({ status: "succeeded", correlations_created: 0, correlations_removed: 0 });
    expect(progress.body.processed).toBe(progress.body.total);
    expect(await createdRecords(mine)).toHaveLength(1);
  }, 60_000);

  it("matches composite parts, CIDR containment both ways, never ports, free text or the same event", async () => {
    const hash = crypto.randomBytes(32).toString("hex");
    const [a, b, c] = [await event(), await event(), await event()];
    const sha = await attribute(a, "sha256", hash);
    const composite = await attribute(b, "filename|sha256", `dropper.exe|${hash}`);
    const net = await attribute(a, "ip-dst", "198.51.100.0/24");
    const host = await attribute(b, "ip-src", "198.51.100.7");
    const hostPort = await attribute(c, "ip-dst|port", "198.51.100.9|8443");
    const otherPort = await attribute(a, "ip-dst|port", "203.0.113.5|8443");
    const port = await attribute(c, "port", "8443");
    const note1 = await attribute(a, "text", unique("shared words"));
    await attribute(b, "text", (await app.http.get(`/attributes/${note1}`, { token: admin.token })).body.value);
    const sameEvent = await attribute(c, "domain", "same-event.example");
    await attribute(c, "hostname", "same-event.example");
    await settled(app);

    expect(await pairsOf(sha)).toEqual([[composite, "composite", hash]]);
    expect((await pairsOf(net)).sort()).toEqual([[host, "cidr", "198.51.100.0/24"], [hostPort, "cidr", "198.51.100.0/24"]].sort());
    expect(await pairsOf(port)).toEqual([]);
    expect(await pairsOf(otherPort)).toEqual([]);
    expect(await pairsOf(note1)).toEqual([]);
    expect(await pairsOf(sameEvent)).toEqual([]);
  }, 60_000);

  it("attribute lists (REST and GraphQL) carry each attribute's correlations; item reads null; other organisations see none", async () => {
    const value = `${unique("listed")}.example`;
    // a is shared with the community, b stays with the admin's organisation.
    const [a, b] = [await event(unique("listed-community"), { distribution: 1 }), await event()];
    const mine = await attribute(a, "domain", value);
    const theirs = await attribute(b, "domain", value);
    await settled(app);
    const list = await app.http.get(`/attributes/?event_uuid=${a}`, { token: analyst.token });
    expect(list.status).toBe(200);
    // analyst shares the admin's organisation, so both events are readable.
    const item = list.body.items.find((x: any) => x.uuid === mine);
    expect(item.correlations).toEqual([
      expect.objectContaining({ _index: "svc-correlations", _id: `${mine}|${theirs}|term`, _source: expect.objectContaining({ target_event_uuid: b, target_attribute_value: value }) }),
    ]);
    expect((await app.http.get(`/attributes/${mine}`, { token: analyst.token })).body.correlations).toBeNull();
    const gql = await app.http.graphql(`query($e: String) { attributes(eventUuid: $e) { items { uuid correlations { id } } } }`, { e: a }, analyst.token);
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.attributes.items.find((x: any) => x.uuid === mine).correlations).toEqual([{ id: `${mine}|${theirs}|term` }]);
    // Another organisation reads a's attribute but not b: the pair is left out.
    const foreign = await app.http.get(`/attributes/?event_uuid=${a}`, { token: outsider.token });
    expect(foreign.body.items.find((x: any) => x.uuid === mine).correlations).toEqual([]);
    // An API key without correlations:read gets attributes without correlations.
    const key = await app.http.post("/api-keys/", { token: analyst.token, json: { name: unique("no-corr"), scopes: ["attributes:read"] } });
    const viaKey = await app.http.get(`/attributes/?event_uuid=${a}`, { authorization: key.body.token });
    expect(viaKey.body.items.find((x: any) => x.uuid === mine).correlations).toEqual([]);
  }, 30_000);

  it("a 10 KB URL correlates exactly", async () => {
    const url = `https://long.example/${"a".repeat(10_240)}?${crypto.randomBytes(4).toString("hex")}`;
    const one = await attribute(await event(), "url", url);
    const two = await attribute(await event(), "url", url);
    await settled(app);
    expect(await pairsOf(one)).toEqual([[two, "term", url]]);
  }, 30_000);

  it("follows changes: a value change, a soft delete and the event's switch remove pairs; turning it back on restores them", async () => {
    const value = `${unique("moving")}.example`;
    const [a, b] = [await event(), await event()];
    const first = await attribute(a, "domain", value);
    const second = await attribute(b, "domain", value);
    await settled(app);
    expect(await pairsOf(first)).toEqual([[second, "term", value]]);
    const docs = async () => (await app.http.get(`/correlations/?source_attribute_uuid=${first}`, { token: admin.token })).body.total;
    expect(await docs()).toBe(1);

    await app.http.patch(`/events/${b}`, { token: admin.token, json: { disable_correlation: true } });
    await settled(app);
    expect(await pairsOf(first)).toEqual([]);
    expect(await docs()).toBe(0);
    await app.http.patch(`/events/${b}`, { token: admin.token, json: { disable_correlation: false } });
    await settled(app);
    expect(await pairsOf(first)).toEqual([[second, "term", value]]);

    await app.http.patch(`/attributes/${second}`, { token: admin.token, json: { value: `other-${value}` } });
    await settled(app);
    expect(await pairsOf(first)).toEqual([]);
    await app.http.patch(`/attributes/${second}`, { token: admin.token, json: { value } });
    await settled(app);
    expect(await pairsOf(first)).toHaveLength(1);

    await app.http.delete(`/attributes/${second}`, { token: admin.token });
    await settled(app);
    expect(await pairsOf(first)).toEqual([]);
    expect(await docs()).toBe(0);
    const removed = await q(`SELECT count(*)::int AS n FROM change_records WHERE kind = 'attribute.correlation.deleted' AND payload->>'target_attribute_uuid' IN ($1, $2)`, [first, second]);
    expect(removed.rows[0].n).toBeGreaterThan(0);

    // A hard delete of the event takes its pairs (foreign keys) and their documents (indexer).
    const third = await attribute(b, "domain", value);
    await settled(app);
    expect(await pairsOf(first)).toEqual([[third, "term", value]]);
    expect((await app.http.delete(`/events/${b}`, { token: admin.token })).status).toBe(204);
    await settled(app);
    expect(await pairsOf(first)).toEqual([]);
    expect(await docs()).toBe(0);
  }, 60_000);
});

describe("safeguards", () => {
  it("a value in more events than max_correlations_per_value never correlates; the pairs it had are removed", async () => {
    const set = await app.http.post("/settings/runtime/correlations", { token: admin.token, json: { max_correlations_per_value: 3, match_types: ["term", "cidr", "composite"] } });
    expect(set.status, set.text).toBe(200);
    const value = `${unique("popular")}.example`;
    const attrs = [];
    for (let i = 0; i < 3; i++) attrs.push(await attribute(await event(), "domain", value));
    await settled(app);
    expect(await pairsOf(attrs[0])).toHaveLength(2);
    attrs.push(await attribute(await event(), "domain", value));
    await settled(app);
    for (const a of attrs) expect(await pairsOf(a)).toEqual([]);
  }, 60_000);

  // 10,000 copies are enough: without the cap first, their pairs (~50 million) would not fit the test's time either.
  it("a value shared by 10 000 attributes in 25 events hits the cap, not the disk", async () => {
    const value = `${unique("everywhere")}.example`;
    for (let e = 0; e < 25; e++) {
      const Attribute = Array.from({ length: 400 }, (_, i) => ({ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value, comment: `copy ${i}` }));
      const res = await app.http.post("/events/import?on_invalid=skip", {
        token: admin.token,
        json: { Event: { uuid: crypto.randomUUID(), info: unique("bulk"), date: "2026-11-23", Attribute } },
      });
      expect(res.status, res.text.slice(0, 300)).toBe(201);
    }
    await settled(app, 120_000);
    const { rows } = await q("SELECT count(*)::int AS n FROM correlations WHERE value = $1", [value]);
    expect(rows[0].n).toBe(0);
  }, 180_000);

  it("exclusions with % wildcards stop values from correlating; managing them needs correlations:admin", async () => {
    const denied = await app.http.post("/correlations/exclusions", { token: analyst.token, json: { value: "%.excluded.example" } });
    expect(denied.status).toBe(403);
    const added = await app.http.post("/correlations/exclusions", { token: admin.token, json: { value: "%.excluded.example", comment: "sinkhole" } });
    expect(added.status, added.text).toBe(201);
    const literal = await app.http.post("/correlations/exclusions", { token: admin.token, json: { value: "under_score.example" } });
    expect(literal.status).toBe(201);
    const [a, b] = [await event(), await event()];
    const ex = await attribute(a, "domain", "x.excluded.example");
    await attribute(b, "domain", "x.excluded.example");
    // `_` is not a wildcard: "underXscore.example" still correlates.
    const notEx = await attribute(a, "domain", "underxscore.example");
    await attribute(b, "domain", "underxscore.example");
    await settled(app);
    expect(await pairsOf(ex)).toEqual([]);
    expect(await pairsOf(notEx)).toHaveLength(1);
    expect((await app.http.get("/correlations/exclusions", { token: analyst.token })).body.map((x: any) => x.value)).toContain("%.excluded.example");
    for (const [body, status] of [
      [{ value: "" }, 422],
      [{ value: "%%" }, 422],
      [{ value: "x".repeat(1025) }, 422],
      [{ value: "%.excluded.example" }, 409],
      [{ value: "a", extra: 1 }, 422],
    ] as const) {
      expect((await app.http.post("/correlations/exclusions", { token: admin.token, json: body })).status, JSON.stringify(body).slice(0, 40)).toBe(status);
    }
    expect((await app.http.delete(`/correlations/exclusions/${added.body.id}`, { token: analyst.token })).status).toBe(403);
    expect((await app.http.delete(`/correlations/exclusions/${added.body.id}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.delete(`/correlations/exclusions/${added.body.id}`, { token: admin.token })).status).toBe(404);
    await app.http.delete(`/correlations/exclusions/${literal.body.id}`, { token: admin.token });
  }, 60_000);
});

describe("concurrency", () => {
  it("deletions racing with correlation jobs on two worker processes leave no duplicate and no orphan, and match a full rebuild", async () => {
    const second = await startTestApp("correlations-worker-b", { ROLE: "worker" }, app);
    try {
      const values = Array.from({ length: 40 }, (_, i) => `race-${i}-${crypto.randomBytes(3).toString("hex")}.example`);
      const events: string[] = [];
      for (let e = 0; e < 8; e++) {
        const Attribute = values.map((value) => ({ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value }));
        const res = await app.http.post("/events/import", { token: admin.token, json: { Event: { uuid: crypto.randomUUID(), info: unique("race"), date: "2026-11-23", Attribute } } });
        expect(res.status).toBe(201);
        events.push(res.body.uuid);
      }
      // While the correlation jobs of those imports run: soft deletes, value changes and an event deletion.
      const { rows } = await q(`SELECT a.uuid::text FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = ANY($1::uuid[]) ORDER BY a.id`, [events.slice(0, 4)]);
      await Promise.all([
        ...rows.filter((_, i) => i % 3 === 0).map((r) => app.http.delete(`/attributes/${r.uuid}`, { token: admin.token })),
        ...rows.filter((_, i) => i % 7 === 1).map((r) => app.http.patch(`/attributes/${r.uuid}`, { token: admin.token, json: { value: values[(values.length - 1) % values.length] } })),
        app.http.delete(`/events/${events[7]}`, { token: admin.token }),
      ]);
      await settled(app, 120_000);

      const dupes = await q(
        `SELECT count(*)::int AS n FROM (SELECT 1 FROM correlations GROUP BY LEAST(source_attribute_id, target_attribute_id), GREATEST(source_attribute_id, target_attribute_id), match_type HAVING count(*) > 1) d`,
      );
      expect(dupes.rows[0].n).toBe(0);
      const orphans = await q(
        `SELECT count(*)::int AS n FROM correlations c JOIN attributes a ON a.id IN (c.source_attribute_id, c.target_attribute_id) WHERE a.deleted`,
      );
      expect(orphans.rows[0].n).toBe(0);
      const pairs = (await q(`SELECT count(*)::int AS n FROM correlations WHERE value LIKE 'race-%'`)).rows[0].n;
      expect(pairs).toBeGreaterThan(0);
      // The incremental state of these values is the state a full rebuild computes (other tests'
      // values may change: settings and exclusions changed there apply at the next correlation).
      const racePairs = async () =>
        (await q(`SELECT LEAST(source_attribute_id, target_attribute_id) || ':' || GREATEST(source_attribute_id, target_attribute_id) || ':' || match_type AS k
                    FROM correlations WHERE value LIKE 'race-%' ORDER BY 1`)).rows.map((r) => r.k);
      const incremental = await racePairs();
      const run = await app.http.post("/correlations/run", { token: admin.token });
      await settled(app, 120_000);
      const progress = await app.http.get(`/correlations/run/${run.body.rebuild.id}`, { token: admin.token });
      expect(progress.body).toMatchObject({ status: "succeeded" });
      expect(await racePairs()).toEqual(incremental);
      // Both directions of every pair are indexed, and nothing else.
      const all = (await q("SELECT count(*)::int AS n FROM correlations")).rows[0].n;
      const indexed = (await app.http.get("/correlations/?size=1", { token: admin.token })).body.total;
      expect(indexed).toBe(2 * all);
    } finally {
      await second.close();
    }
  }, 240_000);
});

describe("access and bad input", () => {
  it("other organisations see no pair of org-only events, in lists, search and stats", async () => {
    const value = `${unique("private")}.example`;
    await attribute(await event(), "domain", value);
    await attribute(await event(), "domain", value);
    await settled(app);
    const search = `/correlations/search?query=${encodeURIComponent(`"${value}"`)}`;
    expect((await app.http.get(search, { token: admin.token })).body.total).toBe(2);
    expect((await app.http.get(search, { token: outsider.token })).body.total).toBe(0);
    expect((await app.http.get("/correlations/", { token: outsider.token })).body.total).toBe(0);
    const stats = await app.http.get("/correlations/stats", { token: outsider.token });
    expect(stats.body).toEqual({ top_correlated_events: [], top_correlated_attributes: [], total_correlations: 0, top_correlated_values: [] });
    const adminStats = await app.http.get("/correlations/stats", { token: admin.token });
    expect(adminStats.body.total_correlations).toBeGreaterThan(0);
    expect((await app.http.get("/correlations/stats")).status).toBe(401);
    expect((await app.http.post("/correlations/run", { token: analyst.token })).status).toBe(403);
  });

  it("bad filters and ids are 422s, unknown rebuilds 404", async () => {
    for (const path of [
      "/correlations/?source_attribute_uuid=not-a-uuid",
      "/correlations/?match_type=fuzzy",
      "/correlations/?size=0",
      "/correlations/?size=1000000",
      "/correlations/?unknown=1",
      "/correlations/run/abc",
      "/correlations/run/-1",
      "/correlations/search?query=a%20AND",
    ]) {
      const res = await app.http.get(path, { token: admin.token });
      expect(res.status, path).toBe(path.includes("AND") ? 400 : 422);
    }
    expect((await app.http.get("/correlations/run/999999", { token: admin.token })).status).toBe(404);
  });
});
