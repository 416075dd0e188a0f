import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("users");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const uniqueEmail = (prefix = "u") => `${prefix}-${crypto.randomBytes(5).toString("hex")}@example.test`;
const newPassword = () => `pw-${crypto.randomBytes(8).toString("hex")}`;

interface AuditRow {
  action: string;
  actor_user_id: number | null;
  actor_type: string;
  resource_type: string | null;
  resource_id: number | null;
  metadata: Record<string, unknown> | null;
}

async function auditRows(action: string, resourceId: number): Promise<AuditRow[]> {
  const { rows } = await app.booted.ctx.db.pool.query<AuditRow>(
    "SELECT action, actor_user_id, actor_type, resource_type, resource_id, metadata FROM audit_logs WHERE action = $1 AND resource_id = $2 ORDER BY id",
    [action, resourceId],
  );
  return rows;
}

async function enabledAdmins(): Promise<number> {
  const { rows } = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM users WHERE role_id = 1 AND NOT disabled");
  return rows[0].n;
}

async function userCountByEmail(email: string): Promise<number> {
  const { rows } = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM users WHERE lower(email) = lower($1)", [email]);
  return rows[0].n;
}

const hasLoc = (body: any, ...loc: (string | number)[]) =>
  Array.isArray(body?.detail) && body.detail.some((d: any) => JSON.stringify(d.loc.slice(0, loc.length)) === JSON.stringify(loc));

describe("admin CRUD and the peer wire shape", () => {
  it("creates (201), reads (200), updates (200) and deletes (204) a user", async () => {
    const email = uniqueEmail();
    const created = await app.http.post("/users/", { token: admin.token, json: { email, password: newPassword(), org_id: admin.orgId, role_id: 3 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.any(Number),
      email,
      org_id: admin.orgId,
      role_id: 3,
      role: { id: 3, name: expect.any(String), scopes: expect.arrayContaining(["users:me"]), default_role: expect.any(Boolean) },
      organisation: { id: admin.orgId, uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), name: expect.any(String), local: expect.any(Boolean) },
    });
    expect(created.body).not.toHaveProperty("password");
    expect(created.body).not.toHaveProperty("password_hash");
    expect(created.body).not.toHaveProperty("passwordHash");
    const id = created.body.id;

    const got = await app.http.get(`/users/${id}`, { token: admin.token });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const list = await app.http.get("/users/", { token: admin.token });
    expect(list.status).toBe(200);
    expect(list.body.map((u: any) => u.id)).toContain(id);

    const newEmail = uniqueEmail("renamed");
    const patched = await app.http.patch(`/users/${id}`, { token: admin.token, json: { email: newEmail, role_id: 4 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id, email: newEmail, role_id: 4, role: { id: 4 } });
    expect((await app.http.get(`/users/${id}`, { token: admin.token })).body).toMatchObject({ email: newEmail, role_id: 4 });

    const del = await app.http.delete(`/users/${id}`, { token: admin.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    expect((await app.http.get(`/users/${id}`, { token: admin.token })).status).toBe(404);
    expect((await app.http.delete(`/users/${id}`, { token: admin.token })).status).toBe(404);
  });

  it("GET /users/me returns the caller in the same shape", async () => {
    const me = await app.http.get("/users/me", { token: admin.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: admin.id, org_id: admin.orgId, role_id: 1, role: { id: 1, scopes: ["*"] }, organisation: { id: admin.orgId } });
    expect(JSON.stringify(me.body)).not.toMatch(/argon2|password/i);
  });

  it("answers 404 for a missing user on GET, PATCH and DELETE", async () => {
    for (const res of [
      await app.http.get("/users/2147483647", { token: admin.token }),
      await app.http.patch("/users/2147483647", { token: admin.token, json: { disabled: true } }),
      await app.http.delete("/users/2147483647", { token: admin.token }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
    }
  });
});

describe("e-mail uniqueness", () => {
  it("refuses a duplicate e-mail with 400, whatever its case", async () => {
    const email = `Mixed.${crypto.randomBytes(4).toString("hex")}@Example.test`;
    const first = await app.http.post("/users/", { token: admin.token, json: { email, org_id: admin.orgId, role_id: 3 } });
    expect(first.status).toBe(201);
    expect(first.body.email).toBe(email.toLowerCase());
    for (const variant of [email, email.toLowerCase(), email.toUpperCase()]) {
      const dup = await app.http.post("/users/", { token: admin.token, json: { email: variant, org_id: admin.orgId, role_id: 3 } });
      expect(dup.status).toBe(400);
      expect(dup.body).toMatchObject({ code: "bad_request", detail: "Email already registered" });
    }
    expect(await userCountByEmail(email)).toBe(1);
  });

  it("refuses renaming a user to another user's e-mail (any case) with 400", async () => {
    const a = await createUser(app, admin, 3);
    const b = await createUser(app, admin, 3);
    const res = await app.http.patch(`/users/${b.id}`, { token: admin.token, json: { email: a.email.toUpperCase() } });
    expect(res.status).toBe(400);
    expect((await app.http.get(`/users/${b.id}`, { token: admin.token })).body.email).toBe(b.email);
  });

  it("lets exactly one of several concurrent creations with the same e-mail win, never 500", async () => {
    const email = uniqueEmail("race");
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.http.post("/users/", { token: admin.token, json: { email: i % 2 ? email.toUpperCase() : email, org_id: admin.orgId, role_id: 3 } }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 400)).toBe(true);
    expect(await userCountByEmail(email)).toBe(1);
  });
});

describe("input validation", () => {
  it("answers an unknown organisation or role with 422 naming the field", async () => {
    const org = await app.http.post("/users/", { token: admin.token, json: { email: uniqueEmail(), org_id: 999999, role_id: 3 } });
    expect(org.status).toBe(422);
    expect(hasLoc(org.body, "body", "org_id")).toBe(true);
    const role = await app.http.post("/users/", { token: admin.token, json: { email: uniqueEmail(), org_id: admin.orgId, role_id: 999999 } });
    expect(role.status).toBe(422);
    expect(hasLoc(role.body, "body", "role_id")).toBe(true);
    const patch = await app.http.patch(`/users/${admin.id}`, { token: admin.token, json: { role_id: 999999 } });
    expect(patch.status).toBe(422);
    expect(hasLoc(patch.body, "body", "role_id")).toBe(true);
  });

  it.each([
    ["an unknown field", { is_admin: true }],
    ["a read-only field (id)", { id: 1 }],
    ["a password hash", { password_hash: "x" }],
  ])("refuses %s in POST /users/ with 422 and a loc", async (_label, extra) => {
    const email = uniqueEmail();
    const res = await app.http.post("/users/", { token: admin.token, json: { email, org_id: admin.orgId, role_id: 3, ...extra } });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    const field = Object.keys(extra)[0];
    expect(res.body.detail.some((d: any) => d.loc[0] === "body" && JSON.stringify(d).includes(field))).toBe(true);
    expect(await userCountByEmail(email)).toBe(0);
  });

  it.each([
    ["a missing e-mail", { org_id: 1, role_id: 3 }, "email"],
    ["a malformed e-mail", { email: "not-an-email", org_id: 1, role_id: 3 }, "email"],
    ["a string org_id", { email: "x@example.test", org_id: "1", role_id: 3 }, "org_id"],
    ["a short password", { email: "y@example.test", org_id: 1, role_id: 3, password: "short" }, "password"],
  ])("refuses %s with 422", async (_label, body, field) => {
    const res = await app.http.post("/users/", { token: admin.token, json: body });
    expect(res.status).toBe(422);
    expect(hasLoc(res.body, "body", field)).toBe(true);
  });

  it.each(["abc", "0", "-1", "1.5", "99999999999", "2147483648", "1e3", "%20"])("answers /users/%s with 422, never 500", async (id) => {
    for (const res of [
      await app.http.get(`/users/${id}`, { token: admin.token }),
      await app.http.patch(`/users/${id}`, { token: admin.token, json: { disabled: false } }),
      await app.http.delete(`/users/${id}`, { token: admin.token }),
    ]) {
      expect(res.status).toBe(422);
      expect(hasLoc(res.body, "path", "user_id")).toBe(true);
    }
  });

  it("pages the list with skip and limit", async () => {
    await createUser(app, admin, 3);
    await createUser(app, admin, 3);
    const all = (await app.http.get("/users/?limit=1000", { token: admin.token })).body as any[];
    expect(all.length).toBeGreaterThanOrEqual(3);
    const page = await app.http.get("/users/?skip=1&limit=2", { token: admin.token });
    expect(page.status).toBe(200);
    expect(page.body.map((u: any) => u.id)).toEqual(all.slice(1, 3).map((u) => u.id));
    const past = await app.http.get("/users/?skip=100000", { token: admin.token });
    expect(past.status).toBe(200);
    expect(past.body).toEqual([]);
  });

  it.each([
    ["limit=0", "limit"],
    ["limit=-1", "limit"],
    ["limit=1000001", "limit"],
    ["limit=abc", "limit"],
    ["limit=1&limit=2", "limit"],
    ["skip=-1", "skip"],
    ["skip=1.5", "skip"],
    ["skip=99999999999", "skip"],
  ])("answers ?%s with 422", async (qs, field) => {
    const res = await app.http.get(`/users/?${qs}`, { token: admin.token });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(res.body.detail.some((d: any) => d.loc[0] === "query" && JSON.stringify(d).includes(field))).toBe(true);
  });
});

describe("self service (PATCH /users/me)", () => {
  let shared: TestUser;
  beforeAll(async () => {
    shared = await createUser(app, admin, 4);
  });

  it.each([
    ["role_id", { role_id: 1 }],
    ["id", { id: 1 }],
    ["org_id", { org_id: 1 }],
    ["disabled", { disabled: true }],
    ["email", { email: "hijack@example.test" }],
  ])("refuses %s (mass assignment) with 422 and changes nothing", async (field, extra) => {
    const user = shared;
    const before = (await app.http.get(`/users/${user.id}`, { token: admin.token })).body;
    const res = await app.http.patch("/users/me", { token: user.token, json: { current_password: user.password, password: newPassword(), ...extra } });
    expect(res.status).toBe(422);
    expect(res.body.detail.some((d: any) => d.loc[0] === "body" && JSON.stringify(d).includes(field))).toBe(true);
    // Without the password fields too.
    expect((await app.http.patch("/users/me", { token: user.token, json: extra })).status).toBe(422);
    const after = (await app.http.get(`/users/${user.id}`, { token: admin.token })).body;
    expect(after).toEqual(before);
    // The password was not changed either.
    await expect(app.http.login(user.email, user.password)).resolves.toHaveProperty("access_token");
  });

  it("refuses a wrong current password with 422 and keeps the old one", async () => {
    const user = shared;
    const res = await app.http.patch("/users/me", { token: user.token, json: { current_password: "wrong-password", password: newPassword() } });
    expect(res.status).toBe(422);
    expect(hasLoc(res.body, "body", "current_password")).toBe(true);
    await expect(app.http.login(user.email, user.password)).resolves.toHaveProperty("access_token");
  });

  it("refuses a too short new password with 422", async () => {
    const user = shared;
    const res = await app.http.patch("/users/me", { token: user.token, json: { current_password: user.password, password: "short" } });
    expect(res.status).toBe(422);
    expect(hasLoc(res.body, "body", "password")).toBe(true);
  });

  it("changes the password: the old one stops working, the new one works, the audit holds no secret", async () => {
    const user = await createUser(app, admin, 4);
    const next = newPassword();
    const res = await app.http.patch("/users/me", { token: user.token, json: { current_password: user.password, password: next } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, email: user.email });
    expect((await app.http.post("/auth/token", { form: { username: user.email, password: user.password } })).status).toBe(401);
    await expect(app.http.login(user.email, next)).resolves.toHaveProperty("access_token");
    // Existing refresh tokens end with the old password.
    expect((await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } })).status).toBe(401);
    const text = JSON.stringify(await auditRows("user.password_changed", user.id));
    expect(text).toContain("user.password_changed");
    expect(text).not.toContain(next);
    expect(text).not.toContain(user.password);
    expect(text).not.toMatch(/argon2/);
  });
});

describe("last administrator", () => {
  let superuser: TestUser;

  beforeAll(async () => {
    // Holds "*" through a custom role, so it is not itself a role-1 administrator.
    superuser = await createUser(app, admin, ["*"]);
  });

  it("starts with exactly one enabled administrator", async () => {
    expect(await enabledAdmins()).toBe(1);
  });

  it("refuses to disable, demote or delete the last enabled administrator (409)", async () => {
    const disable = await app.http.patch(`/users/${admin.id}`, { token: superuser.token, json: { disabled: true } });
    expect(disable.status).toBe(409);
    expect(disable.body.code).toBe("conflict");
    const demote = await app.http.patch(`/users/${admin.id}`, { token: superuser.token, json: { role_id: 3 } });
    expect(demote.status).toBe(409);
    const demoteSelf = await app.http.patch(`/users/${admin.id}`, { token: admin.token, json: { role_id: 3 } });
    expect(demoteSelf.status).toBe(409);
    const disableSelf = await app.http.patch(`/users/${admin.id}`, { token: admin.token, json: { disabled: true } });
    expect(disableSelf.status).toBe(409);
    const del = await app.http.delete(`/users/${admin.id}`, { token: superuser.token });
    expect(del.status).toBe(409);
    const me = await app.http.get(`/users/${admin.id}`, { token: admin.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role_id: 1, disabled: false });
  });

  it("refuses DELETE /users/{own id} with 409", async () => {
    const res = await app.http.delete(`/users/${admin.id}`, { token: admin.token });
    expect(res.status).toBe(409);
    const self = await app.http.delete(`/users/${superuser.id}`, { token: superuser.token });
    expect(self.status).toBe(409);
    expect((await app.http.get(`/users/${superuser.id}`, { token: admin.token })).status).toBe(200);
  });

  it("allows the change once another administrator is enabled, then protects that one", async () => {
    const second = await createUser(app, admin, 1);
    expect((await app.http.patch(`/users/${admin.id}`, { token: superuser.token, json: { disabled: true } })).status).toBe(200);
    expect((await app.http.patch(`/users/${second.id}`, { token: superuser.token, json: { disabled: true } })).status).toBe(409);
    expect((await app.http.delete(`/users/${second.id}`, { token: superuser.token })).status).toBe(409);
    // A disabled administrator does not count, and re-enabling is always allowed.
    expect((await app.http.patch(`/users/${admin.id}`, { token: superuser.token, json: { disabled: false } })).status).toBe(200);
    expect((await app.http.delete(`/users/${second.id}`, { token: superuser.token })).status).toBe(204);
    expect(await enabledAdmins()).toBe(1);
    // Being disabled ended the administrator's access token; re-enabling does not bring it back.
    expect((await app.http.get("/users/me", { token: admin.token })).status).toBe(401);
    admin = await loginAdmin(app);
    expect((await app.http.get("/users/me", { token: admin.token })).status).toBe(200);
  });

  it("never ends with no enabled administrator when two are disabled concurrently", async () => {
    for (let round = 0; round < 4; round++) {
      const second = await createUser(app, admin, 1);
      const results = await Promise.all([
        app.http.patch(`/users/${admin.id}`, { token: superuser.token, json: { disabled: true } }),
        app.http.patch(`/users/${second.id}`, { token: superuser.token, json: { disabled: true } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(await enabledAdmins()).toBe(1);
      // Restore: the bootstrap admin enabled, the second one gone.
      await app.booted.ctx.db.pool.query("UPDATE users SET disabled = false WHERE id = $1", [admin.id]);
      expect((await app.http.delete(`/users/${second.id}`, { token: superuser.token })).status).toBe(204);
      // Whichever was disabled lost its access tokens.
      admin = await loginAdmin(app);
    }
    expect(await enabledAdmins()).toBe(1);
  });
});

describe("non-administrators holding users:*", () => {
  let orgB: number;
  let managerRole: number;
  let manager: TestUser;
  let colleague: TestUser;
  let outsider: TestUser;
  let orgBAdmin: TestUser;
  let smallRole: number;

  beforeAll(async () => {
    orgB = await createOrganisation(app, admin);
    managerRole = await createRole(app, admin, ["users:*", "roles:read", "organisations:read"]);
    smallRole = await createRole(app, admin, ["users:me"]);
    manager = await createUser(app, admin, managerRole, orgB);
    colleague = await createUser(app, admin, smallRole, orgB);
    outsider = await createUser(app, admin, smallRole, admin.orgId);
    orgBAdmin = await createUser(app, admin, 1, orgB);
  });

  it("lists only users of their own organisation", async () => {
    const res = await app.http.get("/users/", { token: manager.token });
    expect(res.status).toBe(200);
    const ids = res.body.map((u: any) => u.id);
    expect(ids).toEqual(expect.arrayContaining([manager.id, colleague.id]));
    expect(ids).not.toContain(outsider.id);
    expect(ids).not.toContain(admin.id);
    expect(res.body.every((u: any) => u.org_id === orgB)).toBe(true);
  });

  it("gets 404 for another organisation's user on GET, PATCH and DELETE, and changes nothing", async () => {
    expect((await app.http.get(`/users/${outsider.id}`, { token: manager.token })).status).toBe(404);
    expect((await app.http.patch(`/users/${outsider.id}`, { token: manager.token, json: { disabled: true } })).status).toBe(404);
    expect((await app.http.delete(`/users/${outsider.id}`, { token: manager.token })).status).toBe(404);
    expect((await app.http.get(`/users/${admin.id}`, { token: manager.token })).status).toBe(404);
    const still = await app.http.get(`/users/${outsider.id}`, { token: admin.token });
    expect(still.body).toMatchObject({ disabled: false });
  });

  it("creates users in their own organisation with a role within their scopes", async () => {
    const res = await app.http.post("/users/", { token: manager.token, json: { email: uniqueEmail(), password: newPassword(), org_id: orgB, role_id: smallRole } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ org_id: orgB, role_id: smallRole });
  });

  it("cannot create users in another organisation (403, nothing written)", async () => {
    const email = uniqueEmail();
    const res = await app.http.post("/users/", { token: manager.token, json: { email, org_id: admin.orgId, role_id: smallRole } });
    expect(res.status).toBe(403);
    expect(await userCountByEmail(email)).toBe(0);
  });

  it.each([
    ["the administrator role", 1],
    ["the user role (more scopes)", 3],
  ])("cannot assign %s on creation (403, nothing written)", async (_label, roleId) => {
    const email = uniqueEmail();
    const res = await app.http.post("/users/", { token: manager.token, json: { email, org_id: orgB, role_id: roleId } });
    expect(res.status).toBe(403);
    expect(await userCountByEmail(email)).toBe(0);
  });

  it("cannot raise a colleague or themselves to a larger role (403, nothing written)", async () => {
    const res = await app.http.patch(`/users/${colleague.id}`, { token: manager.token, json: { role_id: 3 } });
    expect(res.status).toBe(403);
    const self = await app.http.patch(`/users/${manager.id}`, { token: manager.token, json: { role_id: 1 } });
    expect(self.status).toBe(403);
    expect((await app.http.get(`/users/${colleague.id}`, { token: admin.token })).body.role_id).toBe(smallRole);
    expect((await app.http.get(`/users/${manager.id}`, { token: admin.token })).body.role_id).toBe(managerRole);
  });

  it("cannot move a colleague to another organisation (403)", async () => {
    const res = await app.http.patch(`/users/${colleague.id}`, { token: manager.token, json: { org_id: admin.orgId } });
    expect(res.status).toBe(403);
    expect((await app.http.get(`/users/${colleague.id}`, { token: admin.token })).body.org_id).toBe(orgB);
  });

  it.each([
    ["disable", { disabled: true }],
    ["reset the password of", { password: "new-password-123" }],
    ["rename", { email: "renamed-admin@example.test" }],
    ["demote to the manager's own role", "managerRole"],
    ["demote to a smaller role", "smallRole"],
  ])("cannot %s an administrator of their organisation (403, nothing changed)", async (_label, body) => {
    const json = body === "managerRole" ? { role_id: managerRole } : body === "smallRole" ? { role_id: smallRole } : body;
    const before = (await app.http.get(`/users/${orgBAdmin.id}`, { token: admin.token })).body;
    const res = await app.http.patch(`/users/${orgBAdmin.id}`, { token: manager.token, json });
    expect(res.status).toBe(403);
    expect((await app.http.get(`/users/${orgBAdmin.id}`, { token: admin.token })).body).toEqual(before);
    await expect(app.http.login(orgBAdmin.email, orgBAdmin.password)).resolves.toHaveProperty("access_token");
  });

  it("cannot delete an administrator of their organisation (403)", async () => {
    expect((await app.http.delete(`/users/${orgBAdmin.id}`, { token: manager.token })).status).toBe(403);
    expect((await app.http.get(`/users/${orgBAdmin.id}`, { token: admin.token })).status).toBe(200);
  });

  it("manages a colleague within their own scopes", async () => {
    const res = await app.http.patch(`/users/${colleague.id}`, { token: manager.token, json: { disabled: true } });
    expect(res.status).toBe(200);
    expect(res.body.disabled).toBe(true);
    expect((await app.http.delete(`/users/${colleague.id}`, { token: manager.token })).status).toBe(204);
  });

  it("a user without users:read gets 403 on the list", async () => {
    const plain = await createUser(app, admin, smallRole, orgB);
    const res = await app.http.get("/users/", { token: plain.token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("insufficient_scope");
  });
});

describe("audit", () => {
  it("records user.created, user.updated and user.deleted with the actor and never a password or hash", async () => {
    const email = uniqueEmail("audited");
    const password = newPassword();
    const created = await app.http.post("/users/", { token: admin.token, json: { email, password, org_id: admin.orgId, role_id: 3 } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const reset = newPassword();
    expect((await app.http.patch(`/users/${id}`, { token: admin.token, json: { role_id: 4, password: reset } })).status).toBe(200);
    expect((await app.http.delete(`/users/${id}`, { token: admin.token })).status).toBe(204);

    const [c] = await auditRows("user.created", id);
    expect(c).toMatchObject({ actor_user_id: admin.id, actor_type: "user", resource_type: "user", resource_id: id });
    expect(c.metadata).toMatchObject({ email, org_id: admin.orgId, role_id: 3 });

    const [u] = await auditRows("user.updated", id);
    expect(u).toMatchObject({ actor_user_id: admin.id, actor_type: "user", resource_type: "user" });
    expect(u.metadata).toMatchObject({ changes: { role_id: { before: 3, after: 4 } } });
    expect(u.metadata!.changes).toHaveProperty("password");

    const [d] = await auditRows("user.deleted", id);
    expect(d).toMatchObject({ actor_user_id: admin.id, actor_type: "user", resource_type: "user" });
    expect(d.metadata).toMatchObject({ email });

    const all = JSON.stringify(await app.booted.ctx.db.pool.query("SELECT * FROM audit_logs WHERE resource_id = $1 AND resource_type = 'user'", [id]).then((r) => r.rows));
    expect(all).not.toContain(password);
    expect(all).not.toContain(reset);
    expect(all).not.toMatch(/argon2|password_hash|passwordHash/);
  });

  it("records nothing for refused changes", async () => {
    const email = uniqueEmail("refused");
    await app.http.post("/users/", { token: admin.token, json: { email, org_id: 999999, role_id: 3 } });
    const { rows } = await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM audit_logs WHERE metadata->>'email' = $1", [email]);
    expect(rows[0].n).toBe(0);
  });
});
