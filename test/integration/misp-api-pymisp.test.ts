/**
 * The MISP-compatible API (issue 26, first slice) driven by PyMISP itself: the real service, the
 * machine's python3 with the shared PyMISP (../shared/clients), no stand-ins. test/misp/pymisp_flow.py
 * checks every answer PyMISP gets (connect, describe types, events, attributes, tags, sightings,
 * publishing, another organisation's and a read-only key's refusals, deletion); this file gives it
 * its callers, compares what it reports with the database, and sends what PyMISP never would:
 * hostile input, with MISP's error bodies in answer and never a 500.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { pymispScript, runPython } from "../support/pymisp.ts";

/** The real clients beside the shared data (`../shared/clients`), read in place. */
const SCRIPT = pymispScript("pymisp_flow.py");
const AUTH_FAILED = "Authentication failed. Please make sure you pass the API key of an API enabled user along in the Authorization header.";

/** What the PyMISP flow needs: MISP's perm_add, perm_modify, perm_publish, perm_tagger, perm_tag_editor and perm_sighting. */
const WRITER_SCOPES = [
  ...["read", "create", "update", "delete", "publish", "tag"].map((a) => `events:${a}`),
  ...["read", "create", "update", "delete", "tag"].map((a) => `attributes:${a}`),
  "tags:read", "tags:create", "sightings:read", "sightings:create", "users:me", "user_settings:read",
];

const READER_SCOPES = ["events:read", "attributes:read", "tags:read", "users:me"];

let app: TestApp;
let readOnly: TestUser;
let admin: TestUser;
let orgAdmin: TestUser;
let key: string;
let readOnlyKey: string;
let otherKey: string;
let foreignEvent: { uuid: string; id: number };

async function apiKey(user: TestUser, scopes: string[]): Promise<string> {
  const res = await app.http.post("/api-keys/", { token: user.token, json: { name: `misp-${Math.random()}`, scopes } });
  if (res.status !== 201) throw new Error(`api key: ${res.text}`);
  return res.body.token;
}

const runPyMisp = (env: Record<string, string>) => runPython([SCRIPT], { env });

/** A request to the MISP API with a raw key, as PyMISP sends it. */
const misp = (method: string, p: string, opts: { key?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {}) =>
  app.http.request(method, `/misp/${p}`, {
    ...(opts.key === undefined ? {} : { authorization: opts.key }),
    ...(opts.json === undefined ? {} : { json: opts.json }),
    headers: { accept: "application/json", ...opts.headers },
    ...(opts.body === undefined ? {} : { body: opts.body, contentType: "application/json" }),
  });

beforeAll(async () => {
  app = await startTestApp("misp-api");
  admin = await loginAdmin(app);
  const orgId = await createOrganisation(app, admin);
  orgAdmin = await createUser(app, admin, [...WRITER_SCOPES, "api_keys:create"], orgId);
  key = await apiKey(orgAdmin, WRITER_SCOPES);
  readOnly = await createUser(app, admin, [...READER_SCOPES, "api_keys:create"], orgId);
  readOnlyKey = await apiKey(readOnly, READER_SCOPES);
  const other = await createUser(app, admin, 3, await createOrganisation(app, admin));
  otherKey = await apiKey(other, ["events:read", "events:create", "attributes:read", "tags:read", "users:me"]);
  const made = await misp("POST", "events/add", { key: otherKey, json: { Event: { info: "their private event", distribution: "0" } } });
  if (made.status !== 200) throw new Error(made.text);
  foreignEvent = { uuid: made.body.Event.uuid, id: Number(made.body.Event.id) };
}, 60_000);
afterAll(() => app?.close());

describe.each(["Authorization", "X-MISP-AUTH"])("PyMISP through %s", (header) => {
  it("connects, writes, reads, tags, sights, publishes and deletes with every answer as MISP's", async () => {
    const run = await runPyMisp({
      MISP_URL: `${app.url}/misp/`,
      MISP_KEY: key,
      MISP_EMAIL: orgAdmin.email,
      MISP_READONLY_KEY: readOnlyKey,
      MISP_OTHER_KEY: otherKey,
      MISP_FOREIGN_EVENT: foreignEvent.uuid,
      MISP_AUTH_HEADER: header,
    });
    expect(run.code, run.stderr.slice(-3000)).toBe(0);
    const report = JSON.parse(run.stdout.trim().split("\n").at(-1)!);
    expect(report.checks.length).toBeGreaterThan(60);
    // What PyMISP saw is what is stored: the event went for good, the tag it made stayed.
    const pool = app.booted.ctx.db.pool;
    expect((await pool.query("SELECT 1 FROM events WHERE uuid = $1 OR id = $2", [report.event_uuid, report.event_id])).rowCount).toBe(0);
    expect((await pool.query("SELECT colour FROM tags WHERE name = $1", [report.tag])).rows).toEqual([{ colour: "#123456" }]);
    // The foreign event is untouched.
    expect((await pool.query("SELECT info FROM events WHERE uuid = $1", [foreignEvent.uuid])).rows).toEqual([{ info: "their private event" }]);
  }, 120_000);
});

describe("authentication and authorization", () => {
  it("refuses a missing, malformed or unknown key with MISP's 403", async () => {
    for (const k of [undefined, "not-a-key", "0".repeat(40), `Bearer ${"f".repeat(40)}`]) {
      const res = await misp("GET", "servers/getVersion", { key: k });
      expect(res.status, String(k)).toBe(403);
      expect(res.body).toEqual({ name: AUTH_FAILED, message: AUTH_FAILED, url: "/misp/servers/getVersion" });
    }
    const both = await misp("GET", "servers/getVersion", { key, headers: { "x-misp-auth": key } });
    expect(both.status).toBe(403);
  });

  it("answers another organisation's private event as one that does not exist, by id, uuid, index and every write", async () => {
    const hidden = { name: "Invalid event", message: "Invalid event" };
    for (const ref of [foreignEvent.id, foreignEvent.uuid]) {
      const view = await misp("GET", `events/view/${ref}`, { key });
      expect(view.status).toBe(404);
      expect(view.body).toEqual({ ...hidden, url: `/misp/events/view/${ref}` });
      for (const [p, json] of [[`events/edit/${ref}`, { Event: { info: "x" } }], [`events/publish/${ref}`, undefined], [`events/delete/${ref}`, undefined], [`attributes/add/${ref}`, { type: "ip-dst", value: "192.0.2.1" }]] as const) {
        const res = await misp("POST", p, { key, json });
        expect(res.status, p).toBe(404);
        expect(res.body.message, p).toBe("Invalid event");
      }
    }
    const index = await misp("POST", "events/index", { key, json: { eventinfo: "their private" } });
    expect(index.status).toBe(200);
    expect(index.body).toEqual([]);
    const tag = await misp("POST", "tags/attachTagToObject", { key, json: { uuid: foreignEvent.uuid, tag: "tlp:red" } });
    expect(tag.status).toBe(404);
    expect(tag.body.message).toBe("Invalid Target.");
    const existing = await misp("POST", "events/add", { key, json: { Event: { uuid: foreignEvent.uuid, info: "take it over" } } });
    expect([403, 404]).toContain(existing.status);
    expect(existing.body.message).not.toMatch(/already exists/);
    const stored = await app.booted.ctx.db.pool.query("SELECT info, published FROM events WHERE uuid = $1", [foreignEvent.uuid]);
    expect(stored.rows).toEqual([{ info: "their private event", published: false }]);
  });

  /**
   * MISP's events.attribute_count counts every live attribute of the event, those inside objects
   * too (MispAttribute keeps it on save and delete; proposals are not attributes). Ours counts them
   * under the one distribution rule: an attribute of an object needs both to pass, and what another
   * organisation cannot read is not counted for it (a count is information too).
   */
  it("events/index and events/view count attributes in objects too, live ones the caller may read", async () => {
    const attr = (value: string, distribution: number, extra: Record<string, unknown> = {}) => ({ type: "domain", value: `${value}.count.example.org`, distribution: String(distribution), ...extra });
    const object = (name: string, distribution: number, attributes: unknown[], extra: Record<string, unknown> = {}) => ({
      name: "domain-ip", "meta-category": "network", distribution: String(distribution), ...extra,
      Attribute: attributes.map((a) => ({ ...(a as object), object_relation: "domain" })),
    });
    const info = `attribute counts ${Math.random()}`;
    const made = await misp("POST", "events/add", {
      key,
      json: {
        Event: {
          info, distribution: "1",
          Attribute: [attr("s1", 5), attr("s2", 5), attr("s-hidden", 0), attr("s-deleted", 5, { deleted: true })],
          Object: [
            object("shared", 5, [attr("o1", 5), attr("o2", 5), attr("o-hidden", 0), attr("o-deleted", 5, { deleted: true })]),
            object("hidden", 0, [attr("h1", 5)]),
            // A deleted object's attributes are gone with it, even one whose own flag says live.
            object("deleted", 5, [attr("d1", 5)], { deleted: true }),
          ],
        },
      },
    });
    expect(made.status, made.text).toBe(200);
    const adminKey = await apiKey(admin, ["*"]);
    // The index's and the full event's (events/view, whose answer holds the deleted ones too).
    const counts = async (k: string) => {
      const index = await misp("POST", "events/index", { key: k, json: { eventinfo: info } });
      expect(index.status, index.text).toBe(200);
      const view = await misp("GET", `events/view/${made.body.Event.uuid}`, { key: k });
      expect(view.status, view.text).toBe(200);
      return [...index.body.map((e: { attribute_count: string }) => e.attribute_count), view.body.Event.attribute_count];
    };
    // Owners and administrators: 3 standalone, 3 in the shared object, 1 in the hidden one.
    expect(await counts(key)).toEqual(["7", "7"]);
    expect(await counts(adminKey)).toEqual(["7", "7"]);
    // Another organisation: 2 standalone and 2 in the shared object.
    expect(await counts(otherKey)).toEqual(["4", "4"]);
    // The native API's attribute_count stays the standalone attributes' (the peer's).
    const native = await app.http.get(`/events/${made.body.Event.uuid}`, { authorization: key });
    expect(native.body.attribute_count).toBe(3);
  });

  it("refuses a read-only key's writes with MISP's message, before reading the input", async () => {
    const event = await misp("POST", "events/add", { key, json: { Event: { info: "for the read-only key" } } });
    const id = event.body.Event.id;
    for (const [p, json] of [["events/add", { Event: { info: "x" } }], [`events/edit/${id}`, { Event: { info: "x" } }], [`events/publish/${id}`, undefined], [`events/delete/${id}`, undefined], [`attributes/add/${id}`, [{ type: "ip-dst", value: "192.0.2.1" }]], ["tags/add", { name: "ro-tag" }], ["sightings/add", { value: "192.0.2.1" }], ["tags/attachTagToObject", { uuid: event.body.Event.uuid, tag: "ro-tag" }]] as const) {
      const res = await misp("POST", p, { key: readOnlyKey, json });
      expect(res.status, p).toBe(403);
      expect(res.body, p).toEqual({ name: "You do not have permission to use this functionality.", message: "You do not have permission to use this functionality.", url: `/misp/${p}` });
    }
    expect((await misp("GET", `events/view/${id}`, { key: readOnlyKey })).status).toBe(200);
  });

  it("edits with events:update alone (an edit is no creation), and an edit never creates", async () => {
    const editor = await createUser(app, admin, ["events:read", "events:update", "users:me", "api_keys:create"], orgAdmin.orgId);
    const editorKey = await apiKey(editor, ["events:read", "events:update", "users:me"]);
    const made = await misp("POST", "events/add", { key, json: { Event: { info: "to be edited" } } });
    const edited = await misp("POST", `events/edit/${made.body.Event.id}`, { key: editorKey, json: { Event: { info: "edited with events:update" } } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.Event).toMatchObject({ id: made.body.Event.id, uuid: made.body.Event.uuid, info: "edited with events:update" });
    const added = await misp("POST", "events/add", { key: editorKey, json: { Event: { info: "no" } } });
    expect(added.status).toBe(403);
    expect(added.body.message).toBe("You do not have permission to use this functionality.");
    const nowhere = await misp("POST", "events/edit/12345678-1234-4234-8234-1234567890ab", { key, json: { Event: { info: "not created" } } });
    expect(nowhere.status).toBe(404);
    expect((await app.booted.ctx.db.pool.query("SELECT 1 FROM events WHERE uuid = '12345678-1234-4234-8234-1234567890ab'")).rowCount).toBe(0);
  });

  it("answers describeTypes.json with the attribute catalogue MISP's describeTypes.json is, unchanged", async () => {
    const res = await misp("GET", "attributes/describeTypes.json", { key: readOnlyKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "../../src/modules/attributes/catalogue/describeTypes.json"), "utf8")));
  });

  it("answers getVersion and users/view/me with the caller's MISP permissions", async () => {
    const version = await misp("GET", "servers/getVersion", { key: readOnlyKey });
    expect(version.body).toMatchObject({ version: "2.5.34", pymisp_recommended_version: "2.5.34", perm_sync: false, perm_sighting: false, perm_galaxy_editor: false, filter_sightings: true });
    const me = await misp("GET", "users/view/me", { key: readOnlyKey });
    expect(me.body.Role).toMatchObject({ id: String(readOnly.roleId), perm_add: false, perm_modify: false, perm_publish: false, perm_site_admin: false, perm_tagger: false });
    const full = await misp("GET", "users/view/me", { key });
    expect(full.body.Role).toMatchObject({ id: String(orgAdmin.roleId), perm_add: true, perm_publish: true, perm_sighting: true, perm_tag_editor: true, perm_site_admin: false });
    expect(full.body.User).toMatchObject({ id: String(orgAdmin.id), email: orgAdmin.email, org_id: String(orgAdmin.orgId), role_id: String(orgAdmin.roleId) });
    expect(full.body.Organisation.id).toBe(String(orgAdmin.orgId));
  });
});

describe("hostile input on the MISP routes: MISP's error bodies, never a 500", () => {
  it("bad JSON is MISP's 405, an empty body none at all", async () => {
    const res = await misp("POST", "events/add", { key, body: '{"Event": {"info": ' });
    expect(res.status).toBe(405);
    expect(res.body.message).toMatch(/^Invalid JSON input/);
    expect(res.body.url).toBe("/misp/events/add");
    const empty = await misp("POST", "events/add", { key, body: "" });
    expect(empty.status).toBe(403);
    expect(empty.body).toMatchObject({ saved: false, message: "Could not add Event" });
  });

  it("NUL characters are refused where they are, nothing stored", async () => {
    const before = (await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM events")).rows[0].n;
    for (const json of [{ Event: { info: "a\u0000b" } }, { Event: { info: "ok", Attribute: [{ type: "comment", value: "x\u0000" }] } }, { Event: { "in\u0000fo": "x" } }]) {
      const res = await misp("POST", "events/add", { key, json });
      expect(res.status, JSON.stringify(json)).toBe(403);
      expect(res.body.saved).toBe(false);
      expect(JSON.stringify(res.body.errors)).toMatch(/NUL/);
    }
    expect((await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM events")).rows[0].n).toBe(before);
    const path = await misp("GET", "events/view/1%00", { key });
    expect(path.status).toBe(404);
    expect(path.body.message).toBe("Invalid event");
    const named = await misp("GET", `events/view/${foreignEvent.id}/metadata:%00`, { key });
    expect([400, 404]).toContain(named.status);
    expect(named.body).toHaveProperty("message");
  });

  it("huge, negative and malformed ids are MISP's 404 for that kind", async () => {
    for (const ref of ["99999999999999999999", "2147483648", "-1", "0", "1.5", "abc", "x".repeat(5000), "12345678-1234-1234-1234-1234567890ab"]) {
      for (const [p, message] of [["events/view", "Invalid event"], ["attributes/view", "Invalid attribute"]]) {
        const res = await misp("GET", `${p}/${ref}`, { key });
        expect(res.status, `${p}/${ref.slice(0, 20)}`).toBe(404);
        expect(res.body.message).toBe(ref.length > 4096 ? "Not Found" : message);
      }
    }
    const del = await misp("POST", "attributes/delete/2147483647/1", { key });
    expect(del.status).toBe(404);
    const extra = await misp("POST", "attributes/delete/1/1/2", { key });
    expect(extra.status).toBe(404);
  });

  it("unknown paths and methods answer in MISP's shape", async () => {
    for (const [method, p] of [["PUT", "events/restSearch"], ["GET", "nothing/here"], ["GET", "events/add"], ["PUT", "events/view/1"], ["GET", ""]]) {
      const res = await misp(method, p, { key });
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.body).toEqual({ name: "Not Found", message: "Not Found", url: `/misp/${p}` });
    }
  });

  it("wrong shapes in bodies are MISP's save failures or 400s, not 500s", async () => {
    const made = await misp("POST", "events/add", { key, json: { Event: { info: "shapes" } } });
    const id = made.body.Event.id;
    const cases: [string, unknown][] = [
      ["events/add", []],
      ["events/add", { Event: "x" }],
      ["events/add", { Event: { info: "x", date: "2024-02-30" } }],
      ["events/add", { Event: { info: "x", distribution: "9" } }],
      [`events/edit/${id}`, { Event: [] }],
      [`attributes/add/${id}`, []],
      [`attributes/add/${id}`, [1, "x", null]],
      [`attributes/add/${id}`, { type: "no-such-type", value: "x" }],
      [`attributes/add/${id}`, { type: "ip-dst", value: "x".repeat(200_000) }],
      ["events/index", { tags: { XOR: ["a"] } }],
      ["events/index", { attribute: "x" }],
      ["events/index", { limit: 100000 }],
      ["events/index", { datefrom: "yesterday" }],
      ["tags/add", { name: "" }],
      ["tags/add", { name: 5 }],
      ["tags/attachTagToObject", { uuid: "not-a-uuid", tag: "x" }],
      ["tags/attachTagToObject", { tag: "x" }],
      ["tags/attachTagToObject", { uuid: made.body.Event.uuid }],
      ["tags/attachTagToObject", { uuid: made.body.Event.uuid, tag: "a\u0001b" }],
      ["tags/removeTagFromObject", { uuid: made.body.Event.uuid, tag: ["a", "b"] }],
      ["sightings/add", {}],
      ["sightings/add", { value: "192.0.2.1", type: "nope" }],
      ["sightings/add", { uuid: "nope" }],
    ];
    for (const [p, json] of cases) {
      const res = await misp("POST", p, { key, json });
      expect(res.status, `${p} ${JSON.stringify(json).slice(0, 80)}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(typeof res.body.message, p).toBe("string");
      expect(res.body.url).toBe(`/misp/${p}`);
    }
    const info = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM attributes a JOIN events e ON e.id = a.event_id WHERE e.uuid = $1", [made.body.Event.uuid]);
    expect(info.rows[0].n).toBe(0);
  });
});
