/**
 * Soft delete (issue 21), as the peer: DELETE without `force` flags events, attributes and objects
 * `deleted`; they stay readable, lists show them unless `deleted=false` (objects: only with
 * `deleted=true`), search, correlations and hunts leave them out, followers of a deleted event are not
 * told; a restore brings back documents and pairs; `force=true` deletes for good; retention ignores
 * soft-deleted events and `purge_deleted` removes those deleted longer ago than its setting.
 * ROLE=all: indexing, correlation and notifications run in the worker, as in production.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";

let app: TestApp;
let admin: TestUser;
let analyst: TestUser;
let readOnly: TestUser;
let follower: TestUser;

const SHARED_DOMAIN = `shared-${crypto.randomBytes(4).toString("hex")}.example`;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const count = async (sql: string, params: unknown[] = []) => Number((await q(sql, params)).rows[0].n);

interface Made {
  event: string;
  attribute: string;
  object: string;
  objectAttribute: string;
}

/** An event with a standalone attribute holding the shared domain and an object of one attribute. */
async function makeEvent(info: string, extraDomain = SHARED_DOMAIN): Promise<Made> {
  const made = { event: crypto.randomUUID(), attribute: crypto.randomUUID(), object: crypto.randomUUID(), objectAttribute: crypto.randomUUID() };
  const res = await app.http.post("/events/import", {
    token: analyst.token,
    json: {
      Event: {
        uuid: made.event, info, distribution: 1, date: "2026-11-01",
        Attribute: [{ uuid: made.attribute, type: "domain", category: "Network activity", value: extraDomain, to_ids: true }],
        Object: [
          {
            uuid: made.object, name: "domain-ip", meta_category: "network", template_uuid: "43b3b146-77eb-4931-b4cc-b66c60f28734", template_version: 9,
            Attribute: [{ uuid: made.objectAttribute, type: "ip-dst", category: "Network activity", value: "198.51.100.77", object_relation: "ip" }],
          },
        ],
      },
    },
  });
  expect(res.status, res.text).toBe(201);
  return made;
}

async function search(index: "events" | "attributes", query: string, includeDeleted = false): Promise<{ total: number; ids: string[]; sources: Record<string, any>[] }> {
  const res = await app.http.get(`/${index}/search?query=${encodeURIComponent(query)}&size=100${includeDeleted ? "&include_deleted=true" : ""}`, { token: admin.token });
  expect(res.status, res.text).toBe(200);
  return { total: res.body.total, ids: res.body.results.map((h: { _id: string }) => h._id), sources: res.body.results.map((h: { _source: Record<string, any> }) => h._source) };
}

const pairsOf = (eventUuid: string) =>
  count(
    `SELECT count(*) AS n FROM correlations c JOIN events e ON e.id IN (c.source_event_id, c.target_event_id) WHERE e.uuid = $1`,
    [eventUuid],
  );

const gql = async (user: TestUser, query: string, variables: Record<string, unknown> = {}) => {
  const res = await app.http.post("/graphql", { token: user.token, json: { query, variables } });
  expect(res.status, res.text).toBe(200);
  return res.body as { data?: Record<string, any>; errors?: { message: string; extensions?: { status?: number } }[] };
};

beforeAll(async () => {
  app = await startTestApp("soft-delete", { ROLE: "all" });
  admin = await loginAdmin(app);
  // The built-in "user" role may not delete events; an org admin may, in their organisation.
  analyst = await createUser(app, admin, 2);
  readOnly = await createUser(app, admin, 4);
  follower = await createUser(app, admin, 3);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe("events", () => {
  let a: Made;
  let b: Made;

  beforeAll(async () => {
    a = await makeEvent("soft delete A");
    b = await makeEvent("soft delete B");
    const res = await app.http.post("/settings/user/notifications", { token: follower.token, json: { follow: { events: [a.event], attributes: [a.attribute], objects: [], organisations: [] } } });
    expect(res.status, res.text).toBe(200);
    await settled(app, 60_000);
  }, 120_000);

  it("DELETE without force flags the event: readable with deleted true, listed unless deleted=false, refused to a read-only user", async () => {
    expect(await pairsOf(a.event)).toBeGreaterThan(0);
    const notificationsBefore = await count("SELECT count(*) AS n FROM notifications WHERE user_id = $1", [follower.id]);
    expect((await app.http.delete(`/events/${a.event}`, { token: readOnly.token })).status).toBe(403);
    const res = await app.http.delete(`/events/${a.event}`, { token: analyst.token });
    expect(res.status, res.text).toBe(204);
    // Twice: nothing more happens.
    expect((await app.http.delete(`/events/${a.event}`, { token: analyst.token })).status).toBe(204);
    expect(await count("SELECT count(*) AS n FROM change_records WHERE entity_uuid = $1 AND kind = 'event.soft_deleted'", [a.event])).toBe(1);

    const got = await app.http.get(`/events/${a.event}`, { token: analyst.token });
    expect(got.status).toBe(200);
    expect(got.body.deleted).toBe(true);
    const listed = async (query: string) => (await app.http.get(`/events/?size=100${query}`, { token: analyst.token })).body.items.map((e: { uuid: string }) => e.uuid);
    expect(await listed("")).toEqual(expect.arrayContaining([a.event, b.event]));
    expect(await listed("&deleted=false")).not.toContain(a.event);
    expect(await listed("&deleted=false")).toContain(b.event);
    expect(await listed("&deleted=true")).toEqual([a.event]);
    const g = await gql(analyst, `query($u: String!) { event(uuid: $u) { deleted deletedAt } events(deleted: false, size: 100) { items { uuid } } }`, { u: a.event });
    expect(g.data!.event.deleted).toBe(true);
    expect(Date.parse(g.data!.event.deletedAt)).toBeGreaterThan(Date.now() - 120_000);
    expect(g.data!.events.items.map((e: { uuid: string }) => e.uuid)).not.toContain(a.event);

    await settled(app, 60_000);
    // Search leaves the event and all its attributes out, unless asked.
    expect((await search("events", `uuid:"${a.event}"`)).total).toBe(0);
    const withDeleted = await search("events", `uuid:"${a.event}"`, true);
    expect(withDeleted.ids).toEqual([a.event]);
    expect(withDeleted.sources[0].deleted).toBe(true);
    expect((await search("attributes", `event_uuid:"${a.event}"`)).total).toBe(0);
    const attrs = await search("attributes", `event_uuid:"${a.event}"`, true);
    expect(attrs.ids.sort()).toEqual([a.attribute, a.objectAttribute].sort());
    expect(attrs.sources.every((s) => s.deleted === true)).toBe(true);
    // B's attribute still holds the value, but no pair reaches the deleted event.
    expect(await pairsOf(a.event)).toBe(0);
    expect((await search("attributes", `value:"${SHARED_DOMAIN}"`)).ids).toEqual([b.attribute]);
    // Its follower is not told (the peer's soft delete notifies nobody).
    expect(await count("SELECT count(*) AS n FROM notifications WHERE user_id = $1", [follower.id])).toBe(notificationsBefore);
  });

  it("PATCH {deleted: false} restores: documents and pairs come back; restoring twice changes nothing", async () => {
    expect((await app.http.patch(`/events/${a.event}`, { token: readOnly.token, json: { deleted: false } })).status).toBe(403);
    const res = await app.http.patch(`/events/${a.event}`, { token: analyst.token, json: { deleted: false } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.deleted).toBe(false);
    expect((await app.http.patch(`/events/${a.event}`, { token: analyst.token, json: { deleted: false } })).status).toBe(200);
    expect(await count("SELECT count(*) AS n FROM change_records WHERE entity_uuid = $1 AND kind = 'event.restored'", [a.event])).toBe(1);
    await settled(app, 60_000);
    expect((await search("events", `uuid:"${a.event}"`)).ids).toEqual([a.event]);
    expect((await search("attributes", `event_uuid:"${a.event}"`)).total).toBe(2);
    expect(await pairsOf(a.event)).toBeGreaterThan(0);
    expect((await search("attributes", `value:"${SHARED_DOMAIN}"`)).ids.sort()).toEqual([a.attribute, b.attribute].sort());
  });

  it("GraphQL: deleteEvent soft-deletes, restoreEvent restores, both refused without events:delete", async () => {
    const denied = await gql(readOnly, `mutation($u: String!) { deleteEvent(uuid: $u) }`, { u: a.event });
    expect(denied.errors?.[0].extensions?.status).toBe(403);
    expect((await gql(analyst, `mutation($u: String!) { deleteEvent(uuid: $u) }`, { u: a.event })).data!.deleteEvent).toBe(true);
    expect((await app.http.get(`/events/${a.event}`, { token: analyst.token })).body.deleted).toBe(true);
    expect((await gql(readOnly, `mutation($u: String!) { restoreEvent(uuid: $u) { deleted } }`, { u: a.event })).errors?.[0].extensions?.status).toBe(403);
    const restored = await gql(analyst, `mutation($u: String!) { restoreEvent(uuid: $u) { uuid deleted deletedAt } }`, { u: a.event });
    expect(restored.data!.restoreEvent).toEqual({ uuid: a.event, deleted: false, deletedAt: null });
    await settled(app, 60_000);
    expect((await search("events", `uuid:"${a.event}"`)).total).toBe(1);
  });

  it("changes inside a soft-deleted event notify nobody; the same change in a live event does", async () => {
    const live = await makeEvent("followed and live", `live-${crypto.randomUUID()}.example`);
    const trashed = await makeEvent("followed and deleted", `trashed-${crypto.randomUUID()}.example`);
    const res = await app.http.post("/settings/user/notifications", { token: follower.token, json: { follow: { events: [live.event, trashed.event], attributes: [], objects: [], organisations: [] } } });
    expect(res.status, res.text).toBe(200);
    expect((await app.http.delete(`/events/${trashed.event}`, { token: analyst.token })).status).toBe(204);
    await settled(app, 60_000);
    const about = (uuid: string) => count("SELECT count(*) AS n FROM notifications WHERE user_id = $1 AND payload->>'event_uuid' = $2", [follower.id, uuid]);
    const before = { live: await about(live.event), trashed: await about(trashed.event) };
    for (const e of [live, trashed]) {
      const added = await app.http.post("/attributes/", { token: analyst.token, json: { event_uuid: e.event, type: "domain", value: `added-${crypto.randomUUID()}.example` } });
      expect(added.status, added.text).toBe(201);
    }
    await settled(app, 60_000);
    expect(await about(live.event)).toBeGreaterThan(before.live);
    expect(await about(trashed.event)).toBe(before.trashed);
  });

  it("retention leaves soft-deleted events to purge_deleted", async () => {
    const old = await makeEvent("old and deleted", `old-${crypto.randomUUID()}.example`);
    await q("UPDATE events SET timestamp = 1000000000 WHERE uuid = $1", [old.event]);
    const preview = async () => (await app.http.get("/events/retention/preview?period_days=3650", { token: admin.token })).body.count;
    const before = await preview();
    expect((await app.http.delete(`/events/${old.event}`, { token: analyst.token })).status).toBe(204);
    expect(await preview()).toBe(before - 1);
  });

  it("force=true deletes for good: 404 afterwards, rows and documents gone", async () => {
    const gone = await makeEvent("hard delete", `gone-${crypto.randomUUID()}.example`);
    await settled(app, 60_000);
    expect((await search("attributes", `event_uuid:"${gone.event}"`)).total).toBe(2);
    for (const force of ["maybe", "2"]) {
      const bad = await app.http.delete(`/events/${gone.event}?force=${force}`, { token: analyst.token });
      expect(bad.status, force).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(["query", "force"]);
    }
    expect((await app.http.delete(`/events/${gone.event}?force=true`, { token: analyst.token })).status).toBe(204);
    expect((await app.http.get(`/events/${gone.event}`, { token: analyst.token })).status).toBe(404);
    expect(await count("SELECT count(*) AS n FROM attributes WHERE uuid = ANY($1::uuid[])", [[gone.attribute, gone.objectAttribute]])).toBe(0);
    await settled(app, 60_000);
    expect((await search("attributes", `event_uuid:"${gone.event}"`, true)).total).toBe(0);
    expect((await search("events", `uuid:"${gone.event}"`, true)).total).toBe(0);
  });
});

describe("attributes and objects", () => {
  let m: Made;

  beforeAll(async () => {
    m = await makeEvent("attributes and objects", `ao-${crypto.randomUUID()}.example`);
    await settled(app, 60_000);
  }, 60_000);

  it("an attribute: soft delete, listed unless deleted=false, restored by PATCH, then force=true removes it", async () => {
    expect((await app.http.delete(`/attributes/${m.attribute}`, { token: analyst.token })).status).toBe(204);
    expect((await app.http.get(`/attributes/${m.attribute}`, { token: analyst.token })).body.deleted).toBe(true);
    const listed = async (query: string) => (await app.http.get(`/attributes/?event_uuid=${m.event}${query}`, { token: analyst.token })).body.items.map((x: { uuid: string }) => x.uuid);
    expect(await listed("")).toEqual([m.attribute]);
    expect(await listed("&deleted=false")).toEqual([]);
    expect(await listed("&deleted=true")).toEqual([m.attribute]);
    await settled(app, 60_000);
    expect((await search("attributes", `uuid:"${m.attribute}"`)).total).toBe(0);

    const restored = await app.http.patch(`/attributes/${m.attribute}`, { token: analyst.token, json: { deleted: false } });
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.deleted).toBe(false);
    await settled(app, 60_000);
    expect((await search("attributes", `uuid:"${m.attribute}"`)).total).toBe(1);

    expect((await app.http.delete(`/attributes/${m.attribute}?force=true`, { token: analyst.token })).status).toBe(204);
    expect((await app.http.get(`/attributes/${m.attribute}`, { token: analyst.token })).status).toBe(404);
    await settled(app, 60_000);
    expect((await search("attributes", `uuid:"${m.attribute}"`, true)).total).toBe(0);
  });

  it("an object: soft delete flags its attributes, objects list leaves it out by default, a restore brings it back whole, force=true removes it with its attributes", async () => {
    expect((await app.http.delete(`/objects/${m.object}`, { token: analyst.token })).status).toBe(204);
    expect((await app.http.get(`/attributes/${m.objectAttribute}`, { token: analyst.token })).body.deleted).toBe(true);
    const objects = async (query: string) => (await app.http.get(`/objects/?event_uuid=${m.event}${query}`, { token: analyst.token })).body.items.map((x: { uuid: string }) => x.uuid);
    expect(await objects("")).toEqual([]);
    expect(await objects("&deleted=true")).toEqual([m.object]);
    await settled(app, 60_000);
    expect((await search("attributes", `uuid:"${m.objectAttribute}"`)).total).toBe(0);

    const restored = await app.http.patch(`/objects/${m.object}`, { token: analyst.token, json: { deleted: false } });
    expect(restored.status, restored.text).toBe(200);
    expect((await app.http.get(`/attributes/${m.objectAttribute}`, { token: analyst.token })).body.deleted).toBe(false);
    await settled(app, 60_000);
    expect((await search("attributes", `uuid:"${m.objectAttribute}"`)).total).toBe(1);

    const gql1 = await gql(analyst, `mutation($u: String!) { deleteObject(uuid: $u, force: true) }`, { u: m.object });
    expect(gql1.data!.deleteObject).toBe(true);
    expect((await app.http.get(`/objects/${m.object}`, { token: analyst.token })).status).toBe(404);
    expect((await app.http.get(`/attributes/${m.objectAttribute}`, { token: analyst.token })).status).toBe(404);
    await settled(app, 60_000);
    expect((await search("attributes", `uuid:"${m.objectAttribute}"`, true)).total).toBe(0);
  });
});

describe("purge_deleted", () => {
  it("removes events soft-deleted longer ago than retention.purge_deleted_after_days, and nothing else", async () => {
    const longAgo = await makeEvent("deleted long ago", `p1-${crypto.randomUUID()}.example`);
    const recently = await makeEvent("deleted recently", `p2-${crypto.randomUUID()}.example`);
    const live = await makeEvent("live and old", `p3-${crypto.randomUUID()}.example`);
    await q("UPDATE events SET timestamp = 1000000000 WHERE uuid = $1", [live.event]);
    for (const e of [longAgo, recently]) expect((await app.http.delete(`/events/${e.event}`, { token: analyst.token })).status).toBe(204);
    await q("UPDATE events SET deleted_at = now() - interval '11 days' WHERE uuid = $1", [longAgo.event]);
    await q("UPDATE events SET deleted_at = now() - interval '9 days' WHERE uuid = $1", [recently.event]);
    const settings = await app.http.get("/settings/runtime/retention", { token: admin.token });
    expect(settings.body.purge_deleted_after_days ?? settings.body.retention?.purge_deleted_after_days).toBe(30);
    const set = await app.http.post("/settings/runtime/retention", {
      token: admin.token,
      json: { enabled: false, period_days: 365, warning_days: 30, exempt_tags: ["retention:exempt"], purge_deleted_after_days: 10 },
    });
    expect(set.status, set.text).toBe(200);

    // An org admin holds no admin-level scope: the task is not theirs to schedule.
    const orgAdmin = await createUser(app, admin, 2);
    const body = { name: "purge", task: "app.worker.tasks.purge_deleted", schedule_type: "crontab", crontab: { minute: "0", hour: "3" } };
    expect((await app.http.post("/tasks/schedule", { token: orgAdmin.token, json: body })).status).toBe(403);
    const scheduled = await app.http.post("/tasks/schedule", { token: admin.token, json: body });
    expect(scheduled.status, scheduled.text).toBe(201);
    const run = await app.http.post(`/tasks/scheduled/${scheduled.body.id}/run`, { token: admin.token });
    expect(run.status, run.text).toBe(202);
    const done = await eventually(async () => {
      const r = await app.http.get(`/tasks/${run.body.task_id}`, { token: admin.token });
      return ["succeeded", "failed"].includes(r.body.status) ? r.body : undefined;
    }, "purge run finished", 60_000, 200);
    expect(done).toMatchObject({ status: "succeeded", result: { purged: 1, attributes: 2, after_days: 10 } });
    expect((await app.http.get(`/events/${longAgo.event}`, { token: analyst.token })).status).toBe(404);
    expect((await app.http.get(`/events/${recently.event}`, { token: analyst.token })).body.deleted).toBe(true);
    expect((await app.http.get(`/events/${live.event}`, { token: analyst.token })).body.deleted).toBe(false);
    await settled(app, 60_000);
    expect((await search("attributes", `event_uuid:"${longAgo.event}"`, true)).total).toBe(0);
    expect((await search("attributes", `event_uuid:"${recently.event}"`, true)).total).toBe(2);
  });
});
