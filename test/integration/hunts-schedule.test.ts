/**
 * Scheduled hunts (ROLE=all: the ticker and the run_hunt task run in the worker): the schedule
 * control on the hunt (hourly, daily, weekly), run_hunt schedules through POST /tasks/schedule,
 * paused hunts skipped, runs of one hunt never overlapping, a scheduled run failing with the reason
 * and alerting nobody, and the schedules going with the hunt.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";
import { realCveRecords, startStandIn, type StandIn } from "../support/external-services.ts";

let app: TestApp;
let vulnDb: StandIn;
let admin: TestUser;
let analyst: TestUser; // role 3: hunts:*, no tasks:*
let lead: TestUser; // role 2: hunts:* and tasks:*
const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);
const { pan, xz } = realCveRecords();

async function createHunt(user: TestUser, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await app.http.post("/hunts/", { token: user.token, json: { hunt_type: "cpe", query: "cpe:2.3:o:paloaltonetworks:pan-os", ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}
const getHunt = async (user: TestUser, id: number) => (await app.http.get(`/hunts/${id}`, { token: user.token })).body;
const historyOf = async (user: TestUser, id: number) => (await app.http.get(`/hunts/${id}/history`, { token: user.token })).body as Record<string, any>[];

/** Makes a schedule due now and wakes the ticker (as a missed tick would). */
async function fireNow(scheduledTaskId: string): Promise<void> {
  await q("UPDATE scheduled_tasks SET next_run_at = now() - interval '1 second' WHERE id = $1", [scheduledTaskId]);
  await q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json, job_key => 'tick_schedules')");
}

async function runsOf(scheduledTaskId: string, n: number): Promise<Record<string, any>[]> {
  return eventually(async () => {
    const { rows } = await q("SELECT id::text, status, result, last_error FROM task_runs WHERE scheduled_task_id = $1 ORDER BY queued_at", [scheduledTaskId]);
    return rows.length >= n && rows.slice(0, n).every((r) => r.status === "succeeded" || r.status === "failed") ? rows : undefined;
  }, `${n} finished runs of ${scheduledTaskId}`, 30_000, 100);
}

beforeAll(async () => {
  vulnDb = await startStandIn();
  app = await startTestApp("hunts-schedule", { ROLE: "all", VULN_DB_URL: vulnDb.url });
  admin = await loginAdmin(app);
  analyst = await createUser(app, admin, 3);
  lead = await createUser(app, admin, 2);
  await app.http.post("/settings/runtime/hunts", {
    token: admin.token,
    json: { request_timeout_seconds: 5, max_attempts: 1, max_response_bytes: 8 * 1024 ** 2, max_cpe_pages: 10, run_timeout_seconds: 30 },
  });
}, 60_000);
afterAll(async () => {
  await app?.close();
  await vulnDb?.close();
});
beforeEach(() => {
  vulnDb.clear();
  vulnDb.records = [pan];
});

describe("the schedule control on a hunt", () => {
  it("schedules hourly, daily or weekly as a run_hunt task of the owner, reschedules, and removes it", async () => {
    const hunt = await createHunt(analyst, { name: "hourly pan-os", schedule: "hourly" });
    expect(hunt).toMatchObject({ schedule: "hourly", scheduled_task_id: expect.any(String) });
    expect(Math.abs(Date.parse(hunt.next_run_at) - (Date.now() + 3600_000))).toBeLessThan(60_000);
    const task = (await q("SELECT task, kwargs, owner_id, schedule_type, interval_every, interval_period, enabled FROM scheduled_tasks WHERE id = $1", [hunt.scheduled_task_id])).rows[0];
    expect(task).toEqual({ task: "run_hunt", kwargs: { hunt_id: hunt.id }, owner_id: analyst.id, schedule_type: "interval", interval_every: 1, interval_period: "hours", enabled: true });

    const weekly = (await app.http.patch(`/hunts/${hunt.id}`, { token: analyst.token, json: { schedule: "weekly" } })).body;
    expect(weekly).toMatchObject({ schedule: "weekly", scheduled_task_id: hunt.scheduled_task_id });
    expect(Math.abs(Date.parse(weekly.next_run_at) - (Date.now() + 7 * 86_400_000))).toBeLessThan(60_000);

    const none = (await app.http.patch(`/hunts/${hunt.id}`, { token: analyst.token, json: { schedule: null } })).body;
    expect(none).toMatchObject({ schedule: null, scheduled_task_id: null, next_run_at: null });
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE id = $1", [hunt.scheduled_task_id])).rows[0].n).toBe(0);
    const bad = await app.http.patch(`/hunts/${hunt.id}`, { token: analyst.token, json: { schedule: "every minute" } });
    expect(bad.status).toBe(422);
  });

  it("takes a custom cron line (UTC) from its owner without task scopes, over REST and GraphQL; refuses a bad line or a line with a frequency", async () => {
    const hunt = await createHunt(analyst, { name: "weekday mornings", cron: " 30 6 * * 1-5 " });
    expect(hunt).toMatchObject({ schedule: "custom", scheduled_task_id: expect.any(String) });
    const task = (await q("SELECT owner_id, schedule_type, cron_minute, cron_hour, cron_day_of_month, cron_month_of_year, cron_day_of_week, timezone FROM scheduled_tasks WHERE id = $1", [hunt.scheduled_task_id])).rows[0];
    expect(task).toEqual({ owner_id: analyst.id, schedule_type: "crontab", cron_minute: "30", cron_hour: "6", cron_day_of_month: "*", cron_month_of_year: "*", cron_day_of_week: "1-5", timezone: null });
    const next = new Date(hunt.next_run_at);
    expect([next.getUTCHours(), next.getUTCMinutes()]).toEqual([6, 30]);
    expect([1, 2, 3, 4, 5]).toContain(next.getUTCDay());

    const gql = async (query: string, variables: Record<string, unknown>) => (await app.http.post("/graphql", { token: analyst.token, json: { query, variables } })).body;
    const set = "mutation($id: Int!, $input: UpdateHuntInput!) { updateHunt(id: $id, input: $input) { schedule cron scheduledTaskId nextRunAt } }";
    const hourly = await gql(set, { id: hunt.id, input: { cron: "0 */4 * * *" } });
    expect(hourly.data.updateHunt).toMatchObject({ schedule: "custom", cron: "0 */4 * * *", scheduledTaskId: hunt.scheduled_task_id });
    expect(new Date(hourly.data.updateHunt.nextRunAt).getUTCHours() % 4).toBe(0);
    // Back to a frequency, then to none.
    expect((await gql(set, { id: hunt.id, input: { schedule: "DAILY" } })).data.updateHunt).toMatchObject({ schedule: "daily", cron: null });
    expect((await gql(set, { id: hunt.id, input: { cron: null } })).data.updateHunt).toMatchObject({ schedule: null, cron: null, scheduledTaskId: null });

    for (const [cron, message] of [
      ["30 6 * *", /five cron fields/],
      ["30 25 * * *", /hour/],
      ["0 6 31 2 *", /never/],
      ["0 6 * * 1; rm -rf /", /five cron fields/],
      ["0 6 * * 1;rm", /day_of_week/],
      ["\u0000 * * * *", /NUL/],
    ] as const) {
      const res = await app.http.patch(`/hunts/${hunt.id}`, { token: analyst.token, json: { cron } });
      expect(res.status, cron).toBe(422);
      expect(JSON.stringify(res.body.detail), cron).toMatch(message);
    }
    const both = await app.http.patch(`/hunts/${hunt.id}`, { token: analyst.token, json: { cron: "0 6 * * *", schedule: "daily" } });
    expect(both.status).toBe(422);
    expect(both.body.detail[0]).toMatchObject({ loc: ["body", "cron"], msg: expect.stringMatching(/not both/) });
    const viaGraphql = await gql(set, { id: hunt.id, input: { cron: "61 * * * *" } });
    expect(viaGraphql.errors[0].extensions.code).toBe("validation_error");
    expect((await getHunt(analyst, hunt.id)).scheduled_task_id).toBeNull();
  });

  it("runs when due, as the owner, recorded in the hunt's history as a scheduled run", async () => {
    const hunt = await createHunt(analyst, { name: "daily pan-os", schedule: "daily" });
    await fireNow(hunt.scheduled_task_id);
    const [run] = await runsOf(hunt.scheduled_task_id, 1);
    expect(run).toMatchObject({ status: "succeeded", result: { hunt_id: hunt.id, total: 1 } });
    const [entry] = await historyOf(analyst, hunt.id);
    expect(entry).toMatchObject({ status: "succeeded", match_count: 1, trigger: "schedule", task_run_id: run.id });
    expect((await getHunt(analyst, hunt.id)).last_match_count).toBe(1);
    const alerts = (await q("SELECT type FROM notifications WHERE user_id = $1 AND (payload->>'hunt_id')::int = $2", [analyst.id, hunt.id])).rows;
    expect(alerts).toEqual([{ type: "hunt.result.first_run" }]);
  });

  it("skips a paused hunt on schedule (a manual run still works)", async () => {
    const hunt = await createHunt(analyst, { name: "paused", schedule: "daily", status: "paused" });
    await fireNow(hunt.scheduled_task_id);
    const [run] = await runsOf(hunt.scheduled_task_id, 1);
    expect(run).toMatchObject({ status: "succeeded", result: { hunt_id: hunt.id, skipped: "the hunt is paused" } });
    expect(await historyOf(analyst, hunt.id)).toEqual([]);
    expect((await app.http.post(`/hunts/${hunt.id}/run`, { token: analyst.token })).status).toBe(200);
  });

  it("a scheduled run that fails is a failed task run and a failed history entry with the reason, and alerts nobody", async () => {
    const hunt = await createHunt(analyst, { name: "failing on schedule", schedule: "hourly" });
    await fireNow(hunt.scheduled_task_id);
    await runsOf(hunt.scheduled_task_id, 1);
    vulnDb.fail("status", { status: 503 });
    await fireNow(hunt.scheduled_task_id);
    const runs = await runsOf(hunt.scheduled_task_id, 2);
    expect(runs[1]).toMatchObject({ status: "failed", last_error: expect.stringMatching(/^the vulnerability database: HTTP 503/) });
    const history = await historyOf(analyst, hunt.id);
    expect(history.map((h) => [h.status, h.match_count, h.trigger])).toEqual([["failed", null, "schedule"], ["succeeded", 1, "schedule"]]);
    expect(history[0].error).toBe(runs[1].last_error);
    expect(await getHunt(analyst, hunt.id)).toMatchObject({ last_match_count: 1, last_run_status: "failed" });
    const alerts = (await q("SELECT type FROM notifications WHERE user_id = $1 AND (payload->>'hunt_id')::int = $2", [analyst.id, hunt.id])).rows;
    expect(alerts).toEqual([{ type: "hunt.result.first_run" }]);
  });

  it("never lets two runs of one hunt overlap: a second manual run is 409, a scheduled one is skipped", async () => {
    const hunt = await createHunt(analyst, { name: "slow", schedule: "hourly" });
    vulnDb.delayMs = 1500;
    const first = app.http.post(`/hunts/${hunt.id}/run`, { token: analyst.token });
    await eventually(async () => (await q("SELECT run_token FROM hunts WHERE id = $1", [hunt.id])).rows[0].run_token !== null || undefined, "the first run holds the lease", 5000, 20);
    const second = await app.http.post(`/hunts/${hunt.id}/run`, { token: analyst.token });
    expect(second.status).toBe(409);
    expect(second.body.detail).toMatch(/in progress/);
    await fireNow(hunt.scheduled_task_id);
    const [scheduled] = await runsOf(hunt.scheduled_task_id, 1);
    expect((await first).status).toBe(200);
    expect(scheduled.result).toMatchObject({ skipped: "a run of this hunt is in progress" });
    expect(await historyOf(analyst, hunt.id)).toHaveLength(1);
    // The lease is released: the next run goes ahead.
    vulnDb.delayMs = 0;
    expect((await app.http.post(`/hunts/${hunt.id}/run`, { token: analyst.token })).status).toBe(200);
  });

  it("deleting the hunt deletes every schedule that runs it", async () => {
    const hunt = await createHunt(lead, { name: "to delete", schedule: "weekly" });
    const extra = await app.http.post("/tasks/schedule", { token: lead.token, json: { name: "extra", task: "run_hunt", kwargs: { hunt_id: hunt.id }, schedule_type: "interval", interval: { every: 6, period: "hours" } } });
    expect(extra.status, extra.text).toBe(201);
    expect((await app.http.delete(`/hunts/${hunt.id}`, { token: lead.token })).status).toBe(204);
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE id = ANY($1::uuid[])", [[hunt.scheduled_task_id, extra.body.id]])).rows[0].n).toBe(0);
  });

  it("deleting the owner deletes their hunts and the schedules that run them", async () => {
    const leaving = await createUser(app, admin, 3);
    const hunt = await createHunt(leaving, { name: "owner leaves", schedule: "daily" });
    expect((await app.http.delete(`/users/${leaving.id}`, { token: admin.token })).status).toBe(204);
    expect((await q("SELECT count(*)::int AS n FROM hunts WHERE id = $1", [hunt.id])).rows[0].n).toBe(0);
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE id = $1", [hunt.scheduled_task_id])).rows[0].n).toBe(0);
  });
});

describe("run_hunt through /tasks/schedule", () => {
  it("runs a hunt on an interval or a crontab, as the scheduler; pausing the schedule stops it", async () => {
    vulnDb.records = [pan, xz];
    const hunt = await createHunt(lead, { name: "via tasks" });
    const res = await app.http.post("/tasks/schedule", {
      token: lead.token,
      json: { task_name: "app.worker.tasks.run_hunt", params: { kwargs: { hunt_id: hunt.id, user_id: lead.id } }, schedule: { type: "interval", every: 2 }, enabled: true },
    });
    expect(res.status, res.text).toBe(201);
    const runs = await runsOf(res.body.id, 2);
    expect(runs.slice(0, 2).map((r) => r.result)).toEqual([expect.objectContaining({ hunt_id: hunt.id, total: 2 }), expect.objectContaining({ hunt_id: hunt.id, total: 2 })]);
    expect((await app.http.patch(`/tasks/scheduled/${res.body.id}`, { token: lead.token, json: { enabled: false } })).status).toBe(200);
    const cron = await app.http.post("/tasks/schedule", {
      token: lead.token,
      json: { name: "nightly hunt", task: "run_hunt", kwargs: { hunt_id: hunt.id }, schedule_type: "crontab", crontab: { minute: "0", hour: "3", timezone: "Europe/Luxembourg" } },
    });
    expect(cron.status, cron.text).toBe(201);
    expect(cron.body).toMatchObject({ task: "run_hunt", kwargs: { hunt_id: hunt.id }, schedule: { type: "crontab", minute: "0", hour: "3" } });
  });

  const bad: [string, (huntId: number) => Record<string, unknown>, (string | number)[]][] = [
    ["no hunt id", () => ({}), ["body", "kwargs", "hunt_id"]],
    ["a hunt id that is a string", () => ({ hunt_id: "1" }), ["body", "kwargs", "hunt_id"]],
    ["a hunt that does not exist", () => ({ hunt_id: 999_999 }), ["body", "kwargs", "hunt_id"]],
    ["another user's hunt", (id) => ({ hunt_id: id }), ["body", "kwargs", "hunt_id"]],
    ["an unknown keyword", (id) => ({ hunt_id: id, shell: "rm -rf /" }), ["body", "kwargs", "shell"]],
  ];
  it.each(bad)("refuses %s with 422 naming the field, storing nothing", async (_what, kwargs, loc) => {
    const others = await createHunt(analyst, { name: "not the lead's" });
    const before = (await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n;
    const res = await app.http.post("/tasks/schedule", { token: lead.token, json: { name: "x", task: "run_hunt", kwargs: kwargs(others.id), schedule_type: "interval", interval: { every: 1, period: "hours" } } });
    expect(res.status, res.text).toBe(422);
    expect(res.body.detail[0].loc).toEqual(loc);
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n).toBe(before);
  });

  it("fails a scheduled run whose hunt owner was disabled, with the reason", async () => {
    const owner = await createUser(app, admin, 2);
    const hunt = await createHunt(owner, { name: "owner goes", schedule: "hourly" });
    expect((await app.http.patch(`/users/${owner.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    await fireNow(hunt.scheduled_task_id);
    const [run] = await runsOf(hunt.scheduled_task_id, 1);
    expect(run).toMatchObject({ status: "failed", last_error: expect.stringMatching(/no longer exists or is disabled/) });
  });
});
