import { z } from "zod";
import { CRON_FIELDS, PERIOD_SECONDS, describeSchedule, intervalSeconds, type CronField, type Schedule } from "../../src/modules/tasks/index.ts";
import { pickCron } from "../../src/modules/tasks/index.ts";
import { taskFullName } from "../../src/modules/tasks/index.ts";
import type { ScheduledTaskRow, TaskRunRow } from "../../src/modules/tasks/index.ts";
import { CRON_DOC, REGISTERED_TASK_DOC as RT, SCHEDULED_TASK_DOC as ST, SCHEDULE_DOC as SD, TASK_DOC, TASK_RUN_DOC as R, TASK_TYPES_DOC } from "../../src/modules/tasks/index.ts";
import { named, nullableTimestamp, timestamp } from "../contract.ts";

const periods = Object.keys(PERIOD_SECONDS) as [keyof typeof PERIOD_SECONDS, ...(keyof typeof PERIOD_SECONDS)[]];
const period = z.enum(periods).describe(SD.period);
const cronFieldsOut = Object.fromEntries(CRON_FIELDS.map((f) => [f, z.string().describe(CRON_DOC[f])])) as Record<CronField, z.ZodString>;

const runStatus = z.enum(["queued", "running", "succeeded", "failed", "cancelled"]).describe(R.status);
const taskArgs = z.array(z.unknown()).describe(TASK_DOC.args);
const taskKwargs = z.record(z.string(), z.unknown()).describe(TASK_DOC.kwargs);
const taskName = z.string().describe(TASK_DOC.task);
const taskFullNameField = z.string().describe(TASK_DOC.taskName);
const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

/** The peer's `schedule` object as answers show it, plus the period the interval was given in. */
export const ScheduleSchema = named(
  "Schedule",
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("interval"),
      every: z.int().describe("The interval in seconds"),
      period_every: z.int().describe(SD.every),
      period,
    }),
    z.object({ type: z.literal("crontab"), ...cronFieldsOut, timezone: z.string().describe(SD.timezone) }),
  ]),
  `${TASK_TYPES_DOC.Schedule}: every N seconds (with period_every in the period it was given in), or a crontab`,
);

export function scheduleSchemaOut(s: Schedule): z.output<typeof ScheduleSchema> {
  return s.type === "interval"
    ? { type: "interval", every: intervalSeconds(s), period_every: s.every, period: s.period }
    : { type: "crontab", ...pickCron(s), timezone: s.timezone ?? "UTC" };
}

export const TaskRunSchema = named(
  "TaskRun",
  z.object({
    id: z.uuid().describe(R.id),
    task_id: z.uuid().describe("The run's id again (the peer's name for it)"),
    scheduled_task_id: z.uuid().nullable().describe(R.scheduledTaskId),
    task: taskName,
    task_name: taskFullNameField,
    args: taskArgs,
    kwargs: taskKwargs,
    trigger: z.enum(["schedule", "manual"]).describe(R.trigger),
    status: runStatus,
    attempts: z.int().min(0).describe(R.attempts),
    max_attempts: z.int().min(1).describe(R.maxAttempts),
    last_error: z.string().nullable().describe(R.lastError),
    result: z.record(z.string(), z.unknown()).nullable().describe(R.result),
    progress: z.record(z.string(), z.unknown()).nullable().describe(R.progress),
    run_as_user_id: z.int().nullable().describe(R.runAsUserId),
    job_id: z.string().nullable().describe(R.jobId),
    queued_at: timestamp.describe(R.queuedAt),
    started_at: nullableTimestamp.describe(R.startedAt),
    finished_at: nullableTimestamp.describe(R.finishedAt),
  }),
  TASK_TYPES_DOC.TaskRun,
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
    id: z.uuid().describe(ST.id),
    scheduled_task_name: z.uuid().describe("The id again (the peer's name for it)"),
    name: z.string().describe(ST.name),
    task: taskName,
    task_name: taskFullNameField,
    args: taskArgs,
    kwargs: taskKwargs,
    params: z.object({ args: taskArgs, kwargs: taskKwargs }).describe("args and kwargs again, as the peer groups them"),
    schedule_type: z.enum(["interval", "crontab"]),
    interval: z.object({ every: z.int().describe(SD.every), period }).nullable().describe("The interval as given; null for a crontab"),
    crontab: z
      .object({ ...cronFieldsOut, timezone: z.string().nullable().describe(`${SD.timezone}; null: UTC`) })
      .nullable()
      .describe("The crontab; null for an interval"),
    schedule: ScheduleSchema,
    schedule_description: z.string().describe(SD.description),
    enabled: z.boolean().describe(ST.enabled),
    status: z.enum(["scheduled", "paused"]),
    due_at: nullableTimestamp.describe(ST.nextRunAt),
    last_run_at: nullableTimestamp.describe(ST.lastRunAt),
    total_run_count: z.int().min(0).describe(ST.totalRunCount),
    last_run: z.object({ id: z.uuid().describe(ST.lastRunId), status: runStatus.nullable().describe(ST.lastRunStatus) }).nullable().describe(ST.lastRun),
    owner_id: z.int().nullable().describe(ST.ownerId),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  TASK_TYPES_DOC.ScheduledTask,
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
    description: z.string().describe(RT.description),
    required_scopes: z.array(z.string()).describe(RT.requiredScopes),
  }),
  TASK_TYPES_DOC.RegisteredTask,
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
