import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { errors } from "../../platform/errors.ts";
import { CRON_FIELDS, PERIOD_SECONDS, describeSchedule, type Schedule } from "./schedule.ts";
import { taskFullName } from "./task-registry.ts";
import type { ScheduledTaskRow, TaskRunRow } from "./task-store.ts";

const Period = builder.enumType("SchedulePeriod", {
  description: "The unit of an interval schedule's every",
  values: enumValues<keyof typeof PERIOD_SECONDS>({ seconds: "Seconds", minutes: "Minutes", hours: "Hours", days: "Days", weeks: "Weeks (7 days)" }),
});
const ScheduleKind = builder.enumType("ScheduleType", {
  description: "How a schedule is given (REST schedule_type)",
  values: enumValues<Schedule["type"]>({ interval: "Every N periods", crontab: "Cron fields in a timezone" }),
});
const RunStatus = builder.enumType("TaskRunStatus", {
  description: "A task run's state",
  values: enumValues<TaskRunRow["status"]>({
    queued: "Waiting for a worker",
    running: "Being run (an attempt is under way or will be retried)",
    succeeded: "Finished successfully: result holds what it did",
    failed: "Finished with an error: lastError says why",
    cancelled: "Stopped before it finished",
  }),
});

const CRON_DOC: Record<(typeof CRON_FIELDS)[number], string> = {
  minute: "Cron minute field (0-59, *, lists, ranges, steps)",
  hour: "Cron hour field (0-23)",
  day_of_week: "Cron day-of-week field (0-6, Sunday 0) (REST day_of_week)",
  day_of_month: "Cron day-of-month field (1-31) (REST day_of_month)",
  month_of_year: "Cron month field (1-12) (REST month_of_year)",
};
const SCHEDULE_DOC = {
  every: "Interval schedules: how many periods between runs (at most ten years in all)",
  period: "Interval schedules: the unit of every",
  timezone: "Crontab schedules: the IANA timezone the fields are read in (default UTC)",
} as const;

const ScheduleType = builder.objectRef<Schedule>("Schedule").implement({
  description: "When a scheduled task runs: an interval or cron fields; fields of the other kind are null",
  fields: (t) => ({
    type: t.field({ type: ScheduleKind, description: "Interval or crontab", resolve: (s) => s.type }),
    every: t.int({ nullable: true, description: SCHEDULE_DOC.every, resolve: (s) => (s.type === "interval" ? s.every : null) }),
    period: t.field({ type: Period, nullable: true, description: SCHEDULE_DOC.period, resolve: (s) => (s.type === "interval" ? s.period : null) }),
    ...Object.fromEntries(
      CRON_FIELDS.map((f) => [camel(f), t.string({ nullable: true, description: `Crontab schedules: ${CRON_DOC[f]}`, resolve: (s: Schedule) => (s.type === "crontab" ? s[f] : null) })]),
    ),
    timezone: t.string({ nullable: true, description: SCHEDULE_DOC.timezone, resolve: (s) => (s.type === "crontab" ? (s.timezone ?? "UTC") : null) }),
    description: t.string({ description: "The schedule in words (REST schedule_description)", resolve: (s) => describeSchedule(s) }),
  }),
});

const TASK_DOC = {
  task: "The registered task's short name (see registeredTasks)",
  taskName: "The task's full name as the peer names it (app.worker.tasks.<name>)",
  args: "Positional arguments of the task, a JSON array: JSON because each registered task takes its own",
  kwargs: "Keyword arguments of the task, a JSON object: JSON because each registered task takes its own",
} as const;

export const TaskRunType = builder.objectRef<TaskRunRow>("TaskRun").implement({
  description: "One run of a task: queued by a schedule, by hand or by the service",
  fields: (t) => ({
    id: t.exposeString("id", { description: "The run's id (a UUID)" }),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true, description: "The scheduled task that queued it; null for a one-off run (REST scheduled_task_id)" }),
    task: t.exposeString("task", { description: TASK_DOC.task }),
    taskName: t.string({ description: TASK_DOC.taskName, resolve: (r) => taskFullName(r.task) }),
    args: t.field({ type: "JSON", description: TASK_DOC.args, resolve: (r) => r.args }),
    kwargs: t.field({ type: "JSON", description: TASK_DOC.kwargs, resolve: (r) => r.kwargs }),
    trigger: t.exposeString("trigger", { description: "What queued it: schedule or manual" }),
    status: t.field({ type: RunStatus, description: "Its state", resolve: (r) => r.status }),
    attempts: t.exposeInt("attempts", { description: "Attempts started so far" }),
    maxAttempts: t.exposeInt("maxAttempts", { description: "Attempts allowed before it fails (REST max_attempts)" }),
    lastError: t.exposeString("lastError", { nullable: true, description: "The last attempt's error; null if none (REST last_error)" }),
    result: t.field({ type: "JSON", nullable: true, description: "What a finished run reports (counts, ids): JSON because each task reports its own; null until finished", resolve: (r) => r.result }),
    progress: t.field({ type: "JSON", nullable: true, description: "What a running task reports of its progress: JSON because each task reports its own; null if none", resolve: (r) => r.progress }),
    runAsUserId: t.exposeInt("runAsUserId", { nullable: true, description: "The user it runs as; null for a system run (REST run_as_user_id)" }),
    jobId: t.exposeString("jobId", { nullable: true, description: "The job queue's id for it; null before it is queued (REST job_id)" }),
    queuedAt: t.field({ type: "DateTime", description: "When it was queued (REST queued_at)", resolve: (r) => r.queuedAt }),
    startedAt: t.field({ type: "DateTime", nullable: true, description: "When its first attempt started; null before", resolve: (r) => r.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, description: "When it finished; null before", resolve: (r) => r.finishedAt }),
  }),
});

const TaskRunPage = pageType("TaskRunPage", TaskRunType, "task runs");

const ScheduledTaskType = builder.objectRef<ScheduledTaskRow>("ScheduledTask").implement({
  description: "A registered task run on a schedule, as its owner",
  fields: (t) => ({
    id: t.exposeString("id", { description: "The scheduled task's id (a UUID)" }),
    name: t.exposeString("name", { description: "Its name" }),
    task: t.exposeString("task", { description: TASK_DOC.task }),
    taskName: t.string({ description: TASK_DOC.taskName, resolve: (r) => taskFullName(r.task) }),
    args: t.field({ type: "JSON", description: TASK_DOC.args, resolve: (r) => r.args }),
    kwargs: t.field({ type: "JSON", description: TASK_DOC.kwargs, resolve: (r) => r.kwargs }),
    schedule: t.field({ type: ScheduleType, description: "When it runs", resolve: (r) => r.schedule }),
    enabled: t.exposeBoolean("enabled", { description: "False: paused" }),
    dueAt: t.field({ type: "DateTime", nullable: true, description: "When it runs next; null while paused (REST due_at)", resolve: (r) => r.nextRunAt }),
    lastRunAt: t.field({ type: "DateTime", nullable: true, description: "When it last ran; null if never", resolve: (r) => r.lastRunAt }),
    totalRunCount: t.exposeInt("totalRunCount", { description: "Runs queued so far (REST total_run_count)" }),
    lastRunId: t.exposeString("lastRunId", { nullable: true, description: "The last run's id; null if never run" }),
    lastRunStatus: t.field({ type: RunStatus, nullable: true, description: "The last run's state; null if never run", resolve: (r) => r.lastRunStatus }),
    ownerId: t.exposeInt("ownerId", { nullable: true, description: "The user it runs as; null for a system schedule (REST owner_id)" }),
    createdAt: t.field({ type: "DateTime", description: DOC.createdAt, resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: DOC.updatedAt, resolve: (r) => r.updatedAt }),
  }),
});

const ScheduledTaskPage = pageType("ScheduledTaskPage", ScheduledTaskType, "scheduled tasks");

const RegisteredTaskType = builder.objectRef<{ name: string; description: string; requiredScopes: readonly string[] }>("RegisteredTask").implement({
  description: "A task that can be scheduled",
  fields: (t) => ({
    name: t.exposeString("name", { description: "Its short name, as scheduleTask's task takes it" }),
    taskName: t.string({ description: TASK_DOC.taskName, resolve: (r) => taskFullName(r.name) }),
    description: t.exposeString("description", { description: "What it does" }),
    requiredScopes: t.stringList({ description: "The scopes scheduling or running it needs (REST required_scopes)", resolve: (r) => [...r.requiredScopes] }),
  }),
});

const ScheduleInput = builder.inputType("ScheduleInput", {
  description: "interval: every + period; crontab: the five fields (each defaults to *) and an optional IANA timezone (default UTC)",
  fields: (t) => ({
    type: t.field({ type: ScheduleKind, required: true, description: "Interval or crontab" }),
    every: t.int({ description: SCHEDULE_DOC.every }),
    period: t.field({ type: Period, description: `${SCHEDULE_DOC.period} (default SECONDS)` }),
    minute: t.string({ description: `Crontab: ${CRON_DOC.minute}` }),
    hour: t.string({ description: `Crontab: ${CRON_DOC.hour}` }),
    dayOfWeek: t.string({ description: `Crontab: ${CRON_DOC.day_of_week}` }),
    dayOfMonth: t.string({ description: `Crontab: ${CRON_DOC.day_of_month}` }),
    monthOfYear: t.string({ description: `Crontab: ${CRON_DOC.month_of_year}` }),
    timezone: t.string({ description: SCHEDULE_DOC.timezone }),
  }),
});

const SCHEDULED_TASK_ID = "The scheduled task's id (a UUID)";

type ScheduleArg = typeof ScheduleInput.$inferInput;

function toSchedule(s: ScheduleArg): Schedule {
  if (s.type === "interval") return { type: "interval", every: s.every ?? 0, period: s.period ?? "seconds" };
  return {
    type: "crontab",
    minute: s.minute ?? "*",
    hour: s.hour ?? "*",
    day_of_week: s.dayOfWeek ?? "*",
    day_of_month: s.dayOfMonth ?? "*",
    month_of_year: s.monthOfYear ?? "*",
    timezone: s.timezone ?? null,
  };
}

const jsonArray = (v: unknown) => (v === undefined || v === null ? undefined : (v as unknown[]));
const jsonObject = (v: unknown) => (v === undefined || v === null ? undefined : (v as Record<string, unknown>));

builder.queryFields((t) => ({
  registeredTasks: t.field({ type: [RegisteredTaskType], description: "The tasks that can be scheduled, with the scopes scheduling or running each needs", resolve: (_r, _a, ctx) => ctx.services.tasks.registered(caller(ctx)) }),
  scheduledTasks: t.field({
    extensions: cost.page("size", 50),
    type: ScheduledTaskPage,
    description: "Your scheduled tasks (administrators: everyone's), newest first (GET /tasks/scheduled, which pages with skip/limit)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx) => ctx.services.tasks.listPage(caller(ctx), checkPageSize(a, 50)),
  }),
  scheduledTask: t.field({
    type: ScheduledTaskType,
    description: "One scheduled task",
    args: { id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }) },
    resolve: (_r, a, ctx) => ctx.services.tasks.get(caller(ctx), a.id),
  }),
  taskRun: t.field({
    type: TaskRunType,
    description: "A task run's state, attempts, last error, progress and result (GET /tasks/{task_id})",
    args: { id: t.arg.string({ required: true, description: "The run's id (a UUID)" }) },
    resolve: (_r, a, ctx) => ctx.services.tasks.run(caller(ctx), a.id),
  }),
  taskRuns: t.field({
    extensions: cost.page("size", 50),
    type: TaskRunPage,
    description: "Task runs you can see, newest first (GET /tasks/, which pages with limit/offset)",
    args: {
      scheduledTaskId: t.arg.string({ description: "Only the runs of this scheduled task (REST scheduled_task_id)" }),
      status: t.arg({ type: RunStatus, description: "Only runs in this state" }),
      page: t.arg.int({ description: PAGE_DOC.page }),
      size: t.arg.int({ description: PAGE_DOC.size(50) }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.tasks.runsPage(caller(ctx), { scheduledTaskId: a.scheduledTaskId ?? undefined, statuses: a.status ? [a.status] : undefined }, checkPageSize(a, 50)),
  }),
}));

builder.mutationFields((t) => ({
  scheduleTask: t.field({
    type: ScheduledTaskType,
    description: "Schedule a registered task (short or app.worker.tasks.* name); it runs as you",
    args: {
      name: t.arg.string({ description: "Its name (default: the task's name)" }),
      task: t.arg.string({ required: true, description: "The registered task: short or app.worker.tasks.* name" }),
      schedule: t.arg({ type: ScheduleInput, required: true, description: "When it runs" }),
      args: t.arg({ type: "JSON", description: `${TASK_DOC.args}; at most 100 items` }),
      kwargs: t.arg({ type: "JSON", description: `${TASK_DOC.kwargs}; at most 100 keys` }),
      enabled: t.arg.boolean({ description: "False: created paused (default true)" }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.tasks.create(
        caller(ctx),
        { name: a.name ?? undefined, task: a.task, schedule: toSchedule(a.schedule), args: checkArray(a.args), kwargs: checkObject(a.kwargs), enabled: a.enabled ?? undefined },
        "args",
      ),
  }),
  updateScheduledTask: t.field({
    type: ScheduledTaskType,
    description: "Change a scheduled task; enabled false pauses it, true resumes it",
    args: {
      id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }),
      name: t.arg.string({ description: "A new name" }),
      schedule: t.arg({ type: ScheduleInput, description: "A new schedule (it counts from now)" }),
      args: t.arg({ type: "JSON", description: `${TASK_DOC.args}; replaces them` }),
      kwargs: t.arg({ type: "JSON", description: `${TASK_DOC.kwargs}; replaces them` }),
      enabled: t.arg.boolean({ description: "False pauses it, true resumes it" }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.tasks.update(
        caller(ctx),
        a.id,
        { name: a.name ?? undefined, schedule: a.schedule ? toSchedule(a.schedule) : undefined, args: checkArray(a.args), kwargs: checkObject(a.kwargs), enabled: a.enabled ?? undefined },
        "args",
      ),
  }),
  deleteScheduledTask: t.boolean({
    description: "Delete a scheduled task (its past runs stay readable); true when done",
    args: { id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.tasks.delete(caller(ctx), a.id);
      return true;
    },
  }),
  runScheduledTask: t.field({
    type: TaskRunType,
    description: "Run a scheduled task once now, as you (a paused one too): the queued run",
    args: { id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }) },
    resolve: (_r, a, ctx) => ctx.services.tasks.runNow(caller(ctx), a.id),
  }),
}));

function checkArray(v: unknown): unknown[] | undefined {
  const a = jsonArray(v);
  if (a !== undefined && (!Array.isArray(a) || a.length > 100)) throw badJson("args", "must be an array of at most 100 items");
  return a;
}

function checkObject(v: unknown): Record<string, unknown> | undefined {
  const o = jsonObject(v);
  if (o !== undefined && (typeof o !== "object" || Array.isArray(o) || Object.keys(o).length > 100)) throw badJson("kwargs", "must be an object of at most 100 keys");
  return o;
}

const badJson = (field: string, msg: string) => errors.invalidField(["args", field], msg);

function camel(s: string): string {
  return s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}
