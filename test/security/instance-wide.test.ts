/**
 * Issue 20, finding 5 and the org-admin rule. Tag definitions, galaxies, correlation rebuilds,
 * deletion and exclusions, runtime settings, organisations and roles are shared by every
 * organisation: changing them needs an admin-level scope that the built-in org_admin role (id 2)
 * does not hold and the roles API can grant. Org admins administer their own organisation's users
 * and nothing beyond it. Ordinary work (tagging creates tags, reading) is unchanged.
 */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grants, isAdminLevelScope, SCOPE_CATALOGUE } from "../../src/auth/scopes.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;
let orgA: number;
let orgB: number;
let userA: TestUser; // role 3 of A
let orgAdminB: TestUser; // role 2 of B
let userB: TestUser; // role 3 of B
let tagKeeper: TestUser; // B: a custom role granted tags:admin

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const unique = (prefix: string) => `${prefix}-${crypto.randomBytes(4).toString("hex")}`;
const gql = (token: string, query: string, variables: Record<string, unknown> = {}) => app.http.graphql(query, variables, token);

/** A tag on a distribution-0 event of A (the situation of the finding), by its id. */
async function tagOnPrivateEventOfA(): Promise<{ id: number; name: string }> {
  const ev = await app.http.post("/events/", { token: userA.token, json: { info: unique("private"), distribution: 0 } });
  const name = unique("a-private-tag");
  expect((await app.http.post(`/events/${ev.body.uuid}/tag/${name}`, { token: userA.token })).status).toBe(201);
  return { id: (await q("SELECT id FROM tags WHERE name = $1", [name])).rows[0].id, name };
}

async function exclusion(): Promise<number> {
  const res = await app.http.post("/correlations/exclusions", { token: admin.token, json: { value: `${unique("ex")}.example` } });
  expect(res.status, res.text).toBe(201);
  return res.body.id;
}

beforeAll(async () => {
  app = await startTestApp("instance-wide");
  admin = await loginAdmin(app);
  orgA = await createOrganisation(app, admin, unique("org-a"));
  orgB = await createOrganisation(app, admin, unique("org-b"));
  userA = await createUser(app, admin, 3, orgA);
  orgAdminB = await createUser(app, admin, 2, orgB);
  userB = await createUser(app, admin, 3, orgB);
  tagKeeper = await createUser(app, admin, ["tags:read", "tags:update", "tags:delete", "tags:admin"], orgB);
}, 60_000);
afterAll(() => app?.close());

describe("the built-in roles", () => {
  it("org_admin (id 2) and the others hold no admin-level scope; the administrator holds them all", async () => {
    const adminLevel = Object.keys(SCOPE_CATALOGUE).filter(isAdminLevelScope);
    expect(adminLevel).toEqual(expect.arrayContaining(["tags:admin", "galaxies:admin", "correlations:admin", "taxonomies:admin", "events:sync"]));
    const { rows } = await q("SELECT id, scopes FROM roles WHERE id IN (1, 2, 3, 4) ORDER BY id");
    const held = Object.fromEntries(rows.map((r) => [r.id, adminLevel.filter((s) => grants(r.scopes, s))]));
    expect(held).toEqual({ 1: adminLevel, 2: [], 3: [], 4: [] });
  });

  it("the roles API grants the admin-level scopes", async () => {
    const role = await createRole(app, admin, ["tags:admin", "galaxies:admin", "correlations:admin", "taxonomies:admin", "events:sync"]);
    expect((await q("SELECT scopes FROM roles WHERE id = $1", [role])).rows[0].scopes).toHaveLength(5);
  });
});

describe("tag definitions", () => {
  it("B's org admin can neither rename nor recolour nor delete a tag of A's private event (REST and GraphQL); nothing changes", async () => {
    const tag = await tagOnPrivateEventOfA();
    const before = (await q("SELECT * FROM tags WHERE id = $1", [tag.id])).rows[0];
    for (const body of [{ name: unique("renamed") }, { colour: "#000000" }, { exportable: false }, { hide_tag: true }]) {
      const res = await app.http.patch(`/tags/${tag.id}`, { token: orgAdminB.token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.detail).toContain("tags:admin");
    }
    expect((await app.http.delete(`/tags/${tag.id}`, { token: orgAdminB.token })).status).toBe(403);
    const upd = await gql(orgAdminB.token, `mutation ($id: Int!) { updateTag(id: $id, input: {name: "x"}) { id } }`, { id: tag.id });
    expect(upd.body.errors![0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    const del = await gql(orgAdminB.token, `mutation ($id: Int!) { deleteTag(id: $id) }`, { id: tag.id });
    expect(del.body.errors![0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    expect((await q("SELECT * FROM tags WHERE id = $1", [tag.id])).rows[0]).toEqual(before);
  });

  it("the administrator and a custom role granted tags:admin can; tags:update alone cannot", async () => {
    const tag = await tagOnPrivateEventOfA();
    const updater = await createUser(app, admin, ["tags:read", "tags:update", "tags:delete"], orgB);
    expect((await app.http.patch(`/tags/${tag.id}`, { token: updater.token, json: { colour: "#111111" } })).status).toBe(403);
    const renamed = unique("renamed");
    const byKeeper = await app.http.patch(`/tags/${tag.id}`, { token: tagKeeper.token, json: { name: renamed } });
    expect(byKeeper.status, byKeeper.text).toBe(200);
    expect(byKeeper.body.name).toBe(renamed);
    expect((await app.http.patch(`/tags/${tag.id}`, { token: admin.token, json: { colour: "#222222" } })).status).toBe(200);
    expect((await app.http.delete(`/tags/${tag.id}`, { token: tagKeeper.token })).status).toBe(204);
    const other = await tagOnPrivateEventOfA();
    expect((await app.http.delete(`/tags/${other.id}`, { token: admin.token })).status).toBe(204);
  });

  it("tagging still creates tags for events:tag holders, and creating a tag needs only tags:create, as the caller's own", async () => {
    const ev = await app.http.post("/events/", { token: userB.token, json: { info: unique("mine"), distribution: 0 } });
    for (const who of [userB, orgAdminB]) {
      const name = unique("fresh");
      expect((await app.http.post(`/events/${ev.body.uuid}/tag/${name}`, { token: who.token })).status).toBe(201);
      expect((await q("SELECT count(*)::int AS n FROM tags WHERE name = $1", [name])).rows[0].n).toBe(1);
    }
    const own = await app.http.post("/tags/", { token: userB.token, json: { name: unique("own"), org_id: orgB, user_id: userB.id } });
    expect(own.status, own.text).toBe(201);
    const foreignName = unique("foreign");
    expect((await app.http.post("/tags/", { token: userB.token, json: { name: foreignName, org_id: orgA } })).status).toBe(403);
    expect((await app.http.post("/tags/", { token: userB.token, json: { name: foreignName, user_id: userA.id } })).status).toBe(403);
    expect((await q("SELECT count(*)::int AS n FROM tags WHERE name = $1", [foreignName])).rows[0].n).toBe(0);
    expect((await app.http.post("/tags/", { token: admin.token, json: { name: foreignName, org_id: orgA } })).status).toBe(201);
  });
});

describe("galaxies, correlations, settings, organisations, roles", () => {
  it("B's org admin gets 403 on every instance-wide write, REST and GraphQL, and nothing changes", async () => {
    const ex = await exclusion();
    const exclusionsBefore = (await q("SELECT id FROM correlation_exclusions ORDER BY id")).rows;
    const rebuildsBefore = (await q("SELECT count(*)::int AS n FROM correlation_rebuilds")).rows[0].n;
    const rest: [string, string, unknown, string][] = [
      ["POST", "/galaxies/update", undefined, "galaxies:admin"],
      ["PATCH", "/galaxies/1", { enabled: false }, "galaxies:admin"],
      ["POST", "/correlations/exclusions", { value: "%.blinded.example" }, "correlations:admin"],
      ["DELETE", `/correlations/exclusions/${ex}`, undefined, "correlations:admin"],
      ["DELETE", "/correlations/", undefined, "correlations:admin"],
      ["POST", "/correlations/run", undefined, "correlations:admin"],
      ["POST", "/settings/runtime/retention", { enabled: true }, "settings:update"],
      ["DELETE", "/settings/runtime/retention", undefined, "settings:delete"],
      ["POST", "/organisations/", { name: unique("org") }, "organisations:create"],
      ["PATCH", `/organisations/${orgA}`, { name: unique("org") }, "organisations:update"],
      ["DELETE", `/organisations/${orgA}`, undefined, "organisations:delete"],
      ["POST", "/roles/", { name: unique("role"), scopes: ["events:read"] }, "roles:create"],
      ["PATCH", "/roles/3", { scopes: ["*"] }, "roles:update"],
      ["DELETE", "/roles/4", undefined, "roles:delete"],
    ];
    for (const [method, path, json, scope] of rest) {
      const res = await app.http.request(method, path, { token: orgAdminB.token, json });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(res.body.detail, `${method} ${path}`).toContain(scope);
    }
    for (const mutation of [
      "mutation { updateGalaxies { galaxies } }",
      "mutation { setGalaxyEnabled(id: 1, enabled: false) { id } }",
      `mutation { addCorrelationExclusion(value: "%.blinded.example") { id } }`,
      `mutation { deleteCorrelationExclusion(id: ${ex}) }`,
      "mutation { deleteCorrelations { deleted } }",
      "mutation { startCorrelationRebuild { id } }",
    ]) {
      const res = await gql(orgAdminB.token, mutation);
      expect(res.body.errors?.[0]?.extensions, mutation).toMatchObject({ code: "insufficient_scope", status: 403 });
    }
    expect((await q("SELECT id FROM correlation_exclusions ORDER BY id")).rows).toEqual(exclusionsBefore);
    expect((await q("SELECT count(*)::int AS n FROM correlation_rebuilds")).rows[0].n).toBe(rebuildsBefore);
    expect((await app.http.get(`/organisations/${orgA}`, { token: admin.token })).status).toBe(200);
  });

  it("reads stay open to them", async () => {
    for (const path of ["/tags/", "/galaxies/", "/correlations/exclusions", "/correlations/stats", "/organisations/", "/roles/"]) {
      expect((await app.http.get(path, { token: orgAdminB.token })).status, path).toBe(200);
    }
  });

  it("the administrator manages exclusions, deletes all correlations and starts rebuilds", async () => {
    const ex = await exclusion();
    expect((await app.http.delete(`/correlations/exclusions/${ex}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.delete("/correlations/", { token: admin.token })).status).toBe(200);
    expect((await app.http.post("/correlations/run", { token: admin.token })).status).toBe(202);
    const custom = await createUser(app, admin, ["correlations:read", "correlations:admin"], orgB);
    const byCustom = await app.http.post("/correlations/exclusions", { token: custom.token, json: { value: `${unique("custom")}.example` } });
    expect(byCustom.status, byCustom.text).toBe(201);
  });
});

describe("org admins administer their own organisation's users only", () => {
  it("lists only B's users; A's users are 404 on GET, PATCH and DELETE, and unchanged", async () => {
    const list = await app.http.get("/users/?limit=1000", { token: orgAdminB.token });
    expect(list.status).toBe(200);
    expect(new Set(list.body.map((u: { org_id: number }) => u.org_id))).toEqual(new Set([orgB]));
    const before = (await q("SELECT * FROM users WHERE id = $1", [userA.id])).rows[0];
    expect((await app.http.get(`/users/${userA.id}`, { token: orgAdminB.token })).status).toBe(404);
    expect((await app.http.patch(`/users/${userA.id}`, { token: orgAdminB.token, json: { disabled: true } })).status).toBe(404);
    expect((await app.http.delete(`/users/${userA.id}`, { token: orgAdminB.token })).status).toBe(404);
    expect((await q("SELECT * FROM users WHERE id = $1", [userA.id])).rows[0]).toEqual(before);
  });

  it("creates, updates, disables and deletes B's users", async () => {
    const email = `${unique("colleague")}@example.test`;
    const created = await app.http.post("/users/", { token: orgAdminB.token, json: { email, password: "a long password 1", org_id: orgB, role_id: 3 } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    expect((await app.http.patch(`/users/${id}`, { token: orgAdminB.token, json: { role_id: 4 } })).status).toBe(200);
    expect((await app.http.patch(`/users/${id}`, { token: orgAdminB.token, json: { disabled: true } })).status).toBe(200);
    expect((await app.http.delete(`/users/${id}`, { token: orgAdminB.token })).status).toBe(204);
  });

  it("cannot create a user in A, move one to A, grant the administrator role or an admin-level scope, or change their own role", async () => {
    const adminLevelRole = await createRole(app, admin, ["tags:read", "tags:admin"]);
    const cases: [string, string, unknown][] = [
      ["POST", "/users/", { email: `${unique("x")}@example.test`, password: "a long password 1", org_id: orgA, role_id: 3 }],
      ["PATCH", `/users/${userB.id}`, { org_id: orgA }],
      ["PATCH", `/users/${userB.id}`, { role_id: 1 }],
      ["PATCH", `/users/${userB.id}`, { role_id: adminLevelRole }],
      ["POST", "/users/", { email: `${unique("y")}@example.test`, password: "a long password 1", org_id: orgB, role_id: adminLevelRole }],
      ["PATCH", `/users/${orgAdminB.id}`, { role_id: 3 }],
      ["PATCH", `/users/${orgAdminB.id}`, { role_id: 1 }],
    ];
    const before = (await q("SELECT id, org_id, role_id FROM users ORDER BY id")).rows;
    for (const [method, path, json] of cases) {
      const res = await app.http.request(method, path, { token: orgAdminB.token, json });
      expect(res.status, `${method} ${path} ${JSON.stringify(json)}: ${res.text}`).toBe(403);
    }
    expect((await q("SELECT id, org_id, role_id FROM users ORDER BY id")).rows).toEqual(before);
  });

  it("cannot reach the administrator's key routes", async () => {
    for (const [method, path, json] of [
      ["GET", `/admin/api-keys/?user_id=${userA.id}`, undefined],
      ["PATCH", "/admin/api-keys/1", { disabled: true }],
      ["DELETE", "/admin/api-keys/1", undefined],
    ] as const) {
      const res = await app.http.request(method, path, { token: orgAdminB.token, json });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.detail).toContain("api_keys:admin");
    }
  });
});
