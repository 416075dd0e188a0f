import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  app = await startTestApp("tags");
  admin = await loginAdmin(app);
  user = await createUser(app, admin, 3);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const unique = (p: string) => `${p}-${crypto.randomBytes(4).toString("hex")}`;

async function newTag(body: Record<string, unknown> = {}, token = user.token) {
  const res = await app.http.post("/tags/", { token, json: { name: unique("tag"), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe("POST /tags/", () => {
  it("creates a tag in the peer's shape, with a colour derived from the name by default", async () => {
    const t = await newTag();
    expect(Object.keys(t).sort()).toEqual(
      ["colour", "exportable", "hide_tag", "id", "is_custom_galaxy", "is_galaxy", "local_only", "machine_tag", "name", "numerical_value", "org_id", "user_id"].sort(),
    );
    // Beside the peer's fields, the name's machine-tag parts (null for a plain tag).
    const machine = await app.http.post("/tags/", { token: user.token, json: { name: `ns-${crypto.randomBytes(3).toString("hex")}:pred="a value"` } });
    expect(machine.body.machine_tag).toEqual({ namespace: machine.body.name.split(":")[0], predicate: "pred", value: "a value" });
    expect(t).toMatchObject({ colour: expect.stringMatching(/^#[0-9a-f]{6}$/), exportable: true, hide_tag: false, is_galaxy: false, user_id: user.id, org_id: null });
    const full = await newTag({ colour: "#FF0000", exportable: false, hide_tag: true, is_galaxy: false, is_custom_galaxy: false, local_only: true, numerical_value: 5, org_id: user.orgId });
    expect(full).toMatchObject({ colour: "#FF0000", exportable: false, hide_tag: true, local_only: true, numerical_value: 5, org_id: user.orgId });
    expect((await app.http.get(`/tags/${full.id}`, { token: user.token })).body).toEqual(full);
  });

  it("refuses a taken name (409) and bad input (422)", async () => {
    const t = await newTag();
    expect((await app.http.post("/tags/", { token: user.token, json: { name: t.name } })).status).toBe(409);
    for (const body of [
      { name: unique("c"), colour: "red" },
      { name: unique("c"), colour: "#12345" },
      { name: "" },
      { name: "a\u0000b" },
      { name: "x".repeat(256) },
      { name: unique("c"), org_id: 999_999 },
      { name: unique("c"), unknown: true },
      { colour: "#000000" },
    ]) {
      const res = await app.http.post("/tags/", { token: user.token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe("GET /tags/", () => {
  it("pages (P2, default 20, up to 1000), filters by case-insensitive substring and hidden, ordered by name", async () => {
    const stem = unique("Findme");
    const names = [`${stem}-b`, `${stem}-a`, `${stem}-c`];
    for (const [i, name] of names.entries()) await newTag({ name, hide_tag: i === 2 });
    const res = await app.http.get(`/tags/?filter=${stem.toUpperCase()}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, size: 20, pages: 1 });
    expect(res.body.items.map((t: { name: string }) => t.name)).toEqual([`${stem}-a`, `${stem}-b`, `${stem}-c`]);
    const hidden = await app.http.get(`/tags/?filter=${stem}&hidden=true`, { token: user.token });
    expect(hidden.body.items.map((t: { name: string }) => t.name)).toEqual([`${stem}-c`]);
    const page2 = await app.http.get(`/tags/?filter=${stem}&size=2&page=2`, { token: user.token });
    expect(page2.body).toMatchObject({ total: 3, page: 2, size: 2, pages: 2 });
    expect(page2.body.items).toHaveLength(1);
    expect((await app.http.get(`/tags/?size=1000`, { token: user.token })).status).toBe(200);
    // LIKE wildcards in the filter are literal.
    expect((await app.http.get(`/tags/?filter=%25`, { token: user.token })).body.total).toBe(0);
    for (const q of ["size=0", "size=-1", "size=1001", "size=1000001", "page=0", "filter=a%00"]) {
      expect((await app.http.get(`/tags/?${q}`, { token: user.token })).status, q).toBe(422);
    }
    expect((await app.http.get("/tags/abc", { token: user.token })).status).toBe(422);
    expect((await app.http.get("/tags/999999", { token: user.token })).status).toBe(404);
  });
});

describe("PATCH and DELETE /tags/{id}", () => {
  it("updates (409 on a taken name), and needs tags:update", async () => {
    const t = await newTag();
    const other = await newTag();
    const res = await app.http.patch(`/tags/${t.id}`, { token: admin.token, json: { colour: "#00ff00", hide_tag: true } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: t.id, name: t.name, colour: "#00ff00", hide_tag: true });
    expect((await app.http.patch(`/tags/${t.id}`, { token: admin.token, json: { name: other.name } })).status).toBe(409);
    expect((await app.http.patch(`/tags/${t.id}`, { token: admin.token, json: {} })).status).toBe(422);
    expect((await app.http.patch(`/tags/999999`, { token: admin.token, json: { colour: "#000000" } })).status).toBe(404);
    expect((await app.http.patch(`/tags/${t.id}`, { token: user.token, json: { colour: "#000000" } })).status).toBe(403);
  });

  it("deletes a tag with its links and records the untagging of each event and attribute", async () => {
    const ev = await app.http.post("/events/", { token: user.token, json: { info: unique("ev"), distribution: 0 } });
    const attr = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: ev.body.uuid, type: "ip-dst", value: "192.0.2.7" } });
    const name = unique("doomed");
    expect((await app.http.post(`/attributes/${attr.body.uuid}/tag/${name}`, { token: user.token })).status).toBe(201);
    expect((await app.http.post(`/events/${ev.body.uuid}/tag/${name}`, { token: user.token })).status).toBe(201);
    const id = (await sql("SELECT id FROM tags WHERE name = $1", [name])).rows[0].id;
    expect((await app.http.delete(`/tags/${id}`, { token: user.token })).status).toBe(403);
    expect((await app.http.delete(`/tags/${id}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.get(`/tags/${id}`, { token: admin.token })).status).toBe(404);
    expect((await app.http.get(`/attributes/${attr.body.uuid}`, { token: user.token })).body.tags).toEqual([]);
    const recs = (await sql("SELECT kind, entity_uuid::text FROM change_records WHERE payload->>'tag' = $1 AND payload->>'cascade' = 'true' ORDER BY id", [name])).rows;
    expect(recs).toEqual([
      { kind: "event.untagged", entity_uuid: ev.body.uuid },
      { kind: "attribute.untagged", entity_uuid: attr.body.uuid },
    ]);
    expect((await app.http.delete(`/tags/${id}`, { token: admin.token })).status).toBe(404);
  });
});

describe("GraphQL", () => {
  it("lists, creates, updates and deletes tags through the same service", async () => {
    const name = unique("gql");
    const created = await app.http.graphql(`mutation ($n: String!) { createTag(input: {name: $n, colour: "#123456"}) { id name colour } }`, { n: name }, user.token);
    expect(created.body.data.createTag).toMatchObject({ name, colour: "#123456" });
    const dup = await app.http.graphql(`mutation ($n: String!) { createTag(input: {name: $n}) { id } }`, { n: name }, user.token);
    expect(dup.body.errors![0].extensions!.status).toBe(409);
    const listed = await app.http.graphql(`query ($f: String) { tags(filter: $f) { total items { name } } }`, { f: name }, user.token);
    expect(listed.body.data.tags).toEqual({ total: 1, items: [{ name }] });
    const id = created.body.data.createTag.id;
    const upd = await app.http.graphql(`mutation ($id: Int!) { updateTag(id: $id, input: {hideTag: true}) { hideTag } }`, { id }, admin.token);
    expect(upd.body.data.updateTag.hideTag).toBe(true);
    const del = await app.http.graphql(`mutation ($id: Int!) { deleteTag(id: $id) }`, { id }, admin.token);
    expect(del.body.data.deleteTag).toBe(true);
  });
});
