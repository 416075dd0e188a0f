import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { loginFrom, requestFrom } from "../support/http-from.ts";

let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("login-throttle");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

/**
 * Lockouts that outlast each test (so a slow machine cannot let one expire mid-test); the tests
 * that wait for one to end shorten them. Each test uses its own addresses and users.
 */
const FAST = {
  login_max_failures_per_account: 5,
  login_max_failures_per_address: 20,
  login_failure_window_seconds: 600,
  login_lockout_base_seconds: 60,
  login_lockout_max_seconds: 120,
  login_known_address_days: 30,
};

async function setAuth(value: Record<string, number>) {
  const res = await app.http.post("/settings/runtime/auth", { token: admin.token, json: value });
  expect(res.status).toBe(200);
}

beforeEach(() => setAuth(FAST));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const auditRows = async (action: string, email: string) =>
  (
    await app.booted.ctx.db.pool.query(
      "SELECT action, actor_user_id, ip_address, user_agent, metadata FROM audit_logs WHERE action = $1 AND metadata->>'email' = $2 ORDER BY id",
      [action, email],
    )
  ).rows;

describe("runtime setting auth", () => {
  it("has documented defaults and validates its values", async () => {
    await app.http.delete("/settings/runtime/auth", { token: admin.token });
    const res = await app.http.get("/settings/runtime/auth", { token: admin.token });
    expect(res.body.auth).toEqual({
      login_max_failures_per_account: 5,
      login_max_failures_per_address: 20,
      login_failure_window_seconds: 900,
      login_lockout_base_seconds: 60,
      login_lockout_max_seconds: 900,
      login_known_address_days: 30,
    });
    const bad = await app.http.post("/settings/runtime/auth", { token: admin.token, json: { ...FAST, login_lockout_base_seconds: 0 } });
    expect(bad.status).toBe(422);
  });
});

describe("per account", () => {
  it("30 wrong passwords, then the right one: 429 with Retry-After; after the lockout the right one works", async () => {
    await setAuth({ ...FAST, login_lockout_base_seconds: 5, login_lockout_max_seconds: 5 });
    const user = await createUser(app, admin, 3);
    const from = "127.0.0.11";
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await loginFrom(app.url, from, user.email, "wrong-password")).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));

    const right = await loginFrom(app.url, from, user.email, user.password);
    expect(right.status).toBe(429);
    expect(right.body).toMatchObject({ code: "rate_limited", detail: expect.any(String) });
    const retryAfter = Number(right.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(5);
    expect(right.body.retry_after).toBe(retryAfter);

    await sleep(retryAfter * 1000 + 100);
    const after = await loginFrom(app.url, from, user.email, user.password);
    expect(after.status).toBe(200);
    expect(after.body.access_token).toBeTruthy();
  });

  it("doubles the lockout with each failure past the free ones, up to the maximum", async () => {
    await setAuth({ ...FAST, login_lockout_base_seconds: 2, login_lockout_max_seconds: 6 });
    const user = await createUser(app, admin, 3);
    const from = "127.0.0.12";
    const retryAfter = async () => {
      const res = await loginFrom(app.url, from, user.email, "wrong");
      expect(res.status).toBe(429);
      return Number(res.headers["retry-after"]);
    };
    for (let i = 0; i < 5; i++) expect((await loginFrom(app.url, from, user.email, "wrong")).status).toBe(401);
    const first = await retryAfter();
    expect(first).toBeLessThanOrEqual(2);
    await sleep(first * 1000 + 100);
    // After a lockout exactly one attempt is checked; its failure locks for twice as long.
    expect((await loginFrom(app.url, from, user.email, "wrong")).status).toBe(401);
    const second = await retryAfter();
    expect(second).toBeGreaterThan(2);
    expect(second).toBeLessThanOrEqual(4);
    await sleep(second * 1000 + 100);
    // 8 seconds would be next: the maximum caps it at 6.
    expect((await loginFrom(app.url, from, user.email, "wrong")).status).toBe(401);
    const third = await retryAfter();
    expect(third).toBeGreaterThan(4);
    expect(third).toBeLessThanOrEqual(6);
  }, 30_000);

  // Parallel attempts take the account's and the address's rows at once; one burst deadlocked the
  // database about one time in twenty, so several run, each on its own account and address.
  it("checks at most the free attempts of a burst of parallel requests, and answers each 401 or 429", async () => {
    for (let burst = 0; burst < 12; burst++) {
      const user = await createUser(app, admin, 3);
      const results = await Promise.all(Array.from({ length: 40 }, () => loginFrom(app.url, `127.0.13.${burst + 1}`, user.email, "wrong")));
      expect(results.map((r) => r.status).filter((s) => s !== 401 && s !== 429)).toEqual([]);
      const checked = results.filter((r) => r.status === 401).length;
      expect(checked).toBeGreaterThan(0);
      expect(checked).toBeLessThanOrEqual(5);
    }
  }, 30_000);

  it("a burst mixing the right password with wrong ones: each answer 200, 401 or 429", async () => {
    for (let burst = 0; burst < 6; burst++) {
      const user = await createUser(app, admin, 3);
      const from = `127.0.14.${burst + 1}`;
      const results = await Promise.all(
        Array.from({ length: 30 }, (_, i) => loginFrom(app.url, from, user.email, i % 3 === 0 ? user.password : "wrong")),
      );
      expect(results.map((r) => r.status).filter((s) => s !== 200 && s !== 401 && s !== 429)).toEqual([]);
    }
  }, 30_000);

  it("resets the account's counter on a success", async () => {
    const user = await createUser(app, admin, 3);
    const from = "127.0.0.14";
    for (let i = 0; i < 4; i++) expect((await loginFrom(app.url, from, user.email, "wrong")).status).toBe(401);
    expect((await loginFrom(app.url, from, user.email, user.password)).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await loginFrom(app.url, from, user.email, "wrong")).status).toBe(401);
    expect((await loginFrom(app.url, from, user.email, user.password)).status).toBe(200);
  });

  it("counts an unknown e-mail like a wrong password (same answers, no enumeration)", async () => {
    const ghost = `ghost-${Date.now()}@example.test`;
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await loginFrom(app.url, "127.0.0.15", ghost, "whatever"));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 429, 429]);
    expect(answers[0].body).toEqual({ detail: "Incorrect username or password", code: "invalid_credentials" });
    expect(answers[6].body.code).toBe("rate_limited");
  });

  it("throttles the current-password check of a password change too", async () => {
    const user = await createUser(app, admin, 3);
    const change = (current: string) =>
      requestFrom(app.url, "127.0.0.16", "PATCH", "/users/me", { token: user.token, json: { current_password: current, password: "a-new-password-123" } });
    for (let i = 0; i < 5; i++) expect((await change("wrong-password")).status).toBe(422);
    const right = await change(user.password);
    expect(right.status).toBe(429);
    expect(right.body.code).toBe("rate_limited");
    expect((await auditRows("auth.login_failed", user.email)).map((r) => r.metadata.check)).toEqual(Array(5).fill("password_change"));
  });
});

describe("victim lockout", () => {
  it("failures from elsewhere do not lock the owner out of an address they logged in from", async () => {
    const victim = await createUser(app, admin, 3);
    const home = "127.0.0.21";
    expect((await loginFrom(app.url, home, victim.email, victim.password)).status).toBe(200);
    for (let i = 0; i < 10; i++) await loginFrom(app.url, "127.0.0.22", victim.email, "guess");
    expect((await loginFrom(app.url, "127.0.0.22", victim.email, victim.password)).status).toBe(429);
    // A new address is locked out with the account; the owner's known address is not.
    expect((await loginFrom(app.url, "127.0.0.23", victim.email, victim.password)).status).toBe(429);
    expect((await loginFrom(app.url, home, victim.email, victim.password)).status).toBe(200);
    // The owner's address has a counter of its own for the account.
    for (let i = 0; i < 5; i++) expect((await loginFrom(app.url, home, victim.email, "typo")).status).toBe(401);
    expect((await loginFrom(app.url, home, victim.email, victim.password)).status).toBe(429);
  });

  it("keeps sessions working during a lockout: refreshing needs no password", async () => {
    const user = await createUser(app, admin, 3);
    for (let i = 0; i < 6; i++) await loginFrom(app.url, "127.0.0.24", user.email, "guess");
    expect((await loginFrom(app.url, "127.0.0.24", user.email, user.password)).status).toBe(429);
    expect((await app.http.post("/auth/refresh", { json: { refresh_token: user.refreshToken } })).status).toBe(200);
  });
});

describe("per address", () => {
  it("locks an address out after 20 failures across several accounts, whatever the account", async () => {
    const from = "127.0.0.31";
    const users = await Promise.all([1, 2, 3, 4, 5, 6, 7].map(() => createUser(app, admin, 3)));
    const statuses: number[] = [];
    for (const u of users.slice(0, 6)) {
      for (let i = 0; i < 4; i++) statuses.push((await loginFrom(app.url, from, u.email, "spray")).status);
    }
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(new Set(statuses.slice(20))).toEqual(new Set([429]));
    // An account that never failed: refused from this address, fine from another.
    const fresh = users[6];
    expect((await loginFrom(app.url, from, fresh.email, fresh.password)).status).toBe(429);
    expect((await loginFrom(app.url, "127.0.0.32", fresh.email, fresh.password)).status).toBe(200);
  });

  it("does not count successes: many logins from one address are never throttled", async () => {
    const user = await createUser(app, admin, 3);
    for (let i = 0; i < 25; i++) expect((await loginFrom(app.url, "127.0.0.33", user.email, user.password)).status).toBe(200);
  });

  it("a limit of 0 turns a counter off", async () => {
    await setAuth({ ...FAST, login_max_failures_per_account: 0, login_max_failures_per_address: 0 });
    const user = await createUser(app, admin, 3);
    for (let i = 0; i < 8; i++) expect((await loginFrom(app.url, "127.0.0.34", user.email, "wrong")).status).toBe(401);
    expect((await loginFrom(app.url, "127.0.0.34", user.email, user.password)).status).toBe(200);
  });
});

describe("audit", () => {
  it("records each failure (e-mail tried, address, user agent, never the password) and one entry per lockout", async () => {
    const user = await createUser(app, admin, 3);
    const secretGuess = "my-secret-guess-123";
    for (let i = 0; i < 8; i++) await loginFrom(app.url, "127.0.0.41", user.email, secretGuess, "throttle-test-agent");
    const failed = await auditRows("auth.login_failed", user.email);
    expect(failed).toHaveLength(5);
    expect(failed[0]).toMatchObject({ ip_address: "127.0.0.41", user_agent: "throttle-test-agent", metadata: { email: user.email, check: "login" } });
    const throttled = await auditRows("auth.login_throttled", user.email);
    expect(throttled).toHaveLength(1);
    expect(throttled[0]).toMatchObject({ ip_address: "127.0.0.41", metadata: { email: user.email, check: "login", retry_after: expect.any(Number) } });
    expect(JSON.stringify([...failed, ...throttled])).not.toContain(secretGuess);
  });
});

describe("several API processes", () => {
  it("share the counters through PostgreSQL", async () => {
    const appB = await startTestApp("login-throttle-b", {}, app);
    try {
      const user = await createUser(app, admin, 3);
      for (let i = 0; i < 3; i++) expect((await loginFrom(app.url, "127.0.0.51", user.email, "wrong")).status).toBe(401);
      for (let i = 0; i < 2; i++) expect((await loginFrom(appB.url, "127.0.0.51", user.email, "wrong")).status).toBe(401);
      expect((await loginFrom(app.url, "127.0.0.51", user.email, user.password)).status).toBe(429);
      expect((await loginFrom(appB.url, "127.0.0.51", user.email, user.password)).status).toBe(429);
    } finally {
      await appB.close();
    }
  });
});

describe("pruning", () => {
  it("prune_expired_tokens removes counters untouched for a day", async () => {
    const { pool } = app.booted.ctx.db;
    await pool.query("INSERT INTO login_throttles (key, free_failures, failures, updated_at) VALUES ('account:old@example.test', 5, 3, now() - interval '2 days')");
    const { pruneExpiredTokens } = await import("../../src/jobs/tasks/prune-expired-tokens.ts");
    const logger = { info: () => undefined };
    await pruneExpiredTokens(undefined, { query: (sql: string) => pool.query(sql), logger } as never);
    const { rowCount } = await pool.query("SELECT 1 FROM login_throttles WHERE key = 'account:old@example.test'");
    expect(rowCount).toBe(0);
  });
});
