import type { Sql } from "../../platform/db/transaction.ts";
import type { Prisma, ScheduledTask, TaskRun } from "../../generated/prisma/client.ts";
import type { Schedule } from "./schedule.ts";

/** Every SQL statement of scheduled tasks and task runs. */

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "cancelled";
export type RunTrigger = "schedule" | "manual";

export interface ScheduledTaskRow {
  id: string;
  name: string;
  task: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  schedule: Schedule;
  enabled: boolean;
  ownerId: number | null;
  grantScopes: string[];
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  totalRunCount: number;
  lastRunId: string | null;
  lastRunStatus: RunStatus | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface TaskRunRow {
  id: string;
  scheduledTaskId: string | null;
  task: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  trigger: RunTrigger;
  status: RunStatus;
  attempts: number;
  maxAttempts: number;
  lastError: string | null;
  result: Record<string, unknown> | null;
  progress: Record<string, unknown> | null;
  runAsUserId: number | null;
  grantScopes: string[];
  jobId: string | null;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

const TASK_COLUMNS = `t.id::text, t.name, t.task, t.args, t.kwargs, t.schedule_type, t.interval_every, t.interval_period,
  t.cron_minute, t.cron_hour, t.cron_day_of_week, t.cron_day_of_month, t.cron_month_of_year, t.timezone, t.enabled,
  t.owner_id, t.grant_scopes, t.next_run_at, t.last_run_at, t.total_run_count, t.last_run_id::text, t.created_at, t.updated_at,
  (SELECT r.status FROM task_runs r WHERE r.id = t.last_run_id) AS last_run_status`;

const RUN_COLUMNS = `id::text, scheduled_task_id::text, task, args, kwargs, trigger, status, attempts, max_attempts, last_error, result,
  progress, run_as_user_id, grant_scopes, job_id::text, queued_at, started_at, finished_at`;

type Raw = Record<string, unknown>;

function toSchedule(r: Raw): Schedule {
  if (r.schedule_type === "interval") {
    return { type: "interval", every: r.interval_every as number, period: r.interval_period as Extract<Schedule, { type: "interval" }>["period"] };
  }
  return {
    type: "crontab",
    minute: r.cron_minute as string,
    hour: r.cron_hour as string,
    day_of_week: r.cron_day_of_week as string,
    day_of_month: r.cron_day_of_month as string,
    month_of_year: r.cron_month_of_year as string,
    timezone: (r.timezone as string | null) ?? null,
  };
}

/** A scheduled task's schedule from its Prisma record's columns. */
export function scheduleOfRecord(t: Pick<ScheduledTask, "scheduleType" | "intervalEvery" | "intervalPeriod" | "cronMinute" | "cronHour" | "cronDayOfWeek" | "cronDayOfMonth" | "cronMonthOfYear" | "timezone">): Schedule {
  return toSchedule({
    schedule_type: t.scheduleType,
    interval_every: t.intervalEvery,
    interval_period: t.intervalPeriod,
    cron_minute: t.cronMinute,
    cron_hour: t.cronHour,
    cron_day_of_week: t.cronDayOfWeek,
    cron_day_of_month: t.cronDayOfMonth,
    cron_month_of_year: t.cronMonthOfYear,
    timezone: t.timezone,
  });
}

/** A run as its Prisma record (what GraphQL's TaskRun reads): the row a write returned, as it was then. */
export function taskRunRecord(r: TaskRunRow): TaskRun {
  return { ...r, args: r.args as Prisma.JsonArray, kwargs: r.kwargs as Prisma.JsonObject, result: r.result as Prisma.JsonObject | null, progress: r.progress as Prisma.JsonObject | null, jobId: r.jobId === null ? null : BigInt(r.jobId) };
}

function toTask(r: Raw): ScheduledTaskRow {
  return {
    id: r.id as string,
    name: r.name as string,
    task: r.task as string,
    args: r.args as unknown[],
    kwargs: r.kwargs as Record<string, unknown>,
    schedule: toSchedule(r),
    enabled: r.enabled as boolean,
    ownerId: r.owner_id as number | null,
    grantScopes: (r.grant_scopes as string[] | null) ?? [],
    nextRunAt: r.next_run_at as Date | null,
    lastRunAt: r.last_run_at as Date | null,
    totalRunCount: r.total_run_count as number,
    lastRunId: r.last_run_id as string | null,
    lastRunStatus: r.last_run_status as RunStatus | null,
    createdAt: r.created_at as Date,
    updatedAt: r.updated_at as Date,
  };
}

function toRun(r: Raw): TaskRunRow {
  return {
    id: r.id as string,
    scheduledTaskId: r.scheduled_task_id as string | null,
    task: r.task as string,
    args: r.args as unknown[],
    kwargs: r.kwargs as Record<string, unknown>,
    trigger: r.trigger as RunTrigger,
    status: r.status as RunStatus,
    attempts: r.attempts as number,
    maxAttempts: r.max_attempts as number,
    lastError: r.last_error as string | null,
    result: r.result as Record<string, unknown> | null,
    progress: r.progress as Record<string, unknown> | null,
    runAsUserId: r.run_as_user_id as number | null,
    grantScopes: (r.grant_scopes as string[] | null) ?? [],
    jobId: r.job_id as string | null,
    queuedAt: r.queued_at as Date,
    startedAt: r.started_at as Date | null,
    finishedAt: r.finished_at as Date | null,
  };
}

function scheduleColumns(s: Schedule): unknown[] {
  return s.type === "interval"
    ? ["interval", s.every, s.period, null, null, null, null, null, null]
    : ["crontab", null, null, s.minute, s.hour, s.day_of_week, s.day_of_month, s.month_of_year, s.timezone];
}

export interface NewScheduledTask {
  name: string;
  task: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  schedule: Schedule;
  enabled: boolean;
  ownerId: number;
  grantScopes: string[];
  nextRunAt: Date | null;
}

export async function insertScheduledTask(sql: Sql, t: NewScheduledTask): Promise<ScheduledTaskRow> {
  const { rows } = await sql.query<{ id: string }>(
    `INSERT INTO scheduled_tasks (name, task, args, kwargs, schedule_type, interval_every, interval_period, cron_minute, cron_hour,
       cron_day_of_week, cron_day_of_month, cron_month_of_year, timezone, enabled, owner_id, grant_scopes, next_run_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id::text`,
    [t.name, t.task, JSON.stringify(t.args), JSON.stringify(t.kwargs), ...scheduleColumns(t.schedule), t.enabled, t.ownerId, t.grantScopes, t.nextRunAt],
  );
  return (await findScheduledTask(sql, rows[0].id))!;
}

export async function findScheduledTask(sql: Sql, id: string, forUpdate = false): Promise<ScheduledTaskRow | null> {
  const { rows } = await sql.query(`SELECT ${TASK_COLUMNS} FROM scheduled_tasks t WHERE t.id = $1${forUpdate ? " FOR UPDATE OF t" : ""}`, [id]);
  return rows[0] ? toTask(rows[0]) : null;
}

/** Newest first; `ownerId` null lists everyone's. */
export async function listScheduledTasks(sql: Sql, ownerId: number | null, skip: number, limit: number): Promise<ScheduledTaskRow[]> {
  const { rows } = await sql.query(
    `SELECT ${TASK_COLUMNS} FROM scheduled_tasks t WHERE ($1::int IS NULL OR t.owner_id = $1) ORDER BY t.created_at DESC, t.id LIMIT $2 OFFSET $3`,
    [ownerId, limit, skip],
  );
  return rows.map(toTask);
}

/** What an update may change (the task, owner and grant stay as created). */
export type ScheduledTaskChanges = Omit<NewScheduledTask, "task" | "ownerId" | "grantScopes">;

export async function updateScheduledTask(sql: Sql, id: string, c: ScheduledTaskChanges): Promise<ScheduledTaskRow> {
  await sql.query(
    `UPDATE scheduled_tasks SET name = $2, args = $3, kwargs = $4, schedule_type = $5, interval_every = $6, interval_period = $7,
       cron_minute = $8, cron_hour = $9, cron_day_of_week = $10, cron_day_of_month = $11, cron_month_of_year = $12, timezone = $13,
       enabled = $14, next_run_at = $15, updated_at = now() WHERE id = $1`,
    [id, c.name, JSON.stringify(c.args), JSON.stringify(c.kwargs), ...scheduleColumns(c.schedule), c.enabled, c.nextRunAt],
  );
  return (await findScheduledTask(sql, id))!;
}

export async function deleteScheduledTask(sql: Sql, id: string): Promise<void> {
  await sql.query("DELETE FROM scheduled_tasks WHERE id = $1", [id]);
}

/** Due schedules, locked so that concurrent ticks (several workers) never take the same one. */
export async function lockDueScheduledTasks(sql: Sql, limit: number): Promise<ScheduledTaskRow[]> {
  const { rows } = await sql.query(
    `SELECT ${TASK_COLUMNS} FROM scheduled_tasks t WHERE t.enabled AND t.next_run_at <= now()
      ORDER BY t.next_run_at LIMIT $1 FOR UPDATE OF t SKIP LOCKED`,
    [limit],
  );
  return rows.map(toTask);
}

export async function markScheduleFired(sql: Sql, id: string, runId: string | null, nextRunAt: Date | null): Promise<void> {
  await sql.query(
    `UPDATE scheduled_tasks SET next_run_at = $3,
       last_run_at = CASE WHEN $2::uuid IS NULL THEN last_run_at ELSE now() END,
       total_run_count = total_run_count + CASE WHEN $2::uuid IS NULL THEN 0 ELSE 1 END,
       last_run_id = COALESCE($2::uuid, last_run_id) WHERE id = $1`,
    [id, runId, nextRunAt],
  );
}

/**
 * When the tick for the earliest enabled schedule should run, if that schedule is due within
 * `withinSeconds` (null otherwise). One still due now is one another transaction holds (a tick on
 * another worker, an update): a second later, rather than at once, which would spin.
 */
export async function nextTickAt(sql: Sql, withinSeconds: number): Promise<Date | null> {
  const { rows } = await sql.query<{ at: Date }>(
    `SELECT CASE WHEN s.due > now() THEN s.due ELSE now() + interval '1 second' END AS at
       FROM (SELECT min(next_run_at) AS due FROM scheduled_tasks WHERE enabled) s
      WHERE s.due < now() + make_interval(secs => $1)`,
    [withinSeconds],
  );
  return rows[0]?.at ?? null;
}

export interface NewTaskRun {
  scheduledTaskId: string | null;
  task: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
  trigger: RunTrigger;
  maxAttempts: number;
  runAsUserId: number | null;
  grantScopes: string[];
}

export async function insertTaskRun(sql: Sql, r: NewTaskRun): Promise<TaskRunRow> {
  const { rows } = await sql.query(
    `INSERT INTO task_runs (scheduled_task_id, task, args, kwargs, trigger, max_attempts, run_as_user_id, grant_scopes)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${RUN_COLUMNS}`,
    [r.scheduledTaskId, r.task, JSON.stringify(r.args), JSON.stringify(r.kwargs), r.trigger, r.maxAttempts, r.runAsUserId, r.grantScopes],
  );
  return toRun(rows[0]);
}

export async function setRunJob(sql: Sql, runId: string, jobId: string): Promise<void> {
  await sql.query("UPDATE task_runs SET job_id = $2 WHERE id = $1", [runId, jobId]);
}

export async function findTaskRun(sql: Sql, id: string): Promise<TaskRunRow | null> {
  const { rows } = await sql.query(`SELECT ${RUN_COLUMNS} FROM task_runs WHERE id = $1`, [id]);
  return rows[0] ? toRun(rows[0]) : null;
}

export interface RunFilter {
  /** Runs a user may see: run as them or of their schedules (null: all). */
  userId: number | null;
  scheduledTaskId?: string;
  statuses?: RunStatus[];
}

export async function listTaskRuns(sql: Sql, f: RunFilter, offset: number, limit: number): Promise<TaskRunRow[]> {
  const { rows } = await sql.query(
    `SELECT ${RUN_COLUMNS} FROM task_runs
      WHERE ($1::int IS NULL OR run_as_user_id = $1
             OR EXISTS (SELECT 1 FROM scheduled_tasks t WHERE t.id = task_runs.scheduled_task_id AND t.owner_id = $1)) AND ($2::uuid IS NULL OR scheduled_task_id = $2) AND ($3::text[] IS NULL OR status = ANY($3))
      ORDER BY queued_at DESC, id LIMIT $4 OFFSET $5`,
    [f.userId, f.scheduledTaskId ?? null, f.statuses ?? null, limit, offset],
  );
  return rows.map(toRun);
}

/** Claims a run for an attempt; null when it is already finished (a duplicate or late job). */
export async function startRunAttempt(sql: Sql, id: string, attempt: number): Promise<TaskRunRow | null> {
  const { rows } = await sql.query(
    `UPDATE task_runs SET status = 'running', attempts = GREATEST(attempts, $2), started_at = COALESCE(started_at, now())
      WHERE id = $1 AND status IN ('queued', 'running') RETURNING ${RUN_COLUMNS}`,
    [id, attempt],
  );
  return rows[0] ? toRun(rows[0]) : null;
}

export async function saveRunProgress(sql: Sql, id: string, progress: Record<string, unknown>): Promise<void> {
  await sql.query("UPDATE task_runs SET progress = $2 WHERE id = $1", [id, JSON.stringify(progress)]);
}

export async function finishRun(sql: Sql, id: string, status: "succeeded" | "failed", result: Record<string, unknown> | null, error: string | null): Promise<void> {
  await sql.query("UPDATE task_runs SET status = $2, result = $3, last_error = COALESCE($4, last_error), finished_at = now() WHERE id = $1", [
    id,
    status,
    result === null ? null : JSON.stringify(result),
    error,
  ]);
}

/** A failed attempt that graphile-worker will retry. */
export async function requeueRun(sql: Sql, id: string, error: string): Promise<void> {
  await sql.query("UPDATE task_runs SET status = 'queued', last_error = $2 WHERE id = $1", [id, error]);
}

/**
 * A run that a command executes itself, not the worker (`npm run reindex`): recorded as running,
 * with no job, so operators follow its progress like any other run (GET /tasks/{run_id}).
 */
export async function startCommandRun(sql: Sql, task: string, kwargs: Record<string, unknown>): Promise<TaskRunRow> {
  const { rows } = await sql.query(
    `INSERT INTO task_runs (task, kwargs, trigger, status, attempts, max_attempts, grant_scopes, started_at)
     VALUES ($1, $2, 'manual', 'running', 1, 1, '{}', now()) RETURNING ${RUN_COLUMNS}`,
    [task, JSON.stringify(kwargs)],
  );
  return toRun(rows[0]);
}

/**
 * The latest command run of `task` with these kwargs when it did not succeed: still `running` (its
 * process was killed) or `failed`. Its progress says where to resume; it is running again once returned.
 */
export async function resumeCommandRun(sql: Sql, task: string, kwargs: Record<string, unknown>): Promise<TaskRunRow | null> {
  const { rows } = await sql.query(
    `UPDATE task_runs SET status = 'running', attempts = attempts + 1, max_attempts = attempts + 1, finished_at = NULL
      WHERE id = (SELECT id FROM task_runs WHERE task = $1 AND kwargs = $2::jsonb AND job_id IS NULL ORDER BY queued_at DESC LIMIT 1)
        AND status IN ('running', 'failed')
      RETURNING ${RUN_COLUMNS}`,
    [task, JSON.stringify(kwargs)],
  );
  return rows[0] ? toRun(rows[0]) : null;
}
