/**
 * The hunt resource itself: defaults and aliases, what a hunt's type allows, validation of every
 * field (nothing stored on bad input), PATCH semantics (a new question starts afresh), ownership
 * (others get 404, administrators see all), paging, and the scopes a run needs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const huntCount = async () => (await q("SELECT count(*)::int AS n FROM hunts")).rows[0].n as number;

async function create(user: TestUser, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await app.http.post("/hunts/", { token: user.token, json: body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

beforeAll(async () => {
  app = await startTestApp("hunts-api");
  admin = await loginAdmin(app);
  alice = await createUser(app, admin, 3);
  bob = await createUser(app, admin, 3);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("creating hunts", () => {
  it("applies the defaults of each type, accepts the peer's names and answers the spec's", async () => {
    expect(await create(alice, { name: "  padded  ", query: "type:domain" })).toMatchObject({
      name: "padded",
      description: null,
      hunt_type: "search",
      index_target: "attributes",
      status: "active",
      schedule: null,
      last_run_at: null,
      last_match_count: null,
      last_run_status: null,
      user_id: alice.id,
    });
    expect(await create(alice, { name: "a", query: "T1059", hunt_type: "mitre-attack-pattern" })).toMatchObject({ hunt_type: "fw-attack-pattern", index_target: "events" });
    expect(await create(alice, { name: "b", query: "CVE-2024-3400", hunt_type: "rulezet", index_target: "events" })).toMatchObject({ hunt_type: "rules", index_target: null });
    expect(await create(alice, { name: "c", query: "cpe:2.3:o:paloaltonetworks:pan-os", hunt_type: "cpe" })).toMatchObject({ hunt_type: "cpe", index_target: null });
    expect(await create(alice, { name: "d", query: "type:md5", hunt_type: "opensearch", index_target: "correlations", status: "paused", description: "why" })).toMatchObject({
      hunt_type: "search",
      index_target: "correlations",
      status: "paused",
      description: "why",
    });
  });

  const bad: [string, Record<string, unknown>, number, (string | number)[] | null][] = [
    ["no name", { query: "x" }, 422, ["body", "name"]],
    ["a blank name", { name: "   ", query: "x" }, 422, ["body", "name"]],
    ["a 10 000-character name", { name: "n".repeat(10_000), query: "x" }, 422, ["body", "name"]],
    ["no query", { name: "x" }, 422, ["body", "query"]],
    ["an empty query", { name: "x", query: "" }, 422, ["body", "query"]],
    ["a blank query", { name: "x", query: "   " }, 422, ["body", "query"]],
    ["a 100 000-character query", { name: "x", query: "a".repeat(100_000) }, 422, ["body", "query"]],
    ["an unknown hunt type", { name: "x", query: "x", hunt_type: "yara" }, 422, ["body", "hunt_type"]],
    ["an unknown index target", { name: "x", query: "x", index_target: "sightings" }, 422, ["body", "index_target"]],
    ["attributes_and_events for a search hunt", { name: "x", query: "x", index_target: "attributes_and_events" }, 422, ["body", "index_target"]],
    ["an unknown status", { name: "x", query: "x", status: "running" }, 422, ["body", "status"]],
    ["an unknown schedule", { name: "x", query: "x", schedule: "every minute" }, 422, ["body", "schedule"]],
    ["a user id (no mass assignment)", { name: "x", query: "x", user_id: 1 }, 422, ["body", "user_id"]],
    ["a last match count", { name: "x", query: "x", last_match_count: 5 }, 422, ["body", "last_match_count"]],
    ["a query of the wrong JSON type", { name: "x", query: 42 }, 422, ["body", "query"]],
    ["unbalanced parentheses", { name: "x", query: "(type:domain AND value:x" }, 400, null],
    ["an unbalanced quote", { name: "x", query: 'value:"abc' }, 400, null],
    ["a 10 000-term query", { name: "x", query: Array.from({ length: 10_000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(" OR ") }, 400, null],
  ];
  it.each(bad)("refuses %s, storing nothing", async (_what, body, status, loc) => {
    const before = await huntCount();
    const res = await app.http.post("/hunts/", { token: alice.token, json: body });
    expect(res.status, res.text).toBe(status);
    if (loc) expect(res.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    else expect(res.body).toMatchObject({ code: "invalid_query", position: { offset: expect.any(Number) } });
    expect(await huntCount()).toBe(before);
  });

  it("needs hunts:run to put a schedule on a hunt", async () => {
    const noRun = await createUser(app, admin, ["hunts:create", "hunts:read", "hunts:update"]);
    const res = await app.http.post("/hunts/", { token: noRun.token, json: { name: "x", query: "type:domain", schedule: "daily" } });
    expect(res.status).toBe(403);
    expect((await app.http.post("/hunts/", { token: noRun.token, json: { name: "x", query: "type:domain" } })).status).toBe(201);
  });
});

describe("changing hunts", () => {
  it("changes only what is given; a new type gets its default target when the old one does not fit", async () => {
    const h = await create(alice, { name: "evolving", query: "type:domain", index_target: "correlations", description: "d" });
    const renamed = (await app.http.patch(`/hunts/${h.id}`, { token: alice.token, json: { name: "renamed" } })).body;
    expect(renamed).toMatchObject({ name: "renamed", query: "type:domain", index_target: "correlations", description: "d" });
    expect(Date.parse(renamed.updated_at)).toBeGreaterThanOrEqual(Date.parse(h.updated_at));
    const retyped = await app.http.patch(`/hunts/${h.id}`, { token: alice.token, json: { hunt_type: "fw-attack-pattern", query: "T1059" } });
    expect(retyped.body).toMatchObject({ hunt_type: "fw-attack-pattern", index_target: "events" });
    const cleared = await app.http.patch(`/hunts/${h.id}`, { token: alice.token, json: { description: null } });
    expect(cleared.body.description).toBeNull();
  });

  it("refuses a bad change and keeps the hunt as it was", async () => {
    const h = await create(alice, { name: "stable", query: "type:domain" });
    for (const [json, status] of [
      [{ query: "type:(domain" }, 400],
      [{ hunt_type: "cpe" }, 400], // the search query is not a CPE
      [{ index_target: "attributes_and_events" }, 422],
      [{ name: "" }, 422],
      [{ id: 99 }, 422],
    ] as const) {
      const res = await app.http.patch(`/hunts/${h.id}`, { token: alice.token, json });
      expect(res.status, JSON.stringify(json)).toBe(status);
    }
    expect((await app.http.get(`/hunts/${h.id}`, { token: alice.token })).body).toMatchObject({ name: "stable", query: "type:domain", hunt_type: "search", index_target: "attributes" });
  });

  it("starts afresh when the question changes: the cached result goes, the next run with hits is a first run", async () => {
    const h = await create(alice, { name: "rephrased", query: "type:domain" });
    expect((await app.http.post(`/hunts/${h.id}/run`, { token: alice.token })).status).toBe(200);
    expect((await app.http.get(`/hunts/${h.id}/results`, { token: alice.token })).status).toBe(200);
    await app.http.patch(`/hunts/${h.id}`, { token: alice.token, json: { name: "same question" } });
    expect((await app.http.get(`/hunts/${h.id}/results`, { token: alice.token })).status).toBe(200);
    const changed = await app.http.patch(`/hunts/${h.id}`, { token: alice.token, json: { query: "type:ip-dst" } });
    expect(changed.body).toMatchObject({ last_match_count: null });
    expect((await app.http.get(`/hunts/${h.id}/results`, { token: alice.token })).status).toBe(404);
    expect((await app.http.get(`/hunts/${h.id}/history`, { token: alice.token })).body).toHaveLength(1);
  });
});

describe("ownership and listing", () => {
  it("hides other users' hunts (404 on every route); administrators see and manage them", async () => {
    const h = await create(alice, { name: "alice's secret hunt", query: "type:domain" });
    for (const [method, path] of [
      ["GET", `/hunts/${h.id}`],
      ["PATCH", `/hunts/${h.id}`],
      ["DELETE", `/hunts/${h.id}`],
      ["POST", `/hunts/${h.id}/run`],
      ["GET", `/hunts/${h.id}/results`],
      ["GET", `/hunts/${h.id}/history`],
      ["DELETE", `/hunts/${h.id}/history`],
    ]) {
      const res = await app.http.request(method, path, { token: bob.token, json: method === "PATCH" ? { name: "mine now" } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toMatchObject({ code: "not_found", detail: "Hunt not found" });
    }
    expect((await app.http.get(`/hunts/${h.id}`, { token: alice.token })).body.name).toBe("alice's secret hunt");
    expect((await app.http.get("/hunts/?filter=secret", { token: bob.token })).body.total).toBe(0);

    // Administrators: everyone's list, one user's list, any hunt; a run uses the owner's access.
    const all = (await app.http.get("/hunts/?all=true&size=100", { token: admin.token })).body;
    expect(all.items.map((x: any) => x.id)).toContain(h.id);
    const alices = (await app.http.get(`/hunts/?user_id=${alice.id}&size=100`, { token: admin.token })).body;
    expect(alices.items.every((x: any) => x.user_id === alice.id)).toBe(true);
    expect((await app.http.get("/hunts/?size=100", { token: admin.token })).body.items.map((x: any) => x.id)).not.toContain(h.id);
    const ran = await app.http.post(`/hunts/${h.id}/run`, { token: admin.token });
    expect(ran.status, ran.text).toBe(200);
    expect(ran.body.hunt.user_id).toBe(alice.id);
    for (const query of ["all=true", `user_id=${alice.id}`]) {
      const denied = await app.http.get(`/hunts/?${query}`, { token: bob.token });
      expect(denied.status).toBe(403);
    }
  });

  it("lists newest first in the peer's page envelope, filtered by name, case-insensitively", async () => {
    const carol = await createUser(app, admin, 3);
    for (const name of ["Phishing kits", "phishing domains", "ransomware"]) await create(carol, { name, query: "type:domain" });
    const page = (await app.http.get("/hunts/?filter=PHISH&size=1", { token: carol.token })).body;
    expect(page).toMatchObject({ total: 2, page: 1, size: 1, pages: 2 });
    expect(page.items[0].name).toBe("phishing domains");
    expect((await app.http.get("/hunts/?filter=PHISH&size=1&page=2", { token: carol.token })).body.items[0].name).toBe("Phishing kits");
    expect((await app.http.get("/hunts/?filter=%25", { token: carol.token })).body.total).toBe(0);
    for (const query of ["size=0", "size=101", "page=0", "page=-1", "size=abc"]) {
      expect((await app.http.get(`/hunts/?${query}`, { token: carol.token })).status, query).toBe(422);
    }
    expect((await app.http.get("/hunts/abc", { token: carol.token })).status).toBe(422);
  });

  it("answers router errors in the error shape too: a 5 000-character path parameter (414), a URL that does not decode (400)", async () => {
    const long = await app.http.get(`/hunts/${"1".repeat(5000)}`, { token: alice.token });
    expect(long.status).toBe(414);
    expect(long.body).toEqual({ code: "uri_too_long", detail: expect.any(String) });
    const bad = await app.http.get("/hunts/%E0%A4%A", { token: alice.token });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "bad_request" });
  });
});

describe("running", () => {
  it("needs the read scope of what the hunt searches; a refused run leaves no history", async () => {
    const noAttributes = await createUser(app, admin, ["hunts:create", "hunts:read", "hunts:run", "events:read"]);
    const h = await create(noAttributes, { name: "attributes", query: "type:domain" });
    const res = await app.http.post(`/hunts/${h.id}/run`, { token: noAttributes.token });
    expect(res.status).toBe(403);
    expect(res.body.detail).toMatch(/attributes:read/);
    expect((await app.http.get(`/hunts/${h.id}/history`, { token: noAttributes.token })).body).toEqual([]);
    const events = await create(noAttributes, { name: "events", query: "*", index_target: "events" });
    expect((await app.http.post(`/hunts/${events.id}/run`, { token: noAttributes.token })).status).toBe(200);
  });

  it("answers 404 for a deleted hunt and runs nothing", async () => {
    const h = await create(alice, { name: "short-lived", query: "type:domain" });
    expect((await app.http.delete(`/hunts/${h.id}`, { token: alice.token })).status).toBe(204);
    expect((await app.http.post(`/hunts/${h.id}/run`, { token: alice.token })).status).toBe(404);
    expect((await app.http.delete(`/hunts/${h.id}`, { token: alice.token })).status).toBe(404);
  });
});
