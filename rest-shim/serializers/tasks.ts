import { z } from "zod";
import { CRON_FIELDS, PERIOD_SECONDS, describeSchedule, intervalSeconds, type CronField, type Schedule } from "../../src/modules/tasks/index.ts";
import { pickCron } from "../../src/modules/tasks/index.ts";
import { taskFullName } from "../../src/modules/tasks/index.ts";
import type { ScheduledTaskRow, TaskRunRow } from "../../src/modules/tasks/index.ts";
import { named, nullableTimestamp, timestamp } from "../contract.ts";

const periods = Object.keys(PERIOD_SECONDS) as [keyof typeof PERIOD_SECONDS, ...(keyof typeof PERIOD_SECONDS)[]];
const period = z.enum(periods).describe("The unit the interval was given in");
const cronField = z.string().describe("A cron field (`*` for any)");
const cronFieldsOut = Object.fromEntries(CRON_FIELDS.map((f) => [f, cronField])) as Record<CronField, typeof cronField>;

const runStatus = z.enum(["queued", "running", "succeeded", "failed", "cancelled"]);
const taskArgs = z.array(z.unknown()).describe("Positional arguments given to the task: free-form, each task reads its own");
const taskKwargs = z.record(z.string(), z.unknown()).describe("Keyword arguments given to the task: free-form, each task reads its own");
const taskName = z.string().describe("The task's short name (e.g. enforce_retention)");
const taskFullNameField = z.string().describe("The task's full name, as the peer writes it (app.worker.tasks.<name>)");
const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/** The peer's `schedule` object as answers show it, plus the period the interval was given in. */
export const ScheduleSchema = named(
  "Schedule",
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("interval"),
      every: z.int().describe("The interval in seconds"),
      period_every: z.int().describe("The interval in its own unit (`period`)"),
      period,
    }),
    z.object({ type: z.literal("crontab"), ...cronFieldsOut, timezone: z.string().describe("IANA time zone the crontab is read in (UTC unless given)") }),
  ]),
  "When a task runs: every N seconds, or a crontab",
);

export function scheduleSchemaOut(s: Schedule): z.output<typeof ScheduleSchema> {
  return s.type === "interval"
    ? { type: "interval", every: intervalSeconds(s), period_every: s.every, period: s.period }
    : { type: "crontab", ...pickCron(s), timezone: s.timezone ?? "UTC" };
}

export const TaskRunSchema = named(
  "TaskRun",
  z.object({
    id: z.uuid().describe("The run's id"),
    task_id: z.uuid().describe("The run's id again (the peer's name for it)"),
    scheduled_task_id: z.uuid().nullable().describe("The scheduled task that started it; null for a one-off run (a feed fetch, an upload's ingestion)"),
    task: taskName,
    task_name: taskFullNameField,
    args: taskArgs,
    kwargs: taskKwargs,
    trigger: z.enum(["schedule", "manual"]).describe("schedule: started by its schedule; manual: run now by someone"),
    status: runStatus,
    attempts: z.int().min(0),
    max_attempts: z.int().min(1),
    last_error: z.string().nullable().describe("Why the last attempt failed; null when none failed"),
    result: z.record(z.string(), z.unknown()).nullable().describe("What the task answered when it succeeded (its own counts); null before"),
    progress: z.record(z.string(), z.unknown()).nullable().describe("What the task reported while running (its own counters); null before it reports"),
    run_as_user_id: z.int().nullable().describe("The user whose rights the run has; null for a system run"),
    job_id: z.string().nullable().describe("The job queue's id for the run; null once the job is gone"),
    queued_at: timestamp,
    started_at: nullableTimestamp,
    finished_at: nullableTimestamp,
  }),
  "One run of a task: its status, attempts, progress and result",
);
export type TaskRunOut = z.output<typeof TaskRunSchema>;

export function taskRunOut(r: TaskRunRow): TaskRunOut {
  return {
    id: r.id,
    task_id: r.id,
    scheduled_task_id: r.scheduledTaskId,
    task: r.task,
    task_name: taskFullName(r.task),
    args: r.args,
    kwargs: r.kwargs,
    trigger: r.trigger,
    status: r.status,
    attempts: r.attempts,
    max_attempts: r.maxAttempts,
    last_error: r.lastError,
    result: r.result,
    progress: r.progress,
    run_as_user_id: r.runAsUserId,
    job_id: r.jobId,
    queued_at: iso(r.queuedAt),
    started_at: isoOrNull(r.startedAt),
    finished_at: isoOrNull(r.finishedAt),
  };
}

export const ScheduledTaskSchema = named(
  "ScheduledTask",
  z.object({
    id: z.uuid(),
    scheduled_task_name: z.uuid().describe("The id again (the peer's name for it)"),
    name: z.string(),
    task: taskName,
    task_name: taskFullNameField,
    args: taskArgs,
    kwargs: taskKwargs,
    params: z.object({ args: taskArgs, kwargs: taskKwargs }).describe("args and kwargs again, as the peer groups them"),
    schedule_type: z.enum(["interval", "crontab"]),
    interval: z.object({ every: z.int(), period }).nullable().describe("The interval as given; null for a crontab"),
    crontab: z
      .object({ ...cronFieldsOut, timezone: z.string().nullable().describe("IANA time zone; null: UTC") })
      .nullable()
      .describe("The crontab; null for an interval"),
    schedule: ScheduleSchema,
    schedule_description: z.string().describe("The schedule in words"),
    enabled: z.boolean().describe("false: paused"),
    status: z.enum(["scheduled", "paused"]),
    due_at: nullableTimestamp.describe("When it runs next; null while paused"),
    last_run_at: nullableTimestamp.describe("When it last started a run; null if never"),
    total_run_count: z.int().min(0),
    last_run: z.object({ id: z.uuid(), status: runStatus.nullable() }).nullable().describe("Its latest run; null if never run"),
    owner_id: z.int().nullable().describe("Who scheduled it (its runs have this user's rights); null for a system task"),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  "A task run on a schedule",
);

export function scheduledTaskOut(t: ScheduledTaskRow): z.output<typeof ScheduledTaskSchema> {
  return {
    id: t.id,
    scheduled_task_name: t.id,
    name: t.name,
    task: t.task,
    task_name: taskFullName(t.task),
    args: t.args,
    kwargs: t.kwargs,
    params: { args: t.args, kwargs: t.kwargs },
    schedule_type: t.schedule.type,
    interval: t.schedule.type === "interval" ? { every: t.schedule.every, period: t.schedule.period } : null,
    crontab: t.schedule.type === "crontab" ? { ...pickCron(t.schedule), timezone: t.schedule.timezone } : null,
    schedule: scheduleSchemaOut(t.schedule),
    schedule_description: describeSchedule(t.schedule),
    enabled: t.enabled,
    status: t.enabled ? "scheduled" : "paused",
    due_at: isoOrNull(t.nextRunAt),
    last_run_at: isoOrNull(t.lastRunAt),
    total_run_count: t.totalRunCount,
    last_run: t.lastRunId ? { id: t.lastRunId, status: t.lastRunStatus } : null,
    owner_id: t.ownerId,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

export const RegisteredTaskSchema = named(
  "RegisteredTask",
  z.object({
    name: taskName,
    task_name: taskFullNameField,
    description: z.string(),
    required_scopes: z.array(z.string()).describe("Scopes needed to schedule or run it"),
  }),
  "A task that can be scheduled",
);

export const TaskRunQueuedSchema = named(
  "TaskRunQueued",
  z.object({
    task_id: z.uuid().describe("The run's id: GET /tasks/{task_id} shows its status"),
    job_id: z.string().nullable(),
    status: runStatus,
    message: z.string(),
    run: TaskRunSchema,
  }),
  "A run queued now",
);

export const TaskRunMapSchema = named(
  "TaskRunMap",
  z.record(z.string(), TaskRunSchema).describe("Runs keyed by their id"),
  "Task runs keyed by run id",
);

export const TaskRunListSchema = named(
  "TaskRunList",
  z.object({
    items: TaskRunMapSchema,
    limit: z.int().min(1),
    offset: z.int().min(0),
    has_more: z.boolean().describe("More runs follow this window"),
  }),
  "A window of task runs, keyed by run id",
);
