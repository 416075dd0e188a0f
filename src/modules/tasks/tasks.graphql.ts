import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller, type GraphQLContext } from "../../graphql/builder.ts";
import { BatchLoader, loaderOf } from "../../graphql/request-batch.ts";
import { InputError } from "../../platform/errors.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { CRON_FIELDS, PERIOD_SECONDS, describeSchedule, type Schedule } from "./schedule.ts";
import { taskFullName } from "./task-registry.ts";
import { scheduleOfRecord, taskRunRecord, type RunStatus as RunStatusName } from "./task-store.ts";
import type { ScheduleTaskInput } from "./tasks.contracts.ts";
import { CRON_DOC, REGISTERED_TASK_DOC as RT, SCHEDULED_TASK_DOC as ST, SCHEDULE_DOC, TASK_DOC, TASK_RUN_DOC as R, TASK_RUN_STATUS_DOC, TASK_TYPES_DOC } from "./tasks.docs.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;
/** The cron fields' REST names differ from GraphQL's where they hold an underscore. */
const cronDoc = (f: keyof typeof CRON_DOC) => (f.includes("_") ? rest(CRON_DOC[f], f) : CRON_DOC[f]);

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
  values: enumValues<RunStatusName>(TASK_RUN_STATUS_DOC),
});

const ScheduleType = builder.objectRef<Schedule>("Schedule").implement({
  description: `${TASK_TYPES_DOC.Schedule}: an interval or cron fields; fields of the other kind are null`,
  fields: (t) => ({
    type: t.field({ type: ScheduleKind, description: SCHEDULE_DOC.type, resolve: (s) => s.type }),
    every: t.int({ nullable: true, description: SCHEDULE_DOC.every, resolve: (s) => (s.type === "interval" ? s.every : null) }),
    period: t.field({ type: Period, nullable: true, description: `${SCHEDULE_DOC.period} (the unit of every)`, resolve: (s) => (s.type === "interval" ? s.period : null) }),
    ...Object.fromEntries(
      CRON_FIELDS.map((f) => [camel(f), t.string({ nullable: true, description: `Crontab schedules: ${cronDoc(f)}`, resolve: (s: Schedule) => (s.type === "crontab" ? s[f] : null) })]),
    ),
    timezone: t.string({ nullable: true, description: SCHEDULE_DOC.timezone, resolve: (s) => (s.type === "crontab" ? (s.timezone ?? "UTC") : null) }),
    description: t.string({ description: rest(SCHEDULE_DOC.description, "schedule_description"), resolve: (s) => describeSchedule(s) }),
  }),
});

/** A task run record (the services load the runs the caller sees, with the selection's query). */
export const TaskRunType = builder.prismaObject("TaskRun", {
  description: TASK_TYPES_DOC.TaskRun,
  fields: (t) => ({
    id: t.exposeString("id", { description: R.id }),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true, description: rest(R.scheduledTaskId, "scheduled_task_id") }),
    task: t.exposeString("task", { description: `${TASK_DOC.task}; see registeredTasks` }),
    taskName: t.string({ description: TASK_DOC.taskName, resolve: (r) => taskFullName(r.task) }),
    args: t.expose("args", { type: "JSON", description: TASK_DOC.args }),
    kwargs: t.expose("kwargs", { type: "JSON", description: TASK_DOC.kwargs }),
    trigger: t.exposeString("trigger", { description: R.trigger }),
    status: t.field({ type: RunStatus, description: R.status, resolve: (r) => r.status as RunStatusName }),
    attempts: t.exposeInt("attempts", { description: R.attempts }),
    maxAttempts: t.exposeInt("maxAttempts", { description: rest(R.maxAttempts, "max_attempts") }),
    lastError: t.exposeString("lastError", { nullable: true, description: rest(R.lastError, "last_error") }),
    result: t.expose("result", { type: "JSON", nullable: true, description: R.result }),
    progress: t.expose("progress", { type: "JSON", nullable: true, description: R.progress }),
    runAsUserId: t.exposeInt("runAsUserId", { nullable: true, description: rest(R.runAsUserId, "run_as_user_id") }),
    jobId: t.string({ nullable: true, description: rest(R.jobId, "job_id"), resolve: (r) => (r.jobId === null ? null : String(r.jobId)) }),
    queuedAt: t.expose("queuedAt", { type: "DateTime", description: rest(R.queuedAt, "queued_at") }),
    startedAt: t.expose("startedAt", { type: "DateTime", nullable: true, description: rest(R.startedAt, "started_at") }),
    finishedAt: t.expose("finishedAt", { type: "DateTime", nullable: true, description: rest(R.finishedAt, "finished_at") }),
  }),
});

export const TaskRunPage = pageType("TaskRunPage", TaskRunType, "task runs");

/**
 * A scheduled task record (the services load the schedules the caller sees, with the selection's
 * query). Its last run's state: one batch per request, of the runs of the schedules listed.
 */
const ScheduledTaskType = builder.prismaObject("ScheduledTask", {
  description: TASK_TYPES_DOC.ScheduledTask,
  fields: (t) => ({
    id: t.exposeString("id", { description: ST.id }),
    name: t.exposeString("name", { description: ST.name }),
    task: t.exposeString("task", { description: `${TASK_DOC.task}; see registeredTasks` }),
    taskName: t.string({ description: TASK_DOC.taskName, resolve: (r) => taskFullName(r.task) }),
    args: t.expose("args", { type: "JSON", description: TASK_DOC.args }),
    kwargs: t.expose("kwargs", { type: "JSON", description: TASK_DOC.kwargs }),
    schedule: t.field({ type: ScheduleType, description: ST.schedule, resolve: (r) => scheduleOfRecord(r) }),
    enabled: t.exposeBoolean("enabled", { description: ST.enabled }),
    dueAt: t.expose("nextRunAt", { type: "DateTime", nullable: true, description: rest(ST.nextRunAt, "due_at") }),
    lastRunAt: t.expose("lastRunAt", { type: "DateTime", nullable: true, description: rest(ST.lastRunAt, "last_run_at") }),
    totalRunCount: t.exposeInt("totalRunCount", { description: rest(ST.totalRunCount, "total_run_count") }),
    lastRunId: t.exposeString("lastRunId", { nullable: true, description: rest(ST.lastRunId, "last_run.id") }),
    lastRunStatus: t.field({
      type: RunStatus,
      nullable: true,
      description: rest(ST.lastRunStatus, "last_run.status"),
      resolve: (r, _a, ctx) => (r.lastRunId === null ? null : lastRunStatuses(ctx).load(r.lastRunId)),
    }),
    ownerId: t.exposeInt("ownerId", { nullable: true, description: rest(ST.ownerId, "owner_id") }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: DOC.updatedAt }),
  }),
});

/** The states of the last runs of a page's schedules, in one read (the schedules were loaded as the caller sees them). */
const lastRunStatuses = (ctx: GraphQLContext) =>
  loaderOf(ctx, "tasks.lastRunStatus", () => new BatchLoader<string, RunStatusName | null>((ids) => ctx.services.tasks.runStatuses(caller(ctx), ids), () => null));

const ScheduledTaskPage = pageType("ScheduledTaskPage", ScheduledTaskType, "scheduled tasks");

const RegisteredTaskType = builder.objectRef<{ name: string; description: string; requiredScopes: readonly string[] }>("RegisteredTask").implement({
  description: TASK_TYPES_DOC.RegisteredTask,
  fields: (t) => ({
    name: t.exposeString("name", { description: `${RT.name}, as scheduleTask's task takes it` }),
    taskName: t.string({ description: TASK_DOC.taskName, resolve: (r) => taskFullName(r.name) }),
    description: t.exposeString("description", { description: RT.description }),
    requiredScopes: t.stringList({ description: rest(RT.requiredScopes, "required_scopes"), resolve: (r) => [...r.requiredScopes] }),
  }),
});

const ScheduleInput = builder.inputType("ScheduleInput", {
  description: "interval: every + period; crontab: the five fields (each defaults to *) and an optional IANA timezone (default UTC)",
  fields: (t) => ({
    type: t.field({ type: ScheduleKind, required: true, description: SCHEDULE_DOC.type }),
    every: t.int({ description: SCHEDULE_DOC.every }),
    period: t.field({ type: Period, description: `${SCHEDULE_DOC.period} (the unit of every; default SECONDS)` }),
    minute: t.string({ description: `Crontab: ${cronDoc("minute")}` }),
    hour: t.string({ description: `Crontab: ${cronDoc("hour")}` }),
    dayOfWeek: t.string({ description: `Crontab: ${cronDoc("day_of_week")}` }),
    dayOfMonth: t.string({ description: `Crontab: ${cronDoc("day_of_month")}` }),
    monthOfYear: t.string({ description: `Crontab: ${cronDoc("month_of_year")}` }),
    timezone: t.string({ description: SCHEDULE_DOC.timezone }),
  }),
});

const SCHEDULED_TASK_ID = ST.id;

type ScheduleArg = typeof ScheduleInput.$inferInput;

/** ScheduleInput as the contract's schedule (which checks it): the fields of its type, the others left out. */
function toSchedule(s: ScheduleArg): ScheduleTaskInput["schedule"] {
  const given = <T>(v: T | null | undefined) => v ?? undefined;
  if (s.type === "interval") return { type: "interval", every: given(s.every) as number, period: given(s.period) };
  return {
    type: "crontab",
    minute: given(s.minute),
    hour: given(s.hour),
    day_of_week: given(s.dayOfWeek),
    day_of_month: given(s.dayOfMonth),
    month_of_year: given(s.monthOfYear),
    timezone: given(s.timezone),
  };
}

/** ScheduleInput's names of the cron fields the service names in snake_case. */
const CRON_ARGUMENT: Record<string, string> = Object.fromEntries(CRON_FIELDS.filter((f) => f.includes("_")).map((f) => [f, camel(f)]));

/** The service's complaint about a schedule's cron field, named as ScheduleInput names it. */
async function inScheduleInput<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    throw new InputError(err.issues.map((i) => (i.loc[0] === "schedule" && CRON_ARGUMENT[String(i.loc[1])] ? { ...i, loc: ["schedule", CRON_ARGUMENT[String(i.loc[1])], ...i.loc.slice(2)] } : i)));
  }
}

/** A JSON argument: null is "not given"; its type is the contract's to check. */
const json = <T>(v: unknown) => (v === undefined || v === null ? undefined : (v as T));

builder.queryFields((t) => ({
  registeredTasks: t.field({ type: [RegisteredTaskType], description: "The tasks that can be scheduled, with the scopes scheduling or running each needs", resolve: (_r, _a, ctx) => ctx.services.tasks.registered(caller(ctx)) }),
  scheduledTasks: t.field({
    extensions: cost.page("size", 50),
    type: ScheduledTaskPage,
    description: "Your scheduled tasks (administrators: everyone's), newest first (GET /tasks/scheduled, which pages with skip/limit)",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx, info) => ctx.services.tasks.schedulePage(caller(ctx), checkPageSize(a, 50), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  scheduledTask: t.prismaField({
    type: "ScheduledTask",
    description: "One scheduled task",
    args: { id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }) },
    resolve: (query, _r, a, ctx) => ctx.services.tasks.scheduleRecord(caller(ctx), a.id, query),
  }),
  taskRun: t.prismaField({
    type: "TaskRun",
    description: "A task run's state, attempts, last error, progress and result (GET /tasks/{task_id})",
    args: { id: t.arg.string({ required: true, description: R.id }) },
    resolve: (query, _r, a, ctx) => ctx.services.tasks.runRecord(caller(ctx), a.id, query),
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
    resolve: (_r, a, ctx, info) =>
      ctx.services.tasks.runPage(
        caller(ctx),
        { scheduledTaskId: a.scheduledTaskId ?? undefined, statuses: a.status ? [a.status] : undefined },
        checkPageSize(a, 50),
        queryFromInfo({ context: ctx, info, path: ["items"] }),
      ),
  }),
}));

builder.mutationFields((t) => ({
  scheduleTask: t.prismaField({
    type: "ScheduledTask",
    description: "Schedule a registered task (short or app.worker.tasks.* name); it runs as you",
    args: {
      name: t.arg.string({ description: "Its name (default: the task's name)" }),
      task: t.arg.string({ required: true, description: "The registered task: short or app.worker.tasks.* name" }),
      schedule: t.arg({ type: ScheduleInput, required: true, description: "When it runs" }),
      args: t.arg({ type: "JSON", description: `${TASK_DOC.args}; at most 100 items` }),
      kwargs: t.arg({ type: "JSON", description: `${TASK_DOC.kwargs}; at most 100 keys` }),
      enabled: t.arg.boolean({ description: "False: created paused (default true)" }),
    },
    resolve: async (query, _r, a, ctx) => {
      const created = await inScheduleInput(() =>
        ctx.services.tasks.create(caller(ctx), {
          name: a.name ?? undefined,
          task: a.task,
          schedule: toSchedule(a.schedule),
          args: json<unknown[]>(a.args),
          kwargs: json<Record<string, unknown>>(a.kwargs),
          enabled: a.enabled ?? undefined,
        }),
      );
      return ctx.services.tasks.scheduleRecord(caller(ctx), created.id, query);
    },
  }),
  updateScheduledTask: t.prismaField({
    type: "ScheduledTask",
    description: "Change a scheduled task; enabled false pauses it, true resumes it",
    args: {
      id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }),
      name: t.arg.string({ description: "A new name" }),
      schedule: t.arg({ type: ScheduleInput, description: "A new schedule (it counts from now)" }),
      args: t.arg({ type: "JSON", description: `${TASK_DOC.args}; replaces them` }),
      kwargs: t.arg({ type: "JSON", description: `${TASK_DOC.kwargs}; replaces them` }),
      enabled: t.arg.boolean({ description: "False pauses it, true resumes it" }),
    },
    resolve: async (query, _r, a, ctx) => {
      const updated = await inScheduleInput(() =>
        ctx.services.tasks.update(caller(ctx), a.id, {
          name: a.name ?? undefined,
          schedule: a.schedule ? toSchedule(a.schedule) : undefined,
          args: json<unknown[]>(a.args),
          kwargs: json<Record<string, unknown>>(a.kwargs),
          enabled: a.enabled ?? undefined,
        }),
      );
      return ctx.services.tasks.scheduleRecord(caller(ctx), updated.id, query);
    },
  }),
  deleteScheduledTask: t.boolean({
    description: "Delete a scheduled task (its past runs stay readable); true when done",
    args: { id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.tasks.delete(caller(ctx), a.id);
      return true;
    },
  }),
  // The run as queued (a worker may have started it since): a whole record, which the plugin reads as it is.
  runScheduledTask: t.field({
    type: TaskRunType,
    description: "Run a scheduled task once now, as you (a paused one too): the queued run",
    args: { id: t.arg.string({ required: true, description: SCHEDULED_TASK_ID }) },
    resolve: async (_r, a, ctx) => taskRunRecord(await ctx.services.tasks.runNow(caller(ctx), a.id)),
  }),
}));

function camel(s: string): string {
  return s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}
