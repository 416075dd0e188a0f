import WebSocket from "ws";
import { createClient, type Client } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_EMAIL, ADMIN_PASSWORD, startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";

const JWT_SECRET = "test-secret-test-secret-test-secret-0123";

let app: TestApp;
let appB: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("graphql", { JWT_SECRET });
  appB = await startTestApp("graphql-b", { JWT_SECRET }, app);
  admin = await loginAdmin(app);
});
afterAll(async () => {
  await appB?.close();
  await app?.close();
});

/** camelCase keys to snake_case, recursively (GraphQL field names to the REST wire names). */
function snake(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(snake);
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), snake(x)]));
  }
  return v;
}

const ROLE_FIELDS = "id name scopes defaultRole created modified";
const ORG_FIELDS = "id uuid name description type nationality sector contacts local restrictedToDomain landingPage createdBy dateCreated dateModified";
const USER_FIELDS = `id email orgId roleId disabled createdAt updatedAt role { ${ROLE_FIELDS} } organisation { ${ORG_FIELDS} }`;

async function gql(query: string, variables: Record<string, unknown> = {}, token?: string) {
  const res = await app.http.graphql(query, variables, token);
  return res;
}

describe("REST routes and their GraphQL twins answer the same", () => {
  it("GET /users/me and { me }", async () => {
    const user = await createUser(app, admin, 3);
    const rest = await app.http.get("/users/me", { token: user.token });
    const g = await gql(`{ me { ${USER_FIELDS} } }`, {}, user.token);
    expect(g.status).toBe(200);
    expect(g.body.errors).toBeUndefined();
    expect(snake(g.body.data!.me)).toEqual(rest.body);
  });

  it("GET /roles/ and { roles }", async () => {
    const rest = await app.http.get("/roles/", { token: admin.token });
    const g = await gql(`{ roles { total items { ${ROLE_FIELDS} } } }`, {}, admin.token);
    expect(g.body.errors).toBeUndefined();
    expect(snake(g.body.data!.roles.items)).toEqual(rest.body);
    expect(g.body.data!.roles.total).toBe(rest.body.length);
    const paged = await gql(`{ roles(page: 2, size: 2) { page size total pages items { id } } }`, {}, admin.token);
    expect(paged.body.data.roles).toMatchObject({ page: 2, size: 2, total: rest.body.length, pages: Math.ceil(rest.body.length / 2) });
    expect(paged.body.data.roles.items.map((r: any) => r.id)).toEqual(rest.body.slice(2, 4).map((r: any) => r.id));
  });

  it("GET /organisations/{id} and { organisation(id:) }, also by uuid", async () => {
    const id = await createOrganisation(app, admin);
    const rest = await app.http.get(`/organisations/${id}`, { token: admin.token });
    const byId = await gql(`query ($id: Int) { organisation(id: $id) { ${ORG_FIELDS} } }`, { id }, admin.token);
    expect(byId.body.errors).toBeUndefined();
    expect(snake(byId.body.data!.organisation)).toEqual(rest.body);
    const byUuid = await gql(`query ($u: String) { organisation(uuid: $u) { ${ORG_FIELDS} } }`, { u: rest.body.uuid.toUpperCase() }, admin.token);
    expect(snake(byUuid.body.data!.organisation)).toEqual(rest.body);
  });

  it("GET /settings/user and { userSettings }", async () => {
    const user = await createUser(app, admin, 3);
    await app.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [crypto.randomUUID()] } } });
    await app.http.post("/settings/user/ui-prefs", { token: user.token, json: { theme: "dark", pageSize: 50 } });
    const rest = await app.http.get("/settings/user", { token: user.token });
    const g = await gql("{ userSettings }", {}, user.token);
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data!.userSettings).toEqual(rest.body);
    expect(Object.keys(rest.body).sort()).toEqual(["notifications", "ui-prefs"]);
  });

  it("GET /settings/runtime and { runtimeSettings }", async () => {
    await app.http.post("/settings/runtime/notifications", { token: admin.token, json: { email_max_per_hour: 12 } });
    const rest = await app.http.get("/settings/runtime", { token: admin.token });
    const g = await gql("{ runtimeSettings }", {}, admin.token);
    expect(g.body.errors).toBeUndefined();
    expect(g.body.data!.runtimeSettings).toEqual(rest.body);
    expect(rest.body.notifications).toEqual({ email_max_per_hour: 12 });
    await app.http.delete("/settings/runtime/notifications", { token: admin.token });
  });

  it("a GraphQL mutation is visible through REST", async () => {
    const user = await createUser(app, admin, 3);
    const g = await gql(`mutation { setUserSetting(namespace: "explore", value: { saved_searches: ["a:b"] }) }`, {}, user.token);
    expect(g.body.errors).toBeUndefined();
    expect((await app.http.get("/settings/user/explore", { token: user.token })).body).toEqual({ explore: { saved_searches: ["a:b"] } });
  });
});

describe("GraphQL errors", () => {
  const noInternals = (body: unknown) => {
    const text = JSON.stringify(body);
    expect(text).not.toMatch(/"stack"|stacktrace|\.ts:\d+|node_modules|at [\w.<>]+ \(/i);
    expect(text).not.toMatch(/prisma|SELECT |INSERT /i);
  };

  it("401 for an anonymous caller", async () => {
    const res = await gql("{ me { id } }");
    expect(res.body.errors![0].extensions).toMatchObject({ code: "unauthenticated", status: 401 });
    expect(res.body.data ?? null).toBeNull();
    noInternals(res.body);
  });

  it("401 for a rejected token (not treated as anonymous)", async () => {
    const res = await gql("{ scopes { name } }", {}, "not.a.jwt");
    expect(res.body.errors![0].extensions).toMatchObject({ code: "unauthenticated", status: 401 });
    noInternals(res.body);
  });

  it("403 for a missing scope", async () => {
    const reader = await createUser(app, admin, 4);
    const res = await gql("{ users { items { id } } }", {}, reader.token);
    expect(res.body.errors![0].extensions).toMatchObject({ code: "insufficient_scope", status: 403 });
    const write = await gql(`mutation { setRuntimeSetting(namespace: "retention", value: {}) }`, {}, reader.token);
    expect(write.body.errors![0].extensions).toMatchObject({ status: 403 });
    noInternals(res.body);
  });

  it("404 for a missing resource", async () => {
    for (const q of ["{ user(id: 2147483647) { id } }", "{ role(id: 2147483647) { id } }", "{ organisation(id: 2147483647) { id } }", '{ runtimeSetting(namespace: "nope") }']) {
      const res = await gql(q, {}, admin.token);
      expect(res.body.errors![0].extensions).toMatchObject({ code: "not_found", status: 404 });
      noInternals(res.body);
    }
  });

  it("422 for invalid arguments", async () => {
    for (const q of [
      "{ users(size: 0) { items { id } } }",
      "{ users(size: 101) { items { id } } }",
      "{ users(page: 0) { items { id } } }",
      '{ organisation(uuid: "not-a-uuid") { id } }',
      '{ userSetting(namespace: "../x") }',
      'mutation { setUserSetting(namespace: "notifications", value: { follow: { events: ["x"] } }) }',
      'mutation { setRuntimeSetting(namespace: "retention", value: { enabled: true, period_days: 0, warning_days: 1, exempt_tags: [] }) }',
      'mutation { createUser(input: { email: "bad", orgId: 1, roleId: 3 }) { id } }',
    ]) {
      const res = await gql(q, {}, admin.token);
      expect(res.body.errors?.[0]?.extensions, q).toMatchObject({ code: "validation_error", status: 422 });
      noInternals(res.body);
    }
  });

  it("a list's paging error names the argument", async () => {
    for (const [q, loc] of [
      ["{ users(size: 0) { items { id } } }", ["args", "size"]],
      ["{ feeds(page: 0) { items { id } } }", ["args", "page"]],
      ["{ scheduledTasks(size: 1000) { items { id } } }", ["args", "size"]],
    ] as const) {
      const res = await gql(q, {}, admin.token);
      expect((res.body.errors?.[0]?.extensions as { detail: { loc: unknown }[] }).detail.map((d) => d.loc), q).toContainEqual(loc);
    }
  });

  it("409 for a conflict and 400 for a business rule", async () => {
    const conflict = await gql("mutation { deleteRole(id: 1) }", {}, admin.token);
    expect(conflict.body.errors![0].extensions).toMatchObject({ code: "conflict", status: 409 });
    const dup = await gql(`mutation { createUser(input: { email: "${ADMIN_EMAIL}", orgId: ${admin.orgId}, roleId: 3 }) { id } }`, {}, admin.token);
    expect(dup.body.errors![0].extensions).toMatchObject({ status: 400 });
  });

  it("answers malformed documents without internals", async () => {
    for (const q of ["{ me { id ", "{ nope }", "{ user(id: \"x\") { id } }"]) {
      const res = await gql(q, {}, admin.token);
      expect(res.status).toBeLessThan(500);
      expect(res.body.errors!.length).toBeGreaterThan(0);
      noInternals(res.body);
    }
  });
});

describe("GraphiQL", () => {
  it("serves the GraphiQL page to a browser", async () => {
    const res = await app.http.get("/graphql", { headers: { accept: "text/html" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.text).toMatch(/graphiql/i);
    expect(res.text).toContain("Threat-Intelligence Workbench");
  });

  it("answers GET queries with JSON", async () => {
    const res = await app.http.get(`/graphql?query=${encodeURIComponent("{ me { id } }")}`, { token: admin.token, headers: { accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.body.data.me.id).toBe(admin.id);
  });
});

describe("subscriptions over graphql-ws", () => {
  const SUBSCRIPTION = "subscription { userSettingsChanged { namespace } }";
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
  });

  const wsUrl = (url: string) => `${url.replace(/^http/, "ws")}/graphql`;

  function connect(url: string, authorization?: string, extra: Partial<Parameters<typeof createClient>[0]> = {}): Client {
    const client = createClient({
      url: wsUrl(url),
      webSocketImpl: WebSocket,
      connectionParams: authorization === undefined ? {} : { authorization },
      retryAttempts: 0,
      shouldRetry: () => false,
      ...extra,
    });
    clients.push(client);
    return client;
  }

  interface Sub {
    events: { namespace: string }[];
    errors: unknown[];
    next(timeoutMs?: number): Promise<{ namespace: string }>;
    dispose(): void;
  }

  function subscribe(client: Client): Sub {
    const events: { namespace: string }[] = [];
    const errors: unknown[] = [];
    let waiter: (() => void) | null = null;
    const dispose = client.subscribe<{ userSettingsChanged: { namespace: string } }>(
      { query: SUBSCRIPTION },
      {
        next: (r) => {
          if (r.data) events.push(r.data.userSettingsChanged);
          if (r.errors) errors.push(...r.errors);
          waiter?.();
        },
        error: (e) => {
          errors.push(e);
          waiter?.();
        },
        complete: () => undefined,
      },
    );
    let seen = 0;
    return {
      events,
      errors,
      dispose,
      async next(timeoutMs = 2000) {
        const deadline = Date.now() + timeoutMs;
        while (events.length <= seen) {
          if (errors.length) throw new Error(`subscription failed: ${JSON.stringify(errors)}`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`no event within ${timeoutMs} ms`);
          await new Promise<void>((r) => {
            waiter = r;
            setTimeout(r, left);
          });
        }
        return events[seen++];
      },
    };
  }

  async function waitFor(cond: () => boolean, timeoutMs = 5000, what = "condition") {
    const deadline = Date.now() + timeoutMs;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  const subscribers = () => app.booted.ctx.pubsub.subscriberCount();

  function closeCode(client: Client): Promise<number> {
    return new Promise((resolve) => {
      client.on("closed", (e) => resolve((e as { code: number }).code));
    });
  }

  it("delivers a change made through app B's REST route to a subscriber on app A within 2 s", async () => {
    const user = await createUser(app, admin, 3);
    const before = subscribers();
    const sub = subscribe(connect(app.url, `Bearer ${user.token}`));
    await waitFor(() => subscribers() === before + 1, 5000, "the subscription to start");
    const res = await appB.http.post("/settings/user/notifications", { token: user.token, json: { follow: { events: [] } } });
    expect(res.status).toBe(200);
    const started = Date.now();
    expect(await sub.next(2000)).toEqual({ namespace: "notifications" });
    expect(Date.now() - started).toBeLessThan(2000);
    // Deletion through B is an event too.
    expect((await appB.http.delete("/settings/user/notifications", { token: user.token })).status).toBe(200);
    expect(await sub.next(2000)).toEqual({ namespace: "notifications" });
    sub.dispose();
    await waitFor(() => subscribers() === before, 5000, "the subscription to end");
  });

  it("never delivers another user's changes", async () => {
    const alice = await createUser(app, admin, 3);
    const bob = await createUser(app, admin, 3);
    const before = subscribers();
    const sub = subscribe(connect(app.url, `Bearer ${alice.token}`));
    await waitFor(() => subscribers() === before + 1, 5000, "the subscription to start");
    expect((await appB.http.post("/settings/user/explore", { token: bob.token, json: { saved_searches: ["bob"] } })).status).toBe(200);
    expect((await app.http.post("/settings/user/explore", { token: bob.token, json: { saved_searches: ["bob2"] } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    expect(sub.events).toEqual([]);
    // The subscription is alive: Alice's own change arrives, and only that one.
    expect((await appB.http.post("/settings/user/ui", { token: alice.token, json: { a: 1 } })).status).toBe(200);
    expect(await sub.next(2000)).toEqual({ namespace: "ui" });
    await new Promise((r) => setTimeout(r, 200));
    expect(sub.events).toEqual([{ namespace: "ui" }]);
    sub.dispose();
  });

  it("refuses a subscription without user_settings:read with a 403 error", async () => {
    const limited = await createUser(app, admin, ["users:me"]);
    const sub = subscribe(connect(app.url, `Bearer ${limited.token}`));
    await waitFor(() => sub.errors.length > 0, 5000, "the error");
    expect(JSON.stringify(sub.errors)).toMatch(/insufficient_scope|403/);
  });

  it("closes a connection without authorization with 4401", async () => {
    const client = connect(app.url, undefined, { lazy: false, onNonLazyError: () => undefined });
    expect(await closeCode(client)).toBe(4401);
  });

  it("closes a connection with a bad token with 4403", async () => {
    const client = connect(app.url, "Bearer not.a.valid-token", { lazy: false, onNonLazyError: () => undefined });
    expect(await closeCode(client)).toBe(4403);
    const revoked = await createUser(app, admin, 3);
    await app.http.post("/auth/logout", { token: revoked.token });
    const again = connect(app.url, `Bearer ${revoked.token}`, { lazy: false, onNonLazyError: () => undefined });
    expect(await closeCode(again)).toBe(4403);
  });

  it("closes a connection with 4403 within a second of its token's expiry; others stay open", async () => {
    const short = await startTestApp("graphql-ttl", { JWT_SECRET, ACCESS_TOKEN_TTL_SECONDS: "2" }, app);
    try {
      const login = await short.http.login(ADMIN_EMAIL, ADMIN_PASSWORD);
      const issued = Date.now();
      // Connections that close before their token expires are simply forgotten.
      for (let i = 0; i < 20; i++) {
        const early = connect(short.url, `Bearer ${login.access_token}`, { lazy: false, onNonLazyError: () => undefined });
        await new Promise<void>((r) => early.on("connected", () => r()));
        await early.dispose();
      }
      const lasting = await createUser(app, admin, 3);
      const keep = subscribe(connect(short.url, `Bearer ${lasting.token}`));
      const expiring = connect(short.url, `Bearer ${login.access_token}`, { lazy: false, onNonLazyError: () => undefined });
      const code = await closeCode(expiring);
      const after = Date.now() - issued;
      expect(code).toBe(4403);
      expect(after).toBeGreaterThanOrEqual(1_000);
      expect(after).toBeLessThan(4_500);
      await waitFor(() => short.server.webSocketClients() === 1, 5000, "only the lasting connection");
      keep.dispose();
    } finally {
      await short.close();
    }
  }, 30_000);

  it("leaves no sockets or pubsub subscribers behind after 200 subscriptions open and close", async () => {
    await waitFor(() => app.server.webSocketClients() === 0, 5000, "earlier sockets to close");
    const startCount = subscribers();
    const user = await createUser(app, admin, 3);
    const opened: { client: Client; sub: Sub; socket: () => WebSocket | null }[] = [];
    for (let batch = 0; batch < 4; batch++) {
      for (let i = 0; i < 50; i++) {
        let socket: WebSocket | null = null;
        const client = connect(app.url, `Bearer ${user.token}`, { on: { connected: (s) => (socket = s as WebSocket) } });
        opened.push({ client, sub: subscribe(client), socket: () => socket });
      }
      await waitFor(() => subscribers() === startCount + opened.length, 10_000, `${opened.length} subscriptions`);
    }
    expect(app.server.webSocketClients()).toBe(200);
    // One change reaches every subscriber.
    await appB.http.post("/settings/user/ui", { token: user.token, json: { fan: "out" } });
    await waitFor(() => opened.every((o) => o.sub.events.length === 1), 5000, "the fan-out");
    // Half end their subscription politely then close; half drop the socket.
    await Promise.all(
      opened.map(async ({ client, sub, socket }, i) => {
        if (i % 2 === 0) {
          sub.dispose();
          await client.dispose();
        } else {
          socket()!.terminate();
        }
      }),
    );
    await waitFor(() => app.server.webSocketClients() === 0, 10_000, "sockets to close");
    await waitFor(() => subscribers() === startCount, 10_000, "pubsub subscribers to go");
    expect(app.server.webSocketClients()).toBe(0);
    expect(subscribers()).toBe(startCount);
  });
});
