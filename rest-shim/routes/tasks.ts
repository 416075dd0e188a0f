import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, queryInt, skipLimitQuery } from "../schemas.ts";
import {
  crontabScheduleFields,
  intervalScheduleFields,
  peerScheduleShape,
  scheduleTaskContract,
  type Schedule,
  type ScheduleTaskInput,
  type ScheduleTaskPatch,
} from "../../src/modules/tasks/index.ts";
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
import { InputError, errors, fromZodError } from "../../src/platform/errors.ts";

// ---- request bodies: the spec's shape and the peer's (`task_name`, `params`, `schedule`), both
// made of the tasks contract's fields; the service checks the result with the contract ----

const c = scheduleTaskContract.shape;
const specSchedule = {
  schedule_type: z.enum(["interval", "crontab"]).describe("interval (with interval) or crontab (with crontab)"),
  interval: intervalScheduleFields.optional().describe("schedule_type interval: every, period"),
  crontab: crontabScheduleFields.optional().describe("schedule_type crontab: the cron fields (each defaults to *) and timezone"),
};
const peerParams = z.object({ args: c.args, kwargs: c.kwargs }).strict();

/** The peer's schedule is checked by the service (its rules' errors are said where the spec's body has them). */
const peerCreateBody = z.object({ task_name: c.task, name: c.name, params: peerParams.optional(), schedule: peerScheduleShape, enabled: c.enabled }).strict();
const specCreateBody = z.object({ name: c.name.unwrap(), task: c.task, ...specSchedule, args: c.args, kwargs: c.kwargs, enabled: c.enabled }).strict();

/** The peer's body when it has `task_name`, the spec's otherwise; errors name fields of the one chosen. */
function parseCreateBody(body: Record<string, unknown>): ScheduleTaskInput {
  if ("task_name" in body) {
    const b = parse(peerCreateBody, body);
    return { name: b.name, task: b.task_name, args: b.params?.args, kwargs: b.params?.kwargs, schedule: b.schedule, enabled: b.enabled };
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
    name: c.name,
    enabled: c.enabled,
    args: c.args,
    kwargs: c.kwargs,
    schedule_type: specSchedule.schedule_type.optional(),
    interval: specSchedule.interval,
    crontab: specSchedule.crontab,
    params: peerParams.optional(),
    schedule: peerScheduleShape.optional(),
  })
  .strict();

type SpecScheduleFields = { schedule_type?: "interval" | "crontab"; interval?: z.output<typeof intervalScheduleFields>; crontab?: z.output<typeof crontabScheduleFields> };

/** Which of the spec's objects holds a schedule (the REST shape only: its rules are the contract's). */
function fromSpec(b: SpecScheduleFields): Schedule | undefined {
  if (!b.schedule_type) {
    if (b.interval || b.crontab) throw errors.invalidField(["body", "schedule_type"], "Field required with interval or crontab");
    return undefined;
  }
  if (b.schedule_type === "interval") {
    if (!b.interval) throw errors.invalidField(["body", "interval"], "Field required when schedule_type is interval");
    if (b.crontab) throw errors.invalidField(["body", "crontab"], "Not allowed when schedule_type is interval");
    return { type: "interval", ...b.interval };
  }
  if (b.interval) throw errors.invalidField(["body", "interval"], "Not allowed when schedule_type is crontab");
  const cron = b.crontab ?? crontabScheduleFields.parse({});
  return { type: "crontab", ...cron, timezone: cron.timezone ?? null };
}

/**
 * The service names a schedule's field under `schedule`; the spec's body holds it in `interval` or
 * `crontab`, and the peer's body has always been answered the same way.
 */
async function scheduleAtItsObject<T>(schedule: Schedule | undefined, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof InputError) || !schedule) throw err;
    throw new InputError(err.issues.map((i) => (i.loc[0] === "schedule" ? { ...i, loc: [schedule.type, ...i.loc.slice(1)] } : i)));
  }
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
    handler: async ({ principal, body, services }) => {
      const input = parseCreateBody(body);
      return scheduledTaskOut(await scheduleAtItsObject(input.schedule as Schedule, () => services.tasks.create(principal, input)));
    },
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
        schedule: body.schedule ?? fromSpec(body),
      };
      return scheduledTaskOut(await scheduleAtItsObject(patch.schedule as Schedule | undefined, () => services.tasks.update(principal, params.task_id, patch)));
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
