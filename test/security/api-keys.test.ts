import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextAuthInvalidation, startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import type { RequestOptions } from "../support/http.ts";

let app: TestApp;
let admin: TestUser;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  app = await startTestApp("apikeys");
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
  other = await createUser(app, admin, 3);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const audits = async (action: string, keyId: number) =>
  (await sql("SELECT * FROM audit_logs WHERE action = $1 AND resource_id = $2 ORDER BY id", [action, keyId])).rows;

async function mintKey(user: TestUser, body: Record<string, unknown> = {}) {
  const res = await app.http.post("/api-keys/", { token: user.token, json: { name: `key-${crypto.randomBytes(3).toString("hex")}`, scopes: ["users:me", "api_keys:read"], ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; token: string; scopes: string[] };
}

const me = (key: string, form: "bearer" | "raw" = "bearer") =>
  app.http.get("/users/me", { authorization: form === "bearer" ? `Bearer ${key}` : key });

describe("creation", () => {
  it("returns a 40-hex token once, stores only its SHA-256, and audits api_key.created without the token", async () => {
    const key = await mintKey(owner, { comment: "for the SIEM", expires_at: new Date(Date.now() + 86_400_000).toISOString() });
    expect(key.token).toMatch(/^[0-9a-f]{40}$/);
    const row = (await sql("SELECT token_hash FROM api_keys WHERE id = $1", [key.id])).rows[0];
    expect(row.token_hash).toBe(crypto.createHash("sha256").update(key.token).digest("hex"));
    const listed = await app.http.get("/api-keys/", { token: owner.token });
    const item = listed.body.find((k: { id: number }) => k.id === key.id);
    expect(item).toMatchObject({ name: expect.any(String), comment: "for the SIEM", scopes: ["users:me", "api_keys:read"], disabled: false, admin_disabled: false });
    expect(Object.keys(item).sort()).toEqual(["admin_disabled", "comment", "created_at", "disabled", "expires_at", "id", "last_used_at", "name", "scopes", "user_id"]);
    expect(listed.text).not.toContain(key.token);
    expect(listed.text).not.toContain(row.token_hash);
    const audit = await audits("api_key.created", key.id);
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(key.token);
    expect(JSON.stringify(audit)).not.toContain(row.token_hash);
  });

  it("accepts a wildcard the role grants", async () => {
    const role = await app.http.post("/roles/", { token: admin.token, json: { name: "wild", scopes: ["users:me", "api_keys:*", "events:*"] } });
    const user = await createUser(app, admin, role.body.id);
    const key = await mintKey(user, { scopes: ["events:*"] });
    expect(key.scopes).toEqual(["events:*"]);
  });

  it.each([
    ["a scope beyond the role", ["users:me", "roles:delete"], "roles:delete"],
    ["* for a non-admin", ["*"], "*"],
    ["a wildcard beyond the role", ["events:*"], "events:*"],
    ["an unknown scope", ["nope:nothing"], "nope:nothing"],
    ["no scope at all", [], "At least one scope"],
  ])("rejects %s with 400 naming it, and stores nothing", async (_l, scopes, named) => {
    const before = (await sql("SELECT count(*)::int AS n FROM api_keys")).rows[0].n;
    const res = await app.http.post("/api-keys/", { token: owner.token, json: { name: "x", scopes } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_scope");
    expect(res.body.detail).toContain(named);
    expect((await sql("SELECT count(*)::int AS n FROM api_keys")).rows[0].n).toBe(before);
  });

  it("lets an administrator mint a * key", async () => {
    const key = await mintKey(admin, { scopes: ["*"] });
    expect((await app.http.get("/roles/", { authorization: key.token })).status).toBe(200);
  });

  it("needs an interactive login: a key cannot mint keys, whatever its scopes", async () => {
    const key = await mintKey(owner, { scopes: ["api_keys:create", "users:me"] });
    const res = await app.http.post("/api-keys/", { authorization: `Bearer ${key.token}`, json: { name: "child", scopes: ["users:me"] } });
    expect(res.status).toBe(403);
  });

  it("bounds the key by a narrowed access token's scopes", async () => {
    const narrow = await app.http.login(owner.email, owner.password, "api_keys:create users:me");
    const res = await app.http.post("/api-keys/", { token: narrow.access_token, json: { name: "n", scopes: ["events:read"] } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("events:read");
  });

  it.each([
    ["a 10 000-character name", { name: "n".repeat(10_000), scopes: ["users:me"] }],
    ["an empty name", { name: "  ", scopes: ["users:me"] }],
    ["a missing name", { scopes: ["users:me"] }],
    ["expires_at in the past", { name: "x", scopes: ["users:me"], expires_at: "2001-01-01T00:00:00Z" }],
    ["an unparsable expires_at", { name: "x", scopes: ["users:me"], expires_at: "next tuesday" }],
    ["scopes as a string", { name: "x", scopes: "users:me" }],
    ["an unknown field", { name: "x", scopes: ["users:me"], user_id: 1 }],
    ["a token supplied by the client", { name: "x", scopes: ["users:me"], token: "a".repeat(40) }],
  ])("rejects %s with 422 and stores nothing", async (_l, body) => {
    const before = (await sql("SELECT count(*)::int AS n FROM api_keys")).rows[0].n;
    const res = await app.http.post("/api-keys/", { token: owner.token, json: body });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect((await sql("SELECT count(*)::int AS n FROM api_keys")).rows[0].n).toBe(before);
  });
});

describe("authentication with a key", () => {
  it("works as Bearer and as the raw header value, with key ∩ role permissions", async () => {
    const key = await mintKey(owner);
    expect((await me(key.token)).status).toBe(200);
    expect((await me(key.token, "raw")).status).toBe(200);
    // The role grants roles:read, the key does not.
    expect((await app.http.get("/roles/", { authorization: key.token })).status).toBe(403);
  });

  it("follows a role downgrade on the very next request", async () => {
    const role = await app.http.post("/roles/", { token: admin.token, json: { name: `dg-${Date.now()}`, scopes: ["users:me", "roles:read", "api_keys:create"] } });
    const user = await createUser(app, admin, role.body.id);
    const key = await mintKey(user, { scopes: ["roles:read"] });
    expect((await app.http.get("/roles/", { authorization: key.token })).status).toBe(200);
    await app.http.patch(`/roles/${role.body.id}`, { token: admin.token, json: { scopes: ["users:me", "api_keys:create"] } });
    expect((await app.http.get("/roles/", { authorization: key.token })).status).toBe(403);
  });

  it.each([
    ["39 characters", "a".repeat(39)],
    ["41 characters", "a".repeat(41)],
    ["uppercase hex", "A".repeat(40)],
    ["non-hex", "g".repeat(40)],
    ["a valid-looking unknown key", "0123456789abcdef0123456789abcdef01234567"],
  ])("rejects %s with 401", async (_l, token) => {
    expect((await me(token)).status).toBe(401);
    expect((await me(token, "raw")).status).toBe(401);
  });

  it("rejects the stored hash presented as the key, and Basic with a real key", async () => {
    const key = await mintKey(owner);
    const hash = crypto.createHash("sha256").update(key.token).digest("hex");
    expect((await me(hash)).status).toBe(401);
    expect((await app.http.get("/users/me", { authorization: `Basic ${key.token}` })).status).toBe(401);
    expect((await app.http.get("/users/me", { authorization: `Basic ${Buffer.from(`x:${key.token}`).toString("base64")}` })).status).toBe(401);
  });

  it("stops at expiry", async () => {
    const key = await mintKey(owner, { expires_at: new Date(Date.now() + 60_000).toISOString() });
    expect((await me(key.token)).status).toBe(200);
    const invalidated = nextAuthInvalidation(app);
    await sql("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [key.id]);
    await invalidated;
    expect((await me(key.token)).status).toBe(401);
  });

  it("stops when the owner is disabled, and when the owner is deleted", async () => {
    const user = await createUser(app, admin, 3);
    const key = await mintKey(user);
    await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: true } });
    expect((await me(key.token)).status).toBe(401);
    await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: false } });
    expect((await me(key.token)).status).toBe(200);
    expect((await app.http.delete(`/users/${user.id}`, { token: admin.token })).status).toBe(204);
    expect((await me(key.token)).status).toBe(401);
    expect((await sql("SELECT count(*)::int AS n FROM api_keys WHERE id = $1", [key.id])).rows[0].n).toBe(0);
  });

  it("records api_key.authenticated at most once a minute per key, and sets last_used_at", async () => {
    const key = await mintKey(owner);
    await Promise.all(Array.from({ length: 10 }, () => me(key.token)));
    await me(key.token);
    expect(await audits("api_key.authenticated", key.id)).toHaveLength(1);
    const first = (await sql("SELECT last_used_at FROM api_keys WHERE id = $1", [key.id])).rows[0].last_used_at;
    expect(first).toBeInstanceOf(Date);
    // A minute later (simulated), the next request is recorded again, once the change's
    // notification has dropped the cached key.
    const invalidated = nextAuthInvalidation(app);
    await sql("UPDATE api_keys SET last_used_at = now() - interval '61 seconds' WHERE id = $1", [key.id]);
    await invalidated;
    await me(key.token);
    const entries = await audits("api_key.authenticated", key.id);
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({ actor_type: "api_key", actor_credential_id: key.id, actor_user_id: owner.id, ip_address: "127.0.0.1" });
    expect(JSON.stringify(entries)).not.toContain(key.token);
  });
});

describe("state machine (spec 3.2)", () => {
  it("owner disable and enable, audited only on change", async () => {
    const key = await mintKey(owner);
    const off = await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: true } });
    expect(off.status).toBe(200);
    expect(off.body.disabled).toBe(true);
    expect((await me(key.token)).status).toBe(401);
    await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: true } });
    expect(await audits("api_key.disabled", key.id)).toHaveLength(1);
    const on = await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: false } });
    expect(on.body.disabled).toBe(false);
    expect((await me(key.token)).status).toBe(200);
    expect(await audits("api_key.enabled", key.id)).toHaveLength(1);
  });

  it("admin lock stops the key at once; the owner can neither re-enable nor delete it; unlock keeps the owner's disable", async () => {
    const key = await mintKey(owner);
    await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: true } });
    const lock = await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: { disabled: true } });
    expect(lock.status).toBe(200);
    expect(lock.body).toMatchObject({ admin_disabled: true, disabled: true });
    expect(await audits("api_key.admin_locked", key.id)).toHaveLength(1);
    expect((await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: false } })).status).toBe(409);
    const del = await app.http.delete(`/api-keys/${key.id}`, { token: owner.token });
    expect(del.status).toBe(409);
    expect(del.body.code).toBe("conflict");
    const unlock = await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: { disabled: false } });
    expect(unlock.body).toMatchObject({ admin_disabled: false, disabled: true });
    expect(await audits("api_key.admin_unlocked", key.id)).toHaveLength(1);
    expect((await me(key.token)).status).toBe(401);
    await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: false } });
    expect((await me(key.token)).status).toBe(200);
  });

  it("an admin lock of an enabled key stops it even though the owner never disabled it", async () => {
    const key = await mintKey(owner);
    await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: { disabled: true } });
    expect((await me(key.token)).status).toBe(401);
  });

  it("owner delete is irreversible and audited", async () => {
    const key = await mintKey(owner);
    expect((await app.http.delete(`/api-keys/${key.id}`, { token: owner.token })).status).toBe(204);
    expect((await me(key.token)).status).toBe(401);
    expect(await audits("api_key.deleted", key.id)).toHaveLength(1);
    expect((await app.http.delete(`/api-keys/${key.id}`, { token: owner.token })).status).toBe(404);
  });

  it("admin delete of someone else's key is api_key.admin_deleted; of their own, api_key.deleted", async () => {
    const key = await mintKey(owner);
    await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: { disabled: true } });
    expect((await app.http.delete(`/admin/api-keys/${key.id}`, { token: admin.token })).status).toBe(204);
    const [entry] = await audits("api_key.admin_deleted", key.id);
    expect(entry.metadata).toMatchObject({ target_user_id: owner.id });
    const mine = await mintKey(admin);
    expect((await app.http.delete(`/admin/api-keys/${mine.id}`, { token: admin.token })).status).toBe(204);
    expect(await audits("api_key.deleted", mine.id)).toHaveLength(1);
  });

  it("another user's key answers 404 to every owner route", async () => {
    const key = await mintKey(owner);
    expect((await app.http.patch(`/api-keys/${key.id}`, { token: other.token, json: { disabled: true } })).status).toBe(404);
    expect((await app.http.delete(`/api-keys/${key.id}`, { token: other.token })).status).toBe(404);
    const list = await app.http.get("/api-keys/", { token: other.token });
    expect(list.body.map((k: { id: number }) => k.id)).not.toContain(key.id);
    expect((await me(key.token)).status).toBe(200);
  });

  it("admin list filters by user_id", async () => {
    const key = await mintKey(other);
    const res = await app.http.get(`/admin/api-keys/?user_id=${other.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    expect(res.body.every((k: { user_id: number }) => k.user_id === other.id)).toBe(true);
    expect(res.body.map((k: { id: number }) => k.id)).toContain(key.id);
    expect((await app.http.get("/admin/api-keys/?user_id=abc", { token: admin.token })).status).toBe(422);
  });

  it.each([
    ["a missing field", {}],
    ["a string", { disabled: "yes" }],
    ["an extra field", { disabled: true, admin_disabled: false }],
  ])("rejects a PATCH body with %s (422)", async (_l, body) => {
    const key = await mintKey(owner);
    expect((await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: body })).status).toBe(422);
    expect((await app.http.patch(`/admin/api-keys/${key.id}`, { token: admin.token, json: body })).status).toBe(422);
  });
});

describe("audit log read API", () => {
  it("filters by action prefix, actor and time, newest first, paginated", async () => {
    const key = await mintKey(owner);
    const res = await app.http.get(`/admin/audit-logs/?action=API_KEY.&actor_user_id=${owner.id}&size=5`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ page: 1, size: 5 });
    expect(res.body.total).toBeGreaterThan(0);
    expect(res.body.pages).toBe(Math.ceil(res.body.total / 5));
    expect(res.body.items.every((e: { action: string }) => e.action.startsWith("api_key."))).toBe(true);
    const times = res.body.items.map((e: { created_at: string }) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(res.body.items[0]).toHaveProperty("actor_email", owner.email);
    const future = await app.http.get(`/admin/audit-logs/?date_from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: admin.token });
    expect(future.body.total).toBe(0);
    expect(JSON.stringify(res.body)).not.toContain(key.token);
  });

  it("reads LIKE's characters in the action prefix literally: % and _ match nothing, not everything", async () => {
    await mintKey(owner);
    const all = await app.http.get("/admin/audit-logs/?size=1", { token: admin.token });
    expect(all.body.total).toBeGreaterThan(0);
    for (const action of ["%", "_", "api%key", "ap__key", "\\"]) {
      const res = await app.http.get(`/admin/audit-logs/?action=${encodeURIComponent(action)}`, { token: admin.token });
      expect(res.status, action).toBe(200);
      expect(res.body.total, action).toBe(0);
    }
    const literal = await app.http.get("/admin/audit-logs/?action=api_key.", { token: admin.token });
    expect(literal.body.total).toBeGreaterThan(0);
  });

  it("is for administrators only, and validates its parameters", async () => {
    expect((await app.http.get("/admin/audit-logs/", { token: owner.token })).status).toBe(403);
    for (const q of ["page=0", "size=1000", "actor_type=robot", "date_from=yesterday", "bogus=1"]) {
      expect((await app.http.get(`/admin/audit-logs/?${q}`, { token: admin.token })).status, q).toBe(422);
    }
  });
});

describe("GraphQL twins", () => {
  it("createApiKey returns the token once and apiKeys lists it like GET /api-keys/", async () => {
    const res = await app.http.graphql(
      `mutation { createApiKey(input: { name: "gql", scopes: ["users:me"] }) { token apiKey { id name scopes disabled adminDisabled } } }`,
      {},
      owner.token,
    );
    expect(res.body.errors).toBeUndefined();
    const created = res.body.data.createApiKey;
    expect(created.token).toMatch(/^[0-9a-f]{40}$/);
    const gql = await app.http.graphql(`{ apiKeys { id name scopes disabled adminDisabled } }`, {}, owner.token);
    const rest = await app.http.get("/api-keys/", { token: owner.token });
    expect(gql.body.data.apiKeys).toEqual(
      rest.body.map((k: any) => ({ id: k.id, name: k.name, scopes: k.scopes, disabled: k.disabled, adminDisabled: k.admin_disabled })),
    );
    const lock = await app.http.graphql(`mutation($id: Int!) { adminSetApiKeyLocked(id: $id, locked: true) { adminDisabled } }`, { id: created.apiKey.id }, owner.token);
    expect(lock.body.errors![0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
  });
});

describe("several API processes", () => {
  // The other process learns of the change from the database's notification, milliseconds after the
  // commit: the bound asserted here is one second, polled every 10 ms.
  const statusOnB = (appB: TestApp, opts: RequestOptions, path: string, want: number) =>
    eventually(async () => (await appB.http.get(path, opts)).status === want, `${path} answers ${want} on process B`, 1_000, 10);

  it("a key disabled through one process stops on another as soon as the database notifies it", async () => {
    const appB = await startTestApp("apikeys-b", {}, app);
    try {
      const key = await mintKey(owner);
      // Both processes now hold the key in their authentication cache.
      expect((await me(key.token)).status).toBe(200);
      expect((await appB.http.get("/users/me", { authorization: `Bearer ${key.token}` })).status).toBe(200);
      await app.http.patch(`/api-keys/${key.id}`, { token: owner.token, json: { disabled: true } });
      await statusOnB(appB, { authorization: `Bearer ${key.token}` }, "/users/me", 401);
      // A role downgrade made through process A reaches JWT and key callers of process B.
      const scoped = await mintKey(owner, { scopes: ["roles:read"] });
      expect((await appB.http.get("/roles/", { authorization: scoped.token })).status).toBe(200);
      expect((await appB.http.get("/roles/", { token: owner.token })).status).toBe(200);
      const roleId = await app.http.post("/roles/", { token: admin.token, json: { name: `tmp-${Date.now()}`, scopes: ["users:me"] } });
      await app.http.patch(`/users/${owner.id}`, { token: admin.token, json: { role_id: roleId.body.id } });
      await statusOnB(appB, { authorization: scoped.token }, "/roles/", 403);
      // A role change ends the user's access tokens (keys only narrow to the new role).
      expect((await appB.http.get("/roles/", { token: owner.token })).status).toBe(401);
      await app.http.patch(`/users/${owner.id}`, { token: admin.token, json: { role_id: 3 } });
      const again = await app.http.login(owner.email, owner.password);
      owner = { ...owner, token: again.access_token, refreshToken: again.refresh_token };
    } finally {
      await appB.close();
    }
  });
});

describe("whoami", () => {
  it("shows the key's effective scopes and identity, for REST and GraphQL alike", async () => {
    const key = await mintKey(owner, { scopes: ["users:me", "roles:read"] });
    const res = await app.http.get("/auth/whoami", { authorization: key.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ actor_type: "api_key", user_id: owner.id, credential_id: key.id, scopes: ["users:me", "roles:read"] });
    const gql = await app.http.request("POST", "/graphql", { authorization: key.token, json: { query: "{ whoami { actorType userId credentialId scopes } }" } });
    expect(gql.body.data.whoami).toEqual({ actorType: "api_key", userId: owner.id, credentialId: key.id, scopes: ["users:me", "roles:read"] });
    expect((await app.http.get("/auth/whoami")).status).toBe(401);
  });

  it("shows a narrowed access token's scopes as the intersection with the role", async () => {
    const narrow = await app.http.login(owner.email, owner.password, "users:me roles:read");
    const res = await app.http.get("/auth/whoami", { token: narrow.access_token });
    expect(res.body).toMatchObject({ actor_type: "user", user_id: owner.id, credential_id: null, scopes: ["users:me", "roles:read"] });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.now());
  });
});
