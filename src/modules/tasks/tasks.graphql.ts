import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkSkipLimit } from "../../platform/paging.ts";
import { errors } from "../../platform/errors.ts";
import { CRON_FIELDS, PERIOD_SECONDS, describeSchedule, type Schedule } from "./schedule.ts";
import { taskFullName } from "./task-registry.ts";
import type { ScheduledTaskRow, TaskRunRow } from "./task-store.ts";

const Period = builder.enumType("SchedulePeriod", { values: Object.keys(PERIOD_SECONDS) as (keyof typeof PERIOD_SECONDS)[] });
const ScheduleKind = builder.enumType("ScheduleType", { values: ["interval", "crontab"] as const });
const RunStatus = builder.enumType("TaskRunStatus", { values: ["queued", "running", "succeeded", "failed", "cancelled"] as const });

const ScheduleType = builder.objectRef<Schedule>("Schedule").implement({
  fields: (t) => ({
    type: t.field({ type: ScheduleKind, resolve: (s) => s.type }),
    every: t.int({ nullable: true, resolve: (s) => (s.type === "interval" ? s.every : null) }),
    period: t.field({ type: Period, nullable: true, resolve: (s) => (s.type === "interval" ? s.period : null) }),
    ...Object.fromEntries(
      CRON_FIELDS.map((f) => [camel(f), t.string({ nullable: true, resolve: (s: Schedule) => (s.type === "crontab" ? s[f] : null) })]),
    ),
    timezone: t.string({ nullable: true, resolve: (s) => (s.type === "crontab" ? (s.timezone ?? "UTC") : null) }),
    description: t.string({ resolve: (s) => describeSchedule(s) }),
  }),
});

export const TaskRunType = builder.objectRef<TaskRunRow>("TaskRun").implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    scheduledTaskId: t.exposeString("scheduledTaskId", { nullable: true }),
    task: t.exposeString("task"),
    taskName: t.string({ resolve: (r) => taskFullName(r.task) }),
    args: t.field({ type: "JSON", resolve: (r) => r.args }),
    kwargs: t.field({ type: "JSON", resolve: (r) => r.kwargs }),
    trigger: t.exposeString("trigger"),
    status: t.field({ type: RunStatus, resolve: (r) => r.status }),
    attempts: t.exposeInt("attempts"),
    maxAttempts: t.exposeInt("maxAttempts"),
    lastError: t.exposeString("lastError", { nullable: true }),
    result: t.field({ type: "JSON", nullable: true, resolve: (r) => r.result }),
    progress: t.field({ type: "JSON", nullable: true, resolve: (r) => r.progress }),
    runAsUserId: t.exposeInt("runAsUserId", { nullable: true }),
    jobId: t.exposeString("jobId", { nullable: true }),
    queuedAt: t.field({ type: "DateTime", resolve: (r) => r.queuedAt }),
    startedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.startedAt }),
    finishedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.finishedAt }),
  }),
});

const ScheduledTaskType = builder.objectRef<ScheduledTaskRow>("ScheduledTask").implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    name: t.exposeString("name"),
    task: t.exposeString("task"),
    taskName: t.string({ resolve: (r) => taskFullName(r.task) }),
    args: t.field({ type: "JSON", resolve: (r) => r.args }),
    kwargs: t.field({ type: "JSON", resolve: (r) => r.kwargs }),
    schedule: t.field({ type: ScheduleType, resolve: (r) => r.schedule }),
    enabled: t.exposeBoolean("enabled"),
    dueAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.nextRunAt }),
    lastRunAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.lastRunAt }),
    totalRunCount: t.exposeInt("totalRunCount"),
    lastRunId: t.exposeString("lastRunId", { nullable: true }),
    lastRunStatus: t.field({ type: RunStatus, nullable: true, resolve: (r) => r.lastRunStatus }),
    ownerId: t.exposeInt("ownerId", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (r) => r.updatedAt }),
  }),
});

const RegisteredTaskType = builder.objectRef<{ name: string; description: string; requiredScopes: readonly string[] }>("RegisteredTask").implement({
  fields: (t) => ({
    name: t.exposeString("name"),
    taskName: t.string({ resolve: (r) => taskFullName(r.name) }),
    description: t.exposeString("description"),
    requiredScopes: t.stringList({ resolve: (r) => [...r.requiredScopes] }),
  }),
});

const ScheduleInput = builder.inputType("ScheduleInput", {
  description: "interval: every + period; crontab: the five fields (each defaults to *) and an optional IANA timezone (default UTC)",
  fields: (t) => ({
    type: t.field({ type: ScheduleKind, required: true }),
    every: t.int(),
    period: t.field({ type: Period }),
    minute: t.string(),
    hour: t.string(),
    dayOfWeek: t.string(),
    dayOfMonth: t.string(),
    monthOfYear: t.string(),
    timezone: t.string(),
  }),
});

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
  registeredTasks: t.field({ type: [RegisteredTaskType], resolve: (_r, _a, ctx) => ctx.services.tasks.registered(caller(ctx)) }),
  scheduledTasks: t.field({
    extensions: cost.page("limit", 100),
    type: [ScheduledTaskType],
    args: { skip: t.arg.int(), limit: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.tasks.list(caller(ctx), checkSkipLimit(a)),
  }),
  scheduledTask: t.field({ type: ScheduledTaskType, args: { id: t.arg.string({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.tasks.get(caller(ctx), a.id) }),
  taskRun: t.field({ type: TaskRunType, args: { id: t.arg.string({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.tasks.run(caller(ctx), a.id) }),
  taskRuns: t.field({
    extensions: cost.page("limit", 100),
    type: [TaskRunType],
    args: { scheduledTaskId: t.arg.string(), status: t.arg({ type: RunStatus }), skip: t.arg.int(), limit: t.arg.int() },
    resolve: (_r, a, ctx) => {
      const { skip, limit } = checkSkipLimit(a);
      return ctx.services.tasks.runs(caller(ctx), { scheduledTaskId: a.scheduledTaskId ?? undefined, statuses: a.status ? [a.status] : undefined }, skip, limit);
    },
  }),
}));

builder.mutationFields((t) => ({
  scheduleTask: t.field({
    type: ScheduledTaskType,
    description: "Schedule a registered task (short or app.worker.tasks.* name); it runs as you",
    args: {
      name: t.arg.string(),
      task: t.arg.string({ required: true }),
      schedule: t.arg({ type: ScheduleInput, required: true }),
      args: t.arg({ type: "JSON" }),
      kwargs: t.arg({ type: "JSON" }),
      enabled: t.arg.boolean(),
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
      id: t.arg.string({ required: true }),
      name: t.arg.string(),
      schedule: t.arg({ type: ScheduleInput }),
      args: t.arg({ type: "JSON" }),
      kwargs: t.arg({ type: "JSON" }),
      enabled: t.arg.boolean(),
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
    args: { id: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.tasks.delete(caller(ctx), a.id);
      return true;
    },
  }),
  runScheduledTask: t.field({
    type: TaskRunType,
    description: "Run a scheduled task once now, as you",
    args: { id: t.arg.string({ required: true }) },
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
