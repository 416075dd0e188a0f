/**
 * Idle means idle (issue 20, finding 8). With no schedule enabled and the real worker running
 * (ROLE=all), the ticker runs once a minute, not in a loop: fewer than 10 jobs in 30 s and no log
 * line at info. The workers poll rarely, so a job queued for later must still start on time (the
 * JobAlarm wakes them).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "graphile-worker";
import { startTestApp, type TestApp } from "../support/app.ts";
import { eventually, sleep } from "../support/process.ts";

let app: TestApp;
const lines: { level: number; time: number; msg?: string }[] = [];
const started: { job: Job; at: number }[] = [];
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

beforeAll(async () => {
  app = await startTestApp("idle", { ROLE: "all" }, undefined, { logDestination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
  app.booted.worker!.runner.events.on("job:start", ({ job }) => started.push({ job, at: Date.now() }));
  // Idle starts once the worker is up: its one startup line is not a tick's (on a loaded machine it
  // can come seconds after boot).
  await eventually(() => lines.some((l) => l.msg?.startsWith("Worker connected")), "the worker connected", 30_000, 50);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("an idle service", () => {
  it("with no schedule enabled, runs fewer than 10 jobs in 30 s and logs nothing at info", async () => {
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE enabled")).rows[0].n).toBe(0);
    // What the minute cron (src/jobs/worker.ts) queues at the next minute boundary: the ticker runs
    // now instead of up to a minute later ('replace': a tick the cron queued already is due now too).
    // The window opens before the tick is queued: the worker may start it before add_job's answer arrives.
    const from = Date.now();
    await q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json, job_key => 'tick_schedules', job_key_mode => 'replace', max_attempts => 3)");
    await sleep(30_000);
    const window = started.filter((s) => s.at >= from).map((s) => s.job.task_identifier);
    expect(window).toContain("tick_schedules");
    expect(window.length).toBeLessThan(10);
    // A job that did real work may say so (one line per job); a tick that fired nothing may not.
    const loud = lines.filter((l) => l.time >= from && l.level >= 30 && JSON.stringify(l).includes("tick_schedules"));
    expect(loud.map((l) => l.msg)).toEqual([]);
  }, 60_000);

  it("a job queued for later starts on time although the workers poll only once a minute", async () => {
    const { rows } = await q(
      "SELECT (graphile_worker.add_job('prune_expired_tokens', '{}'::json, run_at => now() + interval '2 seconds')).id::text AS id, extract(epoch FROM now() + interval '2 seconds') * 1000 AS due",
    );
    const ran = await eventually(() => started.find((s) => String(s.job.id) === rows[0].id), "the job started", 20_000, 50);
    expect(ran.at - Number(rows[0].due)).toBeLessThan(1500);
  });

  it("the jobs of one queue follow each other at once, not a poll apart", async () => {
    // Queued together in one queue: the second can only start once the first's end is stored.
    const { rows } = await q(
      `SELECT (graphile_worker.add_job('prune_expired_tokens', '{}'::json, queue_name => 'idle-test')).id::text AS first,
              (graphile_worker.add_job('prune_notification_keys', '{}'::json, queue_name => 'idle-test')).id::text AS second`,
    );
    const second = await eventually(() => started.find((s) => String(s.job.id) === rows[0].second), "the second job started", 20_000, 50);
    const first = started.find((s) => String(s.job.id) === rows[0].first)!;
    expect(second.at - first.at).toBeLessThan(3000);
  });
});
