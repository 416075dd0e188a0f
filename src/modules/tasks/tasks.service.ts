import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, scopesOf, type Principal } from "../../auth/principal.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { AppError, InputError, errors, parseInput } from "../../platform/errors.ts";
import type { SkipLimit } from "../../platform/paging.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { checkPeerUserId, taskKwargs } from "./params.ts";
import type { RegisteredTask } from "./registered-task.ts";
import { nextRun } from "./schedule.ts";
import { queueRun, wakeTicker } from "./task-queue.ts";
import { findTask, registeredTasks, taskNamed } from "./task-registry.ts";
import {
  deleteScheduledTask,
  findScheduledTask,
  findTaskRun,
  insertScheduledTask,
  listScheduledTasks,
  listTaskRuns,
  updateScheduledTask,
  type RunStatus,
  type ScheduledTaskRow,
  type TaskRunRow,
} from "./task-store.ts";
import { scheduleTaskContract, scheduledTaskPatchContract, type ScheduleTaskInput, type ScheduleTaskPatch } from "./tasks.contracts.ts";
import { canManageSchedule, canSeeRun, listedOwner, visibleRunWhere, visibleScheduleWhere } from "./tasks.policy.ts";
import type { Prisma, ScheduledTask, TaskRun } from "../../generated/prisma/client.ts";

/** What a GraphQL selection asks to load with scheduled tasks or runs (@pothos/plugin-prisma's query; neither has relations). */
export type ScheduledTaskSelection = Pick<Prisma.ScheduledTaskFindManyArgs, "select">;
export interface RunPageFilter {
  scheduledTaskId?: string;
  statuses?: RunStatus[];
  task?: string;
  kwarg?: { name: string; value: number };
}

export type TaskRunSelection = Pick<Prisma.TaskRunFindManyArgs, "select">;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Scheduled tasks and task runs. A schedule belongs to its creator (others get 404; administrators
 * see all) and runs as them; scheduling or running a task also needs the task's own scopes, and the
 * task's target check (the record its arguments name) passes for the caller on scheduling, on a
 * change of arguments and on "run now", and for the owner at the start of every run (run-task.ts).
 */
export class TasksService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  registered(p: Principal | null): RegisteredTask[] {
    authorize(p, "tasks:read");
    return registeredTasks();
  }

  async create(p: Principal | null, given: ScheduleTaskInput): Promise<ScheduledTaskRow> {
    authorize(p, "tasks:create");
    requireUser(p);
    const input = parseInput(scheduleTaskContract, given);
    const task = findTask(input.task);
    authorize(p, ...task.requiredScopes);
    const args = input.args ?? [];
    const kwargs = input.kwargs ?? {};
    await asInput(async () => {
      task.checkParams(args, kwargs, []);
      checkPeerUserId(kwargs, p.userId, []);
      await task.checkTarget(this.ctx, p, args, taskKwargs(kwargs), []);
    });
    const enabled = input.enabled ?? true;
    const row = await withTransaction(this.ctx.db.pool, async (client) => {
      const created = await insertScheduledTask(client, {
        name: input.name ?? task.name,
        task: task.name,
        args,
        kwargs,
        schedule: input.schedule,
        enabled,
        ownerId: p.userId,
        grantScopes: scopesOf(p),
        nextRunAt: enabled ? nextRun(input.schedule, new Date()) : null,
      });
      await wakeTicker(client);
      return created;
    });
    await this.audit.record(p, { action: "scheduled_task.created", resourceType: "scheduled_task", metadata: { id: row.id, task: row.task, name: row.name } });
    return row;
  }

  async list(p: Principal | null, page: SkipLimit): Promise<ScheduledTaskRow[]> {
    authorize(p, "tasks:read");
    return listScheduledTasks(this.ctx.db.pool, listedOwner(p), page.skip, page.limit);
  }

  async get(p: Principal | null, id: string): Promise<ScheduledTaskRow> {
    authorize(p, "tasks:read");
    return this.visible(p, await findScheduledTask(this.ctx.db.pool, checkId(id)));
  }

  /** Pause and resume are `enabled`; a changed schedule (or a resume) counts from now. */
  async update(p: Principal | null, id: string, given: ScheduleTaskPatch): Promise<ScheduledTaskRow> {
    authorize(p, "tasks:update");
    checkId(id);
    const patch = parseInput(scheduledTaskPatchContract, given);
    const row = await withTransaction(this.ctx.db.pool, async (client) => {
      const current = this.visible(p, await findScheduledTask(client, id, true));
      const task = taskNamed(current.task);
      if (task) authorize(p, ...task.requiredScopes);
      const args = patch.args ?? current.args;
      const kwargs = patch.kwargs ?? current.kwargs;
      if (task && (patch.args || patch.kwargs)) {
        await asInput(async () => {
          task.checkParams(args, kwargs, []);
          checkPeerUserId(kwargs, current.ownerId, []);
          await task.checkTarget(this.ctx, p, args, taskKwargs(kwargs), []);
        });
      }
      const schedule = patch.schedule ?? current.schedule;
      const enabled = patch.enabled ?? current.enabled;
      const reschedule = patch.schedule !== undefined || (enabled && !current.enabled);
      const nextRunAt = !enabled ? null : reschedule || current.nextRunAt === null ? nextRun(schedule, new Date()) : current.nextRunAt;
      const updated = await updateScheduledTask(client, id, { name: patch.name ?? current.name, args, kwargs, schedule, enabled, nextRunAt });
      await wakeTicker(client);
      return updated;
    });
    await this.audit.record(p, { action: "scheduled_task.updated", resourceType: "scheduled_task", metadata: { id, fields: Object.keys(patch) } });
    return row;
  }

  async delete(p: Principal | null, id: string): Promise<void> {
    authorize(p, "tasks:delete");
    checkId(id);
    const row = await withTransaction(this.ctx.db.pool, async (client) => {
      const current = this.visible(p, await findScheduledTask(client, id, true));
      await deleteScheduledTask(client, id);
      return current;
    });
    await this.audit.record(p, { action: "scheduled_task.deleted", resourceType: "scheduled_task", metadata: { id, task: row.task, name: row.name } });
  }

  /** One run now, as the caller, whatever the schedule says (a paused schedule too). */
  async runNow(p: Principal | null, id: string): Promise<TaskRunRow> {
    authorize(p, "tasks:run");
    requireUser(p);
    checkId(id);
    const run = await withTransaction(this.ctx.db.pool, async (client) => {
      const current = this.visible(p, await findScheduledTask(client, id, true));
      const task = taskNamed(current.task);
      if (!task) throw errors.conflict(`Task ${current.task} is no longer registered`);
      authorize(p, ...task.requiredScopes);
      // The run acts as the caller: the record it names must be theirs to use now.
      await task.checkTarget(this.ctx, p, current.args, taskKwargs(current.kwargs), []);
      return queueRun(
        client,
        { scheduledTaskId: current.id, task: task.name, args: current.args, kwargs: current.kwargs, trigger: "manual", runAsUserId: p.userId, grantScopes: scopesOf(p) },
        task,
      );
    });
    await this.audit.record(p, { action: "scheduled_task.run", resourceType: "scheduled_task", metadata: { id, run_id: run.id } });
    return run;
  }

  /** A run you started, or of a schedule you own (administrators: any). */
  async run(p: Principal | null, runId: string): Promise<TaskRunRow> {
    authorize(p, "tasks:read");
    const run = await findTaskRun(this.ctx.db.pool, checkId(runId, "Task run"));
    if (!run || !(await this.canSeeRun(p, run))) throw errors.notFound("Task run");
    return run;
  }

  async runs(p: Principal | null, filter: { scheduledTaskId?: string; statuses?: RunStatus[] }, offset: number, limit: number): Promise<TaskRunRow[]> {
    authorize(p, "tasks:read");
    if (filter.scheduledTaskId) await this.get(p, filter.scheduledTaskId);
    return listTaskRuns(this.ctx.db.pool, { ...filter, userId: listedOwner(p) }, offset, limit);
  }

  // ---- the same reads as Prisma records, loaded with a GraphQL selection's query ----

  /** The schedules the caller sees, newest first, as a page. */
  async schedulePage(p: Principal | null, req: PageRequest, query: ScheduledTaskSelection = {}): Promise<Page<ScheduledTask>> {
    authorize(p, "tasks:read");
    const where = visibleScheduleWhere(p);
    const { prisma } = this.ctx.db;
    const [items, total] = await Promise.all([
      prisma.scheduledTask.findMany({ ...query, where, orderBy: [{ createdAt: "desc" }, { id: "asc" }], skip: offsetOf(req), take: req.size }),
      prisma.scheduledTask.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  async scheduleRecord(p: Principal | null, id: string, query: ScheduledTaskSelection = {}): Promise<ScheduledTask> {
    authorize(p, "tasks:read");
    const row = await this.ctx.db.prisma.scheduledTask.findFirst({ ...query, where: { id: checkId(id), ...visibleScheduleWhere(p) } });
    if (!row) throw errors.notFound("Scheduled task");
    return row;
  }

  /**
   * The runs the caller sees, newest first, as a page (a scheduled task's: one the caller sees).
   * `task` with `kwarg` narrows to one target's runs (a feed's fetches: fetch_feed, feed_id); the
   * area owning the target checks the caller may read it first.
   */
  async runPage(p: Principal | null, filter: RunPageFilter, req: PageRequest, query: TaskRunSelection = {}): Promise<Page<TaskRun>> {
    authorize(p, "tasks:read");
    if (filter.scheduledTaskId) await this.get(p, filter.scheduledTaskId);
    const where: Prisma.TaskRunWhereInput = {
      AND: [
        await this.visibleRuns(p),
        filter.scheduledTaskId ? { scheduledTaskId: filter.scheduledTaskId.toLowerCase() } : {},
        filter.statuses ? { status: { in: filter.statuses } } : {},
        filter.task ? { task: filter.task } : {},
        filter.kwarg ? { kwargs: { path: [filter.kwarg.name], equals: filter.kwarg.value } } : {},
      ],
    };
    const { prisma } = this.ctx.db;
    const [items, total] = await Promise.all([
      prisma.taskRun.findMany({ ...query, where, orderBy: [{ queuedAt: "desc" }, { id: "asc" }], skip: offsetOf(req), take: req.size }),
      prisma.taskRun.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  async runRecord(p: Principal | null, runId: string, query: TaskRunSelection = {}): Promise<TaskRun> {
    authorize(p, "tasks:read");
    const run = await this.ctx.db.prisma.taskRun.findFirst({ ...query, where: { AND: [{ id: checkId(runId, "Task run") }, await this.visibleRuns(p)] } });
    if (!run) throw errors.notFound("Task run");
    return run;
  }

  /** The last runs' states of schedules the caller sees (a batch of a GraphQL page). */
  async runStatuses(p: Principal | null, runIds: readonly string[]): Promise<Map<string, RunStatus>> {
    authorize(p, "tasks:read");
    const runs = await this.ctx.db.prisma.taskRun.findMany({ where: { id: { in: [...runIds] } }, select: { id: true, status: true } });
    return new Map(runs.map((r) => [r.id, r.status as RunStatus]));
  }

  private async visibleRuns(p: Principal): Promise<Prisma.TaskRunWhereInput> {
    if (listedOwner(p) === null) return {};
    const owned = await this.ctx.db.prisma.scheduledTask.findMany({ where: visibleScheduleWhere(p), select: { id: true } });
    return visibleRunWhere(p, owned.map((t) => t.id));
  }

  private visible(p: Principal, row: ScheduledTaskRow | null): ScheduledTaskRow {
    if (!row || !canManageSchedule(p, row)) throw errors.notFound("Scheduled task");
    return row;
  }

  private async canSeeRun(p: Principal, run: TaskRunRow): Promise<boolean> {
    if (canSeeRun(p, run, null)) return true;
    if (!run.scheduledTaskId) return false;
    const schedule = await findScheduledTask(this.ctx.db.pool, run.scheduledTaskId);
    return canSeeRun(p, run, schedule?.ownerId ?? null);
  }
}

/**
 * A registered task's complaint about the arguments it was given (raised at their place, `args` or
 * `kwargs.<name>`) is about the caller's input: the service's own input error, which each adapter
 * locates. (Run now and each run's start check stored arguments: those stay as raised.)
 */
async function asInput(check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    if (err instanceof AppError && !(err instanceof InputError) && err.code === "validation_error" && Array.isArray(err.detail)) throw new InputError(err.detail);
    throw err;
  }
}

/** Ids are UUIDs; anything else cannot exist (404, as the peer's clients expect for a foreign id). */
function checkId(id: string, what = "Scheduled task"): string {
  if (!UUID.test(id)) throw errors.notFound(what);
  return id.toLowerCase();
}
