import crypto from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextAuthInvalidation, startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import type { HttpResult } from "../support/http.ts";

/**
 * Issue 3: `api_key.authenticated` at most once per minute per key "also with several API
 * processes (debounce in the database, not in memory)". Two API instances (each with its own pool
 * and its own authentication cache) share one database.
 *
 * Each process also keeps `last_used_at` in its authentication cache and skips the database when
 * its own copy says "used less than a minute ago" (src/modules/api-keys/api-key-auth.ts). That
 * local check alone would let one row per process through, and a burst of requests could still
 * look debounced when one process happens to commit before the other one reads the key. So the test
 * holds the key's row lock while the requests arrive: every request reads `last_used_at IS NULL`
 * (a plain read does not wait for a row lock), passes its process's in-memory check, and waits in
 * the conditional UPDATE. Only the database can then keep the count at one; the test checks that
 * both processes really got that far before it lets them go.
 */
let app: TestApp;
let appB: TestApp;
let admin: TestUser;
let owner: TestUser;

beforeAll(async () => {
  app = await startTestApp("apikeys-procs");
  appB = await startTestApp("apikeys-procs-b", {}, app);
  admin = await loginAdmin(app);
  owner = await createUser(app, admin, 3);
});
afterAll(async () => {
  await appB?.close();
  await app?.close();
});

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const authenticated = async (keyId: number) =>
  (await sql("SELECT * FROM audit_logs WHERE action = 'api_key.authenticated' AND resource_id = $1 ORDER BY id", [keyId])).rows;
/** Requests of this database waiting for a row lock inside the debounced UPDATE of api-key-auth.ts. */
const waitingInDebounce = async () =>
  (
    await sql(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%api_key.authenticated%' AND pid <> pg_backend_pid()`,
    )
  ).rows[0].n as number;

async function mintKey() {
  const res = await app.http.post("/api-keys/", { token: owner.token, json: { name: `k-${crypto.randomBytes(3).toString("hex")}`, scopes: ["users:me"] } });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: number; token: string };
}

/** N requests with the key on one instance, Bearer and raw forms alternating; not awaited. */
function burst(target: TestApp, key: string, n: number) {
  const answered = { n: 0 };
  const results = Array.from({ length: n }, (_, i) =>
    target.http.get("/users/me", { authorization: i % 2 ? key : `Bearer ${key}` }).then((r: HttpResult) => {
      answered.n++;
      return r;
    }),
  );
  return { answered, results: Promise.all(results) };
}

/**
 * Holds the key's row lock, sends `n` concurrent requests to B and then to A, and waits until each
 * of them is either answered (its process skipped the database) or waiting in the debounce. Returns
 * how many of each process reached the database, and the answers after the lock is released.
 */
async function burstOnBothWhileLocked(keyId: number, key: string, n: number) {
  const holder = new pg.Client({ connectionString: app.databaseUrl });
  await holder.connect();
  try {
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM api_keys WHERE id = $1 FOR UPDATE", [keyId]);
    const onB = burst(appB, key, n);
    const reachedB = await eventually(async () => {
      const waiting = await waitingInDebounce();
      return waiting + onB.answered.n === n ? { waiting } : null;
    }, "every request on B answered or waiting in the debounce", 20_000, 20);
    const onA = burst(app, key, n);
    const reachedA = await eventually(async () => {
      const waiting = await waitingInDebounce();
      return waiting + onA.answered.n + onB.answered.n === 2 * n ? { waiting: waiting - reachedB.waiting } : null;
    }, "every request on A answered or waiting in the debounce", 20_000, 20);
    await holder.query("COMMIT");
    const answers = [...(await onA.results), ...(await onB.results)];
    return { reachedDatabase: { A: reachedA.waiting, B: reachedB.waiting }, statuses: answers.map((r) => r.status) };
  } finally {
    await holder.end();
  }
}

describe("api_key.authenticated across two API processes", () => {
  it("is recorded exactly once when both processes authenticate a fresh key at the same moment", async () => {
    const key = await mintKey();
    const first = await burstOnBothWhileLocked(key.id, key.token, 6);
    // Both processes passed their own in-memory check and asked the database: only the database
    // could keep the count at one.
    expect(first.reachedDatabase.A, "requests of A that reached the debounced UPDATE").toBeGreaterThanOrEqual(1);
    expect(first.reachedDatabase.B, "requests of B that reached the debounced UPDATE").toBeGreaterThanOrEqual(1);
    expect(first.statuses.every((s) => s === 200), JSON.stringify(first.statuses)).toBe(true);
    const rows = await authenticated(key.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: "api_key", actor_user_id: owner.id, actor_credential_id: key.id, resource_type: "api_key" });
    const lastUsed = (await sql("SELECT last_used_at FROM api_keys WHERE id = $1", [key.id])).rows[0].last_used_at as Date;
    expect(lastUsed).toBeInstanceOf(Date);

    // More requests within the minute, on both processes, add nothing.
    const more = await Promise.all([burst(app, key.token, 5).results, burst(appB, key.token, 5).results]);
    expect(more.flat().every((r) => r.status === 200)).toBe(true);
    expect(await authenticated(key.id)).toHaveLength(1);
    expect((await sql("SELECT last_used_at FROM api_keys WHERE id = $1", [key.id])).rows[0].last_used_at).toEqual(lastUsed);
  });

  it("is recorded once more after a minute, again once for both processes together", async () => {
    const key = await mintKey();
    await burstOnBothWhileLocked(key.id, key.token, 2);
    expect(await authenticated(key.id)).toHaveLength(1);
    // A minute later (simulated). The change notifies both processes, which drop their cached copy.
    const invalidated = Promise.all([nextAuthInvalidation(app), nextAuthInvalidation(appB)]);
    await sql("UPDATE api_keys SET last_used_at = now() - interval '61 seconds' WHERE id = $1", [key.id]);
    await invalidated;
    const second = await burstOnBothWhileLocked(key.id, key.token, 6);
    expect(second.reachedDatabase.A).toBeGreaterThanOrEqual(1);
    expect(second.reachedDatabase.B).toBeGreaterThanOrEqual(1);
    expect(second.statuses.every((s) => s === 200)).toBe(true);
    expect(await authenticated(key.id)).toHaveLength(2);
  });
});
