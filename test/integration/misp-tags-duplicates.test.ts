/**
 * MISP API answers that need the worker's indexing or compare with what is stored (issue 26): tags/view
 * and tags/index counts (count: events carrying the tag, attribute_count: attributes carrying it
 * themselves, of what the caller reads), attributes/add refusing a duplicate as MISP
 * does (or updating it with breakOnDuplicate:0), free text whose defanging has spaces in it, and
 * events/view's `deleted` and `extended` as PyMISP's get_event sends them.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin } from "../support/fixtures.ts";
import { settled } from "../support/settled.ts";

const SCOPES = ["events:read", "events:create", "events:update", "events:delete", "attributes:read", "attributes:create", "attributes:update", "attributes:delete", "events:tag", "attributes:tag", "tags:read", "tags:create", "users:me"];
const DUPLICATE = "A similar attribute already exists for this event.";

let app: TestApp;
let key: string;
let otherKey: string;
const run = crypto.randomBytes(4).toString("hex");

const misp = (k: string, method: string, p: string, json?: unknown) => app.http.request(method, `/misp/${p}`, { authorization: k, ...(json === undefined ? {} : { json }), headers: { accept: "application/json" } });
const q = async <T>(sql: string, params: unknown[]) => (await app.booted.ctx.db.pool.query(sql, params)).rows as T[];

async function keyFor(orgName: string): Promise<string> {
  const admin = await loginAdmin(app);
  const user = await createUser(app, admin, [...SCOPES, "api_keys:create"], await createOrganisation(app, admin, orgName));
  const res = await app.http.post("/api-keys/", { token: user.token, json: { name: "misp", scopes: SCOPES } });
  expect(res.status, res.text).toBe(201);
  return res.body.token;
}

async function addEvent(info: string): Promise<{ id: string; uuid: string }> {
  const res = await misp(key, "POST", "events/add", { Event: { info: `${run} ${info}`, distribution: "0" } });
  expect(res.status, res.text).toBe(200);
  return res.body.Event;
}

beforeAll(async () => {
  app = await startTestApp("misp-tags-duplicates", { ROLE: "all" });
  key = await keyFor(`dup-a-${run}`);
  otherKey = await keyFor(`dup-b-${run}`);
}, 120_000);
afterAll(() => app?.close());

describe("attributes/add and duplicates", () => {
  it("refuses a second live attribute of the same type, value and category with MISP's message, and breakOnDuplicate:0 updates it", async () => {
    const e = await addEvent("duplicates");
    const first = await misp(key, "POST", `attributes/add/${e.id}`, { type: "ip-dst", value: "198.51.100.7" });
    expect(first.status, first.text).toBe(200);
    const again = await misp(key, "POST", `attributes/add/${e.id}`, { type: "ip-dst", value: "198.51.100.7", comment: "again" });
    expect(again.status, again.text).toBe(403);
    expect(again.body).toMatchObject({ saved: false, name: "Could not add Attribute", message: "Could not add Attribute", errors: { value: [DUPLICATE] } });

    // Several at once: the duplicate is listed by position, the other is created.
    const two = await misp(key, "POST", `attributes/add/${e.id}`, [{ type: "ip-dst", value: "198.51.100.7" }, { type: "ip-dst", value: "198.51.100.8" }]);
    expect(two.status, two.text).toBe(200);
    expect(two.body.Attribute.value).toBe("198.51.100.8");
    expect(two.body.errors).toEqual({ attribute_0: { value: [DUPLICATE] } });
    // The same value in the same request twice: the second is the duplicate of the first.
    const twice = await misp(key, "POST", `attributes/add/${e.id}`, [{ type: "domain", value: `twice-${run}.example.org` }, { type: "domain", value: `twice-${run}.example.org` }]);
    expect(twice.body.errors).toEqual({ attribute_1: { value: [DUPLICATE] } });

    // Another category, a deleted one, or one inside an object is no duplicate.
    const otherCategory = await misp(key, "POST", `attributes/add/${e.id}`, { type: "ip-dst", category: "Payload delivery", value: "198.51.100.7" });
    expect(otherCategory.status, otherCategory.text).toBe(200);
    const deleted = await misp(key, "POST", `attributes/delete/${two.body.Attribute.id}`, {});
    expect(deleted.status).toBe(200);
    expect((await misp(key, "POST", `attributes/add/${e.id}`, { type: "ip-dst", value: "198.51.100.8" })).status).toBe(200);

    const updated = await misp(key, "POST", `attributes/add/${e.id}/breakOnDuplicate:0`, { type: "ip-dst", category: "Network activity", value: "198.51.100.7", comment: "seen again", to_ids: false });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.Attribute).toMatchObject({ uuid: first.body.Attribute.uuid, id: first.body.Attribute.id, comment: "seen again", to_ids: false });
    const stored = await q<{ n: number }>("SELECT count(*)::int AS n FROM attributes a JOIN events ev ON ev.id = a.event_id WHERE ev.uuid = $1 AND a.value1 = '198.51.100.7'", [e.uuid]);
    expect(stored[0].n).toBe(2);
  });

  it("answers a hostile breakOnDuplicate with MISP's error body, writing nothing", async () => {
    const e = await addEvent("hostile duplicates");
    for (const bad of ["maybe", "%00", "2"]) {
      const res = await misp(key, "POST", `attributes/add/${e.id}/breakOnDuplicate:${bad}`, { type: "ip-dst", value: "198.51.100.9" });
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body).toMatchObject({ name: expect.any(String), message: expect.any(String), url: expect.stringContaining("/misp/attributes/add/") });
    }
    expect(await q("SELECT 1 FROM attributes a JOIN events ev ON ev.id = a.event_id WHERE ev.uuid = $1", [e.uuid])).toEqual([]);
  });
});

describe("free text with spaced defanging", () => {
  it("closes up [.], [at] and hxxp :// written with spaces, as one indicator each", async () => {
    const e = await addEvent("defanged");
    const text = `Seen 192.0.2 [.] 44, callback-${run} [.] example [.] com, hxxp :// drop-${run} [.] example [.] net/x.php and abuse [at] mail-${run} [.] example [.] org.`;
    const res = await misp(key, "POST", `events/freeTextImport/${e.id}`, { value: text });
    expect(res.status, res.text).toBe(200);
    const values = (await q<{ value: string; type: string }>("SELECT a.type, a.value1 AS value FROM attributes a JOIN events ev ON ev.id = a.event_id WHERE ev.uuid = $1 ORDER BY a.id", [e.uuid])).map((a) => `${a.type} ${a.value}`);
    expect(values).toEqual([
      "ip-dst 192.0.2.44",
      `hostname callback-${run}.example.com`,
      `url http://drop-${run}.example.net/x.php`,
      `email-src abuse@mail-${run}.example.org`,
    ]);
  });
});

describe("tags/view", () => {
  it("counts the events and attributes carrying the tag that the caller may read", async () => {
    const e = await addEvent("tag counts");
    const attr = await misp(key, "POST", `attributes/add/${e.id}`, { type: "domain", value: `counted-${run}.example.org` });
    const tag = await misp(key, "POST", "tags/add", { name: `counted:${run}` });
    expect(tag.status, tag.text).toBe(200);
    for (const uuid of [e.uuid, attr.body.Attribute.uuid]) {
      const res = await misp(key, "POST", "tags/attachTagToObject", { uuid, tag: `counted:${run}` });
      expect(res.status, res.text).toBe(200);
    }
    await settled(app);
    const mine = await misp(key, "GET", `tags/view/${tag.body.Tag.id}`);
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body).toMatchObject({ id: String(tag.body.Tag.id), name: `counted:${run}`, count: 1, attribute_count: 1 });
    // The event is its organisation's only: another organisation counts none of it.
    const theirs = await misp(otherKey, "GET", `tags/view/${tag.body.Tag.id}`);
    expect(theirs.body).toMatchObject({ count: 0, attribute_count: 0 });
    const missing = await misp(key, "GET", "tags/view/2147483647");
    expect(missing.status).toBe(405);
    expect(missing.body).toMatchObject({ name: "Invalid Tag", message: "Invalid Tag" });
    expect((await misp(key, "GET", "tags/view/abc")).status).toBe(404);
  });
});

describe("tags/index statistics", () => {
  it("gives each tag count and attribute_count as tags/view does (what the caller reads, deleted ones left out), none with exclude_statistics", async () => {
    const e = await addEvent("index counts");
    const name = `index-counted:${run}`;
    const tag = await misp(key, "POST", "tags/add", { name });
    expect(tag.status, tag.text).toBe(200);
    const added = await misp(key, "POST", `attributes/add/${e.id}`, [{ type: "domain", value: `kept-${run}.example.org` }, { type: "domain", value: `dropped-${run}.example.org` }]);
    expect(added.status, added.text).toBe(200);
    const [kept, dropped] = added.body.Attribute as { uuid: string; id: string }[];
    for (const uuid of [e.uuid, kept.uuid, dropped.uuid]) expect((await misp(key, "POST", "tags/attachTagToObject", { uuid, tag: name })).status).toBe(200);
    expect((await misp(key, "POST", `attributes/delete/${dropped.id}`)).status).toBe(200);
    // Another event carrying it, soft-deleted: not counted.
    const gone = await addEvent("index counts, deleted");
    expect((await misp(key, "POST", "tags/attachTagToObject", { uuid: gone.uuid, tag: name })).status).toBe(200);
    expect((await app.http.request("DELETE", `/events/${gone.uuid}`, { authorization: key })).status).toBe(204);

    const row = async (k: string, path = `tags/index/searchall:${encodeURIComponent(name)}`) => {
      const res = await misp(k, "GET", path);
      expect(res.status, res.text).toBe(200);
      return (res.body.Tag as Record<string, unknown>[]).find((t) => t.name === name);
    };
    expect(await row(key)).toMatchObject({ id: String(tag.body.Tag.id), count: 1, attribute_count: 1 });
    expect((await misp(key, "GET", `tags/view/${tag.body.Tag.id}`)).body).toMatchObject({ count: 1, attribute_count: 1 });
    // The event is its organisation's only: another organisation counts none of it.
    expect(await row(otherKey)).toMatchObject({ count: 0, attribute_count: 0 });
    const bare = await row(key, `tags/index/searchall:${encodeURIComponent(name)}/exclude_statistics:1`);
    expect(bare).toBeDefined();
    expect(bare).not.toHaveProperty("count");
    expect(bare).not.toHaveProperty("attribute_count");
    for (const hostile of ["maybe", "2", "%00"]) {
      const res = await misp(key, "GET", `tags/index/exclude_statistics:${hostile}`);
      expect(res.status, `${hostile}: ${res.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${hostile}: ${res.text}`).toBeLessThan(500);
    }
  });
});

describe("events/view and deleted", () => {
  it("answers the live elements by default, both with deleted 1 or [0, 1], the soft-deleted only with [1]; others' soft-deleted never", async () => {
    const res = await misp(key, "POST", "events/add", { Event: { info: `${run} deleted states`, distribution: "3", Attribute: [{ type: "domain", value: `live-${run}.example.org` }, { type: "domain", value: `gone-${run}.example.org` }] } });
    expect(res.status, res.text).toBe(200);
    const e = res.body.Event;
    const gone = e.Attribute.find((a: { value: string }) => a.value.startsWith("gone-"));
    expect((await misp(key, "POST", `attributes/delete/${gone.id}`, {})).status).toBe(200);
    const values = (r: { body: { Event: { Attribute: { value: string; deleted: boolean }[] } } }) => r.body.Event.Attribute.map((a) => `${a.value.split("-")[0]}${a.deleted ? " (deleted)" : ""}`).sort();

    expect(values(await misp(key, "GET", `events/view/${e.id}`))).toEqual(["live"]);
    expect(values(await misp(key, "GET", `events/view/${e.uuid}/deleted:1`))).toEqual(["gone (deleted)", "live"]);
    expect(values(await misp(key, "POST", `events/view/${e.id}`, { deleted: true }))).toEqual(["gone (deleted)", "live"]);
    expect(values(await misp(key, "POST", `events/view/${e.id}`, { deleted: [0, 1] }))).toEqual(["gone (deleted)", "live"]);
    expect(values(await misp(key, "POST", `events/view/${e.id}`, { deleted: [1] }))).toEqual(["gone (deleted)"]);
    expect(values(await misp(key, "POST", `events/view/${e.id}`, { deleted: 0, extended: 1 }))).toEqual(["live"]);
    // Another organisation reads the shared event, never what its creator deleted.
    expect(values(await misp(otherKey, "POST", `events/view/${e.uuid}`, { deleted: 1 }))).toEqual(["live"]);
    expect(values(await misp(otherKey, "POST", `events/view/${e.uuid}`, { deleted: [1] }))).toEqual([]);

    for (const bad of [{ deleted: "maybe" }, { deleted: [2] }, { deleted: [] }, { deleted: { a: 1 } }, { extended: "x" }]) {
      const refused = await misp(key, "POST", `events/view/${e.id}`, bad);
      expect(refused.status, `${JSON.stringify(bad)}: ${refused.text}`).toBe(400);
      expect(refused.body).toMatchObject({ name: "Bad Request", url: `/misp/events/view/${e.id}` });
    }
    expect((await misp(key, "GET", `events/view/${e.id}/deleted:maybe`)).status).toBe(400);
  });
});

describe("events/view extended", () => {
  it("merges in the events extending this one that the caller may read, as MISP's extended view; other organisations' private extensions never", async () => {
    const add = async (k: string, info: string, distribution: string, value: string, extra: Record<string, unknown> = {}) => {
      const res = await misp(k, "POST", "events/add", { Event: { info: `${run} ${info}`, distribution, Attribute: [{ type: "domain", value: `${value}-${run}.example.org` }], ...extra } });
      expect(res.status, res.text).toBe(200);
      return res.body.Event as { id: string; uuid: string };
    };
    const base = await add(key, "extended base", "3", "base", { Tag: [{ name: `shared:${run}` }] });
    const extends_uuid = base.uuid;
    const ours = await add(key, "our shared extension", "3", "ours", { extends_uuid, Tag: [{ name: `shared:${run}` }, { name: `extension:${run}` }] });
    const ourPrivate = await add(key, "our private extension", "0", "ourprivate", { extends_uuid });
    const theirPrivate = await add(otherKey, "their private extension", "0", "theirprivate", { extends_uuid });
    await add(key, "unrelated", "3", "unrelated");
    const values = (r: { body: { Event: { Attribute?: { value: string }[] } } }) => (r.body.Event.Attribute ?? []).map((a) => a.value.split("-")[0]).sort();

    expect(values(await misp(key, "POST", `events/view/${base.id}`, {}))).toEqual(["base"]);
    const mine = await misp(key, "POST", `events/view/${base.id}`, { extended: 1 });
    expect(mine.status, mine.text).toBe(200);
    expect(values(mine)).toEqual(["base", "ourprivate", "ours"]);
    expect(Object.keys(mine.body.Event.extensionEvents).sort()).toEqual([ours.id, ourPrivate.id].sort());
    expect(mine.body.Event.extensionEvents[ours.id]).toMatchObject({ id: ours.id, info: `${run} our shared extension`, Orgc: { name: `dup-a-${run}` } });
    // The extension's tags the event lacks are added, once.
    expect(mine.body.Event.Tag.map((t: { name: string }) => t.name).sort()).toEqual([`extension:${run}`, `shared:${run}`]);
    // The other organisation reads the base, our shared extension and its own, never our private one.
    const theirs = await misp(otherKey, "GET", `events/view/${base.uuid}/extended:1`);
    expect(theirs.status, theirs.text).toBe(200);
    expect(values(theirs)).toEqual(["base", "ours", "theirprivate"]);
    expect(Object.keys(theirs.body.Event.extensionEvents).sort()).toEqual([ours.id, theirPrivate.id].sort());
    expect(theirs.text).not.toContain("ourprivate");
    // metadata: the extensions named, no attributes; an event nothing extends has no extensionEvents.
    const meta = await misp(key, "POST", `events/view/${base.id}`, { extended: 1, metadata: 1 });
    expect(meta.body.Event).not.toHaveProperty("Attribute");
    expect(Object.keys(meta.body.Event.extensionEvents)).toHaveLength(2);
    expect((await misp(key, "POST", `events/view/${ours.id}`, { extended: 1 })).body.Event).not.toHaveProperty("extensionEvents");

    for (const bad of [{ extended: [1] }, { extended: { a: 1 } }, { extended: "2" }]) {
      const refused = await misp(key, "POST", `events/view/${base.id}`, bad);
      expect(refused.status, `${JSON.stringify(bad)}: ${refused.text}`).toBe(400);
      expect(refused.body).toMatchObject({ name: "Bad Request", url: `/misp/events/view/${base.id}` });
    }
    expect((await misp(key, "GET", `events/view/${base.id}/extended:maybe`)).status).toBe(400);
  });
});
