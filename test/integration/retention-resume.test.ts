/**
 * A retention run whose worker process is killed (SIGKILL) half-way: another worker process takes
 * the job over at once (the dead process's lock is released through its liveness lock, not after
 * graphile-worker's 4 hours), resumes with the same cutoff, deletes every event exactly once, and
 * leaves nothing behind.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually, startService, type ServiceProcess } from "../support/process.ts";

const EVENTS = 6000;
const ATTRIBUTES_PER_EVENT = 8;
const OLD = 1_546_300_800; // 2019-01-01

let app: TestApp;
let admin: TestUser;
const workers: ServiceProcess[] = [];

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

function worker(name: string): ServiceProcess {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "wb-retention-"));
  const p = startService(
    { ROLE: "worker", LOG_LEVEL: "info", DATABASE_URL: app.databaseUrl, DATA_DIR: dataDir, JWT_SECRET: "test-secret-test-secret-test-secret-0123" },
    { name },
  );
  workers.push(p);
  return p;
}

const purgedLogged = (p: ServiceProcess) => p.logs.filter((l) => l.msg === "purged event" && l.reason === "retention").map((l) => l.event_uuid as string);

beforeAll(async () => {
  app = await startTestApp("retention-resume", { ROLE: "api" });
  admin = await loginAdmin(app);
  // Volume through SQL (no change records: these rows were never indexed).
  await q(
    `INSERT INTO events (uuid, info, date, timestamp, org_id, orgc_id, distribution)
     SELECT gen_random_uuid(), 'synthetic ' || g, '2019-01-01', $1 + g, $2, $2, 0 FROM generate_series(1, $3) g`,
    [OLD, admin.orgId, EVENTS],
  );
  await q(
    `INSERT INTO attributes (uuid, event_id, type, category, value, value1, value2, timestamp, distribution, to_ids, comment, deleted, disable_correlation)
     SELECT gen_random_uuid(), e.id, 'domain', 'Network activity', 'd' || e.id || '-' || k || '.example', 'd' || e.id || '-' || k || '.example', '', $1, 5, false, '', false, false
       FROM events e, generate_series(1, $2) k WHERE e.info LIKE 'synthetic %'`,
    [OLD, ATTRIBUTES_PER_EVENT],
  );
}, 120_000);
afterAll(async () => {
  for (const w of workers) w.kill();
  await app?.close();
});

it("a worker killed mid-run: the next worker resumes the run without double work or leftovers", async () => {
  const synthetic = (await q("SELECT uuid::text FROM events WHERE info LIKE 'synthetic %'")).rows.map((r) => r.uuid as string);
  expect(synthetic).toHaveLength(EVENTS);
  expect((await app.http.post("/settings/runtime/retention", { token: admin.token, json: { enabled: true, period_days: 365, warning_days: 30, exempt_tags: [] } })).status).toBe(200);
  const scheduled = await app.http.post("/tasks/schedule", {
    token: admin.token,
    json: { name: "retention", task: "enforce_retention", schedule_type: "crontab", crontab: { minute: "0", hour: "2" } },
  });
  const queued = await app.http.post(`/tasks/scheduled/${scheduled.body.id}/run`, { token: admin.token });
  expect(queued.status).toBe(202);
  const runId: string = queued.body.task_id;
  const progressOf = async () => (await q("SELECT status, attempts, progress FROM task_runs WHERE id = $1", [runId])).rows[0];

  const first = worker("worker-1");
  await eventually(async () => ((await progressOf()).progress?.purged ?? 0) >= 300 || undefined, "the first batches committed", 60_000, 5);
  first.kill();
  await first.exited;
  const atKill = await progressOf();
  expect(atKill.status).toBe("running");
  expect(atKill.progress.purged).toBeLessThan(EVENTS);
  // The job is still locked by the dead process.
  expect((await q("SELECT locked_by FROM graphile_worker._private_jobs WHERE id = (SELECT job_id FROM task_runs WHERE id = $1)", [runId])).rows[0].locked_by).not.toBeNull();

  const second = worker("worker-2");
  const done = await eventually(async () => {
    const r = await progressOf();
    return ["succeeded", "failed"].includes(r.status) ? r : undefined;
  }, "the run finished on the second worker", 90_000, 100).catch(async (err) => {
    console.log("FIRST", first.stdout.slice(-3000), "SECOND", second.stdout.slice(-6000), JSON.stringify((await q("SELECT * FROM worker_processes")).rows), JSON.stringify((await q("SELECT j.id, j.locked_by, j.attempts, j.max_attempts, j.run_at, j.last_error, q.queue_name, q.locked_by AS qlock FROM graphile_worker._private_jobs j LEFT JOIN graphile_worker._private_job_queues q ON q.id = j.job_queue_id")).rows));
    throw err;
  });
  expect(done.status).toBe("succeeded");
  expect(done.attempts).toBe(2);
  const run = await app.http.get(`/tasks/${runId}`, { token: admin.token });
  expect(run.body.result).toMatchObject({ purged: EVENTS, attributes: EVENTS * ATTRIBUTES_PER_EVENT });
  expect(second.hasLog(/resuming retention enforcement/)).toBe(true);

  // Nothing left, nothing deleted twice.
  expect((await q("SELECT count(*)::int AS n FROM events WHERE info LIKE 'synthetic %'")).rows[0].n).toBe(0);
  expect((await q("SELECT count(*)::int AS n FROM attributes WHERE value LIKE 'd%.example'")).rows[0].n).toBe(0);
  const records = await q("SELECT entity_uuid::text, count(*)::int AS n FROM change_records WHERE kind = 'event.deleted' GROUP BY 1");
  expect(records.rows).toHaveLength(EVENTS);
  expect(records.rows.every((r) => r.n === 1)).toBe(true);
  expect(new Set(records.rows.map((r) => r.entity_uuid))).toEqual(new Set(synthetic));
  // Each purged event is logged once, by the worker that purged it.
  const logged = [...purgedLogged(first), ...purgedLogged(second)];
  expect(new Set(logged).size).toBe(logged.length);
  expect(purgedLogged(second).length).toBeGreaterThan(0);
  expect(purgedLogged(second).every((u) => synthetic.includes(u))).toBe(true);
  await second.stop();
}, 240_000);
