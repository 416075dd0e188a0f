import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

/**
 * Events over REST and their GraphQL twins, against the real service. Organisation A holds the
 * events; B is another organisation. Role 3 ("user") reads, creates, updates and tags events but
 * may not delete or publish them; role 2 (org admin) may, within its organisation.
 */

type Json = Record<string, any>;

let app: TestApp;
let admin: TestUser;
let a1: TestUser;
let a2: TestUser;
let aAdmin: TestUser;
let b1: TestUser;
let bAdmin: TestUser;

beforeAll(async () => {
  app = await startTestApp("events");
  admin = await loginAdmin(app);
  const orgA = await createOrganisation(app, admin);
  const orgB = await createOrganisation(app, admin);
  a1 = await createUser(app, admin, 3, orgA);
  a2 = await createUser(app, admin, 3, orgA);
  aAdmin = await createUser(app, admin, 2, orgA);
  b1 = await createUser(app, admin, 3, orgB);
  bAdmin = await createUser(app, admin, 2, orgB);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const count = async (table: string) => (await sql(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
const changes = async (uuid: string) => (await sql("SELECT kind, actor_user_id FROM change_records WHERE entity_uuid = $1 ORDER BY id", [uuid])).rows;
const unique = (prefix = "ev") => `${prefix}-${crypto.randomBytes(4).toString("hex")}`;
const today = () => new Date().toISOString().slice(0, 10);

async function newEvent(user: TestUser, body: Json = {}): Promise<Json> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: unique(), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Moves the event's timestamp into the past so that a bump is visible without waiting. */
const age = (uuid: string) => sql("UPDATE events SET timestamp = timestamp - 1000 WHERE uuid = $1", [uuid]);

const EVENT_KEYS = [
  "analysis", "attribute_count", "attributes", "date", "deleted", "disable_correlation", "distribution", "extends_uuid", "info", "locked",
  "object_count", "objects", "org_id", "orgc", "orgc_id", "organisation", "proposal_email_lock", "protected", "publish_timestamp", "published", "retention",
  "sharing_group_id", "sighting_timestamp", "tags", "threat_level", "timestamp", "user_id", "uuid",
].sort();

describe("POST /events/", () => {
  it("creates an event in the peer's shape with the defaults, owned by the caller's organisation", async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await app.http.post("/events/", { token: a1.token, json: { info: "  Phishing wave  " } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(EVENT_KEYS);
    expect(res.body).toMatchObject({
      info: "Phishing wave",
      org_id: a1.orgId,
      orgc_id: a1.orgId,
      user_id: a1.id,
      date: `${today()}T00:00:00`,
      threat_level: 4,
      analysis: 0,
      distribution: 0,
      published: false,
      publish_timestamp: 0,
      sharing_group_id: null,
      sighting_timestamp: null,
      attribute_count: 0,
      object_count: 0,
      deleted: false,
      tags: [],
      attributes: [],
      objects: [],
      organisation: { id: a1.orgId },
    });
    expect(res.body.uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.timestamp).toBeGreaterThanOrEqual(before);
    expect(await changes(res.body.uuid)).toEqual([{ kind: "event.created", actor_user_id: a1.id }]);
    const got = await app.http.get(`/events/${res.body.uuid}`, { token: a2.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...res.body, related_events: [] });
  });

  it("keeps the given uuid (lower-cased), date, levels, distribution and extends_uuid", async () => {
    const uuid = crypto.randomUUID();
    const extendsUuid = crypto.randomUUID();
    const e = await newEvent(a1, { uuid: uuid.toUpperCase(), date: "2024-02-29T00:00:00Z", threat_level: 1, analysis: 2, distribution: 3, extends_uuid: extendsUuid, locked: true });
    expect(e).toMatchObject({ uuid, date: "2024-02-29T00:00:00", threat_level: 1, analysis: 2, distribution: 3, extends_uuid: extendsUuid, locked: true });
  });

  it("answers 409 for a uuid that exists", async () => {
    const e = await newEvent(a1);
    const res = await app.http.post("/events/", { token: a1.token, json: { info: "again", uuid: e.uuid } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("conflict");
  });

  it.each([
    ["no info", {}],
    ["a blank info", { info: "   " }],
    ["info as a number", { info: 5 }],
    ["an unknown field", { info: "x", colour: "red" }],
    ["threat_level 0", { info: "x", threat_level: 0 }],
    ["analysis 3", { info: "x", analysis: 3 }],
    ["distribution 5", { info: "x", distribution: 5 }],
    ["a date that does not exist", { info: "x", date: "2023-02-29" }],
    ["a free-form date", { info: "x", date: "yesterday" }],
    ["an invalid uuid", { info: "x", uuid: "not-a-uuid" }],
    ["an invalid extends_uuid", { info: "x", extends_uuid: "nope" }],
  ])("refuses %s with 422 and writes nothing", async (_name, body) => {
    const before = await count("events");
    const res = await app.http.post("/events/", { token: a1.token, json: body });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(await count("events")).toBe(before);
  });

  it("refuses a published event from a caller without events:publish (403); an org admin may", async () => {
    const before = await count("events");
    const denied = await app.http.post("/events/", { token: a1.token, json: { info: unique(), published: true } });
    expect(denied.status).toBe(403);
    expect(await count("events")).toBe(before);
    const ok = await newEvent(aAdmin, { published: true });
    expect(ok.published).toBe(true);
    expect(ok.publish_timestamp).toBeGreaterThan(0);
  });
});

describe("GET /events/", () => {
  const prefix = unique("list");
  const created: Json[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 5; i++) {
      created.push(await newEvent(a1, { info: `${prefix} #${i}`, distribution: i === 4 ? 3 : 0 }));
      // Distinct timestamps, newest last.
      await sql("UPDATE events SET timestamp = $2 WHERE uuid = $1", [created[i].uuid, 1_700_000_000 + i]);
    }
    const published = await app.http.post(`/events/${created[1].uuid}/publish`, { token: aAdmin.token });
    expect(published.status).toBe(200);
    await sql("UPDATE events SET timestamp = $2 WHERE uuid = $1", [created[1].uuid, 1_700_000_001]);
  });

  it("pages, newest change first, with the peer's envelope", async () => {
    const p1 = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}&size=2`, { token: a1.token });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ total: 5, page: 1, size: 2, pages: 3 });
    expect(p1.body.items.map((e: Json) => e.info)).toEqual([`${prefix} #4`, `${prefix} #3`]);
    const p3 = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}&size=2&page=3`, { token: a1.token });
    expect(p3.body.items.map((e: Json) => e.info)).toEqual([`${prefix} #0`]);
    const beyond = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}&size=2&page=4`, { token: a1.token });
    expect(beyond.body).toMatchObject({ items: [], total: 5 });
  });

  it("filters by uuid, published and info (a LIKE wildcard in info is literal)", async () => {
    const byUuid = await app.http.get(`/events/?uuid=${created[2].uuid.toUpperCase()}`, { token: a1.token });
    expect(byUuid.body.items.map((e: Json) => e.uuid)).toEqual([created[2].uuid]);
    const published = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}&published=true`, { token: a1.token });
    expect(published.body.items.map((e: Json) => e.uuid)).toEqual([created[1].uuid]);
    const unpublished = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}&published=false`, { token: a1.token });
    expect(unpublished.body.total).toBe(4);
    const wildcard = await app.http.get(`/events/?info=${encodeURIComponent(`${prefix.slice(0, 6)}%#0`)}`, { token: a1.token });
    expect(wildcard.body.total).toBe(0);
    const deleted = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}&deleted=true`, { token: a1.token });
    expect(deleted.body).toMatchObject({ items: [], total: 0 });
  });

  it("shows another organisation only what it may read (distribution 1-3)", async () => {
    const res = await app.http.get(`/events/?info=${encodeURIComponent(prefix)}`, { token: b1.token });
    expect(res.body.items.map((e: Json) => e.uuid)).toEqual([created[4].uuid]);
    expect(res.body.total).toBe(1);
  });

  it.each([["size=0"], ["size=101"], ["page=0"], ["page=x"], ["uuid=nope"], ["published=maybe"], ["sort=info"]])("refuses %s with 422", async (q) => {
    const res = await app.http.get(`/events/?${q}`, { token: a1.token });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
  });
});

describe("GET /events/{uuid}", () => {
  it("answers 422 for an invalid uuid and 404 for an unknown one", async () => {
    expect((await app.http.get("/events/not-a-uuid", { token: a1.token })).status).toBe(422);
    const missing = await app.http.get(`/events/${crypto.randomUUID()}`, { token: a1.token });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
  });
});

describe("PATCH /events/{uuid}", () => {
  it("changes only the given fields, bumps the timestamp and records event.updated with those fields", async () => {
    const e = await newEvent(a1, { threat_level: 2 });
    await age(e.uuid);
    const before = (await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body;
    const res = await app.http.patch(`/events/${e.uuid}`, { token: a2.token, json: { info: "renamed", analysis: 1, date: "2020-01-31" } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ info: "renamed", analysis: 1, date: "2020-01-31T00:00:00", threat_level: 2, distribution: 0 });
    expect(res.body.timestamp).toBeGreaterThan(before.timestamp);
    const recorded = (await sql("SELECT kind, payload FROM change_records WHERE entity_uuid = $1 ORDER BY id", [e.uuid])).rows;
    expect(recorded.at(-1)).toEqual({ kind: "event.updated", payload: { fields: ["info", "date", "analysis"] } });
  });

  it.each([
    ["an empty body", {}],
    ["an unknown field", { colour: "red" }],
    ["deleted as a string", { deleted: "true" }],
    ["info null", { info: null }],
    ["threat_level 5", { threat_level: 5 }],
    ["a date that does not exist", { date: "2021-04-31" }],
  ])("refuses %s with 422 and changes nothing", async (_name, body) => {
    const e = await newEvent(a1);
    const res = await app.http.patch(`/events/${e.uuid}`, { token: a1.token, json: body });
    expect(res.status, res.text).toBe(422);
    expect((await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body).toEqual({ ...e, related_events: [] });
  });

  it("refuses to change the published state without events:publish (403), even through PATCH", async () => {
    const e = await newEvent(a1);
    const res = await app.http.patch(`/events/${e.uuid}`, { token: a1.token, json: { published: true } });
    expect(res.status).toBe(403);
    expect((await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body.published).toBe(false);
    const ok = await app.http.patch(`/events/${e.uuid}`, { token: aAdmin.token, json: { published: true } });
    expect(ok.status).toBe(200);
    expect((await changes(e.uuid)).map((c) => c.kind)).toEqual(["event.created", "event.updated", "event.published"]);
  });
});

describe("publish and unpublish", () => {
  it("needs events:publish: role 3 gets 403", async () => {
    const e = await newEvent(a1);
    const res = await app.http.post(`/events/${e.uuid}/publish`, { token: a1.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("insufficient_scope");
  });

  it("publishes with a publish timestamp, is a no-op when already published, and unpublishes", async () => {
    const e = await newEvent(a1);
    const res = await app.http.post(`/events/${e.uuid}/publish`, { token: aAdmin.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: `Event ${e.uuid} has been published.` });
    const published = (await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body;
    expect(published.published).toBe(true);
    expect(published.publish_timestamp).toBeGreaterThan(0);
    expect((await app.http.post(`/events/${e.uuid}/publish`, { token: aAdmin.token })).status).toBe(200);
    const un = await app.http.post(`/events/${e.uuid}/unpublish`, { token: aAdmin.token });
    expect(un.body).toEqual({ message: `Event ${e.uuid} has been unpublished.` });
    expect((await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body.published).toBe(false);
    expect((await changes(e.uuid)).map((c) => c.kind)).toEqual(["event.created", "event.published", "event.unpublished"]);
  });
});

describe("tags", () => {
  it("tags with a new tag (201, empty body, colour from md5 of the name), idempotently", async () => {
    const e = await newEvent(a1);
    const name = `workflow:state="${unique("t")}"`;
    const res = await app.http.post(`/events/${e.uuid}/tag/${encodeURIComponent(name)}`, { token: a1.token });
    expect(res.status).toBe(201);
    expect(res.text).toBe("");
    const again = await app.http.post(`/events/${e.uuid}/tag/${encodeURIComponent(name)}`, { token: a1.token });
    expect(again.status).toBe(201);
    const got = (await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body;
    expect(got.tags).toEqual([expect.objectContaining({ name, colour: `#${crypto.createHash("md5").update(name).digest("hex").slice(0, 6)}`, local: false })]);
    expect((await changes(e.uuid)).map((c) => c.kind)).toEqual(["event.created", "event.tagged"]);
  });

  it("untags case-insensitively (204), then 404 for a tag not on the event", async () => {
    const e = await newEvent(a1);
    const name = unique("Case-Tag");
    await app.http.post(`/events/${e.uuid}/tag/${name}`, { token: a1.token });
    const res = await app.http.delete(`/events/${e.uuid}/tag/${name.toLowerCase()}`, { token: a1.token });
    expect(res.status).toBe(204);
    expect((await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body.tags).toEqual([]);
    const again = await app.http.delete(`/events/${e.uuid}/tag/${name}`, { token: a1.token });
    expect(again.status).toBe(404);
    // The tag itself stays: tags are global.
    expect((await sql("SELECT count(*)::int AS n FROM tags WHERE name = $1", [name])).rows[0].n).toBe(1);
  });

  it("refuses a 256-character tag name with 422", async () => {
    const e = await newEvent(a1);
    expect((await app.http.post(`/events/${e.uuid}/tag/${"t".repeat(256)}`, { token: a1.token })).status).toBe(422);
  });
});

describe("DELETE /events/{uuid}?force=true (hard delete; soft delete: soft-delete.test.ts)", () => {
  it("needs events:delete: role 3 gets 403", async () => {
    const e = await newEvent(a1);
    expect((await app.http.delete(`/events/${e.uuid}`, { token: a1.token })).status).toBe(403);
    expect((await app.http.get(`/events/${e.uuid}`, { token: a1.token })).status).toBe(200);
  });

  it("removes the event with its attributes, objects, references, sightings and tag links, and records each deletion", async () => {
    const uuid = crypto.randomUUID();
    const attr = [crypto.randomUUID(), crypto.randomUUID()];
    const objectUuid = crypto.randomUUID();
    const objectAttr = [crypto.randomUUID(), crypto.randomUUID()];
    const sightingUuid = crypto.randomUUID();
    const tagName = unique("delete-me");
    const doc = {
      Event: {
        uuid,
        info: "to be deleted",
        Tag: [{ name: tagName }],
        Attribute: [
          { uuid: attr[0], type: "ip-dst", value: "192.0.2.10", Tag: [{ name: tagName }], Sighting: [{ uuid: sightingUuid, type: "0", date_sighting: "1700000000", source: "sensor" }] },
          { uuid: attr[1], type: "domain", value: "delete.example.org" },
        ],
        Object: [
          {
            uuid: objectUuid,
            name: "domain-ip",
            Attribute: [
              { uuid: objectAttr[0], type: "domain", object_relation: "domain", value: "obj.example.org" },
              { uuid: objectAttr[1], type: "ip-dst", object_relation: "ip", value: "192.0.2.11" },
            ],
            ObjectReference: [{ uuid: crypto.randomUUID(), referenced_uuid: attr[0], relationship_type: "related-to" }],
          },
        ],
      },
    };
    const imported = await app.http.post("/events/import", { token: a1.token, json: doc });
    expect(imported.status, imported.text).toBe(201);
    const id = (await sql("SELECT id FROM events WHERE uuid = $1", [uuid])).rows[0].id;
    const linked = async () =>
      (
        await sql(
          `SELECT (SELECT count(*)::int FROM attributes WHERE event_id = $1) AS attributes,
                  (SELECT count(*)::int FROM objects WHERE event_id = $1) AS objects,
                  (SELECT count(*)::int FROM object_references WHERE event_id = $1) AS refs,
                  (SELECT count(*)::int FROM sightings WHERE event_id = $1) AS sightings,
                  (SELECT count(*)::int FROM event_tags WHERE event_id = $1) AS event_tags,
                  (SELECT count(*)::int FROM attribute_tags WHERE attribute_id IN (SELECT id FROM attributes WHERE uuid = ANY($2::uuid[]))) AS attribute_tags`,
          [id, [...attr, ...objectAttr]],
        )
      ).rows[0];
    expect(await linked()).toEqual({ attributes: 4, objects: 1, refs: 1, sightings: 1, event_tags: 1, attribute_tags: 1 });
    const attributeTagsBefore = await count("attribute_tags");

    // Another organisation's org admin: not visible, 404 (existence not disclosed).
    expect((await app.http.delete(`/events/${uuid}?force=true`, { token: bAdmin.token })).status).toBe(404);
    const res = await app.http.delete(`/events/${uuid}?force=true`, { token: aAdmin.token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await linked()).toEqual({ attributes: 0, objects: 0, refs: 0, sightings: 0, event_tags: 0, attribute_tags: 0 });
    expect(await count("attribute_tags")).toBe(attributeTagsBefore - 1);
    expect((await sql("SELECT count(*)::int AS n FROM sightings WHERE uuid = $1", [sightingUuid])).rows[0].n).toBe(0);
    expect((await sql("SELECT count(*)::int AS n FROM tags WHERE name = $1", [tagName])).rows[0].n).toBe(1);
    expect((await app.http.get(`/events/${uuid}`, { token: aAdmin.token })).status).toBe(404);
    expect((await app.http.get(`/events/${uuid}/export?format=misp`, { token: aAdmin.token })).status).toBe(404);

    const recorded = (await sql("SELECT kind, entity_uuid::text FROM change_records WHERE event_uuid = $1 AND kind LIKE '%.deleted' ORDER BY id", [uuid])).rows;
    expect(recorded.map((r) => `${r.kind} ${r.entity_uuid}`).sort()).toEqual(
      [`event.deleted ${uuid}`, ...[...attr, ...objectAttr].map((u) => `attribute.deleted ${u}`), `object.deleted ${objectUuid}`].sort(),
    );
    expect((await app.http.delete(`/events/${uuid}`, { token: aAdmin.token })).status).toBe(404);
  });
});

describe("access between organisations", () => {
  it("an org-only (distribution 0) event of A is 404 for B on every route", async () => {
    const e = await newEvent(a1, { distribution: 0 });
    const routes: [string, string, Json?][] = [
      ["GET", `/events/${e.uuid}`],
      ["GET", `/events/${e.uuid}/export?format=misp`],
      ["PATCH", `/events/${e.uuid}`, { info: "hijacked" }],
      ["POST", `/events/${e.uuid}/tag/evil`],
      ["DELETE", `/events/${e.uuid}/tag/evil`],
    ];
    for (const [method, path, json] of routes) {
      const res = await app.http.request(method, path, { token: b1.token, json });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    for (const path of [`/events/${e.uuid}/publish`, `/events/${e.uuid}/unpublish`]) {
      expect((await app.http.post(path, { token: bAdmin.token })).status, path).toBe(404);
    }
    expect((await app.http.delete(`/events/${e.uuid}`, { token: bAdmin.token })).status).toBe(404);
    expect((await app.http.get(`/events/${e.uuid}`, { token: a2.token })).body).toEqual({ ...e, related_events: [] });
  });

  it("a distribution-3 event of A is readable by B but not writable (403)", async () => {
    const e = await newEvent(a1, { distribution: 3 });
    const read = await app.http.get(`/events/${e.uuid}`, { token: b1.token });
    expect(read.status).toBe(200);
    expect(read.body.uuid).toBe(e.uuid);
    expect((await app.http.get(`/events/${e.uuid}/export?format=misp`, { token: b1.token })).status).toBe(200);
    expect((await app.http.patch(`/events/${e.uuid}`, { token: b1.token, json: { info: "hijacked" } })).status).toBe(403);
    expect((await app.http.post(`/events/${e.uuid}/tag/evil`, { token: b1.token })).status).toBe(403);
    expect((await app.http.post(`/events/${e.uuid}/publish`, { token: bAdmin.token })).status).toBe(403);
    expect((await app.http.delete(`/events/${e.uuid}`, { token: bAdmin.token })).status).toBe(403);
    // Re-importing a newer version under the same uuid is a write as well.
    const doc = { Event: { uuid: e.uuid, info: "hijacked by import", timestamp: String(e.timestamp + 1000), distribution: "3" } };
    expect((await app.http.post("/events/import", { token: b1.token, json: doc })).status).toBe(403);
    expect((await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body).toEqual({ ...e, related_events: [] });
  });
});

describe("GraphQL twins give the same data as REST", () => {
  const EVENT_FIELDS = "uuid info date threatLevel analysis distribution published publishTimestamp timestamp sightingTimestamp orgId orgcId locked protected disableCorrelation extendsUuid attributeCount objectCount org { id uuid name } orgc { id uuid name } tags { name colour local }";
  const gql = (user: TestUser, query: string, variables: Json = {}) => app.http.graphql(query, variables, user.token);
  /** The REST event in the GraphQL field names. */
  const asGraphql = (e: Json) => ({
    uuid: e.uuid,
    info: e.info,
    date: e.date.slice(0, 10),
    threatLevel: e.threat_level,
    analysis: e.analysis,
    distribution: e.distribution,
    published: e.published,
    publishTimestamp: e.publish_timestamp,
    timestamp: e.timestamp,
    sightingTimestamp: e.sighting_timestamp,
    orgId: e.org_id,
    orgcId: e.orgc_id,
    locked: e.locked,
    protected: e.protected,
    disableCorrelation: e.disable_correlation,
    extendsUuid: e.extends_uuid,
    attributeCount: e.attribute_count,
    objectCount: e.object_count,
    org: e.organisation,
    orgc: e.orgc,
    tags: e.tags.map((t: Json) => ({ name: t.name, colour: t.colour, local: t.local })),
  });

  it("event and events", async () => {
    const e = await newEvent(a1, { info: unique("gql"), distribution: 3, threat_level: 2 });
    await app.http.post(`/events/${e.uuid}/tag/gql-tag`, { token: a1.token });
    const rest = (await app.http.get(`/events/${e.uuid}`, { token: a1.token })).body;
    const one = await gql(a1, `query($u: String!) { event(uuid: $u) { ${EVENT_FIELDS} } }`, { u: e.uuid });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.event).toEqual(asGraphql(rest));

    const restList = (await app.http.get(`/events/?info=${encodeURIComponent(e.info)}&size=5`, { token: b1.token })).body;
    const list = await gql(b1, `query($i: String) { events(info: $i, size: 5) { total page size pages items { ${EVENT_FIELDS} } } }`, { i: e.info });
    expect(list.body.data.events).toEqual({ total: restList.total, page: 1, size: 5, pages: restList.pages, items: restList.items.map(asGraphql) });
  });

  it("eventMispExport equals GET /events/{uuid}/export", async () => {
    const e = await newEvent(a1);
    const rest = await app.http.get(`/events/${e.uuid}/export?format=misp`, { token: a1.token });
    const res = await gql(a1, `query($u: String!) { eventMispExport(uuid: $u) }`, { u: e.uuid });
    expect(res.body.data.eventMispExport).toEqual(rest.body);
    expect(rest.body.Event).toMatchObject({ uuid: e.uuid, info: e.info, Attribute: [], Object: [] });
  });

  it("createEvent, updateEvent, tagEvent, untagEvent, setEventPublished and deleteEvent", async () => {
    const created = await gql(a1, `mutation($i: EventInput!) { createEvent(input: $i) { ${EVENT_FIELDS} } }`, { i: { info: unique("gql-create"), distribution: 1, threatLevel: 3 } });
    expect(created.body.errors).toBeUndefined();
    const uuid = created.body.data.createEvent.uuid;
    expect(created.body.data.createEvent).toEqual(asGraphql((await app.http.get(`/events/${uuid}`, { token: a1.token })).body));

    const updated = await gql(a1, `mutation($u: String!) { updateEvent(uuid: $u, input: { info: "gql renamed", analysis: 2 }) { info analysis } }`, { u: uuid });
    expect(updated.body.data.updateEvent).toEqual({ info: "gql renamed", analysis: 2 });
    expect((await app.http.get(`/events/${uuid}`, { token: a1.token })).body).toMatchObject({ info: "gql renamed", analysis: 2 });

    expect((await gql(a1, `mutation($u: String!) { tagEvent(uuid: $u, tag: "gql:one") }`, { u: uuid })).body.data.tagEvent).toBe(true);
    expect((await app.http.get(`/events/${uuid}`, { token: a1.token })).body.tags.map((t: Json) => t.name)).toEqual(["gql:one"]);
    expect((await gql(a1, `mutation($u: String!) { untagEvent(uuid: $u, tag: "GQL:ONE") }`, { u: uuid })).body.data.untagEvent).toBe(true);
    expect((await app.http.get(`/events/${uuid}`, { token: a1.token })).body.tags).toEqual([]);

    const deniedPublish = await gql(a1, `mutation($u: String!) { setEventPublished(uuid: $u, published: true) { published } }`, { u: uuid });
    expect(deniedPublish.body.errors![0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    const published = await gql(aAdmin, `mutation($u: String!) { setEventPublished(uuid: $u, published: true) { published publishTimestamp } }`, { u: uuid });
    expect(published.body.data.setEventPublished.published).toBe(true);
    expect((await app.http.get(`/events/${uuid}`, { token: a1.token })).body.published).toBe(true);

    const deniedDelete = await gql(a1, `mutation($u: String!) { deleteEvent(uuid: $u) }`, { u: uuid });
    expect(deniedDelete.body.errors![0].extensions).toMatchObject({ status: 403 });
    expect((await gql(aAdmin, `mutation($u: String!) { deleteEvent(uuid: $u) }`, { u: uuid })).body.data.deleteEvent).toBe(true);
    expect((await app.http.get(`/events/${uuid}`, { token: a1.token })).body.deleted).toBe(true);
    expect((await gql(aAdmin, `mutation($u: String!) { deleteEvent(uuid: $u, force: true) }`, { u: uuid })).body.data.deleteEvent).toBe(true);
    expect((await app.http.get(`/events/${uuid}`, { token: a1.token })).status).toBe(404);
  });

  it("applies the same access rules and validation", async () => {
    const hidden = await newEvent(a1, { distribution: 0 });
    const shared = await newEvent(a1, { distribution: 3 });
    const read = await gql(b1, `query($u: String!) { event(uuid: $u) { uuid } }`, { u: hidden.uuid });
    expect(read.body.errors![0].extensions).toMatchObject({ code: "not_found", status: 404 });
    const write = await gql(b1, `mutation($u: String!) { updateEvent(uuid: $u, input: { info: "x" }) { uuid } }`, { u: shared.uuid });
    expect(write.body.errors![0].extensions).toMatchObject({ status: 403 });
    const badDate = await gql(a1, `mutation { createEvent(input: { info: "x", date: "2023-02-30" }) { uuid } }`);
    expect(badDate.body.errors![0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    const badUuid = await gql(a1, `query { event(uuid: "nope") { uuid } }`);
    expect(badUuid.body.errors![0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    const badImport = await gql(a1, `mutation($e: JSON!) { importMispEvent(event: $e) { created } }`, { e: { Event: { info: "x", Attribute: [{ uuid: crypto.randomUUID(), type: "md5", value: "abc" }] } } });
    expect(badImport.body.errors![0].extensions).toMatchObject({ code: "validation_error", status: 422 });
  });

  it("importMispEvent creates like POST /events/import", async () => {
    // With timestamps: a document without them is stamped "now" at each import, so a later re-import counts as newer.
    const ts = String(Math.floor(Date.now() / 1000) - 60);
    const doc = { Event: { uuid: crypto.randomUUID(), info: unique("gql-import"), timestamp: ts, Attribute: [{ uuid: crypto.randomUUID(), type: "ip-src", value: "198.51.100.200", timestamp: ts }] } };
    const res = await gql(a1, `mutation($e: JSON!) { importMispEvent(event: $e) { created changed attributes { created } event { uuid info attributeCount } } }`, { e: doc });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.importMispEvent).toEqual({ created: true, changed: true, attributes: { created: 1 }, event: { uuid: doc.Event.uuid, info: doc.Event.info, attributeCount: 1 } });
    const again = await app.http.post("/events/import", { token: a1.token, json: doc });
    expect(again.status).toBe(200);
    expect(again.body.import.changed).toBe(false);
  });
});
