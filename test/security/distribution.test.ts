/**
 * MISP distribution through every read path, on each search backend (src/auth/distribution.ts):
 * organisation A shares an event with everyone (distribution 3) that holds attributes and objects
 * of A's organisation only (0), of the event's level (5) and of the community (1). A user of
 * organisation B reads the shared ones and never the others: REST and GraphQL reads and lists,
 * Explore search, correlations (search, per attribute, related events, statistics), sightings, MISP
 * export, hunts and notifications. A user of A sees everything.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";
import { settled } from "../support/settled.ts";

const uuid = () => crypto.randomUUID();
const tag = crypto.randomBytes(3).toString("hex");
/** Values unique to this run, so that correlations and searches see only this test's data. */
const value = (name: string) => `${name}-${tag}.example.org`;

const SHARED_EVENT = uuid();
const B_EVENT = uuid();
const A = {
  ownOnly: { uuid: uuid(), value: value("own-only"), distribution: 0 },
  inherit: { uuid: uuid(), value: value("inherit"), distribution: 5 },
  community: { uuid: uuid(), value: value("community"), distribution: 1 },
  inHiddenObject: { uuid: uuid(), value: value("in-hidden-object"), distribution: 5 },
  hiddenInSharedObject: { uuid: uuid(), value: value("hidden-in-shared-object"), distribution: 0 },
  sharedInSharedObject: { uuid: uuid(), value: value("shared-in-shared-object"), distribution: 5 },
};
const HIDDEN_OBJECT = uuid();
const SHARED_OBJECT = uuid();
const hidden = [A.ownOnly, A.inHiddenObject, A.hiddenInSharedObject];
const shown = [A.inherit, A.community, A.sharedInSharedObject];

const attribute = (a: { uuid: string; value: string; distribution: number }) => ({
  uuid: a.uuid, type: "domain", category: "Network activity", value: a.value, distribution: String(a.distribution), timestamp: "1700000000", to_ids: true,
});

const sharedEvent = () => ({
  Event: {
    uuid: SHARED_EVENT, info: `shared event ${tag}`, date: "2024-01-01", distribution: "3", analysis: "2", threat_level_id: "2", timestamp: "1700000000", published: false,
    Attribute: [attribute(A.ownOnly), attribute(A.inherit), attribute(A.community)],
    Object: [
      { uuid: HIDDEN_OBJECT, name: "domain-ip", "meta-category": "network", distribution: "0", timestamp: "1700000000", Attribute: [{ ...attribute(A.inHiddenObject), object_relation: "domain" }] },
      {
        uuid: SHARED_OBJECT, name: "domain-ip", "meta-category": "network", distribution: "5", timestamp: "1700000000",
        Attribute: [{ ...attribute(A.hiddenInSharedObject), object_relation: "domain" }, { ...attribute(A.sharedInSharedObject), object_relation: "domain" }],
      },
    ],
  },
});

/** B's own event repeats every value of A's, so each of A's attributes correlates with one of B's. */
const bEvent = () => ({
  Event: {
    uuid: B_EVENT, info: `b event ${tag}`, date: "2024-01-02", distribution: "3", analysis: "2", threat_level_id: "2", timestamp: "1700000000", published: false,
    Attribute: [...hidden, ...shown].map((a) => attribute({ uuid: uuid(), value: a.value, distribution: 5 })),
  },
});

describe.each(SEARCH_BACKENDS)("distribution on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let aUser: TestUser;
  let bUser: TestUser;
  let bFollower: TestUser;

  const get = (path: string, user: TestUser) => app.http.get(path, { token: user.token });
  const gql = async (query: string, variables: Record<string, unknown>, user: TestUser) => {
    const res = await app.http.graphql(query, variables, user.token);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    return res.body.data;
  };
  const searchUuids = async (user: TestUser, q: string) => {
    const res = await get(`/attributes/search?size=100&query=${encodeURIComponent(q)}`, user);
    expect(res.status, res.text).toBe(200);
    return new Set<string>(res.body.results.map((r: { _id: string }) => r._id));
  };

  beforeAll(async () => {
    app = await startTestApp("distribution", { ROLE: "all", ...env() });
    admin = await loginAdmin(app);
    const orgA = await createOrganisation(app, admin);
    const orgB = await createOrganisation(app, admin);
    aUser = await createUser(app, admin, 3, orgA);
    bUser = await createUser(app, admin, 3, orgB);
    bFollower = await createUser(app, admin, 3, orgB);
    // B's follower follows A's event and each of A's attributes before anything changes.
    const follow = await app.http.post("/settings/user/notifications", {
      token: bFollower.token,
      json: { follow: { events: [SHARED_EVENT], attributes: [...hidden, ...shown].map((a) => a.uuid), objects: [HIDDEN_OBJECT, SHARED_OBJECT], organisations: [] }, email_notifications: false },
    });
    expect(follow.status, follow.text).toBeLessThan(300);
    const imported = await app.http.post("/events/import", { token: aUser.token, json: sharedEvent() });
    expect(imported.status, imported.text).toBe(201);
    const importedB = await app.http.post("/events/import", { token: bUser.token, json: bEvent() });
    expect(importedB.status, importedB.text).toBe(201);
    await settled(app, 60_000);
  }, 180_000);
  afterAll(async () => {
    await app?.close();
  });

  it("REST reads: hidden attributes and objects are 404, lists leave them out", async () => {
    for (const a of hidden.filter((x) => x !== A.inHiddenObject && x !== A.hiddenInSharedObject)) expect((await get(`/attributes/${a.uuid}`, bUser)).status).toBe(404);
    for (const a of [A.inHiddenObject, A.hiddenInSharedObject]) expect((await get(`/attributes/${a.uuid}`, bUser)).status, a.value).toBe(404);
    for (const a of shown) expect((await get(`/attributes/${a.uuid}`, bUser)).status, a.value).toBe(200);
    for (const a of [...hidden, ...shown]) expect((await get(`/attributes/${a.uuid}`, aUser)).status).toBe(200);

    const standalone = await get(`/attributes/?event_uuid=${SHARED_EVENT}&size=100`, bUser);
    expect(standalone.body.items.map((a: { uuid: string }) => a.uuid).sort()).toEqual([A.inherit.uuid, A.community.uuid].sort());
    expect((await get(`/attributes/?event_uuid=${SHARED_EVENT}&size=100`, aUser)).body.items).toHaveLength(3);

    expect((await get(`/objects/${HIDDEN_OBJECT}`, bUser)).status).toBe(404);
    const object = await get(`/objects/${SHARED_OBJECT}`, bUser);
    expect(object.status).toBe(200);
    expect(object.body.attributes.map((a: { uuid: string }) => a.uuid)).toEqual([A.sharedInSharedObject.uuid]);
    const objects = await get(`/objects/?event_uuid=${SHARED_EVENT}`, bUser);
    expect(objects.body.items.map((o: { uuid: string }) => o.uuid)).toEqual([SHARED_OBJECT]);
    expect((await get(`/objects/?event_uuid=${SHARED_EVENT}`, aUser)).body.items).toHaveLength(2);
    expect((await get(`/objects/${SHARED_OBJECT}`, aUser)).body.attributes).toHaveLength(2);
  });

  it("writes to a hidden attribute or object answer 404 to another organisation, not 403", async () => {
    expect((await app.http.request("PATCH", `/attributes/${A.ownOnly.uuid}`, { token: bUser.token, json: { comment: "x" } })).status).toBe(404);
    expect((await app.http.request("DELETE", `/objects/${HIDDEN_OBJECT}`, { token: bUser.token })).status).toBe(404);
    expect((await app.http.request("PATCH", `/attributes/${A.inherit.uuid}`, { token: bUser.token, json: { comment: "x" } })).status).toBe(403);
  });

  it("GraphQL reads follow the same rule", async () => {
    const one = await app.http.graphql("query($u: String!) { attribute(uuid: $u) { uuid } }", { u: A.ownOnly.uuid }, bUser.token);
    expect(one.body.errors?.[0]?.extensions?.code).toBe("not_found");
    const data = await gql(
      `query($e: String!, $o: String!) { attributes(eventUuid: $e, size: 100) { items { uuid } } object(uuid: $o) { attributes { uuid } } objects(eventUuid: $e) { items { uuid } } }`,
      { e: SHARED_EVENT, o: SHARED_OBJECT },
      bUser,
    );
    expect(data.attributes.items.map((a: { uuid: string }) => a.uuid).sort()).toEqual([A.inherit.uuid, A.community.uuid].sort());
    expect(data.object.attributes.map((a: { uuid: string }) => a.uuid)).toEqual([A.sharedInSharedObject.uuid]);
    expect(data.objects.items.map((o: { uuid: string }) => o.uuid)).toEqual([SHARED_OBJECT]);
  });

  it("Explore search (REST and GraphQL) finds only what the caller may read", async () => {
    const query = `event_uuid:${SHARED_EVENT}`;
    expect(await searchUuids(bUser, query)).toEqual(new Set(shown.map((a) => a.uuid)));
    expect(await searchUuids(aUser, query)).toEqual(new Set([...hidden, ...shown].map((a) => a.uuid)));
    for (const a of hidden) expect(await searchUuids(bUser, `value:"${a.value}" AND event_uuid:${SHARED_EVENT}`), a.value).toEqual(new Set());
    const data = await gql("query($q: String!) { searchAttributes(query: $q, size: 100) { total } }", { q: query }, bUser);
    expect(data.searchAttributes.total).toBe(shown.length);
    // An event hit counts what the caller may see: hidden attributes are not even counted, nor found by their number.
    const eventHit = async (user: TestUser, q: string) => (await get(`/events/search?query=${encodeURIComponent(q)}`, user)).body.results.map((r: { _source: { attribute_count: number; object_count: number } }) => r._source);
    expect(await eventHit(bUser, `uuid:${SHARED_EVENT}`)).toMatchObject([{ attribute_count: shown.length, object_count: 1 }]);
    expect(await eventHit(aUser, `uuid:${SHARED_EVENT}`)).toMatchObject([{ attribute_count: shown.length + hidden.length, object_count: 2 }]);
    expect(await eventHit(bUser, `uuid:${SHARED_EVENT} AND attribute_count:${shown.length + hidden.length}`)).toEqual([]);
  });

  it("correlations: a pair shows only when the caller may read both attributes", async () => {
    // As admin: every value of A's correlates with B's copy.
    const all = await get(`/correlations/?source_event_uuid=${SHARED_EVENT}&size=100`, admin);
    expect(all.body.total).toBe(hidden.length + shown.length);
    const asB = await get(`/correlations/?source_event_uuid=${SHARED_EVENT}&size=100`, bUser);
    expect(new Set(asB.body.results.map((r: { _source: { source_attribute_uuid: string } }) => r._source.source_attribute_uuid))).toEqual(new Set(shown.map((a) => a.uuid)));
    const asA = await get(`/correlations/?source_event_uuid=${SHARED_EVENT}&size=100`, aUser);
    expect(asA.body.total).toBe(hidden.length + shown.length);

    // The correlations of B's own attributes do not name A's hidden ones.
    const bAttributes = await get(`/attributes/?event_uuid=${B_EVENT}&size=100`, bUser);
    const data = await gql("query($e: String!) { attributes(eventUuid: $e, size: 100) { items { value correlations { source } } } }", { e: B_EVENT }, bUser);
    const named = data.attributes.items.flatMap((a: { correlations: { source: { target_attribute_uuid: string } }[] }) => a.correlations.map((c) => c.source.target_attribute_uuid));
    expect(new Set(named)).toEqual(new Set(shown.map((a) => a.uuid)));
    expect(bAttributes.body.items).toHaveLength(hidden.length + shown.length);

    // Related events count only readable pairs; statistics too.
    const related = await get(`/events/${B_EVENT}`, bUser);
    expect(related.body.related_events.find((e: { uuid: string }) => e.uuid === SHARED_EVENT)?.correlation_count).toBe(shown.length);
    const top = await get(`/correlations/events/${B_EVENT}/top`, bUser);
    expect(top.body.find((e: { key: string }) => e.key === SHARED_EVENT)?.doc_count).toBe(shown.length);
    const stats = (await get("/correlations/stats", bUser)).body;
    const statsA = (await get("/correlations/stats", aUser)).body;
    expect(statsA.total_correlations - stats.total_correlations).toBe(2 * hidden.length);
  });

  it("sightings by value never reach hidden attributes, and their lists leave them out", async () => {
    const res = await app.http.post("/sightings/", { token: bUser.token, json: { value: A.ownOnly.value } });
    expect(res.status, res.text).toBeLessThan(300);
    // B's own copy of the value is sighted, A's hidden attribute is not.
    const listA = await get(`/sightings/?attribute_uuid=${A.ownOnly.uuid}`, aUser);
    expect(listA.body.total).toBe(0);
    expect((await app.http.post("/sightings/", { token: bUser.token, json: { attribute_uuid: A.ownOnly.uuid, value: A.ownOnly.value } })).status).toBe(404);
    expect((await app.http.post("/sightings/", { token: aUser.token, json: { attribute_uuid: A.ownOnly.uuid } })).status).toBeLessThan(300);
    expect((await get(`/sightings/?attribute_uuid=${A.ownOnly.uuid}`, bUser)).body.total).toBe(0);
    expect((await get(`/sightings/?attribute_uuid=${A.ownOnly.uuid}`, aUser)).body.total).toBe(1);
  });

  it("MISP export leaves out what the caller may not read", async () => {
    const exported = (await get(`/events/${SHARED_EVENT}/export`, bUser)).body.Event;
    const uuids = [...exported.Attribute, ...exported.Object.flatMap((o: { Attribute: unknown[] }) => o.Attribute)].map((a) => (a as { uuid: string }).uuid);
    expect(new Set(uuids)).toEqual(new Set(shown.map((a) => a.uuid)));
    expect(exported.Object.map((o: { uuid: string }) => o.uuid)).toEqual([SHARED_OBJECT]);
    expect(exported.attribute_count).toBe(String(shown.length));
    const full = (await get(`/events/${SHARED_EVENT}/export`, aUser)).body.Event;
    expect(full.Object).toHaveLength(2);
  });

  it("hunts run with their owner's access", async () => {
    const created = await app.http.post("/hunts/", { token: bUser.token, json: { name: "h", query: `event_uuid:${SHARED_EVENT}`, hunt_type: "search", index_target: "attributes" } });
    expect(created.status, created.text).toBe(201);
    const run = await app.http.post(`/hunts/${created.body.id}/run`, { token: bUser.token });
    expect(run.status, run.text).toBe(200);
    expect(new Set(run.body.hits.map((h: { uuid: string }) => h.uuid))).toEqual(new Set(shown.map((a) => a.uuid)));
  });

  it("notifications tell a follower only about what they may read", async () => {
    const types = async () => {
      const res = await get("/notifications?size=100", bFollower);
      return (res.body.items as { type: string; payload: Record<string, string> }[]).map((n) => `${n.type} ${n.payload.attribute_uuid ?? n.payload.object_uuid ?? ""}`);
    };
    const before = new Set(await types());
    // A changes every one of its attributes; the follower hears of the shared ones only.
    for (const a of [...hidden, ...shown]) {
      const res = await app.http.request("PATCH", `/attributes/${a.uuid}`, { token: aUser.token, json: { comment: `changed ${tag}` } });
      expect(res.status, res.text).toBe(200);
    }
    await settled(app, 60_000);
    const fresh = (await types()).filter((t) => !before.has(t));
    for (const a of shown) expect(fresh, a.value).toContain(`attribute.updated ${a.uuid}`);
    for (const a of hidden) expect(fresh.filter((t) => t.endsWith(a.uuid)), a.value).toEqual([]);
    expect(fresh).toContain(`event.attribute.updated ${A.inherit.uuid}`);
    // Correlations made before the follow list held them: none names a hidden attribute.
    const all = await get("/notifications?size=100", bFollower);
    const named = JSON.stringify(all.body.items);
    for (const a of hidden) expect(named.includes(a.uuid), a.value).toBe(false);
  }, 120_000);
});
