/**
 * Issue 20, finding 7: one reader can starve everyone. A user's concurrent searches are capped
 * (429 with Retry-After beyond `search.max_concurrent_per_user`), searches run on their own pool
 * behind a process-wide gate, and authentication, other users' reads and /healthz do not wait
 * for them. Searches are held in flight by a lock on the PostgreSQL backend's tables, taken by
 * the test from its own connection (a real lock wait, as a slow search holds its connection).
 */
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually, sleep } from "../support/process.ts";

const SEARCH_TABLES = "search_documents, search_postings, search_terms";
/** The limiter re-reads its runtime setting after this long (src/modules/search/search-limiter.ts). */
const SETTING_TTL_MS = 2_000;

describe("search isolation (PostgreSQL backend)", () => {
  let app: TestApp;
  let admin: TestUser;
  let searcher: TestUser;
  let colleague: TestUser; // same organisation, another user
  let other: TestUser; // another organisation
  let locker: pg.Client | null = null;

  beforeAll(async () => {
    app = await startTestApp("search-isolation");
    admin = await loginAdmin(app);
    const scopes = ["events:read", "events:create", "attributes:read", "correlations:read"];
    searcher = await createUser(app, admin, scopes);
    colleague = await createUser(app, admin, scopes);
    other = await createUser(app, admin, scopes, await createOrganisation(app, admin));
    expect((await app.http.post("/events/", { token: other.token, json: { info: "other organisation's event" } })).status).toBe(201);
  }, 60_000);
  afterEach(async () => {
    await release();
  });
  afterAll(async () => {
    await app?.close();
  });

  async function lockSearchTables(): Promise<void> {
    locker = new pg.Client({ connectionString: app.databaseUrl });
    await locker.connect();
    await locker.query(`BEGIN; LOCK TABLE ${SEARCH_TABLES} IN ACCESS EXCLUSIVE MODE`);
  }
  async function release(): Promise<void> {
    if (!locker) return;
    await locker.query("ROLLBACK").catch(() => undefined);
    await locker.end();
    locker = null;
  }
  /** Backends of the service's database waiting for the test's lock (asked outside its transaction: statistics are a snapshot per transaction). */
  async function waitingOnLock(): Promise<number> {
    const watcher = new pg.Client({ connectionString: app.databaseUrl });
    await watcher.connect();
    try {
      const { rows } = await watcher.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      return rows[0]!.n;
    } finally {
      await watcher.end();
    }
  }
  const search = (user: TestUser, q = "value:example.org", timeoutMs = 20_000) =>
    fetch(`${app.url}/attributes/search?query=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${user.token}` }, signal: AbortSignal.timeout(timeoutMs) });
  const timed = async <T>(fn: () => Promise<T>) => {
    const t0 = performance.now();
    const value = await fn();
    return { value, ms: performance.now() - t0 };
  };

  it("answers the (N+1)-th concurrent search of one user 429 with Retry-After, while another user's search and GET /events/ succeed", async () => {
    await lockSearchTables();
    // The default limit is 4 per user (one Explore page: both indices and their histograms).
    const held = Array.from({ length: 4 }, () => search(searcher));
    await eventually(async () => (await waitingOnLock()) >= 4 || null, "4 searches waiting on the lock", 15_000);

    const refused = await search(searcher, "value:example.org", 5_000);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ code: "rate_limited", retry_after: 1 });

    // The same limit behind GraphQL, and behind the correlation statistics.
    const gql = await app.http.graphql(`{ searchAttributes(query: "x") { total } }`, {}, searcher.token);
    expect(gql.body.errors?.[0]?.extensions).toMatchObject({ code: "rate_limited", status: 429 });
    expect((await app.http.get("/correlations/stats", { token: searcher.token })).status).toBe(429);

    // Another user is not refused: their search takes one of the turns the first user cannot take
    // (it waits for the test's lock like any); nor is anyone's non-search read slowed.
    const colleagues = search(colleague);
    await eventually(async () => (await waitingOnLock()) >= 5 || null, "the colleague's search running", 15_000);
    const events = await timed(() => app.http.get("/events/", { token: other.token }));
    expect(events.value.status).toBe(200);
    expect(events.value.body.items.map((e: { info: string }) => e.info)).toContain("other organisation's event");
    expect(events.ms).toBeLessThan(3_000);

    await release();
    expect((await colleagues).status).toBe(200);
    for (const r of await Promise.all(held)) expect(r.status).toBe(200);
    // Slots are given back: the user may search again.
    expect((await search(searcher)).status).toBe(200);
  }, 60_000);

  it("keeps /healthz 200 and other users' reads fast while one user saturates the search pool", async () => {
    const raised = await app.http.post("/settings/runtime/search", { token: admin.token, json: { max_concurrent_per_user: 50 } });
    expect(raised.status, raised.text).toBe(200);
    await sleep(SETTING_TTL_MS + 200);
    try {
      await lockSearchTables();
      // More searches than the main pool has connections (10): before issue 20 they held all of them.
      const held = Array.from({ length: 14 }, () => search(searcher, "value:example.org", 30_000));
      await eventually(async () => (await waitingOnLock()) >= 4 || null, "searches waiting on the lock", 15_000);
      await sleep(2_500); // past the health probe's 1 s cache and its 2 s timeout

      const health = await timed(() => app.http.get("/healthz"));
      expect(health.value.status, health.value.text).toBe(200);
      expect(health.ms).toBeLessThan(2_000);
      const events = await timed(() => app.http.get("/events/", { token: other.token }));
      expect(events.value.status).toBe(200);
      expect(events.ms).toBeLessThan(2_000);
      const login = await timed(() => app.http.login(other.email, other.password));
      expect(login.value.access_token).toBeTruthy();
      expect(login.ms).toBeLessThan(3_000);

      await release();
      for (const r of await Promise.all(held)) expect(r.status).toBe(200);
    } finally {
      await app.http.delete("/settings/runtime/search", { token: admin.token });
    }
  }, 90_000);
});
