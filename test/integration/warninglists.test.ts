/**
 * Warninglists: import of the real misp-warninglists (../shared/data, read in place) from the
 * directory and from a URL, list/get/PATCH, hits stored on every attribute write path and shown on
 * reads, searchable on both backends (warnings.name), correlation skipping listed values, the
 * recomputation after enabling or disabling, and hostile lists (a backtracking regex, a million entries).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { SEARCH_BACKENDS } from "../support/search-backends.ts";
import { settled } from "../support/settled.ts";
import { sharedPath } from "../support/shared-data.ts";

const WARNINGLIST_DATA = sharedPath("misp-warninglists");
const LIST_COUNT = fs.readdirSync(path.join(WARNINGLIST_DATA, "lists")).filter((d) => fs.existsSync(path.join(WARNINGLIST_DATA, "lists", d, "list.json"))).length;
const DNS_V4 = "List of known IPv4 public DNS resolvers";
const GOOGLE = "List of known google domains";
const SHORTENERS = "List of known URL Shorteners domains";

type Json = Record<string, any>;
const sqlOf = (app: TestApp) => <T = Json>(text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query<T & object>(text, params).then((r) => r.rows);
const listId = async (app: TestApp, name: string) => (await sqlOf(app)<{ id: number }>("SELECT id FROM warninglists WHERE name = $1", [name]))[0].id;
const names = (a: Json) => (a.warnings as Json[]).map((w) => w.name);

/** A misp-warninglists directory of our own lists (for hostile content), under the system's temporary directory. */
function writeSource(lists: Record<string, Json>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wl-src-"));
  for (const [name, body] of Object.entries(lists)) {
    fs.mkdirSync(path.join(dir, "lists", name), { recursive: true });
    fs.writeFileSync(path.join(dir, "lists", name, "list.json"), JSON.stringify(body));
  }
  return dir;
}

describe("import, list, get and PATCH", () => {
  let app: TestApp;
  let admin: TestUser;
  let user: TestUser;
  beforeAll(async () => {
    app = await startTestApp("warninglists", { WARNINGLISTS_SOURCE: WARNINGLIST_DATA });
    admin = await loginAdmin(app);
    user = await createUser(app, admin, 3);
  }, 60_000);
  afterAll(() => app?.close());

  it("imports every list of the shared data with its entries; a second run rewrites nothing and keeps enabled", async () => {
    const started = performance.now();
    const res = await app.http.post("/warninglists/update", { token: admin.token });
    expect(res.status, res.text).toBe(200);
    console.log(`warninglist import: ${JSON.stringify({ ...res.body, refused: res.body.refused.length })} (round trip ${Math.round(performance.now() - started)} ms)`);
    expect(LIST_COUNT).toBe(135);
    expect(res.body).toMatchObject({ lists: LIST_COUNT, lists_created: LIST_COUNT, lists_changed: LIST_COUNT });
    const sql = sqlOf(app);
    expect((await sql<{ n: number }>("SELECT count(*)::int AS n FROM warninglist_entries"))[0].n).toBe(res.body.entries);
    expect((await sql<{ n: number }>("SELECT sum(entry_count)::int AS n FROM warninglists"))[0].n).toBe(res.body.entries);
    const byType = await sql<{ type: string; n: number }>("SELECT type, count(*)::int AS n FROM warninglists GROUP BY type ORDER BY type");
    expect(Object.fromEntries(byType.map((r) => [r.type, r.n]))).toEqual({ cidr: 80, hostname: 19, regex: 2, string: 31, substring: 3 });

    await app.http.patch(`/warninglists/${await listId(app, DNS_V4)}`, { token: admin.token, json: { enabled: true } });
    const again = await app.http.post("/warninglists/update", { token: admin.token });
    expect(again.body).toMatchObject({ lists: LIST_COUNT, lists_created: 0, lists_changed: 0 });
    expect((await sql<{ enabled: boolean }>("SELECT enabled FROM warninglists WHERE name = $1", [DNS_V4]))[0].enabled).toBe(true);
  }, 60_000);

  it("lists with paging and the enabled, type and name filters; gets one list with a page of its entries", async () => {
    const cidr = await app.http.get("/warninglists/?type=cidr&size=5&page=2", { token: user.token });
    expect(cidr.status, cidr.text).toBe(200);
    expect(cidr.body).toMatchObject({ total: 80, page: 2, size: 5, pages: 16, query: { type: "cidr", enabled: null, name: null } });
    expect(cidr.body.items.every((l: Json) => l.type === "cidr" && l.entries === undefined)).toBe(true);
    const enabled = await app.http.get("/warninglists/?enabled=true", { token: user.token });
    expect(enabled.body.items.map((l: Json) => l.name)).toEqual([DNS_V4]);
    const byName = await app.http.get(`/warninglists/?name=${encodeURIComponent("public dns")}`, { token: user.token });
    expect(byName.body.items.map((l: Json) => l.name)).toContain(DNS_V4);
    expect((await app.http.get("/warninglists/?name=%25", { token: user.token })).body.total).toBe(0);

    const id = await listId(app, DNS_V4);
    const file = JSON.parse(fs.readFileSync(path.join(WARNINGLIST_DATA, "lists/public-dns-v4/list.json"), "utf8"));
    const one = await app.http.get(`/warninglists/${id}?page=3&size=4`, { token: user.token });
    expect(one.status, one.text).toBe(200);
    expect(one.body).toMatchObject({ id, name: DNS_V4, type: "cidr", enabled: true, entry_count: file.list.length, matching_attributes: file.matching_attributes, entries_page: { page: 3, size: 4 } });
    expect(one.body.entries).toEqual(file.list.slice(8, 12));
    expect((await app.http.get(`/warninglists/${id}?size=0`, { token: user.token })).body.entries).toEqual([]);
  });

  it("refuses bad PATCH bodies and queries with a 422 JSON error, an unknown id with 404 and a non-administrator with 403", async () => {
    const id = await listId(app, GOOGLE);
    for (const json of [{}, { enabled: "yes" }, { enabled: true, extra: 1 }, { enabled: null }, []]) {
      const res = await app.http.patch(`/warninglists/${id}`, { token: admin.token, json });
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
    }
    expect((await app.http.patch("/warninglists/999999", { token: admin.token, json: { enabled: true } })).status).toBe(404);
    expect((await app.http.get("/warninglists/999999", { token: admin.token })).status).toBe(404);
    expect((await app.http.patch(`/warninglists/${id}`, { token: user.token, json: { enabled: true } })).status).toBe(403);
    expect((await app.http.post("/warninglists/update", { token: user.token })).status).toBe(403);
    for (const q of ["type=nope", "size=0", "size=1001", "page=0", "enabled=maybe", "unknown=1"]) {
      expect((await app.http.get(`/warninglists/?${q}`, { token: user.token })).status, q).toBe(422);
    }
    expect((await app.http.get(`/warninglists/${id}?size=10001`, { token: user.token })).status).toBe(422);
    expect((await app.http.get("/warninglists/", {})).status).toBe(401);
    expect((await sqlOf(app)<{ enabled: boolean }>("SELECT enabled FROM warninglists WHERE id = $1", [id]))[0].enabled).toBe(false);
  });

  it("GraphQL: the page, one list with its entries, and setWarninglistEnabled (refused to a user)", async () => {
    const id = await listId(app, GOOGLE);
    const page = await app.http.graphql(`{ warninglists(type: "hostname", size: 100) { total items { name type entryCount matchingAttributes } } }`, {}, user.token);
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.warninglists.total).toBe(19);
    const one = await app.http.graphql(`query($id: Int!) { warninglist(id: $id) { name enabled entries(size: 2) } }`, { id }, user.token);
    expect(one.body.data.warninglist).toMatchObject({ name: GOOGLE, enabled: false });
    expect(one.body.data.warninglist.entries).toHaveLength(2);
    const set = `mutation($id: Int!) { setWarninglistEnabled(id: $id, enabled: true) { enabled } }`;
    expect((await app.http.graphql(set, { id }, user.token)).body.errors?.[0].extensions?.code).toBe("insufficient_scope");
    expect((await app.http.graphql(set, { id }, admin.token)).body.data.setWarninglistEnabled.enabled).toBe(true);
    const bad = await app.http.graphql(`{ warninglists(type: "nope") { total } }`, {}, user.token);
    expect(bad.body.errors?.[0].extensions?.code).toBe("validation_error");
  });

  it("imports from a URL: the lists linked by the repository's README.md, served from the shared data on loopback", async () => {
    const server = http.createServer((req, res) => {
      const rel = decodeURIComponent((req.url ?? "/").split("?")[0]).replace(/^\/+/, "");
      const file = path.join(WARNINGLIST_DATA, rel);
      if (rel.includes("..") || !fs.existsSync(file) || !fs.statSync(file).isFile()) return void res.writeHead(404).end();
      res.writeHead(200).end(fs.readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const other = await startTestApp("warninglists-url", { WARNINGLISTS_SOURCE: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
    try {
      const res = await other.http.post("/warninglists/update", { token: (await loginAdmin(other)).token });
      expect(res.status, res.text).toBe(200);
      const local = await sqlOf(app)<{ n: number }>("SELECT sum(entry_count)::int AS n FROM warninglists");
      expect(res.body).toMatchObject({ lists: LIST_COUNT, lists_created: LIST_COUNT, entries: local[0].n });
    } finally {
      await other.close();
      server.close();
    }
  }, 60_000);
});

describe.each(SEARCH_BACKENDS)("hits on attribute writes, in search and in correlation on $name", ({ env }) => {
  let app: TestApp;
  let admin: TestUser;
  let user: TestUser;
  const word = () => crypto.randomBytes(4).toString("hex");
  const newEvent = async (attributes: Json[] = []) => {
    const uuid = crypto.randomUUID();
    const res = await app.http.post("/events/import", { token: user.token, json: { Event: { uuid, info: `wl ${word()}`, distribution: 1, Attribute: attributes } } });
    expect(res.status, res.text).toBe(201);
    return uuid;
  };
  const attribute = async (uuid: string) => (await app.http.get(`/attributes/${uuid}`, { token: user.token })).body as Json;
  const search = async (q: string) => {
    const res = await app.http.get(`/attributes/search?query=${encodeURIComponent(q)}&size=100`, { token: user.token });
    expect(res.status, res.text).toBe(200);
    return (res.body.results as Json[]).map((h) => h._id).sort();
  };
  const pairs = async (value: string) => (await sqlOf(app)<{ n: number }>("SELECT count(*)::int AS n FROM correlations WHERE value = $1", [value]))[0].n;

  beforeAll(async () => {
    app = await startTestApp("warninglists-hits", { ROLE: "all", WARNINGLISTS_SOURCE: WARNINGLIST_DATA, ...env() });
    admin = await loginAdmin(app);
    user = await createUser(app, admin, 3);
    expect((await app.http.post("/warninglists/update", { token: admin.token })).status).toBe(200);
    for (const name of [DNS_V4, SHORTENERS]) {
      expect((await app.http.patch(`/warninglists/${await listId(app, name)}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    }
    await settled(app);
  }, 120_000);
  afterAll(() => app?.close());

  it("stores hits on every write path and shows them on REST and GraphQL reads", async () => {
    const [dns, google, plain, composite] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    // MISP import (the feed ingestion's path too).
    const ev = await newEvent([
      { uuid: dns, type: "ip-dst", value: "8.8.8.8" },
      { uuid: google, type: "url", value: "https://user@Bit.ly:443/3xYz?utm=1" },
      { uuid: plain, type: "ip-dst", value: "10.20.30.40" },
      { uuid: composite, type: "ip-dst|port", value: "1.1.1.1|53" },
    ]);
    expect(names(await attribute(dns))).toEqual([DNS_V4]);
    expect(names(await attribute(google))).toEqual([SHORTENERS]);
    expect(names(await attribute(plain))).toEqual([]);
    expect(names(await attribute(composite))).toEqual([DNS_V4]);
    // REST create, then update of the value both ways.
    const created = await app.http.post("/attributes/", { token: user.token, json: { event_uuid: ev, type: "domain", value: "links.goo.gl" } });
    expect(created.status, created.text).toBe(201);
    expect(names(created.body)).toEqual([SHORTENERS]);
    const moved = await app.http.patch(`/attributes/${created.body.uuid}`, { token: user.token, json: { type: "ip-src", value: "9.9.9.9" } });
    expect(moved.status, moved.text).toBe(200);
    expect(names(moved.body)).toEqual([DNS_V4]);
    const cleared = await app.http.patch(`/attributes/${created.body.uuid}`, { token: user.token, json: { value: "198.51.100.7" } });
    expect(names(cleared.body)).toEqual([]);
    // An object's attributes, created and updated.
    const obj = await app.http.post("/objects/", { token: user.token, json: { event_uuid: ev, name: "domain-ip", attributes: [{ type: "ip-dst", object_relation: "ip", value: "8.8.4.4" }] } });
    expect(obj.status, obj.text).toBe(201);
    expect(names(obj.body.attributes[0])).toEqual([DNS_V4]);
    // GraphQL reads the same hits.
    const g = await app.http.graphql(`query($u: String!) { attribute(uuid: $u) { warnings { id name } } }`, { u: dns }, user.token);
    expect(g.body.data.attribute.warnings).toEqual([{ id: await listId(app, DNS_V4), name: DNS_V4 }]);
    // A GraphQL create goes through the same service.
    const gc = await app.http.graphql(`mutation($e: String!) { createAttribute(eventUuid: $e, input: { type: "ip-dst", value: "8.8.8.8" }) { warnings { name } } }`, { e: ev }, user.token);
    expect(gc.body.errors, JSON.stringify(gc.body.errors)).toBeUndefined();
    expect(gc.body.data.createAttribute.warnings.map((w: Json) => w.name)).toEqual([DNS_V4]);
  }, 60_000);

  it("finds and filters by warnings.name in search; listed values do not correlate, others do", async () => {
    const listed = [crypto.randomUUID(), crypto.randomUUID()];
    const free = [crypto.randomUUID(), crypto.randomUUID()];
    const unique = `203.0.113.${1 + crypto.randomInt(200)}`;
    await newEvent([{ uuid: listed[0], type: "ip-dst", value: "208.67.222.222" }, { uuid: free[0], type: "ip-dst", value: unique }]);
    await newEvent([{ uuid: listed[1], type: "ip-src", value: "208.67.222.222" }, { uuid: free[1], type: "ip-src", value: unique }]);
    await settled(app);
    const found = await search(`warnings.name:"${DNS_V4}" AND value:"208.67.222.222"`);
    expect(found).toEqual([...listed].sort());
    expect(await search(`value:"${unique}" AND NOT _exists_:warnings.name`)).toEqual([...free].sort());
    expect(await pairs("208.67.222.222")).toBe(0);
    expect(await pairs(unique)).toBe(1);
  }, 60_000);

  it("disabling a list recomputes existing hits in the background: re-indexed, and the values correlate again", async () => {
    const a = [crypto.randomUUID(), crypto.randomUUID()];
    await newEvent([{ uuid: a[0], type: "ip-dst", value: "149.112.112.112" }]);
    await newEvent([{ uuid: a[1], type: "ip-dst", value: "149.112.112.112" }]);
    await settled(app);
    expect(await pairs("149.112.112.112")).toBe(0);
    const id = await listId(app, DNS_V4);
    expect((await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled: false } })).status).toBe(200);
    await settled(app, 60_000);
    expect(names(await attribute(a[0]))).toEqual([]);
    expect(await search(`warnings.name:"${DNS_V4}" AND value:"149.112.112.112"`)).toEqual([]);
    expect(await pairs("149.112.112.112")).toBe(1);
    expect((await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled: true } })).status).toBe(200);
    await settled(app, 60_000);
    expect(names(await attribute(a[1]))).toEqual([DNS_V4]);
    expect(await search(`warnings.name:"${DNS_V4}" AND value:"149.112.112.112"`)).toEqual([...a].sort());
    expect(await pairs("149.112.112.112")).toBe(0);
  }, 120_000);
});

describe("hostile lists", () => {
  it("refuses a regex built to backtrack and keeps matching fast; the accepted regexes skip values past the input bound", async () => {
    const dir = writeSource({
      backtrack: { name: "Backtracking", version: 1, description: "hostile", type: "regex", matching_attributes: ["text"], list: ["/(a+)+$/", "/^(a|aa)*b$/", "(x+x+)+y", "/ok-\\d+/"] },
      poly: { name: "Polynomial", version: 1, description: "accepted, bounded by the input cap", type: "regex", matching_attributes: ["text"], list: ["/^a.*a.*b$/"] },
    });
    const app = await startTestApp("warninglists-hostile", { WARNINGLISTS_SOURCE: dir });
    try {
      const admin = await loginAdmin(app);
      const res = await app.http.post("/warninglists/update", { token: admin.token });
      expect(res.status, res.text).toBe(200);
      expect(res.body.entries_refused).toBe(3);
      expect(res.body.refused.map((r: Json) => r.entry).sort()).toEqual(["(x+x+)+y", "/(a+)+$/", "/^(a|aa)*b$/"]);
      expect(res.body.refused[0].reason).toMatch(/nested quantifiers/);
      for (const name of ["Backtracking", "Polynomial"]) await app.http.patch(`/warninglists/${await listId(app, name)}`, { token: admin.token, json: { enabled: true } });
      const ev = (await app.http.post("/events/", { token: admin.token, json: { info: "hostile", distribution: 0 } })).body.uuid;
      const started = performance.now();
      for (const value of ["a".repeat(30_000) + "!", "a".repeat(1000) + "!", "ok-42"]) {
        const r = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: ev, type: "text", value } });
        expect(r.status, r.text).toBe(201);
        expect(names(r.body)).toEqual(value === "ok-42" ? ["Backtracking"] : []);
      }
      const took = performance.now() - started;
      console.log(`three writes against the hostile regex lists: ${Math.round(took)} ms`);
      expect(took).toBeLessThan(3000);
    } finally {
      await app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("imports, enables and matches a list of 1,000,000 entries", async () => {
    const list = Array.from({ length: 1_000_000 }, (_, i) => `host${i}.example-${i % 97}.test`);
    const dir = writeSource({ big: { name: "A million hosts", version: 1, description: "large", type: "hostname", matching_attributes: ["domain", "url"], list } });
    const app = await startTestApp("warninglists-million", { WARNINGLISTS_SOURCE: dir });
    try {
      const admin = await loginAdmin(app);
      const rss = process.memoryUsage().rss;
      let started = performance.now();
      const res = await app.http.post("/warninglists/update", { token: admin.token });
      const importMs = performance.now() - started;
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ lists: 1, entries: 1_000_000, entries_refused: 0 });
      const id = await listId(app, "A million hosts");
      expect((await app.http.get(`/warninglists/${id}?page=100000&size=10`, { token: admin.token })).body.entries).toEqual(list.slice(999_990));
      await app.http.patch(`/warninglists/${id}`, { token: admin.token, json: { enabled: true } });
      started = performance.now();
      await app.booted.ctx.warninglists.matcher();
      const compileMs = performance.now() - started;
      const ev = (await app.http.post("/events/", { token: admin.token, json: { info: "million", distribution: 0 } })).body.uuid;
      const hit = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: ev, type: "url", value: `https://www.${list[999_999]}/login` } });
      expect(names(hit.body)).toEqual(["A million hosts"]);
      const miss = await app.http.post("/attributes/", { token: admin.token, json: { event_uuid: ev, type: "domain", value: "host1000000.example-1.test" } });
      expect(names(miss.body)).toEqual([]);
      const grown = Math.round((process.memoryUsage().rss - rss) / 1e6);
      console.log(`1,000,000-entry list: import ${Math.round(importMs)} ms (${res.body.took_ms} ms in the service), compile ${Math.round(compileMs)} ms, RSS +${grown} MB`);
      expect(importMs).toBeLessThan(60_000);
    } finally {
      await app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);
});
