import WebSocket from "ws";
import { SignJWT } from "jose";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

const JWT_SECRET = "test-secret-test-secret-test-secret-0123";

let app: TestApp;
let appB: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("revocation", { JWT_SECRET });
  appB = await startTestApp("revocation-b", { JWT_SECRET }, app);
  admin = await loginAdmin(app);
});
afterAll(async () => {
  await appB?.close();
  await app?.close();
});

const me = (token: string, on: TestApp = app) => on.http.get("/users/me", { token });
const gqlMe = (token: string) => app.http.graphql("{ me { id } }", {}, token);
const refresh = (refreshToken: string) => app.http.post("/auth/refresh", { json: { refresh_token: refreshToken } });

/** Polls `on` until `token` answers `want` on /users/me (another process learns of a change by NOTIFY). */
async function eventuallyStatus(on: TestApp, token: string, want: number, withinMs = 2_000): Promise<number> {
  const deadline = Date.now() + withinMs;
  let status = 0;
  while (Date.now() < deadline) {
    status = (await me(token, on)).status;
    if (status === want) return status;
    await new Promise((r) => setTimeout(r, 20));
  }
  return status;
}

describe("user changes end the access tokens issued before them", () => {
  it("disabling ends them at once, and re-enabling does not bring them back; a new login works", async () => {
    const user = await createUser(app, admin, 3);
    expect((await me(user.token)).status).toBe(200);
    expect((await me(user.token, appB)).status).toBe(200);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
    expect(await eventuallyStatus(appB, user.token, 401)).toBe(401);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: false } })).status).toBe(200);
    const after = await me(user.token);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ code: "token_revoked" });
    expect((await me(user.token, appB)).status).toBe(401);
    expect((await gqlMe(user.token)).status).toBe(401);
    expect((await refresh(user.refreshToken)).status).toBe(401);
    const again = await app.http.login(user.email, user.password);
    expect((await me(again.access_token)).status).toBe(200);
  });

  it("a role change ends them (and the refresh tokens); a new login has the new role", async () => {
    const user = await createUser(app, admin, 3);
    expect((await me(user.token, appB)).status).toBe(200);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { role_id: 4 } })).status).toBe(200);
    const old = await me(user.token);
    expect(old.status).toBe(401);
    expect(old.body.code).toBe("token_revoked");
    expect(await eventuallyStatus(appB, user.token, 401)).toBe(401);
    expect((await refresh(user.refreshToken)).status).toBe(401);
    const again = await app.http.login(user.email, user.password);
    expect((await me(again.access_token)).body.role_id).toBe(4);
  });

  it("a change of organisation ends them", async () => {
    const user = await createUser(app, admin, 3);
    const org = await createOrganisation(app, admin);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { org_id: org } })).status).toBe(200);
    expect((await me(user.token)).status).toBe(401);
  });

  it("a password reset by an administrator ends them, and so does the user's own change", async () => {
    const reset = await createUser(app, admin, 3);
    expect((await app.http.patch(`/users/${reset.id}`, { token: admin.token, json: { password: "a-new-password-123" } })).status).toBe(200);
    expect((await me(reset.token)).status).toBe(401);

    const own = await createUser(app, admin, 3);
    const other = await app.http.login(own.email, own.password);
    const change = await app.http.patch("/users/me", { token: own.token, json: { current_password: own.password, password: "another-password-123" } });
    expect(change.status).toBe(200);
    expect((await me(own.token)).status).toBe(401);
    expect((await me(other.access_token)).status).toBe(401);
  });

  it("an edit that changes none of these keeps them", async () => {
    const user = await createUser(app, admin, 3);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { email: `renamed-${user.email}` } })).status).toBe(200);
    expect((await me(user.token)).status).toBe(200);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { role_id: user.roleId, disabled: false } })).status).toBe(200);
    expect((await me(user.token)).status).toBe(200);
  });

  it("the same holds for a change made in SQL, whoever makes it", async () => {
    const user = await createUser(app, admin, 3);
    await app.booted.ctx.db.pool.query("UPDATE users SET role_id = 4 WHERE id = $1", [user.id]);
    expect(await eventuallyStatus(app, user.token, 401)).toBe(401);
  });
});

describe("refresh families and logout", () => {
  it("a reused refresh token ends the access tokens of its family", async () => {
    const user = await createUser(app, admin, 3);
    const rotated = await refresh(user.refreshToken);
    expect(rotated.status).toBe(200);
    expect((await me(rotated.body.access_token)).status).toBe(200);
    expect((await me(rotated.body.access_token, appB)).status).toBe(200);
    // The first refresh token again: stolen or replayed. Its family ends, access tokens included.
    const replay = await refresh(user.refreshToken);
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe("token_revoked");
    expect((await me(user.token)).status).toBe(401);
    expect((await me(rotated.body.access_token)).status).toBe(401);
    expect(await eventuallyStatus(appB, rotated.body.access_token, 401)).toBe(401);
    expect((await refresh(rotated.body.refresh_token)).status).toBe(401);
  });

  it("logout ends every session's access token, not only the presented one", async () => {
    const user = await createUser(app, admin, 3);
    const second = await app.http.login(user.email, user.password);
    expect((await app.http.post("/auth/logout", { token: user.token })).status).toBe(204);
    expect((await me(user.token)).status).toBe(401);
    const other = await me(second.access_token);
    expect(other.status).toBe(401);
    expect(other.body.code).toBe("token_revoked");
    expect((await refresh(second.refresh_token)).status).toBe(401);
  });

  it("replaying a refresh token of a family revoked earlier does not end newer sessions", async () => {
    const user = await createUser(app, admin, 3);
    expect((await app.http.post("/auth/logout", { token: user.token })).status).toBe(204);
    const fresh = await app.http.login(user.email, user.password);
    expect((await refresh(user.refreshToken)).status).toBe(401);
    expect((await me(fresh.access_token)).status).toBe(200);
    expect((await refresh(fresh.refresh_token)).status).toBe(200);
  });

  it("refuses a token without a generation (issued before generations existed)", async () => {
    const legacy = await new SignJWT({ token_use: "access" })
      .setProtectedHeader({ alg: "HS256", typ: "JWT" })
      .setSubject(String(admin.id))
      .setIssuer("workbench")
      .setAudience("workbench-api")
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(JWT_SECRET));
    expect((await me(legacy)).status).toBe(401);
  });
});

describe("graphql-ws connections", () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
  });

  /** A live subscription on `on` as `token`; resolves with the close code when the server closes it. */
  async function liveConnection(token: string, on: TestApp = app): Promise<{ closed: Promise<number> }> {
    const client = createClient({
      url: on.url.replace(/^http/, "ws") + "/graphql",
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${token}` },
      retryAttempts: 0,
      shouldRetry: () => false,
      lazy: false,
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    const closed = new Promise<number>((resolve) => client.on("closed", (e) => resolve((e as { code: number }).code)));
    await new Promise<void>((resolve) => client.on("connected", () => resolve()));
    client.subscribe({ query: "subscription { userSettingsChanged { namespace } }" }, { next: () => undefined, error: () => undefined, complete: () => undefined });
    return { closed };
  }

  const within = <T>(p: Promise<T>, ms: number) =>
    Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`not closed within ${ms} ms`)), ms))]);

  it("a role change closes the user's connections with 4403, on every process", async () => {
    const user = await createUser(app, admin, 3);
    const onA = await liveConnection(user.token);
    const onB = await liveConnection(user.token, appB);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { role_id: 4 } })).status).toBe(200);
    expect(await within(onA.closed, 2_000)).toBe(4403);
    expect(await within(onB.closed, 2_000)).toBe(4403);
  });

  it("a reused refresh token closes the family's connections with 4403", async () => {
    const user = await createUser(app, admin, 3);
    const rotated = await refresh(user.refreshToken);
    const live = await liveConnection(rotated.body.access_token);
    expect((await refresh(user.refreshToken)).status).toBe(401);
    expect(await within(live.closed, 2_000)).toBe(4403);
  });

  it("disable then re-enable: the connection is closed and the old token cannot reconnect", async () => {
    const user = await createUser(app, admin, 3);
    const live = await liveConnection(user.token);
    await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: true } });
    await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: false } });
    expect(await within(live.closed, 2_000)).toBe(4403);
    const client = createClient({
      url: app.url.replace(/^http/, "ws") + "/graphql",
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${user.token}` },
      retryAttempts: 0,
      shouldRetry: () => false,
      lazy: false,
      onNonLazyError: () => undefined,
    });
    clients.push(client);
    expect(await within(new Promise<number>((resolve) => client.on("closed", (e) => resolve((e as { code: number }).code))), 2_000)).toBe(4403);
  });
});
