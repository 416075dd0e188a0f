import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let owner: TestUser;
let sameOrg: TestUser;
let foreign: TestUser;

beforeAll(async () => {
  app = await startTestApp("attributes");
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
  sameOrg = await createUser(app, admin, 3);
  foreign = await createUser(app, admin, 3, await createOrganisation(app, admin));
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const changes = async (entityUuid: string) =>
  (await sql("SELECT kind, event_uuid::text, payload FROM change_records WHERE entity_uuid = $1 ORDER BY id", [entityUuid])).rows;
const eventTimestamp = async (uuid: string) => Number((await sql("SELECT timestamp FROM events WHERE uuid = $1", [uuid])).rows[0].timestamp);

async function newEvent(user: TestUser, distribution = 0): Promise<string> {
  const res = await app.http.post("/events/", { token: user.token, json: { info: `ev-${crypto.randomBytes(4).toString("hex")}`, distribution } });
  expect(res.status, res.text).toBe(201);
  return res.body.uuid;
}

async function newAttribute(user: TestUser, eventUuid: string, body: Record<string, unknown> = {}) {
  const res = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: eventUuid, type: "ip-dst", value: "10.0.0.1", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Moves stored timestamps into the past so that a bump is visible without waiting a second. */
async function age(eventUuid: string) {
  await sql("UPDATE events SET timestamp = timestamp - 1000 WHERE uuid = $1", [eventUuid]);
  await sql("UPDATE attributes SET timestamp = timestamp - 1000 WHERE event_id = (SELECT id FROM events WHERE uuid = $1)", [eventUuid]);
}

describe("POST /attributes/", () => {
  it("creates an attribute in the peer's shape, normalised, with catalogue defaults and a change record", async () => {
    const ev = await newEvent(owner);
    await age(ev);
    const before = await eventTimestamp(ev);
    const res = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: ev, type: "md5", value: " D41D8CD98F00B204E9800998ECF8427E " } });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        "category", "comment", "correlations", "deleted", "disable_correlation", "distribution", "event_uuid", "expanded", "first_seen", "last_seen",
        "object_relation", "object_uuid", "sharing_group_id", "tags", "timestamp", "to_ids", "type", "uuid", "value",
        // Ours beside the peer's: the value's warninglist hits (none here: no list is enabled).
        "warnings",
      ].sort(),
    );
    expect(res.body).toMatchObject({
      event_uuid: ev,
      object_uuid: null,
      type: "md5",
      category: "Payload delivery",
      value: "d41d8cd98f00b204e9800998ecf8427e",
      to_ids: true,
      distribution: 5,
      comment: "",
      deleted: false,
      tags: [],
      correlations: null,
      first_seen: null,
    });
    expect(res.body.timestamp).toBeGreaterThan(before);
    expect(await eventTimestamp(ev)).toBeGreaterThan(before);
    expect(await changes(res.body.uuid)).toEqual([{ kind: "attribute.created", event_uuid: ev, payload: null }]);
    const got = await app.http.get(`/attributes/${res.body.uuid}`, { token: sameOrg.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(res.body);
  });

  it("uses the catalogue's to_ids default (comment: false) and keeps a given uuid, category and first/last seen", async () => {
    const ev = await newEvent(owner);
    const uuid = crypto.randomUUID();
    const a = await newAttribute(owner, ev, { type: "comment", value: "hello", uuid: uuid.toUpperCase(), category: "Other", first_seen: 1_600_000_000, last_seen: "2021-01-01T00:00:00Z", timestamp: 5 });
    expect(a).toMatchObject({ uuid, to_ids: false, category: "Other", first_seen: 1_600_000_000, last_seen: 1_609_459_200 });
    expect(a.timestamp).toBeGreaterThan(5);
  });

  it("splits composite values into value1 and value2", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev, { type: "filename|md5", value: "evil|x.exe|D41D8CD98F00B204E9800998ECF8427E" });
    expect(a.value).toBe("evil|x.exe|d41d8cd98f00b204e9800998ecf8427e");
    const row = (await sql("SELECT value1, value2 FROM attributes WHERE uuid = $1", [a.uuid])).rows[0];
    expect(row).toEqual({ value1: "evil|x.exe", value2: "d41d8cd98f00b204e9800998ecf8427e" });
  });

  it.each([
    ["an unknown type", { type: "no-such-type", value: "x" }, "type"],
    ["999.1.1.1 as ip-dst", { type: "ip-dst", value: "999.1.1.1" }, "value"],
    ["a 31-character md5", { type: "md5", value: "a".repeat(31) }, "value"],
    ["a category the type does not allow", { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e", category: "Network activity" }, "category"],
    ["an invalid uuid", { type: "ip-dst", value: "1.2.3.4", uuid: "not-a-uuid" }, "uuid"],
    ["a NUL byte in the value", { type: "text", value: "a\u0000b" }, "value"],
    ["a NUL byte in the comment", { type: "text", value: "ab", comment: "x\u0000" }, "comment"],
    ["a value over 131072 characters", { type: "text", value: "a".repeat(200_000) }, "value"],
    ["an unknown field", { type: "ip-dst", value: "1.2.3.4", colour: "red" }, null],
    ["distribution 6", { type: "ip-dst", value: "1.2.3.4", distribution: 6 }, "distribution"],
  ])("refuses %s with 422 and writes nothing", async (_name, body, field) => {
    const ev = await newEvent(owner);
    const res = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: ev, ...body } });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_error");
    if (field) expect(res.body.detail.map((d: { loc: string[] }) => d.loc.at(-1))).toContain(field);
    expect((await sql("SELECT count(*)::int AS n FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1", [ev])).rows[0].n).toBe(0);
  });

  it("answers 409 for a uuid that exists, 400 without event_uuid, 404 for an unknown event", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev);
    const dup = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: ev, type: "ip-dst", value: "10.0.0.2", uuid: a.uuid } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("conflict");
    const noEvent = await app.http.post("/attributes/", { token: owner.token, json: { type: "ip-dst", value: "10.0.0.2" } });
    expect(noEvent.status).toBe(400);
    expect(noEvent.body.detail).toBe("Event UUID must be provided");
    const unknown = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: crypto.randomUUID(), type: "ip-dst", value: "10.0.0.2" } });
    expect(unknown.status).toBe(404);
  });

  it("refuses a 10 MB body with 413", async () => {
    const ev = await newEvent(owner);
    const res = await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: ev, type: "text", value: "a".repeat(10 * 1024 * 1024) } });
    expect(res.status).toBe(413);
  });
});

describe("GET /attributes/", () => {
  it("pages (P1), filters by event, type, object and deleted (soft-deleted ones listed unless deleted=false), and leaves object attributes out by default", async () => {
    const ev = await newEvent(owner);
    const a1 = await newAttribute(owner, ev, { value: "10.1.0.1" });
    const a2 = await newAttribute(owner, ev, { type: "domain", value: "example.com" });
    const gone = await newAttribute(owner, ev, { value: "10.1.0.3" });
    expect((await app.http.delete(`/attributes/${gone.uuid}`, { token: owner.token })).status).toBe(204);
    const obj = await app.http.post("/objects/", {
      token: owner.token,
      json: { event_uuid: ev, name: "domain-ip", attributes: [{ type: "ip-dst", value: "10.1.0.4", object_relation: "ip" }] },
    });
    expect(obj.status, obj.text).toBe(201);

    const withDeleted = await app.http.get(`/attributes/?event_uuid=${ev}`, { token: owner.token });
    expect(withDeleted.body.items.map((a: { uuid: string }) => a.uuid).sort()).toEqual([a1.uuid, a2.uuid, gone.uuid].sort());
    const all = await app.http.get(`/attributes/?event_uuid=${ev}&deleted=false`, { token: owner.token });
    expect(all.status).toBe(200);
    expect(Object.keys(all.body).sort()).toEqual(["items", "page", "pages", "size", "total"]);
    expect(all.body.items.map((a: { uuid: string }) => a.uuid).sort()).toEqual([a1.uuid, a2.uuid].sort());
    expect(all.body.items[0].correlations).toEqual([]);
    expect(all.body).toMatchObject({ total: 2, page: 1, size: 50, pages: 1 });

    const paged = await app.http.get(`/attributes/?event_uuid=${ev}&deleted=false&size=1&page=2`, { token: owner.token });
    expect(paged.body).toMatchObject({ total: 2, page: 2, size: 1, pages: 2 });
    expect(paged.body.items).toHaveLength(1);

    const domains = await app.http.get(`/attributes/?event_uuid=${ev}&type=domain`, { token: owner.token });
    expect(domains.body.items.map((a: { uuid: string }) => a.uuid)).toEqual([a2.uuid]);
    const deleted = await app.http.get(`/attributes/?event_uuid=${ev}&deleted=true`, { token: owner.token });
    expect(deleted.body.items.map((a: { uuid: string }) => a.uuid)).toEqual([gone.uuid]);
    const inObject = await app.http.get(`/attributes/?object_uuid=${obj.body.uuid}`, { token: owner.token });
    expect(inObject.body.items).toHaveLength(1);
    expect(inObject.body.items[0]).toMatchObject({ object_uuid: obj.body.uuid, object_relation: "ip", value: "10.1.0.4" });
  });

  it.each(["size=0", "size=-1", "size=1000001", "page=0", "page=abc", "event_uuid=nope", "type=a%00b", "colour=red"])("refuses %s with 422", async (q) => {
    const res = await app.http.get(`/attributes/?${q}`, { token: owner.token });
    expect(res.status, res.text).toBe(422);
  });
});

describe("PATCH /attributes/{uuid}", () => {
  it("re-validates type and value together, bumps the attribute's and the event's timestamp and records the change", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev);
    await age(ev);
    const evBefore = await eventTimestamp(ev);
    const attrBefore = Number((await sql("SELECT timestamp FROM attributes WHERE uuid = $1", [a.uuid])).rows[0].timestamp);

    const wrongType = await app.http.patch(`/attributes/${a.uuid}`, { token: owner.token, json: { type: "domain" } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.detail[0].loc).toEqual(["body", "value"]);

    const ok = await app.http.patch(`/attributes/${a.uuid}`, { token: owner.token, json: { type: "domain", value: "Example.ORG", comment: "moved" } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body).toMatchObject({ type: "domain", value: "example.org", category: "Network activity", comment: "moved" });
    expect(ok.body.timestamp).toBeGreaterThan(attrBefore);
    expect(await eventTimestamp(ev)).toBeGreaterThan(evBefore);
    const rec = await changes(a.uuid);
    expect(rec.at(-1)).toMatchObject({ kind: "attribute.updated", event_uuid: ev });
    expect(rec.at(-1).payload.fields.sort()).toEqual(["comment", "type", "value"]);
  });

  it("asks for a category when the new type does not allow the stored one", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev, { type: "comment", value: "x", category: "Other" });
    const res = await app.http.patch(`/attributes/${a.uuid}`, { token: owner.token, json: { type: "md5", value: "d41d8cd98f00b204e9800998ecf8427e" } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "category"]);
  });

  it("writes nothing when one field of the request is invalid", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev);
    const res = await app.http.patch(`/attributes/${a.uuid}`, { token: owner.token, json: { comment: "changed", value: "999.1.1.1" } });
    expect(res.status).toBe(422);
    const row = (await sql("SELECT comment, value FROM attributes WHERE uuid = $1", [a.uuid])).rows[0];
    expect(row).toEqual({ comment: "", value: "10.0.0.1" });
    expect(await changes(a.uuid)).toHaveLength(1);
  });

  it("refuses an empty body, unknown fields and a bad path uuid with 422", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev);
    expect((await app.http.patch(`/attributes/${a.uuid}`, { token: owner.token, json: {} })).status).toBe(422);
    expect((await app.http.patch(`/attributes/${a.uuid}`, { token: owner.token, json: { event_uuid: ev } })).status).toBe(422);
    expect((await app.http.patch(`/attributes/not-a-uuid`, { token: owner.token, json: { comment: "x" } })).status).toBe(422);
    expect((await app.http.get(`/attributes/not-a-uuid`, { token: owner.token })).status).toBe(422);
  });
});

describe("DELETE /attributes/{uuid}", () => {
  it("soft-deletes, records attribute.deleted with the notification payload once, and bumps the event", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev, { value: "10.9.9.9" });
    await age(ev);
    const before = await eventTimestamp(ev);
    expect((await app.http.delete(`/attributes/${a.uuid}`, { token: owner.token })).status).toBe(204);
    const got = await app.http.get(`/attributes/${a.uuid}`, { token: owner.token });
    expect(got.status).toBe(200);
    expect(got.body.deleted).toBe(true);
    expect(await eventTimestamp(ev)).toBeGreaterThan(before);
    const info = (await sql("SELECT info FROM events WHERE uuid = $1", [ev])).rows[0].info;
    const deleted = (await changes(a.uuid)).filter((c) => c.kind === "attribute.deleted");
    expect(deleted).toEqual([
      { kind: "attribute.deleted", event_uuid: ev, payload: { event_title: info, attribute_type: "ip-dst", attribute_value: "10.9.9.9", object_uuid: null } },
    ]);
    expect((await app.http.delete(`/attributes/${a.uuid}`, { token: owner.token })).status).toBe(204);
    expect((await changes(a.uuid)).filter((c) => c.kind === "attribute.deleted")).toHaveLength(1);
    expect((await app.http.delete(`/attributes/${crypto.randomUUID()}`, { token: owner.token })).status).toBe(404);
  });
});

describe("tagging", () => {
  it("tags (creating the tag), is idempotent, untags case-insensitively, bumps timestamps and records both", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev);
    await age(ev);
    const before = await eventTimestamp(ev);
    const name = `tlp:amber-${crypto.randomBytes(3).toString("hex")}`;
    const tagged = await app.http.post(`/attributes/${a.uuid}/tag/${encodeURIComponent(name)}`, { token: owner.token });
    expect(tagged.status).toBe(201);
    expect(tagged.text).toBe("");
    expect((await app.http.post(`/attributes/${a.uuid}/tag/${encodeURIComponent(name)}`, { token: owner.token })).status).toBe(201);
    const got = await app.http.get(`/attributes/${a.uuid}`, { token: owner.token });
    expect(got.body.tags).toEqual([expect.objectContaining({ name, colour: expect.stringMatching(/^#[0-9a-f]{6}$/), local: false })]);
    expect(got.body.timestamp).toBeGreaterThan(a.timestamp - 1000);
    expect(await eventTimestamp(ev)).toBeGreaterThan(before);

    const untagged = await app.http.delete(`/attributes/${a.uuid}/tag/${encodeURIComponent(name.toUpperCase())}`, { token: owner.token });
    expect(untagged.status).toBe(204);
    expect((await app.http.get(`/attributes/${a.uuid}`, { token: owner.token })).body.tags).toEqual([]);
    expect((await app.http.delete(`/attributes/${a.uuid}/tag/${encodeURIComponent(name)}`, { token: owner.token })).status).toBe(404);
    expect((await changes(a.uuid)).map((c) => c.kind)).toEqual(["attribute.created", "attribute.tagged", "attribute.untagged"]);
    expect((await changes(a.uuid))[1].payload).toEqual({ tag: name });
  });

  it("refuses tag names with NUL bytes or control characters", async () => {
    const ev = await newEvent(owner);
    const a = await newAttribute(owner, ev);
    expect((await app.http.post(`/attributes/${a.uuid}/tag/a%00b`, { token: owner.token })).status).toBe(422);
    expect((await app.http.post(`/attributes/${a.uuid}/tag/a%0Ab`, { token: owner.token })).status).toBe(422);
    expect((await app.http.post(`/attributes/${a.uuid}/tag/%20%20`, { token: owner.token })).status).toBe(422);
  });
});

describe("access across organisations", () => {
  it("hides another organisation's restricted event's attributes (404) and keeps community ones read-only (403)", async () => {
    const restricted = await newEvent(foreign, 0);
    const secret = await newAttribute(foreign, restricted, { value: "10.66.0.1" });
    const community = await newEvent(foreign, 3);
    const shared = await newAttribute(foreign, community, { value: "10.66.0.2" });

    for (const [method, path, json] of [
      ["GET", `/attributes/${secret.uuid}`, undefined],
      ["PATCH", `/attributes/${secret.uuid}`, { comment: "x" }],
      ["DELETE", `/attributes/${secret.uuid}`, undefined],
      ["POST", `/attributes/${secret.uuid}/tag/x`, undefined],
      ["POST", "/attributes/", { event_uuid: restricted, type: "ip-dst", value: "10.66.0.3" }],
    ] as const) {
      const res = await app.http.request(method, path, { token: owner.token, json });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const listed = await app.http.get(`/attributes/?event_uuid=${restricted}`, { token: owner.token });
    expect(listed.body.total).toBe(0);

    expect((await app.http.get(`/attributes/${shared.uuid}`, { token: owner.token })).status).toBe(200);
    expect((await app.http.patch(`/attributes/${shared.uuid}`, { token: owner.token, json: { comment: "x" } })).status).toBe(403);
    expect((await app.http.post("/attributes/", { token: owner.token, json: { event_uuid: community, type: "ip-dst", value: "10.66.0.4" } })).status).toBe(403);
    // The administrator reads and writes everything.
    expect((await app.http.get(`/attributes/${secret.uuid}`, { token: admin.token })).status).toBe(200);
    expect((await app.http.patch(`/attributes/${secret.uuid}`, { token: admin.token, json: { comment: "admin" } })).status).toBe(200);
    // A user of the owning organisation writes its events.
    const mine = await newEvent(owner, 0);
    const a = await newAttribute(owner, mine);
    expect((await app.http.patch(`/attributes/${a.uuid}`, { token: sameOrg.token, json: { comment: "colleague" } })).status).toBe(200);
  });

  it("needs the attributes scopes", async () => {
    const reader = await createUser(app, admin, ["attributes:read", "events:read", "events:create"]);
    const ev = await newEvent(reader, 0);
    const res = await app.http.post("/attributes/", { token: reader.token, json: { event_uuid: ev, type: "ip-dst", value: "10.0.0.1" } });
    expect(res.status).toBe(403);
    expect((await app.http.get("/attributes/")).status).toBe(401);
  });
});

describe("GraphQL", () => {
  it("creates, updates, lists, tags and deletes through the same service", async () => {
    const ev = await newEvent(owner);
    const created = await app.http.graphql(
      `mutation ($ev: String!) { createAttribute(eventUuid: $ev, input: {type: "ip-src", value: "192.0.2.1/32"}) { uuid value category toIds value1 value2 } }`,
      { ev },
      owner.token,
    );
    expect(created.body.errors).toBeUndefined();
    const a = created.body.data.createAttribute;
    expect(a).toMatchObject({ value: "192.0.2.1", category: "Network activity", toIds: true, value1: "192.0.2.1", value2: null });

    const bad = await app.http.graphql(`mutation ($u: String!) { updateAttribute(uuid: $u, input: {value: "999.1.1.1"}) { uuid } }`, { u: a.uuid }, owner.token);
    expect(bad.body.errors![0].extensions).toMatchObject({ code: "validation_error", status: 422 });

    const tagged = await app.http.graphql(`mutation ($u: String!) { tagAttribute(uuid: $u, tag: "gql-tag") }`, { u: a.uuid }, owner.token);
    expect(tagged.body.data.tagAttribute).toBe(true);
    const listed = await app.http.graphql(`query ($ev: String!) { attributes(eventUuid: $ev) { total items { uuid tags { name } } } }`, { ev }, owner.token);
    expect(listed.body.data.attributes).toEqual({ total: 1, items: [{ uuid: a.uuid, tags: [{ name: "gql-tag" }] }] });
    const deleted = await app.http.graphql(`mutation ($u: String!) { deleteAttribute(uuid: $u) }`, { u: a.uuid }, owner.token);
    expect(deleted.body.data.deleteAttribute).toBe(true);
    const hidden = await app.http.graphql(`query ($u: String!) { attribute(uuid: $u) { deleted } }`, { u: a.uuid }, foreign.token);
    expect(hidden.body.errors![0].extensions!.status).toBe(404);
  });
});
