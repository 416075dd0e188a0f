import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordChanges } from "../../src/modules/changes/index.ts";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";

/**
 * Writers enqueue the change log's consumers (index, correlate, notify) in their own transaction.
 * `add_job` inserts a task or queue row it does not find, and a second writer inserting the same row
 * waits for the first one's commit: concurrent first writers used to wait on each other (an import
 * answered 500 with four at once). The rows are created at start instead (`prepareJobQueues`).
 */
let app: TestApp;
let admin: TestUser;

beforeAll(async () => {
  app = await startTestApp("change-log-enqueue");
  admin = await loginAdmin(app);
});
afterAll(() => app?.close());

const sql = (text: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(text, params);
const change = () => ({ kind: "event.updated", entityType: "event" as const, entityUuid: crypto.randomUUID(), eventUuid: null });

function eventDoc(attributes: number) {
  const ts = String(Math.floor(Date.now() / 1000) - 60);
  return {
    Event: {
      uuid: crypto.randomUUID(),
      info: "concurrent import",
      date: "2026-11-01",
      timestamp: ts,
      threat_level_id: "2",
      analysis: "2",
      distribution: "0",
      Tag: [{ name: `tlp:amber` }, { name: `concurrency-${crypto.randomUUID()}` }],
      Attribute: Array.from({ length: attributes }, (_, i) => ({ uuid: crypto.randomUUID(), type: "domain", category: "Network activity", value: `c-${crypto.randomUUID()}-${i}.example.com`, to_ids: true, timestamp: ts })),
    },
  };
}

describe("consumer jobs queued by writers", () => {
  it("find their task and queue rows already there before any write", async () => {
    const tasks = (await sql("SELECT identifier FROM graphile_worker._private_tasks WHERE identifier = ANY($1::text[]) ORDER BY 1", [["correlate_changes", "index_changes", "notify_changes"]])).rows;
    const queues = (await sql("SELECT queue_name FROM graphile_worker._private_job_queues WHERE queue_name = ANY($1::text[]) ORDER BY 1", [["correlation", "search_index"]])).rows;
    expect(tasks.map((r) => r.identifier)).toEqual(["correlate_changes", "index_changes", "notify_changes"]);
    expect(queues.map((r) => r.queue_name)).toEqual(["correlation", "search_index"]);
  });

  it("do not make a second writer wait for the first one's commit", async () => {
    const first = await app.booted.ctx.db.pool.connect();
    const second = await app.booted.ctx.db.pool.connect();
    try {
      await first.query("BEGIN");
      await recordChanges(first, null, [change()]);
      await second.query("BEGIN");
      await second.query("SET LOCAL lock_timeout = '2s'");
      // Waits (and fails on the lock timeout) when the first transaction holds a row add_job inserts.
      await recordChanges(second, null, [change()]);
      const jobs = await second.query("SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id WHERE t.identifier IN ('index_changes', 'correlate_changes', 'notify_changes')");
      expect(jobs.rows[0].n).toBeGreaterThanOrEqual(3);
    } finally {
      await first.query("ROLLBACK");
      await second.query("ROLLBACK");
      first.release();
      second.release();
    }
  });

  it("four concurrent imports of 6,000 attributes each all answer 201, each range queued once per consumer", async () => {
    const before = Number((await sql("SELECT COALESCE(max(id), 0)::text AS m FROM change_records")).rows[0].m);
    const docs = Array.from({ length: 4 }, () => eventDoc(6000));
    const answers = await Promise.all(docs.map((d) => app.http.post("/events/import", { token: admin.token, json: d })));
    for (const a of answers) expect(a.status, a.text).toBe(201);
    const ids = (await sql("SELECT id::text FROM change_records WHERE id > $1 ORDER BY id", [before])).rows.map((r) => Number(r.id));
    // 6,001 records per import: one range of 5,000 and one of 1,001 each.
    expect(ids.length).toBe(4 * 6001);
    for (const task of ["index_changes", "correlate_changes", "notify_changes"]) {
      const ranges = (
        await sql(
          `SELECT j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
            WHERE t.identifier = $1 AND (j.payload->>'first_id')::bigint > $2`,
          [task, before],
        )
      ).rows.map((r) => ({ first: Number(r.payload.first_id), last: Number(r.payload.last_id) }));
      expect(ranges.length).toBe(8);
      // Every record is in a range of its own write (ranges of concurrent writers may interleave ids).
      for (const id of ids) expect(ranges.some((r) => r.first <= id && id <= r.last)).toBe(true);
    }
  });

  it("record an event of 5,000 attributes (5,001 changes) as one range, not a second range of one record", async () => {
    const before = Number((await sql("SELECT COALESCE(max(id), 0)::text AS m FROM change_records")).rows[0].m);
    const res = await app.http.post("/events/import", { token: admin.token, json: eventDoc(5000) });
    expect(res.status, res.text).toBe(201);
    const ranges = (
      await sql(
        `SELECT j.payload FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
          WHERE t.identifier = 'notify_changes' AND (j.payload->>'first_id')::bigint > $1`,
        [before],
      )
    ).rows.map((r) => Number(r.payload.last_id) - Number(r.payload.first_id) + 1);
    expect(ranges).toEqual([5001]);
  });
});
