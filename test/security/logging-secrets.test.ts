import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_PASSWORD, startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import type { HttpResult } from "../support/http.ts";

/**
 * Issue 2 ("request ids in logs; no secrets in logs") and issue 3 ("the raw token never reaches a
 * log"): the service's own logger (createLogger, LOG_LEVEL=trace) writes into `lines` while every
 * kind of credential goes through it, accepted and refused.
 */
const JWT_SECRET = "logging-secret-logging-secret-logging-0123";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const lines: string[] = [];
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("logging", { JWT_SECRET }, undefined, { logDestination: { write: (line: string) => void lines.push(line) } });
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

interface LogEntry {
  level: number;
  msg?: string;
  reqId?: unknown;
  path?: string;
  status?: number;
  [key: string]: unknown;
}

describe("service logs", () => {
  const secrets = new Map<string, string>();
  const responses: { label: string; res: HttpResult; path: string }[] = [];
  const clientRequestId = `client-${crypto.randomBytes(6).toString("hex")}`;
  let user: TestUser;
  let entries: LogEntry[];

  /** Sends one request, remembers its answer (for the request-id checks) and its credentials (for the secret checks). */
  const send = async (label: string, res: Promise<HttpResult>, path: string, expected: number) => {
    const r = await res;
    expect(r.status, `${label}: ${r.text}`).toBe(expected);
    responses.push({ label, res: r, path });
    return r;
  };

  beforeAll(async () => {
    user = await createUser(app, admin, 3);
    const from = lines.length;
    const form = (fields: Record<string, string>) => ({ form: fields });
    secrets.set("the administrator's password", ADMIN_PASSWORD);
    secrets.set("JWT_SECRET", JWT_SECRET);
    secrets.set("the user's password", user.password);
    const wrongPassword = `wrong-${crypto.randomBytes(8).toString("hex")}`;
    secrets.set("a wrong password", wrongPassword);

    // Password grant, refused then accepted.
    await send("wrong password", app.http.post("/auth/token", form({ grant_type: "password", username: user.email, password: wrongPassword })), "/auth/token", 401);
    const login = await send("password grant", app.http.post("/auth/token", form({ grant_type: "password", username: user.email, password: user.password })), "/auth/token", 200);
    secrets.set("access token (password grant)", login.body.access_token);
    secrets.set("refresh token (password grant)", login.body.refresh_token);
    const basic = `Basic ${Buffer.from(`${user.email}:${user.password}`).toString("base64")}`;
    secrets.set("a Basic authorization header", basic);
    await send("Basic credentials", app.http.get("/users/me", { authorization: basic }), "/users/me", 401);

    // The JWT, over REST and GraphQL.
    await send("JWT", app.http.get("/users/me", { token: login.body.access_token }), "/users/me", 200);
    const gql = await send("JWT on GraphQL", app.http.graphql("{ me { id } }", {}, login.body.access_token), "/graphql", 200);
    expect(gql.body.errors).toBeUndefined();

    // Refresh tokens: the form grant, the JSON route, and a reuse (which revokes the family).
    const rotated = await send("refresh_token grant", app.http.post("/auth/token", form({ grant_type: "refresh_token", refresh_token: login.body.refresh_token })), "/auth/token", 200);
    secrets.set("access token (refresh grant)", rotated.body.access_token);
    secrets.set("refresh token (refresh grant)", rotated.body.refresh_token);
    const viaJson = await send("POST /auth/refresh", app.http.post("/auth/refresh", { json: { refresh_token: rotated.body.refresh_token } }), "/auth/refresh", 200);
    secrets.set("access token (/auth/refresh)", viaJson.body.access_token);
    secrets.set("refresh token (/auth/refresh)", viaJson.body.refresh_token);
    await send("refresh token reuse", app.http.post("/auth/refresh", { json: { refresh_token: login.body.refresh_token } }), "/auth/refresh", 401);
    const fresh = await app.http.login(user.email, user.password);
    secrets.set("access token (second login)", fresh.access_token);
    secrets.set("refresh token (second login)", fresh.refresh_token);

    // API keys: minted over REST and GraphQL, used as Bearer and raw, accepted and refused.
    const minted = await send("create a key", app.http.post("/api-keys/", { token: fresh.access_token, json: { name: "logged?", scopes: ["users:me", "api_keys:read"] } }), "/api-keys/", 201);
    const key = minted.body.token as string;
    secrets.set("API key", key);
    const gqlKey = await send(
      "createApiKey",
      app.http.graphql(`mutation { createApiKey(input: { name: "gql", scopes: ["users:me"] }) { token } }`, {}, fresh.access_token),
      "/graphql",
      200,
    );
    secrets.set("API key (GraphQL)", gqlKey.body.data.createApiKey.token);
    await send("key as Bearer", app.http.get("/users/me", { authorization: `Bearer ${key}` }), "/users/me", 200);
    await send("raw key", app.http.get("/users/me", { authorization: key }), "/users/me", 200);
    await send("raw key on GraphQL", app.http.request("POST", "/graphql", { authorization: key, json: { query: "{ whoami { actorType } }" } }), "/graphql", 200);
    await send("key beyond its scopes", app.http.get("/roles/", { authorization: `Bearer ${key}` }), "/roles/", 403);
    await send("key with the client's request id", app.http.get("/api-keys/", { authorization: key, headers: { "x-request-id": clientRequestId } }), "/api-keys/", 200);
    await send("malformed request id", app.http.get("/users/me", { authorization: key, headers: { "x-request-id": "not a valid id!" } }), "/users/me", 200);
    const unknownKey = crypto.randomBytes(20).toString("hex");
    secrets.set("an unknown key", unknownKey);
    await send("unknown key", app.http.get("/users/me", { authorization: `Bearer ${unknownKey}` }), "/users/me", 401);
    await send("key as a query parameter", app.http.get(`/users/me?api_key=${key}`, { authorization: key }), "/users/me", 200);
    await send("logout", app.http.post("/auth/logout", { token: fresh.access_token }), "/auth/logout", 204);
    await send("revoked JWT", app.http.get("/users/me", { token: fresh.access_token }), "/users/me", 401);

    for (const [label, value] of [...secrets]) if (label.startsWith("access token") || label.startsWith("API key") || label === "an unknown key") {
      secrets.set(`Authorization: Bearer (${label})`, `Bearer ${value}`);
    }
    // The request line is written when the response has been sent, which may be after fetch resolves.
    await new Promise((r) => setTimeout(r, 100));
    entries = lines.slice(from).map((l, i) => {
      try {
        return JSON.parse(l) as LogEntry;
      } catch {
        throw new Error(`log line ${i} is not JSON: ${l}`);
      }
    });
  });

  it("captures the service's log lines (with its production base fields)", () => {
    expect(entries.length).toBeGreaterThanOrEqual(responses.length);
    expect(entries.every((e) => typeof e.level === "number" && e.service === "workbench")).toBe(true);
  });

  it("writes one request line per request, each with a request id, and answers that id in X-Request-Id", () => {
    const requestLines = entries.filter((e) => e.msg === "request");
    for (const line of requestLines) expect(typeof line.reqId === "string" && line.reqId.length > 0, JSON.stringify(line)).toBe(true);
    const ids = new Set<string>();
    for (const { label, res, path } of responses) {
      const id = res.headers.get("x-request-id");
      expect(id, label).toBeTruthy();
      expect(ids.has(id!), `${label}: request id ${id} reused`).toBe(false);
      ids.add(id!);
      const logged = requestLines.filter((e) => e.reqId === id);
      expect(logged, `${label}: request lines with reqId ${id}`).toHaveLength(1);
      expect(logged[0]).toMatchObject({ path, status: res.status, method: expect.any(String) });
    }
  });

  it("honours a well-formed client X-Request-Id and replaces a malformed one", () => {
    const honoured = responses.find((r) => r.label === "key with the client's request id")!;
    expect(honoured.res.headers.get("x-request-id")).toBe(clientRequestId);
    expect(entries.filter((e) => e.msg === "request" && e.reqId === clientRequestId)).toHaveLength(1);
    const replaced = responses.find((r) => r.label === "malformed request id")!;
    expect(replaced.res.headers.get("x-request-id")).toMatch(UUID);
  });

  it("never logs a password, an access or refresh token, an API key or an Authorization header value", () => {
    expect(secrets.size).toBeGreaterThan(15);
    // A query string is no place for a key, but the request line must not copy it either.
    const queryLine = entries.find((e) => e.msg === "request" && e.reqId === responses.find((r) => r.label === "key as a query parameter")!.res.headers.get("x-request-id"));
    expect(queryLine?.path).toBe("/users/me");
    for (const [i, line] of lines.entries()) {
      for (const [label, secret] of secrets) expect(line.includes(secret), `log line ${i} contains ${label}: ${line}`).toBe(false);
      // Whatever the credential: no Bearer/Basic header value, no JWT, no 40-hex key.
      expect(line, `log line ${i}`).not.toMatch(/\b(Bearer|Basic)\s+\S/i);
      expect(line, `log line ${i}`).not.toMatch(/eyJ[\w-]+\.eyJ[\w-]+\./);
      expect(line, `log line ${i}`).not.toMatch(/(^|[^0-9a-f])[0-9a-f]{40}([^0-9a-f]|$)/);
    }
  });
});
