/**
 * Notifications end to end (ROLE=all): follows in the user setting, every change type of spec 6.2
 * (but the hunt ones) produced by the real change that triggers it with its payload, two followers,
 * exactly once, recipients who may not read get nothing, the REST routes, and live delivery over
 * graphql-ws.
 */
import crypto from "node:crypto";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { settled } from "../support/settled.ts";
import { notifyChangeRange } from "../../src/modules/notifications/notifier.ts";

let app: TestApp;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
let outsider: TestUser; // another organisation: may not read distribution-0 events
let noEvents: TestUser; // a role without events:read

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const uuid = () => crypto.randomUUID();

async function follow(user: TestUser, lists: Partial<Record<"events" | "attributes" | "objects" | "organisations", string[]>>): Promise<void> {
  const res = await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [], attributes: [], objects: [], organisations: [], ...lists } } });
  if (res.status !== 200) throw new Error(res.text);
}

async function notificationsOf(user: TestUser, extra = ""): Promise<{ id: number; type: string; payload: Record<string, unknown>; entity_uuid: string; read: boolean }[]> {
  const res = await app.http.get(`/notifications?size=100${extra}`, { token: user.token });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.items;
}

const typesOf = async (user: TestUser) => (await notificationsOf(user)).map((n) => n.type).sort();

async function clearAll(...users: TestUser[]) {
  await settled(app);
  for (const u of users) await app.http.delete("/notifications/all", { token: u.token });
}

beforeAll(async () => {
  app = await startTestApp("notifications", { ROLE: "all" });
  admin = await loginAdmin(app);
  alice = await createUser(app, admin, 3);
  bob = await createUser(app, admin, 3);
  outsider = await createUser(app, admin, 3, await createOrganisation(app, admin));
  noEvents = await createUser(app, admin, await createRole(app, admin, ["notifications:read", "user_settings:update", "user_settings:read"]));
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("the notification types", () => {
  const eventUuid = uuid();
  const attributeUuid = uuid();
  const objectUuid = uuid();
  let orgUuid: string;
  const longValue = "a-very-long-indicator-value-that-must-not-be-cut.example.com";

  beforeAll(async () => {
    orgUuid = (await app.http.get(`/organisations/${admin.orgId}`, { token: admin.token })).body.uuid;
    await follow(alice, { events: [eventUuid], attributes: [attributeUuid], objects: [objectUuid], organisations: [orgUuid] });
    await follow(bob, { events: [eventUuid] });
    for (const u of [outsider, noEvents]) await follow(u, { events: [eventUuid], attributes: [attributeUuid] });
  });

  it("event.created and organisation.event.created, to each follower once, with the event payload; nothing to those who may not read it", async () => {
    const res = await app.http.post("/events/", { token: admin.token, json: { uuid: eventUuid, info: "Followed before it existed", distribution: 0 } });
    expect(res.status, res.text).toBe(201);
    await settled(app);
    expect(await typesOf(alice)).toEqual(["event.created", "organisation.event.created"]);
    expect(await typesOf(bob)).toEqual(["event.created"]);
    const [n] = await notificationsOf(bob);
    expect(n).toMatchObject({ entity_uuid: eventUuid, read: false, payload: { event_uuid: eventUuid, event_name: "Followed before it existed", organisation_uuid: orgUuid } });
    expect(await typesOf(outsider)).toEqual([]);
    expect(await typesOf(noEvents)).toEqual([]);
  });

  it("event.updated (an edit, a publish, a tag) and organisation.event.updated", async () => {
    await clearAll(alice, bob);
    await app.http.patch(`/events/${eventUuid}`, { token: admin.token, json: { info: "Renamed" } });
    await settled(app);
    expect(await typesOf(alice)).toEqual(["event.updated", "organisation.event.updated"]);
    expect((await notificationsOf(bob))[0].payload.event_name).toBe("Renamed");
    await app.http.post(`/events/${eventUuid}/publish`, { token: admin.token });
    await app.http.post(`/events/${eventUuid}/tag/tlp:amber`, { token: admin.token });
    await settled(app);
    expect(await typesOf(bob)).toEqual(["event.updated", "event.updated", "event.updated"]);
  });

  it("attribute.created, event.attribute.created; attribute.updated, event.attribute.updated: values untruncated", async () => {
    await clearAll(alice, bob);
    const res = await app.http.post("/attributes/", { token: admin.token, json: { uuid: attributeUuid, event_uuid: eventUuid, type: "domain", value: longValue } });
    expect(res.status, res.text).toBe(201);
    await settled(app);
    expect(await typesOf(alice)).toEqual(["attribute.created", "event.attribute.created"]);
    expect(await typesOf(bob)).toEqual(["event.attribute.created"]);
    expect((await notificationsOf(alice))[0].payload).toMatchObject({ event_uuid: eventUuid, event_title: "Renamed", attribute_value: longValue, attribute_type: "domain", attribute_uuid: attributeUuid });
    await clearAll(alice, bob);
    await app.http.patch(`/attributes/${attributeUuid}`, { token: admin.token, json: { comment: "checked" } });
    await settled(app);
    expect(await typesOf(alice)).toEqual(["attribute.updated", "event.attribute.updated"]);
  });

  it("attribute.sighting.created and attribute.correlation.created", async () => {
    await clearAll(alice, bob);
    const s = await app.http.post("/sightings/", { token: admin.token, json: { value: longValue, attribute_uuid: attributeUuid, source: "sensor" } });
    expect(s.status, s.text).toBeLessThan(300);
    await settled(app);
    const sighting = (await notificationsOf(alice)).find((n) => n.type === "attribute.sighting.created")!;
    expect(sighting.payload).toMatchObject({ sighting_value: longValue, attribute_uuid: attributeUuid, attribute_type: "domain", sighting_type: "sighting" });
    await clearAll(alice, bob);
    const other = await app.http.post("/events/", { token: admin.token, json: { info: "Another event with the value", distribution: 0 } });
    const otherAttr = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: other.body.uuid, type: "domain", value: longValue } });
    await settled(app);
    const corr = (await notificationsOf(alice)).filter((n) => n.type === "attribute.correlation.created");
    expect(corr).toHaveLength(1);
    expect(corr[0].payload).toMatchObject({
      source_attribute_uuid: attributeUuid,
      source_event_uuid: eventUuid,
      target_event_uuid: other.body.uuid,
      target_attribute_uuid: otherAttr.body.uuid,
      target_attribute_type: "domain",
      target_attribute_value: longValue,
    });
  });

  it("object.created, event.object.created, object.attribute.created, object.updated, event.object.updated", async () => {
    await clearAll(alice, bob);
    const res = await app.http.post("/objects/", {
      token: admin.token,
      json: { uuid: objectUuid, event_uuid: eventUuid, name: "domain-ip", attributes: [{ type: "domain", value: "obj.example.org", object_relation: "domain" }] },
    });
    expect(res.status, res.text).toBe(201);
    await settled(app);
    const types = await typesOf(alice);
    expect(types).toEqual(expect.arrayContaining(["object.created", "event.object.created", "object.attribute.created", "event.attribute.created"]));
    expect((await notificationsOf(alice)).find((n) => n.type === "object.created")!.payload).toMatchObject({ object_uuid: objectUuid, object_name: "domain-ip", event_uuid: eventUuid });
    await clearAll(alice, bob);
    await app.http.patch(`/objects/${objectUuid}`, { token: admin.token, json: { comment: "reviewed" } });
    await settled(app);
    expect(await typesOf(alice)).toEqual(expect.arrayContaining(["object.updated", "event.object.updated"]));
    expect(await typesOf(bob)).toEqual(["event.object.updated"]);
  });

  it("attribute.deleted, event.attribute.deleted, then event.deleted; nothing twice when the job runs again", async () => {
    await clearAll(alice, bob);
    await app.http.delete(`/attributes/${attributeUuid}`, { token: admin.token });
    await settled(app);
    expect(await typesOf(alice)).toEqual(["attribute.deleted", "event.attribute.deleted"]);
    await clearAll(alice, bob);
    expect((await app.http.delete(`/events/${eventUuid}?force=true`, { token: admin.token })).status).toBe(204);
    await settled(app);
    const bobs = await notificationsOf(bob);
    expect(bobs.map((n) => n.type)).toContain("event.deleted");
    expect(bobs.find((n) => n.type === "event.deleted")!.payload).toMatchObject({ event_uuid: eventUuid, event_name: "Renamed" });
    // At-least-once jobs, exactly-once rows: run the notifier over every change again.
    const before = (await q("SELECT count(*)::int AS n FROM notifications")).rows[0].n;
    const range = (await q("SELECT min(id)::int AS a, max(id)::int AS b FROM change_records")).rows[0];
    expect(await notifyChangeRange(app.booted.ctx.db.pool, app.booted.ctx.pubsub, range.a, range.b)).toBe(0);
    expect((await q("SELECT count(*)::int AS n FROM notifications")).rows[0].n).toBe(before);
  });
});

describe("a range where one event among many is followed", () => {
  it("notifies exactly its follower, with the payloads, and the follower of an object in another event of the same range", async () => {
    const carol = await createUser(app, admin, 3);
    const dave = await createUser(app, admin, 3);
    await clearAll(alice, bob, outsider, noEvents);
    const first = (await q("SELECT coalesce(max(id), 0)::int AS n FROM change_records")).rows[0].n + 1;
    const events: { uuid: string; attribute: string }[] = [];
    for (let i = 0; i < 6; i++) {
      const e = await app.http.post("/events/", { token: admin.token, json: { info: `Range event ${i}`, distribution: 0 } });
      expect(e.status, e.text).toBe(201);
      const a = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: e.body.uuid, type: "domain", value: `range-${i}.example.net` } });
      expect(a.status, a.text).toBe(201);
      events.push({ uuid: e.body.uuid, attribute: a.body.uuid });
    }
    const objectUuid = uuid();
    const o = await app.http.post("/objects/", {
      token: admin.token,
      json: { uuid: objectUuid, event_uuid: events[4].uuid, name: "domain-ip", attributes: [{ type: "domain", value: "range-object.example.net", object_relation: "domain" }] },
    });
    expect(o.status, o.text).toBe(201);
    await settled(app);
    const last = (await q("SELECT max(id)::int AS n FROM change_records")).rows[0].n;
    await clearAll(alice); // she follows the organisation: the jobs told her of the six events
    // Followed only now: the jobs found no follower, so the range's rows come from this run alone.
    await follow(carol, { events: [events[2].uuid] });
    await follow(dave, { objects: [objectUuid] });
    await follow(outsider, { events: [events[2].uuid] });
    expect(await notifyChangeRange(app.booted.ctx.db.pool, app.booted.ctx.pubsub, first, last)).toBe(4);
    const carols = await notificationsOf(carol);
    expect(carols.map((n) => n.type).sort()).toEqual(["event.attribute.created", "event.created"]);
    expect(carols.find((n) => n.type === "event.created")).toMatchObject({ entity_uuid: events[2].uuid, payload: { event_uuid: events[2].uuid, event_name: "Range event 2" } });
    expect(carols.find((n) => n.type === "event.attribute.created")).toMatchObject({
      entity_uuid: events[2].attribute,
      payload: { event_uuid: events[2].uuid, event_title: "Range event 2", attribute_uuid: events[2].attribute, attribute_value: "range-2.example.net", attribute_type: "domain" },
    });
    const daves = await notificationsOf(dave);
    expect(daves.map((n) => n.type).sort()).toEqual(["object.attribute.created", "object.created"]);
    expect(daves.find((n) => n.type === "object.attribute.created")!.payload).toMatchObject({ event_uuid: events[4].uuid, object_uuid: objectUuid, attribute_value: "range-object.example.net" });
    for (const u of [alice, bob, outsider, noEvents]) expect(await typesOf(u)).toEqual([]);

    // A record that does not name the attribute's object (as one written before writers did): the
    // object's follower is still found, through the attribute's row.
    const inObject = (await q("SELECT a.uuid::text FROM attributes a JOIN objects o ON o.id = a.object_id WHERE o.uuid = $1", [objectUuid])).rows[0].uuid;
    const record = await q(
      "INSERT INTO change_records (kind, entity_type, entity_uuid, event_uuid, actor_type) VALUES ('attribute.updated', 'attribute', $1, $2, 'system') RETURNING id::int",
      [inObject, events[4].uuid],
    );
    await app.http.delete("/notifications/all", { token: dave.token });
    const id = record.rows[0].id;
    expect(await notifyChangeRange(app.booted.ctx.db.pool, app.booted.ctx.pubsub, id, id)).toBe(1);
    const [n] = await notificationsOf(dave);
    expect(n).toMatchObject({ type: "object.attribute.created", payload: { object_uuid: objectUuid, attribute_uuid: inObject, attribute_value: "range-object.example.net" } });
  });
});

describe("REST routes", () => {
  let eventUuid: string;
  beforeAll(async () => {
    const e = await app.http.post("/events/", { token: admin.token, json: { info: "rest routes", distribution: 1 } });
    eventUuid = e.body.uuid;
    await follow(alice, { events: [eventUuid] });
    await follow(bob, { events: [eventUuid] });
    await clearAll(alice, bob);
    for (let i = 0; i < 3; i++) await app.http.patch(`/events/${eventUuid}`, { token: admin.token, json: { info: `rest routes ${i}` } });
    await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: eventUuid, type: "ip-dst", value: "198.51.100.200" } });
    await settled(app);
  });

  it("lists newest first with type, read and filter; reads, deletes; another user's id is 404; a bad id 422", async () => {
    const all = await app.http.get("/notifications?size=2", { token: alice.token });
    expect(all.body).toMatchObject({ total: 4, page: 1, size: 2, pages: 2 });
    expect(all.body.items[0].type).toBe("event.attribute.created");
    expect((await notificationsOf(alice, "&type=event.updated")).length).toBe(3);
    expect((await notificationsOf(alice, "&filter=ATTRIBUTE")).length).toBe(1);
    const first = all.body.items[0].id;
    expect((await app.http.patch(`/notifications/${first}/read`, { token: alice.token })).body).toEqual({ status: "success" });
    expect((await notificationsOf(alice, "&read=true")).map((n) => n.id)).toEqual([first]);
    expect((await app.http.patch(`/notifications/${first}/read`, { token: bob.token })).status).toBe(404);
    expect((await app.http.delete(`/notifications/${first}`, { token: bob.token })).status).toBe(404);
    for (const bad of ["abc", "1.5", "-1", "0", "99999999999"]) {
      const res = await app.http.patch(`/notifications/${bad}/read`, { token: alice.token });
      expect(res.status, bad).toBe(422);
      expect(res.body.detail[0].loc).toEqual(["path", "notification_id"]);
    }
    expect((await app.http.patch("/notifications/all/read", { token: alice.token })).status).toBe(200);
    expect((await notificationsOf(alice, "&read=false")).length).toBe(0);
    expect((await notificationsOf(bob, "&read=false")).length).toBe(4);
    expect((await app.http.delete(`/notifications/${first}`, { token: alice.token })).body).toEqual({ status: "success" });
    expect((await notificationsOf(alice)).length).toBe(3);
    expect((await app.http.delete("/notifications/all", { token: alice.token })).status).toBe(200);
    expect((await notificationsOf(alice)).length).toBe(0);
    expect((await notificationsOf(bob)).length).toBe(4);
  });

  it("unfollow removes the uuid from the caller's follow list and deletes the notification in one step", async () => {
    const [n] = await notificationsOf(bob, "&type=event.updated");
    const res = await app.http.patch(`/notifications/${n.id}/unfollow`, { token: bob.token });
    expect(res.body).toEqual({ status: "success" });
    expect((await app.http.get("/settings/user/notifications", { token: bob.token })).body.notifications.follow.events).toEqual([]);
    expect((await notificationsOf(bob)).map((x) => x.id)).not.toContain(n.id);
    await app.http.patch(`/events/${eventUuid}`, { token: admin.token, json: { info: "after unfollow" } });
    await settled(app);
    expect((await notificationsOf(bob, "&type=event.updated")).length).toBe(2);
    expect((await app.http.patch(`/notifications/${n.id}/unfollow`, { token: bob.token })).status).toBe(404);
  });

  it("follow lists are validated and bounded", async () => {
    const bad = await app.http.post("/settings/user/notifications", { token: alice.token, json: { follow: { events: ["not-a-uuid"] } } });
    expect(bad.status).toBe(422);
    const many = Array.from({ length: 100_000 }, () => crypto.randomUUID());
    const huge = await app.http.post("/settings/user/notifications", { token: alice.token, json: { follow: { events: many } } });
    expect([413, 422]).toContain(huge.status);
    expect(await app.http.get("/healthz")).toMatchObject({ status: 200 });
  });
});

describe("live delivery over graphql-ws", () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
  });

  it("a subscriber gets its own new notifications within a second, and nobody else's", async () => {
    const e = await app.http.post("/events/", { token: admin.token, json: { info: "live", distribution: 1 } });
    await follow(alice, { events: [e.body.uuid] });
    await follow(bob, {});
    await settled(app);
    const received: { user: string; type: string; at: number }[] = [];
    const subscribe = (user: TestUser, name: string) => {
      const client = createClient({ url: `${app.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${user.token}` }, retryAttempts: 0 });
      clients.push(client);
      client.subscribe<{ notificationCreated: { type: string } }>(
        { query: "subscription { notificationCreated { id type payload { __typename ... on EventNotificationPayload { eventUuid eventName } } } }" },
        { next: (r) => r.data && received.push({ user: name, type: r.data.notificationCreated.type, at: Date.now() }), error: () => undefined, complete: () => undefined },
      );
    };
    const before = app.booted.ctx.pubsub.subscriberCount();
    subscribe(alice, "alice");
    subscribe(bob, "bob");
    await eventually(() => app.booted.ctx.pubsub.subscriberCount() >= before + 2 || undefined, "both subscriptions started", 10_000, 10);
    const changed = Date.now();
    await app.http.patch(`/events/${e.body.uuid}`, { token: admin.token, json: { info: "live, changed" } });
    const got = await eventually(() => received.find((r) => r.user === "alice"), "alice's notification", 5000, 20);
    expect(got.type).toBe("event.updated");
    expect(got.at - changed).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 500));
    expect(received.filter((r) => r.user === "bob")).toEqual([]);
  });

  it("a subscription is closed (4403) when its API key is disabled or its user is disabled", async () => {
    const dave = await createUser(app, admin, 3);
    const key = await app.http.post("/api-keys/", { token: dave.token, json: { name: "live", scopes: ["notifications:read"] } });
    expect(key.status, key.text).toBe(201);
    const open = (authorization: string) =>
      new Promise<{ closed: Promise<number> }>((resolveOpen) => {
        let resolveClosed: (code: number) => void;
        const closed = new Promise<number>((r) => (resolveClosed = r));
        const client = createClient({
          url: `${app.url.replace(/^http/, "ws")}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: { authorization },
          retryAttempts: 0,
          on: { connected: () => resolveOpen({ closed }), closed: (ev) => resolveClosed((ev as { code: number }).code) },
        });
        clients.push(client);
        client.subscribe({ query: "subscription { unreadNotificationCount }" }, { next: () => undefined, error: () => undefined, complete: () => undefined });
      });
    const byKey = await open(`Bearer ${key.body.token}`);
    const byJwt = await open(`Bearer ${dave.token}`);
    const started = Date.now();
    expect((await app.http.patch(`/api-keys/${key.body.id}`, { token: dave.token, json: { disabled: true } })).status).toBe(200);
    expect(await byKey.closed).toBe(4403);
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await app.http.patch(`/users/${dave.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    expect(await byJwt.closed).toBe(4403);
  });

  it("a subscription without or with a wrong credential is closed and gets nothing", async () => {
    for (const authorization of [undefined, "Bearer not-a-token"]) {
      const closed = await new Promise<number>((resolve) => {
        const client = createClient({
          url: `${app.url.replace(/^http/, "ws")}/graphql`,
          webSocketImpl: WebSocket,
          connectionParams: authorization ? { authorization } : {},
          retryAttempts: 0,
          on: { closed: (ev) => resolve((ev as { code: number }).code) },
        });
        clients.push(client);
        client.subscribe({ query: "subscription { notificationCreated { id } }" }, { next: () => resolve(-1), error: () => undefined, complete: () => undefined });
      });
      expect([4401, 4403]).toContain(closed);
    }
  });
});

describe("hunt results (the function the hunts module calls)", () => {
  it("one row per run and type for the owner, announced; unfollow answers error", async () => {
    const pool = app.booted.ctx.db.pool;
    const { notifyHuntResult } = await import("../../src/modules/notifications/notifier.ts");
    await clearAll(bob);
    const payload = { hunt_id: 7, hunt_name: "c2 domains", total: 3, previous_total: null, new_hits: ["a", "b", "c"], new_hit_count: 3 };
    const alert = { type: "hunt.result.first_run" as const, huntId: 7, ownerId: bob.id, runId: "41", payload };
    expect(await notifyHuntResult(pool, app.booted.ctx.pubsub, alert)).toBe(true);
    expect(await notifyHuntResult(pool, app.booted.ctx.pubsub, alert)).toBe(false);
    const changed = { ...payload, total: 4, previous_total: 3, new_hits: ["d"], new_hit_count: 1 };
    expect(await notifyHuntResult(pool, app.booted.ctx.pubsub, { ...alert, type: "hunt.result.changed", runId: "42", payload: changed })).toBe(true);
    const rows = await notificationsOf(bob);
    expect(rows.map((r) => [r.type, r.payload])).toEqual([
      ["hunt.result.changed", changed],
      ["hunt.result.first_run", payload],
    ]);
    expect((await app.http.patch(`/notifications/${rows[0].id}/unfollow`, { token: bob.token })).body).toEqual({ status: "error" });
    expect(await notificationsOf(bob)).toHaveLength(2);
  });
});
