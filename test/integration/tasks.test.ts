/**
 * Scheduled tasks end to end (ROLE=all: the ticker and runs execute in the worker): both body
 * shapes, validation naming the field, ownership, run now and the job status, automatic firing,
 * no overlap, one run per missed tick after a downtime, one run with two workers, runs that fail
 * because their user lost the right to run them, instance-wide tasks needing admin-level scopes, and
 * the record a task names checked on scheduling, on run now and at the start of every run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../support/app.ts";
import { createOrganisation, createRole, createUser, loginAdmin, type TestUser } from "../support/fixtures.ts";
import { eventually } from "../support/process.ts";

let app: TestApp;
let admin: TestUser;
/** Schedules generate_correlations: tasks:* and the correlation scopes, correlations:admin included; not settings:update. */
let scheduler: TestUser;
let otherOrgAdmin: TestUser; // role 2 of another organisation

const q = (sql: string, params: unknown[] = []) => app.booted.ctx.db.pool.query(sql, params);

const hourly = (task = "generate_correlations", extra: Record<string, unknown> = {}) => ({
  name: "hourly rebuild",
  task,
  schedule_type: "interval",
  interval: { every: 1, period: "hours" },
  ...extra,
});

async function schedule(user: TestUser, body: unknown = hourly()): Promise<Record<string, any>> {
  const res = await app.http.post("/tasks/schedule", { token: user.token, json: body });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

async function finished(user: TestUser, runId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const res = await app.http.get(`/tasks/${runId}`, { token: user.token });
    return ["succeeded", "failed"].includes(res.body.status) ? res.body : undefined;
  }, `run ${runId} finished`, 30_000, 100);
}

/** Makes a schedule due now, wakes the ticker and waits for the run it fires to finish. */
async function fireOnce(scheduledTaskId: string): Promise<Record<string, any>> {
  const before = (await q("SELECT last_run_id FROM scheduled_tasks WHERE id = $1", [scheduledTaskId])).rows[0].last_run_id;
  await q("UPDATE scheduled_tasks SET next_run_at = now() - interval '1 second' WHERE id = $1", [scheduledTaskId]);
  await q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json, job_key => 'tick_schedules')");
  return eventually(async () => {
    const { rows } = await q(
      "SELECT r.id, r.status, r.last_error, r.run_as_user_id, r.result FROM scheduled_tasks t JOIN task_runs r ON r.id = t.last_run_id WHERE t.id = $1",
      [scheduledTaskId],
    );
    return rows[0] && rows[0].id !== before && ["succeeded", "failed"].includes(rows[0].status) ? rows[0] : undefined;
  }, "the scheduled run finished");
}

beforeAll(async () => {
  app = await startTestApp("tasks", { ROLE: "all" });
  admin = await loginAdmin(app);
  scheduler = await createUser(app, admin, ["tasks:*", "correlations:read", "correlations:create", "correlations:admin"]);
  otherOrgAdmin = await createUser(app, admin, 2, await createOrganisation(app, admin));
}, 60_000);
afterAll(async () => {
  await app?.close();
});

describe("creating schedules", () => {
  it("takes the spec's body (interval and crontab) and the peer's body, and answers both shapes", async () => {
    const before = Date.now();
    const interval = await schedule(scheduler, hourly("app.worker.tasks.generate_correlations", { args: [], kwargs: {} }));
    expect(interval).toMatchObject({
      name: "hourly rebuild",
      task: "generate_correlations",
      task_name: "app.worker.tasks.generate_correlations",
      schedule_type: "interval",
      interval: { every: 1, period: "hours" },
      crontab: null,
      schedule: { type: "interval", every: 3600 },
      enabled: true,
      status: "scheduled",
      total_run_count: 0,
      last_run_at: null,
      owner_id: scheduler.id,
    });
    expect(interval.id).toBe(interval.scheduled_task_name);
    const due = Date.parse(interval.due_at);
    expect(due).toBeGreaterThanOrEqual(before + 3600_000 - 1000);
    expect(due).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000);

    const cron = await schedule(scheduler, { name: "nightly", task: "generate_correlations", schedule_type: "crontab", crontab: { minute: "0", hour: "2", timezone: "Europe/Berlin" } });
    expect(cron.crontab).toEqual({ minute: "0", hour: "2", day_of_week: "*", day_of_month: "*", month_of_year: "*", timezone: "Europe/Berlin" });
    expect(cron.schedule_description).toBe("cron 0 2 * * * (Europe/Berlin)");
    // 02:00 in Berlin is 00:00 or 01:00 UTC.
    expect(new Date(cron.due_at).getUTCMinutes()).toBe(0);
    expect([0, 1]).toContain(new Date(cron.due_at).getUTCHours());

    const peer = await schedule(scheduler, {
      task_name: "app.worker.tasks.generate_correlations",
      params: { args: [], kwargs: { user_id: scheduler.id } },
      schedule: { type: "crontab", minute: "*/15", day_of_week: "mon-fri" },
      enabled: false,
    });
    expect(peer).toMatchObject({ name: "generate_correlations", enabled: false, status: "paused", due_at: null, schedule: { type: "crontab", minute: "*/15", day_of_week: "mon-fri", timezone: "UTC" } });

    const listed = await app.http.get("/tasks/scheduled?limit=100", { token: scheduler.token });
    expect(listed.status).toBe(200);
    expect(listed.body.map((t: { id: string }) => t.id)).toEqual(expect.arrayContaining([interval.id, cron.id, peer.id]));
    const one = await app.http.get(`/tasks/scheduled/${cron.id}`, { token: scheduler.token });
    expect(one.body).toEqual(cron);
  });

  const bad: [string, unknown, (string | number)[]][] = [
    ["an unknown task", hourly("app.worker.tasks.rm_rf"), ["body", "task"]],
    ["every 0 seconds", hourly(undefined, { interval: { every: 0, period: "seconds" } }), ["body", "interval", "every"]],
    ["a negative interval", hourly(undefined, { interval: { every: -5, period: "minutes" } }), ["body", "interval", "every"]],
    ["a fractional interval", hourly(undefined, { interval: { every: 1.5, period: "hours" } }), ["body", "interval", "every"]],
    ["an interval of a string", hourly(undefined, { interval: { every: "10", period: "hours" } }), ["body", "interval", "every"]],
    ["an interval of 10^9 weeks", hourly(undefined, { interval: { every: 1e9, period: "weeks" } }), ["body", "interval", "every"]],
    ["an unknown period", hourly(undefined, { interval: { every: 1, period: "fortnights" } }), ["body", "interval", "period"]],
    ["interval without its object", { name: "x", task: "generate_correlations", schedule_type: "interval" }, ["body", "interval"]],
    ["minute 61", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { minute: "61" } }, ["body", "crontab", "minute"]],
    ["an hour of letters", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { hour: "noon" } }, ["body", "crontab", "hour"]],
    ["day of week 9", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { day_of_week: "9" } }, ["body", "crontab", "day_of_week"]],
    ["month 13", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { month_of_year: "13" } }, ["body", "crontab", "month_of_year"]],
    ["a field with a space", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { minute: "0 0" } }, ["body", "crontab", "minute"]],
    ["February 31st", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { day_of_month: "31", month_of_year: "2" } }, ["body", "crontab", "day_of_month"]],
    ["an unknown time zone", { name: "x", task: "generate_correlations", schedule_type: "crontab", crontab: { timezone: "Mars/Olympus" } }, ["body", "crontab", "timezone"]],
    ["an unknown schedule type", { name: "x", task: "generate_correlations", schedule_type: "solar" }, ["body", "schedule_type"]],
    ["arguments to a task that takes none", hourly(undefined, { args: ["x"] }), ["body", "args"]],
    ["keyword arguments to a task that takes none", hourly(undefined, { kwargs: { rm: true } }), ["body", "kwargs", "rm"]],
    ["an unknown field", hourly(undefined, { owner_id: 1 }), ["body", "owner_id"]],
    ["no name", { task: "generate_correlations", schedule_type: "interval", interval: { every: 1, period: "hours" } }, ["body", "name"]],
    ["the peer's body without every", { task_name: "generate_correlations", schedule: { type: "interval" } }, ["body", "schedule", "every"]],
    ["the peer's body with every 0", { task_name: "generate_correlations", schedule: { type: "interval", every: 0 } }, ["body", "interval", "every"]],
  ];
  it.each(bad)("%s: 422 naming the field, nothing stored", async (_what, body, loc) => {
    const before = (await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n;
    const res = await app.http.post("/tasks/schedule", { token: scheduler.token, json: body });
    expect(res.status, res.text).toBe(422);
    expect(res.body.code).toBe("validation_error");
    expect(res.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n).toBe(before);
  });

  it("refuses a task whose own scopes the caller lacks (403 naming them)", async () => {
    const res = await app.http.post("/tasks/schedule", { token: scheduler.token, json: hourly("enforce_retention") });
    expect(res.status).toBe(403);
    expect(res.body.detail).toContain("settings:update");
  });

  it("lists the registered tasks with their scopes", async () => {
    const res = await app.http.get("/tasks/registered", { token: scheduler.token });
    expect(res.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "enforce_retention", task_name: "app.worker.tasks.enforce_retention", required_scopes: ["settings:update", "events:delete"] }),
        expect.objectContaining({ name: "generate_correlations" }),
      ]),
    );
  });
});

describe("ownership", () => {
  it("another user's schedule is not found, for every route; administrators see and manage it", async () => {
    const mine = await schedule(scheduler);
    const path = `/tasks/scheduled/${mine.id}`;
    for (const [method, p, json] of [
      ["GET", path, undefined],
      ["PATCH", path, { enabled: false }],
      ["DELETE", path, undefined],
      ["POST", `${path}/run`, undefined],
    ] as const) {
      const res = await app.http.request(method, p, { token: otherOrgAdmin.token, json });
      expect(res.status, `${method} ${p}`).toBe(404);
    }
    const theirs = await app.http.get("/tasks/scheduled?limit=1000", { token: otherOrgAdmin.token });
    expect(theirs.body.map((t: { id: string }) => t.id)).not.toContain(mine.id);
    const all = await app.http.get("/tasks/scheduled?limit=1000", { token: admin.token });
    expect(all.body.map((t: { id: string }) => t.id)).toContain(mine.id);
    expect((await app.http.patch(path, { token: admin.token, json: { name: "renamed by admin" } })).body.name).toBe("renamed by admin");
    expect((await q("SELECT owner_id FROM scheduled_tasks WHERE id = $1", [mine.id])).rows[0].owner_id).toBe(scheduler.id);
  });

  it("a malformed id is a 422 naming the parameter", async () => {
    const res = await app.http.get("/tasks/scheduled/1%20OR%201=1", { token: admin.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["path", "task_id"]);
  });
});

describe("update, pause, resume, delete", () => {
  it("pauses (no due time), resumes (due again from now), reschedules, and deletes with a null body", async () => {
    const t = await schedule(scheduler);
    const path = `/tasks/scheduled/${t.id}`;
    const paused = await app.http.patch(path, { token: scheduler.token, json: { enabled: false } });
    expect(paused.body).toMatchObject({ enabled: false, status: "paused", due_at: null });
    const resumed = await app.http.patch(path, { token: scheduler.token, json: { enabled: true } });
    expect(resumed.body).toMatchObject({ enabled: true, status: "scheduled" });
    expect(Date.parse(resumed.body.due_at)).toBeGreaterThan(Date.now() + 3500_000);
    const cron = await app.http.patch(path, { token: scheduler.token, json: { schedule: { type: "crontab", minute: "30", hour: "4" } } });
    expect(cron.body).toMatchObject({ schedule_type: "crontab", interval: null, crontab: { minute: "30", hour: "4" } });
    const again = await app.http.patch(path, { token: scheduler.token, json: { schedule_type: "interval", interval: { every: 2, period: "days" } } });
    expect(again.body).toMatchObject({ schedule_type: "interval", interval: { every: 2, period: "days" }, crontab: null });

    for (const body of [{ interval: { every: 0, period: "seconds" }, schedule_type: "interval" }, { schedule: { type: "interval", every: 0 } }, { enabled: "yes" }, { schedule_type: "crontab", crontab: { hour: "25" } }]) {
      const res = await app.http.patch(path, { token: scheduler.token, json: body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await app.http.get(path, { token: scheduler.token })).body).toMatchObject({ interval: { every: 2, period: "days" }, enabled: true });

    const deleted = await app.http.delete(path, { token: scheduler.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toBeNull();
    expect((await app.http.get(path, { token: scheduler.token })).status).toBe(404);
    expect((await app.http.delete(path, { token: scheduler.token })).status).toBe(404);
  });
});

describe("runs", () => {
  it("run now: 202 with the run id, whose status goes queued → succeeded with timestamps, attempts and the result", async () => {
    const t = await schedule(scheduler);
    const res = await app.http.post(`/tasks/scheduled/${t.id}/run`, { token: scheduler.token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: "queued", run: { trigger: "manual", scheduled_task_id: t.id, attempts: 0, started_at: null } });
    const done = await finished(scheduler, res.body.task_id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, last_error: null, run_as_user_id: scheduler.id, task_name: "app.worker.tasks.generate_correlations" });
    expect(done.result.rebuild_id).toEqual(expect.any(Number));
    expect(Date.parse(done.started_at)).toBeGreaterThanOrEqual(Date.parse(done.queued_at));
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
    // The rebuild it queued is real.
    const rebuild = await eventually(async () => {
      const r = await app.http.get(`/correlations/run/${done.result.rebuild_id}`, { token: scheduler.token });
      return r.body.status === "succeeded" ? r.body : undefined;
    }, "rebuild done");
    expect(rebuild.status).toBe("succeeded");
    // Listed for its owner, not for another user.
    const list = await app.http.get(`/tasks/?scheduled_task_id=${t.id}`, { token: scheduler.token });
    expect(Object.keys(list.body.items)).toEqual([done.id]);
    expect(list.body).toMatchObject({ limit: 100, offset: 0, has_more: false });
    expect((await app.http.get(`/tasks/${done.id}`, { token: otherOrgAdmin.token })).status).toBe(404);
    expect(Object.keys((await app.http.get("/tasks/", { token: otherOrgAdmin.token })).body.items)).not.toContain(done.id);
    expect((await app.http.get(`/tasks/${done.id}`, { token: admin.token })).status).toBe(200);
  });

  it("a scheduled run whose owner lost a scope the task needs, or was disabled, fails with the reason and does nothing", async () => {
    const role = await createRole(app, admin, ["tasks:*", "correlations:create", "correlations:admin"]);
    const user = await createUser(app, admin, role);
    const t = await schedule(user);
    const rebuildsBefore = (await q("SELECT count(*)::int AS n FROM correlation_rebuilds")).rows[0].n;
    const fire = () => fireOnce(t.id);
    // The role is downgraded after the schedule was made: the next run acts with the role of now.
    expect((await app.http.patch(`/roles/${role}`, { token: admin.token, json: { scopes: ["tasks:*"] } })).status).toBe(200);
    expect(await fire()).toMatchObject({ status: "failed", last_error: expect.stringContaining("correlations:create") });
    expect((await app.http.patch(`/roles/${role}`, { token: admin.token, json: { scopes: ["tasks:*", "correlations:create", "correlations:admin"] } })).status).toBe(200);
    expect((await app.http.patch(`/users/${user.id}`, { token: admin.token, json: { disabled: true } })).status).toBe(200);
    expect(await fire()).toMatchObject({ status: "failed", last_error: expect.stringContaining("disabled") });
    expect((await q("SELECT count(*)::int AS n FROM correlation_rebuilds")).rows[0].n).toBe(rebuildsBefore);
  });
});

describe("the ticker", () => {
  it("fires due schedules by itself, once per due time, and never lets runs of one schedule overlap", async () => {
    const t = await schedule(scheduler, hourly(undefined, { name: "every 2 s", interval: { every: 2, period: "seconds" } }));
    const fired = await eventually(async () => {
      const { rows } = await q("SELECT total_run_count FROM scheduled_tasks WHERE id = $1", [t.id]);
      return rows[0].total_run_count >= 2 ? rows[0].total_run_count : undefined;
    }, "two runs fired", 20_000);
    expect(fired).toBeGreaterThanOrEqual(2);
    await app.http.patch(`/tasks/scheduled/${t.id}`, { token: scheduler.token, json: { enabled: false } });
    const { rows } = await q("SELECT status, trigger, queued_at, started_at, finished_at FROM task_runs WHERE scheduled_task_id = $1 ORDER BY queued_at", [t.id]);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.every((r) => r.trigger === "schedule")).toBe(true);
    // Each run was queued only after the previous one finished.
    for (let i = 1; i < rows.length; i++) {
      if (rows[i - 1].finished_at) expect(rows[i].queued_at.getTime()).toBeGreaterThanOrEqual(rows[i - 1].finished_at.getTime());
    }
  });

  it("a schedule that missed many ticks while the service was down runs once, and keeps its cadence", async () => {
    const t = await schedule(scheduler, hourly(undefined, { name: "missed", interval: { every: 10, period: "minutes" } }));
    // Down for five hours: thirty ticks missed.
    const missedDue: Date = (
      await q("UPDATE scheduled_tasks SET next_run_at = now() - interval '5 hours' - interval '3 minutes' WHERE id = $1 RETURNING next_run_at", [t.id])
    ).rows[0].next_run_at;
    await q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json, job_key => 'tick_schedules')");
    const after = await eventually(async () => {
      const { rows } = await q("SELECT total_run_count, next_run_at, last_run_at FROM scheduled_tasks WHERE id = $1", [t.id]);
      return rows[0].total_run_count > 0 ? rows[0] : undefined;
    }, "the missed schedule fired");
    await new Promise((r) => setTimeout(r, 3000));
    const { rows } = await q("SELECT count(*)::int AS n FROM task_runs WHERE scheduled_task_id = $1", [t.id]);
    expect(rows[0].n).toBe(1);
    const next = after.next_run_at.getTime();
    // On the old cadence (due + k * 10 min), within the next ten minutes.
    expect(next).toBeGreaterThan(Date.now() - 5_000);
    expect(next).toBeLessThanOrEqual(Date.now() + 600_000);
    expect((next - missedDue.getTime()) % 600_000).toBe(0);
    await app.http.patch(`/tasks/scheduled/${t.id}`, { token: scheduler.token, json: { enabled: false } });
  });

  it("with two worker processes, a due schedule still runs once per due time", async () => {
    const second = await startTestApp("tasks-worker-b", { ROLE: "worker" }, app);
    try {
      const names: string[] = [];
      for (let i = 0; i < 5; i++) {
        const t = await schedule(scheduler, hourly(undefined, { name: `race ${i}`, interval: { every: 1, period: "hours" } }));
        names.push(t.id);
      }
      // All due at once, ticked by both workers together.
      await q("UPDATE scheduled_tasks SET next_run_at = now() - interval '1 second' WHERE id = ANY($1::uuid[])", [names]);
      await Promise.all([
        q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json)"),
        q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json)"),
        q("SELECT graphile_worker.add_job('tick_schedules', '{}'::json)"),
      ]);
      await eventually(async () => {
        const { rows } = await q("SELECT count(*)::int AS n FROM scheduled_tasks WHERE id = ANY($1::uuid[]) AND total_run_count > 0", [names]);
        return rows[0].n === 5 || undefined;
      }, "all fired");
      await new Promise((r) => setTimeout(r, 2000));
      const { rows } = await q("SELECT scheduled_task_id::text, count(*)::int AS n FROM task_runs WHERE scheduled_task_id = ANY($1::uuid[]) GROUP BY 1", [names]);
      expect(rows.map((r) => r.n)).toEqual([1, 1, 1, 1, 1]);
    } finally {
      await second.close();
    }
  });
});

describe("GraphQL twins", () => {
  it("schedules, reads, pauses, runs and deletes through GraphQL with the same rules", async () => {
    const gql = (query: string, variables: Record<string, unknown> = {}, token = scheduler.token) => app.http.post("/graphql", { token, json: { query, variables } });
    const created = await gql(
      `mutation($s: ScheduleInput!) { scheduleTask(name: "gql", task: "generate_correlations", schedule: $s) { id enabled schedule { type every period description } } }`,
      { s: { type: "INTERVAL", every: 3, period: "DAYS" } },
    );
    expect(created.body.data.scheduleTask).toMatchObject({ enabled: true, schedule: { type: "INTERVAL", every: 3, period: "DAYS", description: "every 3 days" } });
    const id = created.body.data.scheduleTask.id;
    const bad = await gql(`mutation($s: ScheduleInput!) { scheduleTask(name: "gql", task: "generate_correlations", schedule: $s) { id } }`, { s: { type: "INTERVAL", every: 0 } });
    expect(bad.body.errors[0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    const paused = await gql(`mutation($id: String!) { updateScheduledTask(id: $id, enabled: false) { enabled dueAt } }`, { id });
    expect(paused.body.data.updateScheduledTask).toEqual({ enabled: false, dueAt: null });
    const run = await gql(`mutation($id: String!) { runScheduledTask(id: $id) { id status trigger } }`, { id });
    expect(run.body.data.runScheduledTask).toMatchObject({ status: "QUEUED", trigger: "manual" });
    const done = await finished(scheduler, run.body.data.runScheduledTask.id);
    const read = await gql(`query($id: String!) { taskRun(id: $id) { status attempts result } }`, { id: done.id });
    expect(read.body.data.taskRun).toMatchObject({ status: "SUCCEEDED", attempts: 1 });
    const foreign = await gql(`query($id: String!) { scheduledTask(id: $id) { id } }`, { id }, otherOrgAdmin.token);
    expect(foreign.body.errors[0].extensions.code).toBe("not_found");
    expect((await gql(`mutation($id: String!) { deleteScheduledTask(id: $id) }`, { id })).body.data.deleteScheduledTask).toBe(true);
  });
});

describe("instance-wide tasks need admin-level scopes (issue 20, finding 5)", () => {
  it("an org admin cannot schedule generate_correlations (correlations:admin) nor enforce_retention (settings:update); nothing stored", async () => {
    const orgAdmin = await createUser(app, admin, 2);
    const before = (await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n;
    for (const [task, scope] of [["generate_correlations", "correlations:admin"], ["enforce_retention", "settings:update"]]) {
      const res = await app.http.post("/tasks/schedule", { token: orgAdmin.token, json: hourly(task) });
      expect(res.status, task).toBe(403);
      expect(res.body.detail).toContain(scope);
    }
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n).toBe(before);
    const registered = await app.http.get("/tasks/registered", { token: orgAdmin.token });
    expect(registered.body).toContainEqual(expect.objectContaining({ name: "generate_correlations", required_scopes: ["correlations:create", "correlations:admin"] }));
  });
});

describe("targets are checked when scheduled, on run now and when each run starts (issue 20, finding 1)", () => {
  let orgA: number;
  let adminA: TestUser; // role 2 of A: tasks:* and hunts:*
  let adminB: TestUser; // role 2 of B
  let huntOfA: number;

  const runHunt = (huntId: number, kwargs: Record<string, unknown> = {}) => hourly("run_hunt", { name: "hunt", kwargs: { hunt_id: huntId, ...kwargs } });
  async function hunt(owner: TestUser): Promise<number> {
    const res = await app.http.post("/hunts/", { token: owner.token, json: { name: "ip hunt", hunt_type: "search", query: "type:ip-dst" } });
    expect(res.status, res.text).toBe(201);
    return res.body.id;
  }
  const huntRuns = async (id: number) => (await q("SELECT count(*)::int AS n FROM hunt_runs WHERE hunt_id = $1", [id])).rows[0].n as number;

  beforeAll(async () => {
    orgA = await createOrganisation(app, admin);
    adminA = await createUser(app, admin, 2, orgA);
    adminB = await createUser(app, admin, 2, await createOrganisation(app, admin));
    huntOfA = await hunt(adminA);
  });

  it("B's org admin cannot schedule run_hunt with A's hunt, nor point a schedule of theirs at it (REST and GraphQL); nothing stored", async () => {
    const before = (await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n;
    const res = await app.http.post("/tasks/schedule", { token: adminB.token, json: runHunt(huntOfA) });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(["body", "kwargs", "hunt_id"]);
    const gql = await app.http.graphql(
      `mutation($k: JSON, $s: ScheduleInput!) { scheduleTask(name: "x", task: "run_hunt", kwargs: $k, schedule: $s) { id } }`,
      { k: { hunt_id: huntOfA }, s: { type: "INTERVAL", every: 1, period: "HOURS" } },
      adminB.token,
    );
    expect(gql.body.errors![0].extensions).toMatchObject({ code: "validation_error", status: 422 });
    expect(JSON.stringify(gql.body.errors![0].extensions), "refused for the hunt, not for the schedule").toContain("hunt_id");
    expect((await q("SELECT count(*)::int AS n FROM scheduled_tasks")).rows[0].n).toBe(before);
    const own = await schedule(adminB, runHunt(await hunt(adminB)));
    const patched = await app.http.patch(`/tasks/scheduled/${own.id}`, { token: adminB.token, json: { kwargs: { hunt_id: huntOfA } } });
    expect(patched.status).toBe(422);
    expect((await q("SELECT kwargs FROM scheduled_tasks WHERE id = $1", [own.id])).rows[0].kwargs.hunt_id).not.toBe(huntOfA);
  });

  it("a hunt that moved out of the owner's reach: run now is refused, and the next scheduled run fails with the reason without running it", async () => {
    const huntId = await hunt(adminA);
    const t = await schedule(adminA, runHunt(huntId));
    expect(await fireOnce(t.id)).toMatchObject({ status: "succeeded", run_as_user_id: adminA.id });
    const ranBefore = await huntRuns(huntId);
    // The hunt now belongs to someone else (an ownership change, as an administrator's repair would make).
    const other = await createUser(app, admin, 3, orgA);
    await q("UPDATE hunts SET user_id = $2 WHERE id = $1", [huntId, other.id]);
    const runNow = await app.http.post(`/tasks/scheduled/${t.id}/run`, { token: adminA.token });
    expect(runNow.status, runNow.text).toBe(422);
    expect(runNow.body.detail[0].loc).toEqual(["kwargs", "hunt_id"]);
    const failed = await fireOnce(t.id);
    expect(failed).toMatchObject({ status: "failed", last_error: expect.stringContaining("target is not available") });
    expect(failed.last_error).toContain("hunt_id");
    expect(await huntRuns(huntId)).toBe(ranBefore);
  });

  it("an administrator's schedule of another user's hunt fails its next run once they are no longer administrator", async () => {
    const second = await createUser(app, admin, 1, orgA);
    const huntId = await hunt(adminA);
    const t = await schedule(second, runHunt(huntId));
    expect(await fireOnce(t.id)).toMatchObject({ status: "succeeded" });
    expect((await app.http.patch(`/users/${second.id}`, { token: admin.token, json: { role_id: 2 } })).status).toBe(200);
    const ranBefore = await huntRuns(huntId);
    expect(await fireOnce(t.id)).toMatchObject({ status: "failed", last_error: expect.stringContaining("target is not available") });
    expect(await huntRuns(huntId)).toBe(ranBefore);
  });

  it("kwargs.user_id never makes a run act as another user: naming anyone but the owner is refused, and a stored one is ignored", async () => {
    const huntId = await hunt(adminA);
    const other = await createUser(app, admin, 2, orgA);
    const refused = await app.http.post("/tasks/schedule", { token: adminA.token, json: runHunt(huntId, { user_id: other.id }) });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(["body", "kwargs", "user_id"]);
    const t = await schedule(adminA, runHunt(huntId, { user_id: adminA.id }));
    const patched = await app.http.patch(`/tasks/scheduled/${t.id}`, { token: adminA.token, json: { kwargs: { hunt_id: huntId, user_id: other.id } } });
    expect(patched.status).toBe(422);
    // A row written before this rule (or by hand) naming another user: the run still acts as the owner.
    await q("UPDATE scheduled_tasks SET kwargs = jsonb_set(kwargs, '{user_id}', to_jsonb($2::int)) WHERE id = $1", [t.id, other.id]);
    const run = await fireOnce(t.id);
    expect(run).toMatchObject({ status: "succeeded", run_as_user_id: adminA.id });
    expect((await q("SELECT count(*)::int AS n FROM hunt_runs WHERE task_run_id = $1", [run.id])).rows[0].n).toBe(1);
  });
});
