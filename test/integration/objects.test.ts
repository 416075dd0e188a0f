import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let owner: TestUser;
let foreign: TestUser;

beforeAll(async () => {
  app = await startTestApp("objects");
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
  foreign = await createUser(app, admin, 3, await createOrganisation(app, admin));
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const kinds = async (eventUuid: string) =>
  (await sql("SELECT kind, entity_uuid::text, payload FROM change_records WHERE event_uuid = $1 AND kind NOT LIKE 'event.%' ORDER BY id", [eventUuid])).rows;
const eventTimestamp = async (uuid: string) => Number((await sql("SELECT timestamp FROM events WHERE uuid = $1", [uuid])).rows[0].timestamp);
const countIn = async (table: "objects" | "attributes" | "object_references", eventUuid: string) =>
  (await sql(`SELECT count(*)::int AS n FROM ${table} x JOIN events e ON e.id = x.event_id WHERE e.uuid = $1`, [eventUuid])).rows[0].n;

const TEMPLATE = "b34cc22e-4b24-4b2e-8b5d-9d3a2fd6e4a1";

async function newEvent(user: TestUser, distribution = 0): Promise<string> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: `ev-${crypto.randomBytes(4).toString("hex")}`, distribution } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}

async function newObject(user: TestUser, eventUuid: string, body: Record<string, unknown> = {}) {
  const res = await app.http.post("/objects/", {
    token: user.token,
    json: {
      event_uuid: eventUuid,
      name: "domain-ip",
      template_uuid: TEMPLATE,
      template_version: 9,
      timestamp: 1,
      attributes: [
        { type: "domain", value: "Example.com", object_relation: "domain" },
        { type: "ip-dst", value: "192.0.2.10", object_relation: "ip" },
      ],
      ...body,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe("POST /objects/", () => {
  it("creates the object, its attributes and references in one go, in the peer's shape", async () => {
    const ev = await newEvent(owner);
    await sql("UPDATE events SET timestamp = timestamp - 1000 WHERE uuid = $1", [ev]);
    const before = await eventTimestamp(ev);
    const standalone = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: ev, type: "url", value: "https://example.com/x" } });
    const refUuid = crypto.randomUUID();
    const o = await newObject(owner, ev, {
      object_references: [{ uuid: refUuid, referenced_uuid: standalone.body.uuid, relationship_type: "related-to", referenced_id: 7 }],
    });
    expect(Object.keys(o).sort()).toEqual(
      [
        "attributes", "comment", "deleted", "description", "distribution", "event_uuid", "first_seen", "last_seen", "meta_category", "name",
        "object_references", "sharing_group_id", "template_uuid", "template_version", "timestamp", "uuid",
      ].sort(),
    );
    expect(o).toMatchObject({ event_uuid: ev, name: "domain-ip", template_uuid: TEMPLATE, template_version: 9, distribution: 5, deleted: false, comment: "" });
    expect(o.timestamp).toBeGreaterThan(1);
    expect(o.attributes.map((a: { value: string; object_uuid: string; object_relation: string }) => [a.value, a.object_uuid, a.object_relation])).toEqual([
      ["example.com", o.uuid, "domain"],
      ["192.0.2.10", o.uuid, "ip"],
    ]);
    expect(o.object_references).toEqual([
      expect.objectContaining({ uuid: refUuid, object_uuid: o.uuid, source_uuid: o.uuid, event_uuid: ev, referenced_uuid: standalone.body.uuid, referenced_type: 0, relationship_type: "related-to" }),
    ]);
    expect(await eventTimestamp(ev)).toBeGreaterThan(before);
    const recs = (await kinds(ev)).filter((r) => r.kind !== "attribute.created" || r.payload);
    expect(recs.map((r) => r.kind)).toEqual(["object.created", "attribute.created", "attribute.created", "object_reference.created"]);
    expect(recs[1].payload).toEqual({ object_uuid: o.uuid });
    const got = await app.http.get(`/objects/${o.uuid}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(o);
  });

  it("writes nothing when one attribute is invalid, and reports where", async () => {
    const ev = await newEvent(owner);
    const res = await app.http.post("/objects/", {
      token: owner.token,
      json: { event_uuid: ev, name: "file", attributes: [{ type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e" }, { type: "md5", value: "a".repeat(31) }, { type: "nope", value: "x" }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ["body", "attributes", 1, "value"],
      ["body", "attributes", 2, "type"],
    ]);
    expect(await countIn("objects", ev)).toBe(0);
    expect(await countIn("attributes", ev)).toBe(0);
  });

  it("rolls back everything on a uuid conflict (409)", async () => {
    const ev = await newEvent(owner);
    const existing = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: ev, type: "ip-dst", value: "192.0.2.1" } });
    const res = await app.http.post("/objects/", {
      token: owner.token,
      json: { event_uuid: ev, name: "file", attributes: [{ type: "filename", value: "a.exe" }, { type: "ip-dst", value: "192.0.2.2", uuid: existing.body.uuid }] },
    });
    expect(res.status).toBe(409);
    expect(await countIn("objects", ev)).toBe(0);
    expect(await countIn("attributes", ev)).toBe(1);
    const o = await newObject(owner, ev);
    expect((await app.http.post("/objects/", { token: owner.token, json: { event_uuid: ev, name: "again", uuid: o.uuid } })).status).toBe(409);
  });

  it("answers 400 without event_uuid, 404 for an unknown event, 422 for unknown fields and mismatching uuids", async () => {
    const ev = await newEvent(owner);
    const noEvent = await app.http.post("/objects/", { token: owner.token, json: { name: "x" } });
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.detail).toBe("Event UUID is required");
    expect((await app.http.post("/objects/", { token: owner.token, json: { name: "x", event_uuid: crypto.randomUUID() } })).status).toBe(404);
    expect((await app.http.post("/objects/", { token: owner.token, json: { name: "x", event_uuid: ev, colour: 1 } })).status).toBe(422);
    const wrongEvent = await app.http.post("/objects/", {
      token: owner.token,
      json: { name: "x", event_uuid: ev, attributes: [{ type: "filename", value: "a", event_uuid: crypto.randomUUID() }] },
    });
    expect(wrongEvent.status).toBe(422);
    expect((await app.http.post("/objects/", { token: owner.token, json: { name: "  ", event_uuid: ev } })).status).toBe(422);
    expect((await app.http.post("/objects/", { token: owner.token, json: { name: "x\u0000", event_uuid: ev } })).status).toBe(422);
  });
});

describe("GET /objects/", () => {
  it("pages, filters by event, template (repeatable) and deleted (default false)", async () => {
    const ev = await newEvent(owner);
    const a = await newObject(owner, ev);
    const b = await newObject(owner, ev, { template_uuid: crypto.randomUUID(), attributes: [] });
    const c = await newObject(owner, ev, { attributes: [] });
    expect((await app.http.delete(`/objects/${c.uuid}`, { token: owner.token })).status).toBe(204);

    const live = await app.http.get(`/objects/?event_uuid=${ev}`, { token: owner.token });
    expect(live.status).toBe(200);
    expect(live.body).toMatchObject({ total: 2, page: 1, size: 50, pages: 1 });
    expect(live.body.items.map((o: { uuid: string }) => o.uuid).sort()).toEqual([a.uuid, b.uuid].sort());
    const byTemplate = await app.http.get(`/objects/?event_uuid=${ev}&template_uuid=${TEMPLATE}`, { token: owner.token });
    expect(byTemplate.body.items.map((o: { uuid: string }) => o.uuid)).toEqual([a.uuid]);
    expect(byTemplate.body.items[0].attributes).toHaveLength(2);
    const both = await app.http.get(`/objects/?event_uuid=${ev}&template_uuid=${TEMPLATE}&template_uuid=${b.template_uuid}`, { token: owner.token });
    expect(both.body.total).toBe(2);
    const deleted = await app.http.get(`/objects/?event_uuid=${ev}&deleted=true`, { token: owner.token });
    expect(deleted.body.items.map((o: { uuid: string }) => o.uuid)).toEqual([c.uuid]);
    expect((await app.http.get(`/objects/?size=101`, { token: owner.token })).status).toBe(422);
    expect((await app.http.get(`/objects/?template_uuid=zz`, { token: owner.token })).status).toBe(422);
  });
});

describe("PATCH /objects/{uuid}", () => {
  it("updates fields and adds, updates and deletes attributes in one transaction", async () => {
    const ev = await newEvent(owner);
    const o = await newObject(owner, ev);
    await sql("UPDATE objects SET timestamp = timestamp - 1000 WHERE uuid = $1", [o.uuid]);
    await sql("UPDATE events SET timestamp = timestamp - 1000 WHERE uuid = $1", [ev]);
    const before = await eventTimestamp(ev);
    const [domain, ip] = o.attributes;
    const res = await app.http.patch(`/objects/${o.uuid}`, {
      token: owner.token,
      json: {
        comment: "reviewed",
        new_attributes: [{ type: "port", value: "0443", object_relation: "port" }],
        update_attributes: [{ uuid: domain.uuid, value: "example.net" }],
        delete_attributes: [ip.uuid],
      },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.comment).toBe("reviewed");
    expect(res.body.timestamp).toBeGreaterThan(o.timestamp - 1000);
    expect(res.body.attributes.map((a: { value: string }) => a.value)).toEqual(["example.net", "443"]);
    expect(await eventTimestamp(ev)).toBeGreaterThan(before);
    const ipNow = await app.http.get(`/attributes/${ip.uuid}`, { token: owner.token });
    expect(ipNow.body.deleted).toBe(true);
    const recs = await kinds(ev);
    const tail = recs.slice(-4);
    expect(tail.map((r) => r.kind)).toEqual(["object.updated", "attribute.created", "attribute.updated", "attribute.deleted"]);
    expect(tail[0].payload.fields).toEqual(["comment"]);
    expect(tail[3].payload).toMatchObject({ attribute_type: "ip-dst", attribute_value: "192.0.2.10", object_uuid: o.uuid });
  });

  it("refuses attributes of another object, writing nothing", async () => {
    const ev = await newEvent(owner);
    const o = await newObject(owner, ev);
    const other = await newObject(owner, ev);
    const res = await app.http.patch(`/objects/${o.uuid}`, {
      token: owner.token,
      json: { comment: "x", new_attributes: [{ type: "domain", value: "a.example" }], delete_attributes: [other.attributes[0].uuid] },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "delete_attributes", 0]);
    const now = await app.http.get(`/objects/${o.uuid}`, { token: owner.token });
    expect(now.body).toEqual(o);
    expect((await app.http.patch(`/objects/${o.uuid}`, { token: owner.token, json: {} })).status).toBe(422);
    expect(
      (await app.http.patch(`/objects/${o.uuid}`, { token: owner.token, json: { update_attributes: [{ uuid: o.attributes[0].uuid, type: "md5" }] } })).status,
    ).toBe(422);
  });
});

describe("DELETE /objects/{uuid}", () => {
  it("soft-deletes the object with its attributes and records each", async () => {
    const ev = await newEvent(owner);
    const o = await newObject(owner, ev);
    expect((await app.http.delete(`/objects/${o.uuid}`, { token: owner.token })).status).toBe(204);
    const got = await app.http.get(`/objects/${o.uuid}`, { token: owner.token });
    expect(got.body.deleted).toBe(true);
    expect(got.body.attributes.map((a: { deleted: boolean }) => a.deleted)).toEqual([true, true]);
    const recs = (await kinds(ev)).slice(-3);
    expect(recs.map((r) => r.kind)).toEqual(["object.deleted", "attribute.deleted", "attribute.deleted"]);
    expect(recs[0].payload).toMatchObject({ object_name: "domain-ip" });
    expect(recs[1].payload).toMatchObject({ object_uuid: o.uuid, attribute_type: "domain", attribute_value: "example.com" });
    expect((await app.http.delete(`/objects/${o.uuid}`, { token: owner.token })).status).toBe(204);
    expect((await kinds(ev)).filter((r) => r.kind === "object.deleted")).toHaveLength(1);
    expect((await app.http.delete(`/objects/${crypto.randomUUID()}`, { token: owner.token })).status).toBe(404);
  });
});

describe("access across organisations", () => {
  it("404 for another organisation's restricted event, 403 for writing a community one", async () => {
    const secret = await newObject(foreign, await newEvent(foreign, 0));
    const shared = await newObject(foreign, await newEvent(foreign, 3));
    expect((await app.http.get(`/objects/${secret.uuid}`, { token: owner.token })).status).toBe(404);
    expect((await app.http.patch(`/objects/${secret.uuid}`, { token: owner.token, json: { comment: "x" } })).status).toBe(404);
    expect((await app.http.delete(`/objects/${secret.uuid}`, { token: owner.token })).status).toBe(404);
    expect((await app.http.get(`/objects/?event_uuid=${secret.event_uuid}`, { token: owner.token })).body.total).toBe(0);
    expect((await app.http.get(`/objects/${shared.uuid}`, { token: owner.token })).status).toBe(200);
    expect((await app.http.delete(`/objects/${shared.uuid}`, { token: owner.token })).status).toBe(403);
    expect((await app.http.get(`/objects/${secret.uuid}`, { token: admin.token })).status).toBe(200);
  });
});

describe("GraphQL", () => {
  it("creates and reads an object through the same service", async () => {
    const ev = await newEvent(owner);
    const res = await app.http.graphql(
      `mutation ($ev: String!) { createObject(eventUuid: $ev, input: {name: "file"}, attributes: [{type: "filename", value: "a.exe"}, {type: "md5", value: "D41D8CD98F00B204E9800998ECF8427E"}]) {
         uuid name attributes { type value objectUuid } references { uuid } } }`,
      { ev },
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const o = res.body.data.createObject;
    expect(o.attributes).toEqual([
      { type: "filename", value: "a.exe", objectUuid: o.uuid },
      { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e", objectUuid: o.uuid },
    ]);
    const list = await app.http.graphql(`query ($ev: String!) { objects(eventUuid: $ev) { total items { uuid } } }`, { ev }, owner.token);
    expect(list.body.data.objects).toEqual({ total: 1, items: [{ uuid: o.uuid }] });
  });
});
