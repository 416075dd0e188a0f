/**
 * The correlation reads and admin routes next to their GraphQL twins (each twin must answer what
 * its REST route answers), the related events of event reads, and DELETE /correlations/, on data
 * correlated by the worker (ROLE=all). Access: A is shared with the community, B and C stay with
 * the admin's organisation, O with the outsider's; A shares two values with B and one each with C and O.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";

let app: TestApp;
let admin: TestUser;
let analyst: TestUser; // role 3 (correlations:read), the admin's organisation
let outsider: TestUser; // role 3, another organisation
const ev = { A: "", B: "", C: "", O: "" };
const value = (n: number) => `v${n}-${crypto.randomBytes(4).toString("hex")}.example`;
const values = [value(1), value(2), value(3), value(4)];

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const pairCount = async () => (await q("SELECT count(*)::int AS n FROM correlations")).rows[0].n as number;
const lastChangeId = async () => (await q("SELECT COALESCE(max(id), 0)::int AS id FROM change_records")).rows[0].id as number;
const pairKeys = async () =>
  (
    await q(`SELECT least(s.uuid::text, t.uuid::text) || '|' || greatest(s.uuid::text, t.uuid::text) || '|' || c.match_type AS k
               FROM correlations c JOIN attributes s ON s.id = c.source_attribute_id JOIN attributes t ON t.id = c.target_attribute_id ORDER BY 1`)
  ).rows.map((r) => r.k as string);
const gql = async (user: TestUser, query: string, variables: Record<string, unknown> = {}): Promise<any> => (await app.http.graphql(query, variables, user.token)).body;

async function event(user: TestUser, distribution: number, info: string, attributeValues: string[]): Promise<string> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: `${info} ${crypto.randomUUID()}`, distribution } });
  if (res.status !== 201) throw new Error(res.text);
  for (const v of attributeValues) {
    const a = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: res.body.uuid, type: "domain", value: v } });
    if (a.status !== 201) throw new Error(a.text);
  }
  return res.body.uuid;
}

beforeAll(async () => {
  app = await startTestApp("correlations-api", { ROLE: "all" });
  admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
  ev.A = await event(admin, 1, "community", values);
  ev.B = await event(admin, 0, "bravo", [values[0], values[1]]);
  ev.C = await event(admin, 0, "charlie", [values[2]]);
  ev.O = await event(outsider, 0, "outsider", [values[3]]);
  await settled(app);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

const RELATED = `query($u: String!) { event(uuid: $u) { relatedEvents { uuid info correlationCount org { name } orgc { name } } } }`;

describe("related events on event reads", () => {
  it("lists the events an event correlates with, most pairs first, only those the caller may read", async () => {
    const forAnalyst = (await gql(analyst, RELATED, { u: ev.A })).data.event.relatedEvents;
    expect(forAnalyst.map((r: any) => [r.uuid, r.correlationCount])).toEqual([
      [ev.B, 2],
      [ev.C, 1],
    ]);
    expect(forAnalyst[0].info).toMatch(/^bravo /);
    expect(forAnalyst[0].org.name).toBe(forAnalyst[0].orgc.name);
    // The outsider reads A but neither B nor C; its own O correlates with A.
    expect((await gql(outsider, RELATED, { u: ev.A })).data.event.relatedEvents.map((r: any) => [r.uuid, r.correlationCount])).toEqual([[ev.O, 1]]);
    const forAdmin = (await gql(admin, RELATED, { u: ev.A })).data.event.relatedEvents.map((r: any) => r.uuid);
    expect(forAdmin).toEqual([ev.B, ...[ev.C, ev.O].sort()]);
    expect((await gql(analyst, RELATED, { u: ev.B })).data.event.relatedEvents.map((r: any) => [r.uuid, r.correlationCount])).toEqual([[ev.A, 2]]);
    expect((await gql(analyst, `query($u: String!) { event(uuid: $u) { relatedEvents(limit: 1) { uuid } } }`, { u: ev.A })).data.event.relatedEvents).toEqual([{ uuid: ev.B }]);
    const badLimit = await gql(analyst, `query($u: String!) { event(uuid: $u) { relatedEvents(limit: 0) { uuid } } }`, { u: ev.A });
    expect(badLimit.errors[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    // A credential without correlations:read reads the event without related events.
    const key = await app.http.post("/api-keys/", { token: analyst.token, json: { name: `events-only-${crypto.randomUUID()}`, scopes: ["events:read"] } });
    const viaKey = await app.http.graphql(RELATED, { u: ev.A }, key.body.token);
    expect(viaKey.body.data.event.relatedEvents).toEqual([]);
    expect((await app.http.get(`/events/${ev.A}`, { authorization: `Bearer ${key.body.token}` })).body.related_events).toEqual([]);
  });

  it("answers the same on GET /events/{uuid} as related_events, and only there", async () => {
    const rest = await app.http.get(`/events/${ev.A}`, { token: analyst.token });
    expect(rest.status).toBe(200);
    expect(rest.body.related_events.map((r: any) => [r.uuid, r.correlation_count])).toEqual([
      [ev.B, 2],
      [ev.C, 1],
    ]);
    expect(rest.body.related_events[0]).toMatchObject({ info: expect.stringMatching(/^bravo /), organisation: { name: expect.any(String) }, orgc: { name: expect.any(String) } });
    const outsider_ = await app.http.get(`/events/${ev.A}`, { token: outsider.token });
    expect(outsider_.body.related_events.map((r: any) => r.uuid)).toEqual([ev.O]);
    const list = await app.http.get("/events/?size=5", { token: analyst.token });
    expect(list.body.items.every((e: any) => !("related_events" in e))).toBe(true);
  });

  it("loads the related events of a whole page of events in one call", async () => {
    const spy = vi.spyOn(app.booted.services.correlations, "relatedEvents");
    try {
      const page = await gql(admin, `{ events(size: 50) { items { uuid relatedEvents { uuid correlationCount } } } }`);
      expect(page.errors).toBeUndefined();
      expect(page.data.events.items.length).toBeGreaterThanOrEqual(4);
      expect(spy).toHaveBeenCalledTimes(1);
      const a = page.data.events.items.find((e: any) => e.uuid === ev.A);
      expect(a.relatedEvents.map((r: any) => r.uuid)).toEqual([ev.B, ...[ev.C, ev.O].sort()]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("top correlated events of an event", () => {
  it("answers the 10 events with most pairs, from PostgreSQL; the GraphQL twin agrees", async () => {
    const res = await app.http.get(`/correlations/events/${ev.A}/top`, { token: analyst.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual([
      { key: ev.B, doc_count: 2 },
      { key: ev.C, doc_count: 1 },
    ]);
    const twin = await gql(analyst, `query($u: String!) { correlationTopEvents(eventUuid: $u) { key docCount } }`, { u: ev.A });
    expect(twin.data.correlationTopEvents).toEqual(res.body.map((b: any) => ({ key: b.key, docCount: b.doc_count })));
    expect((await app.http.get(`/correlations/events/${ev.A.toUpperCase()}/top`, { token: analyst.token })).body).toEqual(res.body);
    expect((await app.http.get(`/correlations/events/${ev.A}/top`, { token: outsider.token })).body).toEqual([{ key: ev.O, doc_count: 1 }]);
  });

  it("does not disclose events the caller may not read, and answers bad input with a 4xx JSON error", async () => {
    for (const [path, status, code] of [
      [`/correlations/events/${ev.B}/top`, 404, "not_found"],
      [`/correlations/events/${crypto.randomUUID()}/top`, 404, "not_found"],
      ["/correlations/events/not-a-uuid/top", 422, "validation_error"],
      ["/correlations/events/%00/top", 422, "validation_error"],
      [`/correlations/events/${"f".repeat(4000)}/top`, 422, "validation_error"],
      [`/correlations/events/${ev.A}/top?size=1000`, 422, "validation_error"],
    ] as const) {
      const res = await app.http.get(path, { token: outsider.token });
      expect(res.status, `${path.slice(0, 60)}: ${res.text.slice(0, 200)}`).toBe(status);
      expect(res.body.code).toBe(code);
    }
    const twin = await gql(outsider, `query($u: String!) { correlationTopEvents(eventUuid: $u) { key } }`, { u: ev.B });
    expect(twin.errors[0].extensions).toMatchObject({ code: "not_found", status: 404 });
    const bad = await gql(outsider, `{ correlationTopEvents(eventUuid: "x'; DROP TABLE events; --") { key } }`);
    expect(bad.errors[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
  });
});

describe("statistics", () => {
  it("answer the peer's shape (documents: two per pair) plus our top values; the GraphQL twin agrees", async () => {
    const res = await app.http.get("/correlations/stats", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(["top_correlated_events", "top_correlated_attributes", "total_correlations", "top_correlated_values"]);
    expect(res.body.total_correlations).toBe(2 * (await pairCount()));
    expect(res.body.top_correlated_events[0]).toEqual({ key: ev.A, doc_count: 4 });
    const [{ uuid: v1OfA }] = (await q("SELECT a.uuid::text FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1 AND a.value = $2", [ev.A, values[0]])).rows;
    const entry = res.body.top_correlated_attributes.find((a: any) => a.key === v1OfA);
    expect(entry).toEqual({
      key: v1OfA,
      doc_count: 1,
      top_attribute_info: {
        hits: {
          total: { value: 1, relation: "eq" },
          max_score: null,
          hits: [{ _index: "svc-correlations", _id: expect.stringMatching(new RegExp(`\\|${v1OfA}\\|term$`)), _score: null, _source: { target_attribute_type: "domain", target_attribute_value: values[0], target_event_uuid: ev.A } }],
        },
      },
    });
    // The sample is a real document of the index.
    const docs = await app.http.get(`/correlations/?target_attribute_uuid=${v1OfA}`, { token: admin.token });
    expect(docs.body.results.map((r: any) => r._id)).toContain(entry.top_attribute_info.hits.hits[0]._id);
    expect(res.body.top_correlated_values.map((v: any) => v.doc_count)).toEqual([1, 1, 1, 1]);

    const twin = await gql(admin, `{ correlationStats { totalCorrelations topCorrelatedEvents { key docCount } topCorrelatedAttributes { key docCount type value eventUuid } topCorrelatedValues { key docCount } } }`);
    const counts = (l: any[]) => l.map((x) => ({ key: x.key, docCount: x.doc_count }));
    expect(twin.data.correlationStats).toEqual({
      totalCorrelations: res.body.total_correlations,
      topCorrelatedEvents: counts(res.body.top_correlated_events),
      topCorrelatedAttributes: res.body.top_correlated_attributes.map((a: any) => ({
        key: a.key,
        docCount: a.doc_count,
        ...Object.fromEntries(Object.entries(a.top_attribute_info.hits.hits[0]._source).map(([k, v]) => [{ target_attribute_type: "type", target_attribute_value: "value", target_event_uuid: "eventUuid" }[k]!, v])),
      })),
      topCorrelatedValues: counts(res.body.top_correlated_values),
    });
    // The analyst reads three of the four pairs (O is another organisation's).
    expect((await app.http.get("/correlations/stats", { token: analyst.token })).body.total_correlations).toBe(6);
  });
});

describe("GraphQL twins of the rebuild, the exclusions and the search", () => {
  const REBUILD_FIELDS = "id status total processed correlationsCreated correlationsRemoved error createdAt startedAt finishedAt";
  const rebuildTwin = (r: any) => ({
    id: r.id,
    status: r.status,
    total: r.total,
    processed: r.processed,
    correlationsCreated: r.correlations_created,
    correlationsRemoved: r.correlations_removed,
    error: r.error,
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
  });

  it("startCorrelationRebuild and correlationRebuild answer what POST /correlations/run and GET /correlations/run/{id} answer", async () => {
    const rest = await app.http.post("/correlations/run", { token: admin.token });
    expect(rest.status).toBe(202);
    const started = await gql(admin, `mutation { startCorrelationRebuild { ${REBUILD_FIELDS} } }`);
    expect(started.errors).toBeUndefined();
    const mine = started.data.startCorrelationRebuild;
    expect(mine).toMatchObject({ status: "queued", total: rest.body.rebuild.total, processed: 0, correlationsCreated: 0, error: null, startedAt: null });
    expect(mine.id).toBe(rest.body.rebuild.id + 1);
    await settled(app);
    for (const id of [rest.body.rebuild.id, mine.id]) {
      const progress = await app.http.get(`/correlations/run/${id}`, { token: analyst.token });
      expect(progress.body).toMatchObject({ status: "succeeded", correlations_created: 0, correlations_removed: 0 });
      expect((await gql(analyst, `query($id: Int!) { correlationRebuild(id: $id) { ${REBUILD_FIELDS} } }`, { id })).data.correlationRebuild).toEqual(rebuildTwin(progress.body));
    }
    for (const [restStatus, res] of [
      [(await app.http.post("/correlations/run", { token: analyst.token })).status, await gql(analyst, "mutation { startCorrelationRebuild { id } }")],
      [(await app.http.get("/correlations/run/999999", { token: analyst.token })).status, await gql(analyst, "{ correlationRebuild(id: 999999) { id } }")],
    ] as const) {
      expect(res.errors[0].extensions.status).toBe(restStatus);
    }
  });

  it("the exclusion mutations and query answer what the REST routes answer", async () => {
    const added = await gql(admin, `mutation($v: String!) { addCorrelationExclusion(value: $v, comment: "sinkhole") { id value comment createdBy createdAt } }`, { v: "%.sinkhole.example" });
    expect(added.errors).toBeUndefined();
    const restList = (await app.http.get("/correlations/exclusions", { token: analyst.token })).body;
    const twinList = (await gql(analyst, "{ correlationExclusions { id value comment createdBy createdAt } }")).data.correlationExclusions;
    expect(twinList).toEqual(restList.map((x: any) => ({ id: x.id, value: x.value, comment: x.comment, createdBy: x.created_by, createdAt: x.created_at })));
    expect(twinList).toContainEqual(added.data.addCorrelationExclusion);

    const pairs = [
      ["duplicate", { value: "%.sinkhole.example" }],
      ["only wildcards", { value: "%%" }],
      ["too long", { value: "x".repeat(1025) }],
    ] as const;
    for (const [what, body] of pairs) {
      const rest = await app.http.post("/correlations/exclusions", { token: admin.token, json: body });
      const twin = await gql(admin, `mutation($v: String!) { addCorrelationExclusion(value: $v) { id } }`, { v: body.value });
      expect(twin.errors?.[0].extensions, what).toMatchObject({ code: rest.body.code, status: rest.status });
    }
    const denied = await gql(analyst, `mutation { addCorrelationExclusion(value: "%.x.example") { id } }`);
    expect(denied.errors[0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });

    const id = added.data.addCorrelationExclusion.id;
    expect((await gql(analyst, `mutation($id: Int!) { deleteCorrelationExclusion(id: $id) }`, { id })).errors[0].extensions.status).toBe(403);
    expect((await gql(admin, `mutation($id: Int!) { deleteCorrelationExclusion(id: $id) }`, { id })).data.deleteCorrelationExclusion).toBe(true);
    expect((await app.http.get("/correlations/exclusions", { token: admin.token })).body.map((x: any) => x.id)).not.toContain(id);
    const again = await gql(admin, `mutation($id: Int!) { deleteCorrelationExclusion(id: $id) }`, { id });
    const restAgain = await app.http.delete(`/correlations/exclusions/${id}`, { token: admin.token });
    expect(again.errors[0].extensions).toMatchObject({ code: restAgain.body.code, status: restAgain.status });
  });

  it("searchCorrelations answers what GET /correlations/search answers", async () => {
    for (const [user, query] of [
      [analyst, `"${values[0]}"`],
      [outsider, `"${values[3]}"`],
      [outsider, `"${values[0]}"`],
      [admin, "match_type:term"],
    ] as const) {
      const rest = await app.http.get(`/correlations/search?query=${encodeURIComponent(query)}&size=100`, { token: user.token });
      expect(rest.status).toBe(200);
      const twin = await gql(user, `query($q: String!) { searchCorrelations(query: $q, size: 100) { total totalRelation hits { index id score source } } }`, { q: query });
      expect(twin.data.searchCorrelations).toEqual({
        total: rest.body.total,
        totalRelation: rest.body.total_relation,
        hits: rest.body.results.map((r: any) => ({ index: r._index, id: r._id, score: r._score, source: r._source })),
      });
    }
    expect((await app.http.get(`/correlations/search?query=${encodeURIComponent(`"${values[0]}"`)}`, { token: outsider.token })).body.total).toBe(0);
  });
});

describe("DELETE /correlations/", () => {
  it("deletes every pair, announces each removal, empties the index, is audited; a rebuild restores the pairs; the GraphQL twin does the same", async () => {
    expect((await app.http.delete("/correlations/", { token: analyst.token })).status).toBe(403);
    expect((await gql(analyst, "mutation { deleteCorrelations { deleted } }")).errors[0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect((await app.http.delete("/correlations/?force=true", { token: admin.token })).status).toBe(422);

    const before = await pairKeys();
    expect(before.length).toBe(4);
    const since = await lastChangeId();
    const res = await app.http.delete("/correlations/", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ message: "Correlations index deleted successfully.", deleted: before.length, cancelled_rebuilds: [] });
    expect(await pairCount()).toBe(0);
    const removals = await q("SELECT count(*)::int AS n FROM change_records WHERE kind = 'attribute.correlation.deleted' AND id > $1", [since]);
    expect(removals.rows[0].n).toBe(before.length);
    await settled(app);
    expect((await app.http.get("/correlations/?size=1", { token: admin.token })).body.total).toBe(0);
    expect((await app.http.get("/correlations/stats", { token: admin.token })).body).toEqual({ top_correlated_events: [], top_correlated_attributes: [], total_correlations: 0, top_correlated_values: [] });
    expect((await app.http.get("/correlations/histogram", { token: admin.token })).body).toEqual({ buckets: [] });
    expect((await app.http.get(`/correlations/events/${ev.A}/top`, { token: admin.token })).body).toEqual([]);
    expect((await gql(admin, RELATED, { u: ev.A })).data.event.relatedEvents).toEqual([]);
    const audit = await app.http.get("/admin/audit-logs/?action=correlations.deleted", { token: admin.token });
    const entries = audit.body.items ?? audit.body;
    expect(entries[0]).toMatchObject({ action: "correlations.deleted", metadata: { pairs: before.length, cancelled_rebuilds: [], completed: true } });

    // A rebuild finds the same pairs again, and announces each as new: the log said it was removed.
    const sinceDelete = await lastChangeId();
    expect((await app.http.post("/correlations/run", { token: admin.token })).status).toBe(202);
    await settled(app);
    expect(await pairKeys()).toEqual(before);
    const announced = await q("SELECT count(*)::int AS n FROM change_records WHERE kind = 'attribute.correlation.created' AND id > $1", [sinceDelete]);
    expect(announced.rows[0].n).toBe(before.length);
    expect((await app.http.get("/correlations/?size=1", { token: admin.token })).body.total).toBe(2 * before.length);

    const twin = await gql(admin, "mutation { deleteCorrelations { deleted cancelledRebuilds } }");
    expect(twin.data.deleteCorrelations).toEqual({ deleted: before.length, cancelledRebuilds: [] });
    await settled(app);
    expect(await pairCount()).toBe(0);
    expect((await app.http.get("/correlations/?size=1", { token: admin.token })).body.total).toBe(0);
  }, 60_000);
});
