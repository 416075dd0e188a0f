import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, queryInt, skipLimitQuery } from "../schemas.ts";
import { PERIOD_SECONDS, type Schedule } from "../../src/modules/tasks/index.ts";
import { cronFields, fromPeer, peerSchedule, pickCron, timezone } from "../../src/modules/tasks/index.ts";
import { taskFullName } from "../../src/modules/tasks/index.ts";
import {
  RegisteredTaskSchema,
  ScheduledTaskSchema,
  TaskRunListSchema,
  TaskRunMapSchema,
  TaskRunQueuedSchema,
  TaskRunSchema,
  scheduledTaskOut,
  taskRunOut,
} from "../serializers/tasks.ts";
import type { ScheduleTaskPatch } from "../../src/modules/tasks/index.ts";
import { errors, fromZodError } from "../../src/platform/errors.ts";

// ---- request bodies: the spec's shape and the peer's (`task_name`, `params`, `schedule`) ----

const periods = Object.keys(PERIOD_SECONDS) as [keyof typeof PERIOD_SECONDS, ...(keyof typeof PERIOD_SECONDS)[]];
const name = z.string().trim().min(1).max(255);
const args = z.array(z.unknown()).max(100);
const kwargs = z.record(z.string().max(100), z.unknown()).refine((o) => Object.keys(o).length <= 100, "at most 100 keyword arguments");

const intervalBody = z.object({ every: z.number().int(), period: z.enum(periods).default("seconds") }).strict();
const crontabBody = z.object({ ...cronFields, timezone }).strict();
const specSchedule = {
  schedule_type: z.enum(["interval", "crontab"]),
  interval: intervalBody.optional(),
  crontab: crontabBody.optional(),
};
const peerParams = z.object({ args: args.optional(), kwargs: kwargs.optional() }).strict();

const peerCreateBody = z
  .object({ task_name: z.string().min(1).max(255), name: name.optional(), params: peerParams.optional(), schedule: peerSchedule, enabled: z.boolean().optional() })
  .strict();
const specCreateBody = z
  .object({ name, task: z.string().min(1).max(255), ...specSchedule, args: args.optional(), kwargs: kwargs.optional(), enabled: z.boolean().optional() })
  .strict();

/** The peer's body when it has `task_name`, the spec's otherwise; errors name fields of the one chosen. */
function parseCreateBody(body: Record<string, unknown>) {
  if ("task_name" in body) {
    const b = parse(peerCreateBody, body);
    return { name: b.name, task: b.task_name, args: b.params?.args, kwargs: b.params?.kwargs, schedule: fromPeer(b.schedule), enabled: b.enabled };
  }
  const b = parse(specCreateBody, body);
  return { name: b.name, task: b.task, args: b.args, kwargs: b.kwargs, schedule: fromSpec(b)!, enabled: b.enabled };
}

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body);
  if (!r.success) throw fromZodError(r.error, "body");
  return r.data;
}

const patchBody = z
  .object({
    name: name.optional(),
    enabled: z.boolean().optional(),
    args: args.optional(),
    kwargs: kwargs.optional(),
    schedule_type: specSchedule.schedule_type.optional(),
    interval: specSchedule.interval,
    crontab: specSchedule.crontab,
    params: peerParams.optional(),
    schedule: peerSchedule.optional(),
  })
  .strict();

type SpecScheduleFields = { schedule_type?: "interval" | "crontab"; interval?: z.infer<typeof intervalBody>; crontab?: z.infer<typeof crontabBody> };

function fromSpec(b: SpecScheduleFields): Schedule | undefined {
  if (!b.schedule_type) {
    if (b.interval || b.crontab) throw errors.invalidField(["body", "schedule_type"], "Field required with interval or crontab");
    return undefined;
  }
  if (b.schedule_type === "interval") {
    if (!b.interval) throw errors.invalidField(["body", "interval"], "Field required when schedule_type is interval");
    if (b.crontab) throw errors.invalidField(["body", "crontab"], "Not allowed when schedule_type is interval");
    return { type: "interval", every: b.interval.every, period: b.interval.period };
  }
  if (b.interval) throw errors.invalidField(["body", "interval"], "Not allowed when schedule_type is crontab");
  const c = b.crontab ?? crontabBody.parse({});
  return { type: "crontab", ...pickCron(c), timezone: c.timezone ?? null };
}


const taskIdParams = z.object({ task_id: anyUuid }).strict();
const runIdParams = z.object({ run_id: anyUuid }).strict();
const runStatuses = ["queued", "running", "succeeded", "failed", "cancelled"] as const;

export const taskRoutes = [
  defineRoute({
    method: "GET", path: "/tasks/registered", operationId: "listRegisteredTasks", tag: "tasks",
    summary: "The tasks that can be scheduled, with the scopes scheduling or running each needs",
    scopes: ["tasks:read"], status: 200, response: z.array(RegisteredTaskSchema),
    handler: ({ principal, services }) =>
      services.tasks.registered(principal).map((t) => ({ name: t.name, task_name: taskFullName(t.name), description: t.description, required_scopes: t.requiredScopes })),
  }),
  defineRoute({
    method: "POST", path: "/tasks/schedule", operationId: "scheduleTask", tag: "tasks",
    summary:
      "Schedule a task: {name, task, schedule_type interval|crontab, interval {every, period seconds|minutes|hours|days|weeks} or crontab {minute, hour, day_of_week, day_of_month, month_of_year, timezone}, args?, kwargs?, enabled? (default true)}; the peer's {task_name, params, schedule} body too. The task runs as you.",
    scopes: ["tasks:create"], status: 201, response: ScheduledTaskSchema, body: z.record(z.string(), z.unknown()),
    handler: async ({ principal, body, services }) => scheduledTaskOut(await services.tasks.create(principal, parseCreateBody(body))),
  }),
  defineRoute({
    method: "GET", path: "/tasks/scheduled", operationId: "listScheduledTasks", tag: "tasks",
    summary: "Your scheduled tasks (administrators: everyone's), newest first; skip/limit, plain array",
    scopes: ["tasks:read"], status: 200, response: z.array(ScheduledTaskSchema), query: skipLimitQuery,
    handler: async ({ principal, query, services }) => (await services.tasks.list(principal, query)).map(scheduledTaskOut),
  }),
  defineRoute({
    method: "GET", path: "/tasks/scheduled/{task_id}", operationId: "getScheduledTask", tag: "tasks",
    summary: "One scheduled task",
    scopes: ["tasks:read"], status: 200, response: ScheduledTaskSchema, params: taskIdParams,
    handler: async ({ principal, params, services }) => scheduledTaskOut(await services.tasks.get(principal, params.task_id)),
  }),
  defineRoute({
    method: "PATCH", path: "/tasks/scheduled/{task_id}", operationId: "updateScheduledTask", tag: "tasks",
    summary: "Change a scheduled task: name, args/kwargs (or params), the schedule (schedule_type with interval or crontab, or the peer's schedule), enabled (false pauses, true resumes)",
    scopes: ["tasks:update"], status: 200, response: ScheduledTaskSchema, params: taskIdParams, body: patchBody,
    handler: async ({ principal, params, body, services }) => {
      if (body.schedule && (body.schedule_type || body.interval || body.crontab)) throw errors.invalidField(["body", "schedule"], "Give either schedule or schedule_type, not both");
      if (body.params && (body.args || body.kwargs)) throw errors.invalidField(["body", "params"], "Give either params or args/kwargs, not both");
      const patch: ScheduleTaskPatch = {
        name: body.name,
        enabled: body.enabled,
        args: body.params?.args ?? body.args,
        kwargs: body.params?.kwargs ?? body.kwargs,
        schedule: body.schedule ? fromPeer(body.schedule) : fromSpec(body),
      };
      return scheduledTaskOut(await services.tasks.update(principal, params.task_id, patch));
    },
  }),
  defineRoute({
    method: "DELETE", path: "/tasks/scheduled/{task_id}", operationId: "deleteScheduledTask", tag: "tasks",
    summary: "Delete a scheduled task (its past runs stay readable); body null, as the peer answers",
    scopes: ["tasks:delete"], status: 200, response: z.null().describe("Always null, as the peer answers"), params: taskIdParams,
    handler: async ({ principal, params, services }) => {
      await services.tasks.delete(principal, params.task_id);
      return null;
    },
  }),
  defineRoute({
    method: "POST", path: "/tasks/scheduled/{task_id}/run", operationId: "runScheduledTask", tag: "tasks",
    summary: "Run a scheduled task once now, as you (a paused one too); 202 with the run's id, whose status GET /tasks/{task_id} shows",
    scopes: ["tasks:run"], status: 202, response: TaskRunQueuedSchema, params: taskIdParams,
    handler: async ({ principal, params, services }) => {
      const run = await services.tasks.runNow(principal, params.task_id);
      return { task_id: run.id, job_id: run.jobId, status: run.status, message: `${run.task} has been queued`, run: taskRunOut(run) };
    },
  }),
  defineRoute({
    method: "GET", path: "/tasks/", operationId: "listTaskRuns", tag: "tasks",
    summary: "Task runs you can see, newest first: {items keyed by run id, limit, offset, has_more}; filter by status or scheduled_task_id",
    scopes: ["tasks:read"], status: 200, response: TaskRunListSchema,
    query: z
      .object({
        limit: queryInt(1, 1000, 100),
        offset: queryInt(0, 1_000_000_000, 0),
        status: z.enum(runStatuses).optional(),
        scheduled_task_id: anyUuid.optional(),
      })
      .strict(),
    handler: async ({ principal, query, services }) => {
      const runs = await services.tasks.runs(principal, { scheduledTaskId: query.scheduled_task_id, statuses: query.status ? [query.status] : undefined }, query.offset, query.limit + 1);
      const page = runs.slice(0, query.limit);
      return { items: Object.fromEntries(page.map((r) => [r.id, taskRunOut(r)])), limit: query.limit, offset: query.offset, has_more: runs.length > query.limit };
    },
  }),
  defineRoute({
    method: "GET", path: "/tasks/active", operationId: "listActiveTaskRuns", tag: "tasks",
    summary: "Queued and running task runs you can see, keyed by run id",
    scopes: ["tasks:read"], status: 200, response: TaskRunMapSchema,
    handler: async ({ principal, services }) =>
      Object.fromEntries((await services.tasks.runs(principal, { statuses: ["queued", "running"] }, 0, 1000)).map((r) => [r.id, taskRunOut(r)])),
  }),
  defineRoute({
    method: "GET", path: "/tasks/{run_id}", operationId: "getTaskRun", tag: "tasks",
    summary: "A task run's status: queued/running/succeeded/failed, timestamps, attempts, the last error, progress and result",
    scopes: ["tasks:read"], status: 200, response: TaskRunSchema, params: runIdParams,
    handler: async ({ principal, params, services }) => taskRunOut(await services.tasks.run(principal, params.run_id)),
  }),
];
