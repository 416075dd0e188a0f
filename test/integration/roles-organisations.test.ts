import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("roles_orgs");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const suffix = () => crypto.randomBytes(4).toString("hex");
const hasLoc = (body: any, ...loc: (string | number)[]) =>
  Array.isArray(body?.detail) && body.detail.some((d: any) => JSON.stringify(d.loc.slice(0, loc.length)) === JSON.stringify(loc));

async function roleRow(id: number): Promise<{ name: string; scopes: string[]; default_role: boolean } | undefined> {
  const { rows } = await app.booted.ctx.db.pool.query("SELECT name, scopes, default_role FROM roles WHERE id = $1", [id]);
  return rows[0];
}

describe("roles", () => {
  it("lists the seeded roles with the peer's fields; role 1 holds *", async () => {
    const res = await app.http.get("/roles/", { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(4);
    for (const r of res.body) {
      expect(r).toMatchObject({ id: expect.any(Number), name: expect.any(String), scopes: expect.any(Array), default_role: expect.any(Boolean) });
      expect(Date.parse(r.created)).not.toBeNaN();
      expect(Date.parse(r.modified)).not.toBeNaN();
    }
    expect(res.body.find((r: any) => r.id === 1)).toMatchObject({ scopes: ["*"] });
    const page = await app.http.get("/roles/?skip=1&limit=2", { token: admin.token });
    expect(page.body.map((r: any) => r.id)).toEqual(res.body.slice(1, 3).map((r: any) => r.id));
    expect((await app.http.get("/roles/?limit=0", { token: admin.token })).status).toBe(422);
  });

  it("creates (201), gets (200), updates (200) and deletes (204) a role", async () => {
    const name = `analyst-${suffix()}`;
    const created = await app.http.post("/roles/", { token: admin.token, json: { name, scopes: ["events:read", "events:*", "events:read"] } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(Number), name, default_role: false });
    expect([...created.body.scopes].sort()).toEqual(["events:*", "events:read"]);
    const id = created.body.id;
    expect((await app.http.get(`/roles/${id}`, { token: admin.token })).body).toEqual(created.body);

    const patched = await app.http.patch(`/roles/${id}`, { token: admin.token, json: { name: `${name}-2`, scopes: ["hunts:run"] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, name: `${name}-2`, scopes: ["hunts:run"] });
    expect(await roleRow(id)).toMatchObject({ name: `${name}-2`, scopes: ["hunts:run"] });

    const del = await app.http.delete(`/roles/${id}`, { token: admin.token });
    expect(del.status).toBe(204);
    expect((await app.http.get(`/roles/${id}`, { token: admin.token })).status).toBe(404);
    expect((await app.http.patch(`/roles/${id}`, { token: admin.token, json: { name: "x" } })).status).toBe(404);
    expect((await app.http.delete(`/roles/${id}`, { token: admin.token })).status).toBe(404);
  });

  it("keeps a single default role", async () => {
    const id = await createRole(app, admin, ["users:me"]);
    const res = await app.http.patch(`/roles/${id}`, { token: admin.token, json: { default_role: true } });
    expect(res.status).toBe(200);
    const list = (await app.http.get("/roles/", { token: admin.token })).body;
    expect(list.filter((r: any) => r.default_role).map((r: any) => r.id)).toEqual([id]);
    await app.http.patch(`/roles/3`, { token: admin.token, json: { default_role: true } });
  });

  it("refuses unknown scopes with 400 naming them, and writes nothing", async () => {
    const name = `bad-${suffix()}`;
    const res = await app.http.post("/roles/", { token: admin.token, json: { name, scopes: ["events:read", "events:frobnicate", "nope:*", "admin"] } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("events:frobnicate");
    expect(res.body.detail).toContain("nope:*");
    expect(res.body.detail).toContain("admin");
    expect(res.body.detail).not.toContain("events:read,");
    const { rows } = await app.booted.ctx.db.pool.query("SELECT 1 FROM roles WHERE name = $1", [name]);
    expect(rows).toHaveLength(0);
    const id = await createRole(app, admin, ["users:me"]);
    const patch = await app.http.patch(`/roles/${id}`, { token: admin.token, json: { scopes: ["users:me", "users:fly"] } });
    expect(patch.status).toBe(400);
    expect(patch.body.detail).toContain("users:fly");
    expect((await roleRow(id))!.scopes).toEqual(["users:me"]);
  });

  it.each([
    ["a missing name", { scopes: [] }, "name"],
    ["a blank name", { name: "   ", scopes: [] }, "name"],
    ["scopes as a string", { name: "x", scopes: "events:read" }, "scopes"],
    ["an unknown field", { name: "x", scopes: [], id: 1 }, "id"],
  ])("refuses %s with 422", async (_label, body, field) => {
    const res = await app.http.post("/roles/", { token: admin.token, json: body });
    expect(res.status).toBe(422);
    expect(res.body.detail.some((d: any) => d.loc[0] === "body" && JSON.stringify(d).includes(field))).toBe(true);
  });

  it("refuses a duplicate name with 409, also for concurrent creations (never 500)", async () => {
    const name = `dup-${suffix()}`;
    await createRole(app, admin, ["users:me"], name);
    expect((await app.http.post("/roles/", { token: admin.token, json: { name, scopes: [] } })).status).toBe(409);
    const other = await createRole(app, admin, ["users:me"]);
    expect((await app.http.patch(`/roles/${other}`, { token: admin.token, json: { name } })).status).toBe(409);
    const raced = `race-${suffix()}`;
    const results = await Promise.all(Array.from({ length: 6 }, () => app.http.post("/roles/", { token: admin.token, json: { name: raced, scopes: ["users:me"] } })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409)).toBe(true);
  });

  it("protects role 1: it keeps * (409) and cannot be deleted (409)", async () => {
    const strip = await app.http.patch("/roles/1", { token: admin.token, json: { scopes: ["users:*"] } });
    expect(strip.status).toBe(409);
    const empty = await app.http.patch("/roles/1", { token: admin.token, json: { scopes: [] } });
    expect(empty.status).toBe(409);
    const del = await app.http.delete("/roles/1", { token: admin.token });
    expect(del.status).toBe(409);
    expect((await roleRow(1))!.scopes).toEqual(["*"]);
    expect((await app.http.get("/users/me", { token: admin.token })).status).toBe(200);
  });

  it("refuses to delete a role in use (409), and deletes it once free", async () => {
    const roleId = await createRole(app, admin, ["users:me"]);
    const user = await createUser(app, admin, roleId);
    const res = await app.http.delete(`/roles/${roleId}`, { token: admin.token });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("conflict");
    expect(await roleRow(roleId)).toBeDefined();
    expect((await app.http.delete(`/users/${user.id}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.delete(`/roles/${roleId}`, { token: admin.token })).status).toBe(204);
  });

  it.each(["abc", "0", "-3", "99999999999"])("answers /roles/%s with 422", async (id) => {
    const res = await app.http.get(`/roles/${id}`, { token: admin.token });
    expect(res.status).toBe(422);
    expect(hasLoc(res.body, "path", "role_id")).toBe(true);
  });

  describe("a non-administrator holding roles:*", () => {
    let manager: TestUser;
    let managerRole: number;

    beforeAll(async () => {
      managerRole = await createRole(app, admin, ["roles:*", "events:read", "events:update", "users:me"]);
      manager = await createUser(app, admin, managerRole);
    });

    it("creates roles within their own scopes", async () => {
      const res = await app.http.post("/roles/", { token: manager.token, json: { name: `sub-${suffix()}`, scopes: ["events:read"] } });
      expect(res.status).toBe(201);
    });

    it.each([
      ["a scope they lack", ["events:read", "events:delete"], "events:delete"],
      ["a wildcard wider than their grants", ["events:*"], "events:*"],
      ["the admin scope", ["*"], "*"],
    ])("gets 403 for %s, naming it, and nothing is written", async (_label, scopes, named) => {
      const name = `esc-${suffix()}`;
      const res = await app.http.post("/roles/", { token: manager.token, json: { name, scopes } });
      expect(res.status).toBe(403);
      expect(res.body.detail).toContain(named);
      const { rows } = await app.booted.ctx.db.pool.query("SELECT 1 FROM roles WHERE name = $1", [name]);
      expect(rows).toHaveLength(0);
    });

    it("cannot widen their own role (403)", async () => {
      const res = await app.http.patch(`/roles/${managerRole}`, { token: manager.token, json: { scopes: ["roles:*", "events:*", "users:me"] } });
      expect(res.status).toBe(403);
      expect((await roleRow(managerRole))!.scopes).toEqual(["roles:*", "events:read", "events:update", "users:me"]);
    });

    it("cannot rewrite or delete a role that holds more than they do (403)", async () => {
      const strong = await createRole(app, admin, ["events:*", "users:*"]);
      const before = await roleRow(strong);
      const strip = await app.http.patch(`/roles/${strong}`, { token: manager.token, json: { scopes: ["events:read"] } });
      expect(strip.status).toBe(403);
      const rename = await app.http.patch(`/roles/1`, { token: manager.token, json: { name: `pwned-${suffix()}` } });
      expect(rename.status).toBe(403);
      const del = await app.http.delete(`/roles/${strong}`, { token: manager.token });
      expect(del.status).toBe(403);
      expect(await roleRow(strong)).toEqual(before);
      expect((await roleRow(1))!.name).toBe("admin");
    });

    it("a caller without roles:create gets 403", async () => {
      const reader = await createUser(app, admin, 4);
      const res = await app.http.post("/roles/", { token: reader.token, json: { name: `r-${suffix()}`, scopes: [] } });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe("insufficient_scope");
    });
  });
});

describe("scope catalogue", () => {
  it("GET /roles/scopes and GET /auth/scopes return the same catalogue", async () => {
    const a = await app.http.get("/roles/scopes", { token: admin.token });
    const b = await app.http.get("/auth/scopes", { token: admin.token });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.body).toEqual(b.body);
    const entries = Object.entries(a.body);
    expect(entries.length).toBeGreaterThan(50);
    for (const [scope, description] of entries) {
      expect(scope).toMatch(/^[a-z_]+:[a-z_]+$/);
      expect(typeof description).toBe("string");
      expect((description as string).trim().length).toBeGreaterThan(0);
    }
    for (const s of ["events:read", "api_keys:admin", "hunts:run", "notifications:read", "feeds:fetch", "settings:read", "users:me", "user_settings:update"]) {
      expect(a.body).toHaveProperty([s]);
    }
  });

  it("answers anonymous callers with 401 and a role without roles:read on /roles/scopes with 403", async () => {
    expect((await app.http.get("/auth/scopes")).status).toBe(401);
    expect((await app.http.get("/roles/scopes")).status).toBe(401);
    const plain = await createUser(app, admin, ["users:me"]);
    expect((await app.http.get("/roles/scopes", { token: plain.token })).status).toBe(403);
    expect((await app.http.get("/auth/scopes", { token: plain.token })).status).toBe(200);
  });

  it("accepts every catalogue scope in a role", async () => {
    const all = Object.keys((await app.http.get("/auth/scopes", { token: admin.token })).body);
    const res = await app.http.post("/roles/", { token: admin.token, json: { name: `all-${suffix()}`, scopes: all } });
    expect(res.status).toBe(201);
    expect(res.body.scopes).toHaveLength(all.length);
  });
});

describe("organisations", () => {
  it("creates (201) with defaults and reads it back by id and by uuid (any case)", async () => {
    const name = `Org ${suffix()}`;
    const created = await app.http.post("/organisations/", { token: admin.token, json: { name, description: "d", sector: "finance", local: false } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name,
      description: "d",
      sector: "finance",
      local: false,
      created_by: admin.id,
      restricted_to_domain: [],
    });
    expect(Date.parse(created.body.date_created)).not.toBeNaN();
    const { id, uuid } = created.body;
    const byId = await app.http.get(`/organisations/${id}`, { token: admin.token });
    const byUuid = await app.http.get(`/organisations/${uuid}`, { token: admin.token });
    const byUpper = await app.http.get(`/organisations/${uuid.toUpperCase()}`, { token: admin.token });
    expect(byId.status).toBe(200);
    expect(byUuid.body).toEqual(byId.body);
    expect(byUpper.body).toEqual(byId.body);
    const list = await app.http.get("/organisations/", { token: admin.token });
    expect(list.body.map((o: any) => o.id)).toContain(id);
  });

  it("keeps a given uuid (lower-cased) and refuses it twice (409)", async () => {
    const uuid = crypto.randomUUID().toUpperCase();
    const res = await app.http.post("/organisations/", { token: admin.token, json: { name: `u-${suffix()}`, uuid } });
    expect(res.status).toBe(201);
    expect(res.body.uuid).toBe(uuid.toLowerCase());
    const dup = await app.http.post("/organisations/", { token: admin.token, json: { name: `u-${suffix()}`, uuid: uuid.toLowerCase() } });
    expect(dup.status).toBe(409);
  });

  it("updates (200) and deletes (204) by id or by uuid", async () => {
    const id = await createOrganisation(app, admin);
    const patched = await app.http.patch(`/organisations/${id}`, { token: admin.token, json: { nationality: "BE", description: null } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, nationality: "BE", description: null });
    expect((await app.http.delete(`/organisations/${id}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.get(`/organisations/${id}`, { token: admin.token })).status).toBe(404);

    const other = await app.http.post("/organisations/", { token: admin.token, json: { name: `byuuid-${suffix()}` } });
    expect((await app.http.delete(`/organisations/${other.body.uuid}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.get(`/organisations/${other.body.uuid}`, { token: admin.token })).status).toBe(404);
    expect((await app.http.delete(`/organisations/${other.body.uuid}`, { token: admin.token })).status).toBe(404);
  });

  it("refuses a duplicate name with 409 on create and rename, also concurrently (never 500)", async () => {
    const name = `dup-org-${suffix()}`;
    await createOrganisation(app, admin, name);
    expect((await app.http.post("/organisations/", { token: admin.token, json: { name } })).status).toBe(409);
    const other = await createOrganisation(app, admin);
    expect((await app.http.patch(`/organisations/${other}`, { token: admin.token, json: { name } })).status).toBe(409);
    const raced = `race-org-${suffix()}`;
    const results = await Promise.all(Array.from({ length: 6 }, () => app.http.post("/organisations/", { token: admin.token, json: { name: raced } })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 409)).toBe(true);
  });

  it("refuses to delete an organisation that still has users (409), by id and by uuid", async () => {
    const id = await createOrganisation(app, admin);
    const user = await createUser(app, admin, 4, id);
    const org = (await app.http.get(`/organisations/${id}`, { token: admin.token })).body;
    expect((await app.http.delete(`/organisations/${id}`, { token: admin.token })).status).toBe(409);
    expect((await app.http.delete(`/organisations/${org.uuid}`, { token: admin.token })).status).toBe(409);
    expect((await app.http.get(`/users/${user.id}`, { token: admin.token })).status).toBe(200);
  });

  it.each(["not-a-uuid", "0", "-1", "12ab", "99999999999", "0f8fad5b-d9cb-469f-a165-70867728950zz"])("answers /organisations/%s with 422 on GET and DELETE", async (key) => {
    for (const res of [
      await app.http.get(`/organisations/${key}`, { token: admin.token }),
      await app.http.delete(`/organisations/${key}`, { token: admin.token }),
    ]) {
      expect(res.status).toBe(422);
      expect(hasLoc(res.body, "path", "org_id")).toBe(true);
    }
  });

  it("takes only numeric ids on PATCH (422 for a uuid) and 404 for missing ones", async () => {
    const uuid = crypto.randomUUID();
    expect((await app.http.patch(`/organisations/${uuid}`, { token: admin.token, json: { sector: "x" } })).status).toBe(422);
    expect((await app.http.patch("/organisations/2147483647", { token: admin.token, json: { sector: "x" } })).status).toBe(404);
    expect((await app.http.get(`/organisations/${uuid}`, { token: admin.token })).status).toBe(404);
    expect((await app.http.get("/organisations/2147483647", { token: admin.token })).status).toBe(404);
  });

  it.each([
    ["an invalid uuid", { name: "x1", uuid: "xyz" }, "uuid"],
    ["a missing name", { sector: "x" }, "name"],
    ["an unknown field", { name: "x2", created_by: 7 }, "created_by"],
  ])("refuses %s in POST with 422", async (_label, body, field) => {
    const res = await app.http.post("/organisations/", { token: admin.token, json: body });
    expect(res.status).toBe(422);
    expect(res.body.detail.some((d: any) => d.loc[0] === "body" && JSON.stringify(d).includes(field))).toBe(true);
  });

  it("needs organisations:create to create (403 for a read-only user) and records an audit row", async () => {
    const reader = await createUser(app, admin, 4);
    expect((await app.http.get("/organisations/", { token: reader.token })).status).toBe(200);
    expect((await app.http.post("/organisations/", { token: reader.token, json: { name: `r-${suffix()}` } })).status).toBe(403);
    const id = await createOrganisation(app, admin);
    const { rows } = await app.booted.ctx.db.pool.query(
      "SELECT actor_user_id, metadata FROM audit_logs WHERE action = 'organisation.created' AND resource_id = $1",
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].actor_user_id).toBe(admin.id);
  });
});
