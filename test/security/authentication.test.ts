import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignJWT } from "jose";
import { startTestApp, type TestApp, ADMIN_EMAIL, ADMIN_PASSWORD } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("authn");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const auditCount = async (action: string) =>
  (await app.booted.ctx.db.pool.query("SELECT count(*)::int AS n FROM audit_logs WHERE action = $1", [action])).rows[0].n as number;

/** Sends a request with the given raw header lines, bypassing fetch (which folds repeated headers). */
function rawRequest(port: number, lines: string[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => {
      socket.write(["GET /users/me HTTP/1.1", "Host: 127.0.0.1", "Connection: close", ...lines, "", ""].join("\r\n"));
    });
    let data = "";
    socket.on("data", (c) => (data += c));
    socket.on("end", () => resolve({ status: Number(data.split(" ")[1]), body: data.split("\r\n\r\n").slice(1).join("") }));
    socket.on("error", reject);
  });
}

describe("password grant", () => {
  it("issues a bearer access token and a refresh token with the role's scopes", async () => {
    const res = await app.http.post("/auth/token", { form: { grant_type: "password", username: ADMIN_EMAIL, password: ADMIN_PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: "bearer", expires_in: 900, scope: "*" });
    expect(res.body.access_token.split(".")).toHaveLength(3);
    expect(res.body.refresh_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("treats the e-mail case-insensitively and defaults grant_type to password (peer clients)", async () => {
    const res = await app.http.post("/auth/token", { form: { username: ADMIN_EMAIL.toUpperCase(), password: ADMIN_PASSWORD } });
    expect(res.status).toBe(200);
  });

  it.each([
    ["wrong password", ADMIN_EMAIL, "not-the-password"],
    ["unknown user", "nobody@example.test", ADMIN_PASSWORD],
    ["empty password", ADMIN_EMAIL, " "],
  ])("rejects %s with 401 and records auth.login_failed", async (_label, username, password) => {
    const before = await auditCount("auth.login_failed");
    const res = await app.http.post("/auth/token", { form: { username, password } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: "Incorrect username or password", code: "invalid_credentials" });
    expect(res.headers.get("www-authenticate")).toBe("Bearer");
    expect(await auditCount("auth.login_failed")).toBe(before + 1);
  });

  it("refuses a disabled user's login and ends their existing sessions", async () => {
    const user = await createUser(app, admin, 3);
    expect((await app.http.get("/users/me", { token: user.token })).status).toBe(200);
    const patch = await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: true } });
    expect(patch.status).toBe(200);
    expect((await app.http.post("/auth/token", { form: { username: user.email, password: user.password } })).status).toBe(401);
    expect((await app.http.get("/users/me", { token: user.token })).status).toBe(401);
    expect((await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } })).status).toBe(401);
  });

  it("narrows the token to a requested subset of the role's scopes, and refuses more", async () => {
    const user = await createUser(app, admin, 3);
    const narrow = await app.http.post("/auth/token", { form: { username: user.email, password: user.password, scope: "users:me" } });
    expect(narrow.status).toBe(200);
    expect(narrow.body.scope).toBe("users:me");
    expect((await app.http.get("/users/me", { token: narrow.body.access_token })).status).toBe(200);
    expect((await app.http.get("/roles/", { token: narrow.body.access_token })).status).toBe(403);
    const beyond = await app.http.post("/auth/token", { form: { username: user.email, password: user.password, scope: "users:me roles:delete" } });
    expect(beyond.status).toBe(400);
    expect(beyond.body.detail).toContain("roles:delete");
    const unknown = await app.http.post("/auth/token", { form: { username: user.email, password: user.password, scope: "nope:nope" } });
    expect(unknown.status).toBe(400);
  });

  it.each([
    ["JSON instead of a form", { json: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD } }, 415],
    ["a repeated field", { body: `username=${encodeURIComponent(ADMIN_EMAIL)}&password=a&password=b`, contentType: "application/x-www-form-urlencoded" }, 422],
    ["a missing password", { form: { username: ADMIN_EMAIL } }, 422],
    ["an unknown form field", { form: { username: ADMIN_EMAIL, password: ADMIN_PASSWORD, role_id: "1" } }, 422],
    ["an unknown grant type", { form: { grant_type: "client_credentials", client_id: "x" } }, 400],
  ])("answers %s with a JSON 4xx", async (_label, opts, status) => {
    const res = await app.http.post("/auth/token", opts);
    expect(res.status).toBe(status);
    expect(res.body).toHaveProperty("code");
    expect(res.body).toHaveProperty("detail");
  });

  it("answers GET /auth/token with 405 and Allow: POST", async () => {
    const res = await app.http.get("/auth/token");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(res.body.code).toBe("method_not_allowed");
  });
});

describe("access tokens", () => {
  const secret = new TextEncoder().encode("test-secret-test-secret-test-secret-0123");
  const claims = (over: Record<string, unknown> = {}) => ({ token_use: "access", sub: String(admin.id), jti: crypto.randomUUID(), ...over });

  it("rejects an expired token", async () => {
    const { token } = await app.booted.ctx.tokens.issue(admin.id, 0, null, -30);
    const res = await app.http.get("/users/me", { token });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthenticated");
  });

  it("rejects a tampered payload", async () => {
    const [h, p, s] = admin.token.split(".");
    const payload = JSON.parse(Buffer.from(p, "base64url").toString());
    payload.sub = "999";
    const forged = [h, Buffer.from(JSON.stringify(payload)).toString("base64url"), s].join(".");
    expect((await app.http.get("/users/me", { token: forged })).status).toBe(401);
  });

  it("rejects alg:none", async () => {
    const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
    const body = Buffer.from(JSON.stringify({ ...claims(), iss: "workbench", aud: "workbench-api", iat: 1, exp: 4102444800 })).toString("base64url");
    expect((await app.http.get("/users/me", { token: `${header}.${body}.` })).status).toBe(401);
  });

  it("rejects a token signed with another secret", async () => {
    const other = await new SignJWT(claims())
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("workbench")
      .setAudience("workbench-api")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode("another-secret-another-secret-another-0"));
    expect((await app.http.get("/users/me", { token: other })).status).toBe(401);
  });

  it("rejects a valid signature on a token that is not an access token", async () => {
    const t = await new SignJWT(claims({ token_use: "refresh" }))
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("workbench")
      .setAudience("workbench-api")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(secret);
    expect((await app.http.get("/users/me", { token: t })).status).toBe(401);
  });

  it("applies a role downgrade on the next request, without a new login", async () => {
    const user = await createUser(app, admin, ["users:me", "roles:read"]);
    expect((await app.http.get("/roles/", { token: user.token })).status).toBe(200);
    const res = await app.http.patch(`/roles/${user.roleId}`, { token: admin.token, json: { scopes: ["users:me"] } });
    expect(res.status).toBe(200);
    expect((await app.http.get("/roles/", { token: user.token })).status).toBe(403);
  });

  it("stops working after logout, and so do the refresh tokens", async () => {
    const user = await createUser(app, admin, 3);
    expect((await app.http.post("/auth/logout", { token: user.token })).status).toBe(204);
    const after = await app.http.get("/users/me", { token: user.token });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe("token_revoked");
    expect((await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } })).status).toBe(401);
  });

  it("stops working when the user is deleted", async () => {
    const user = await createUser(app, admin, 3);
    expect((await app.http.delete(`/users/${user.id}`, { token: admin.token })).status).toBe(204);
    expect((await app.http.get("/users/me", { token: user.token })).status).toBe(401);
    expect((await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } })).status).toBe(401);
  });
});

describe("refresh tokens", () => {
  it("rotates on use: the new pair works, the old refresh token does not", async () => {
    const user = await createUser(app, admin, 3);
    const first = await app.http.post("/auth/token", { form: { grant_type: "refresh_token", refresh_token: user.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(user.refreshToken);
    expect((await app.http.get("/users/me", { token: first.body.access_token })).status).toBe(200);
    const second = await app.http.post("/auth/refresh", { json: { refresh_token: first.body.refresh_token } });
    expect(second.status).toBe(200);
  });

  it("treats reuse of a rotated token as theft: the whole family is revoked", async () => {
    const user = await createUser(app, admin, 3);
    const rotated = await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } });
    expect(rotated.status).toBe(200);
    const replay = await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe("token_revoked");
    // The legitimate holder's newer token is revoked too.
    expect((await app.http.post("/auth/refresh", { json: { refresh_token: rotated.body.refresh_token } })).status).toBe(401);
  });

  it("lets only one of two concurrent uses of the same token win", async () => {
    const user = await createUser(app, admin, 3);
    const results = await Promise.all([1, 2, 3].map(() => app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } })));
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
  });

  it.each([["garbage", "not a token!"], ["unknown", "A".repeat(43)], ["empty", ""]])("rejects a %s refresh token", async (_l, token) => {
    const res = await app.http.post("/auth/refresh", { json: { refresh_token: token } });
    expect([401, 422]).toContain(res.status);
    expect(res.body.code).toBeDefined();
  });
});

describe("Authorization header forms", () => {
  it.each([
    ["Basic with a 40-hex credential", `Basic ${"a".repeat(40)}`],
    ["Basic with user:password", `Basic ${Buffer.from(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`).toString("base64")}`],
    ["Bearer with no value", "Bearer"],
    ["Bearer with spaces only", "Bearer    "],
    ["an unknown scheme", "Token abc"],
    ["a raw JWT without scheme", "eyJhbGciOiJIUzI1NiJ9.e30.x"],
  ])("rejects %s with 401", async (_label, header) => {
    const res = await app.http.get("/users/me", { authorization: header });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "unauthenticated" });
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("accepts the scheme case-insensitively", async () => {
    expect((await app.http.get("/users/me", { authorization: `bearer ${admin.token}` })).status).toBe(200);
  });

  it("rejects two Authorization headers even when both are valid", async () => {
    const port = Number(new URL(app.url).port);
    const res = await rawRequest(port, [`Authorization: Bearer ${admin.token}`, `Authorization: Bearer ${admin.token}`]);
    expect(res.status).toBe(401);
  });

  it("answers anonymous calls with 401 and a challenge naming the scope", async () => {
    const res = await app.http.get("/users/me");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer scope="users:me"');
  });
});
