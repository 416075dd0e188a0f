import type { Readable } from "node:stream";
import type { AppContext } from "../../app-context.ts";
import { authorize, requireUser, scopesOf, type Principal } from "../../auth/principal.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { offsetOf, pageOf, type Page, type PageRequest } from "../../platform/pagination.ts";
import type { AuditService } from "../audit/index.ts";
import { parseUserQuery } from "../search/index.ts";
import { readRuntimeSetting } from "../settings/index.ts";
import { nextRun, scheduleOfRecord, type Schedule } from "../tasks/index.ts";
import { queueRun, wakeTicker } from "../tasks/index.ts";
import { deleteScheduledTask, findScheduledTask, insertScheduledTask, updateScheduledTask, type ScheduledTaskRow } from "../tasks/index.ts";
import { FILE_TYPES } from "./export-files.ts";
import {
  countActiveExports,
  deleteExport,
  findExport,
  insertExport,
  markQueued,
  setExportSchedule,
  type ExportFileFormat,
  type ExportIndexTarget,
  type ExportRow,
  type ExportStatus,
} from "./export-store.ts";
import { exportCreateContract, exportScheduleContract, type ExportCreateInput, type ExportScheduleInput } from "./exports.contracts.ts";
import { canListOthersExports, canManageExport, managedExportWhere } from "./exports.policy.ts";
import { likeLiteral } from "../../platform/db/like.ts";
import type { Export, Prisma, ScheduledTask } from "../../generated/prisma/client.ts";

/** What a GraphQL selection asks to load with exports (@pothos/plugin-prisma's query). */
export type ExportSelection = Pick<Prisma.ExportFindManyArgs, "include" | "select">;
import { exportFolder, RUN_EXPORT_TASK, runExportTask } from "./run-export-task.ts";

interface ExportSchedulePatch {
  /** null: no schedule any more; undefined: unchanged. */
  schedule?: Schedule | null;
  scheduleEnabled?: boolean;
}

/** An export with its schedule (the run_export scheduled task's), as every answer shows it. */
export interface ExportView extends ExportRow {
  schedule: Schedule | null;
  scheduleEnabled: boolean;
}

export interface ExportDownload {
  stream: Readable;
  filename: string;
  contentType: string;
  size: number | null;
}

/** Waiting for the user's running export to finish usually takes seconds to minutes. */
const RETRY_AFTER_SECONDS = 30;

/**
 * Saved exports (peer notes 3.20): a Lucene query over events or attributes written to a file in
 * json, csv, misp or stix, run now or on a schedule, downloaded when complete. An export is its
 * owner's (exports.policy.ts); its runs read with the owner's current rights.
 */
export class ExportsService {
  constructor(
    private readonly ctx: AppContext,
    private readonly audit: AuditService,
  ) {}

  /** The page of `page()`, each export with its schedule, in one read (REST's list). */
  async list(p: Principal | null, f: { all?: boolean; name?: string }, req: PageRequest): Promise<Page<ExportView>> {
    const page = await this.page(p, f, req, { include: { scheduledTask: true } });
    return { ...page, items: (page.items as (Export & { scheduledTask: ScheduledTask | null })[]).map(viewOfRecord) };
  }

  async get(p: Principal | null, id: number): Promise<ExportView> {
    authorize(p, "exports:read");
    return this.view(this.ctx.db.pool, this.visible(p, await findExport(this.ctx.db.pool, id)));
  }

  /** Stores the export and queues its first run at once (as the peer); with a schedule, its run_export task too. */
  async create(p: Principal | null, given: ExportCreateInput): Promise<ExportView> {
    authorize(p, "exports:create");
    const input = parseInput(exportCreateContract, given);
    authorize(p, `${input.indexTarget}:read`);
    requireUser(p);
    parseUserQuery(input.query);
    const id = await withTransaction(this.ctx.db.pool, async (client) => {
      await this.checkActiveLimit(client, p.userId);
      const e = await insertExport(client, { userId: p.userId, name: input.name, query: input.query, indexTarget: input.indexTarget, format: input.format, distribution: input.distribution ?? null });
      if (input.schedule) await this.writeSchedule(client, e, { schedule: input.schedule, scheduleEnabled: input.scheduleEnabled }, scopesOf(p));
      await this.queue(client, p, e);
      return e.id;
    });
    await this.audit.record(p, { action: "export.created", resourceType: "export", resourceId: id, metadata: { name: input.name, format: input.format, index_target: input.indexTarget } });
    return this.get(p, id);
  }

  /** A new run now: the export goes back to `queued`; its current file stays until the run completes. */
  async run(p: Principal | null, id: number): Promise<ExportView> {
    authorize(p, "exports:create");
    await withTransaction(this.ctx.db.pool, async (client) => {
      const e = this.visible(p, await findExport(client, id, true));
      authorize(p, `${e.indexTarget}:read`);
      if (e.status === "queued" || e.status === "running") throw errors.conflict("This export is already queued or running");
      await this.checkActiveLimit(client, e.userId);
      await this.queue(client, p, e);
    });
    return this.get(p, id);
  }

  async setSchedule(p: Principal | null, id: number, given: ExportScheduleInput): Promise<ExportView> {
    authorize(p, "exports:create");
    const patch: ExportSchedulePatch = parseInput(exportScheduleContract, given);
    await withTransaction(this.ctx.db.pool, async (client) => {
      const e = this.visible(p, await findExport(client, id, true));
      await this.writeSchedule(client, e, patch, e.userId === p.userId ? scopesOf(p) : ["*"]);
    });
    await this.audit.record(p, { action: "export.schedule_updated", resourceType: "export", resourceId: id, metadata: { scheduled: patch.schedule !== null, enabled: patch.scheduleEnabled ?? null } });
    return this.get(p, id);
  }

  /** The last complete file; 409 while the export is queued, running or failed. */
  async download(p: Principal | null, id: number): Promise<ExportDownload> {
    authorize(p, "exports:read");
    const e = this.visible(p, await findExport(this.ctx.db.pool, id));
    if (e.status !== "completed" || !e.storageKey) throw errors.conflict(`Export is not completed (status: ${e.status})`);
    const stream = await this.ctx.storage.get(e.storageKey);
    const type = FILE_TYPES[e.format];
    return { stream, filename: `${e.name}.${type.extension}`, contentType: type.contentType, size: e.fileSize };
  }

  async delete(p: Principal | null, id: number): Promise<void> {
    authorize(p, "exports:delete");
    const e = await withTransaction(this.ctx.db.pool, async (client) => {
      const current = this.visible(p, await findExport(client, id, true));
      if (current.scheduledTaskId) await deleteScheduledTask(client, current.scheduledTaskId);
      await deleteExport(client, id);
      return current;
    });
    // A run still going finds its row gone and fails; what it wrote under the folder goes with it.
    await this.ctx.storage.deleteTree(exportFolder(id)).catch((err) => this.ctx.log.warn({ err, export_id: id }, "could not remove an export's files"));
    await this.audit.record(p, { action: "export.deleted", resourceType: "export", resourceId: id, metadata: { name: e.name, owner_id: e.userId } });
  }

  // ---- the same reads as Prisma records, loaded with a GraphQL selection's query ----

  /** Your exports (administrators with `all`: everyone's), newest first, as a page. */
  async page(p: Principal | null, f: { all?: boolean; name?: string }, req: PageRequest, query: ExportSelection = {}): Promise<Page<Export>> {
    authorize(p, "exports:read");
    requireUser(p);
    if (f.all && !canListOthersExports(p)) throw errors.forbidden("Only administrators list other users' exports");
    const where: Prisma.ExportWhereInput = {
      AND: [f.all ? managedExportWhere(p) : { userId: p.userId }, f.name ? { name: { contains: likeLiteral(f.name), mode: "insensitive" } } : {}],
    };
    const { prisma } = this.ctx.db;
    const [items, total] = await Promise.all([
      prisma.export.findMany({ ...query, where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], skip: offsetOf(req), take: req.size }),
      prisma.export.count({ where }),
    ]);
    return pageOf(items, total, req);
  }

  async record(p: Principal | null, id: number, query: ExportSelection = {}): Promise<Export> {
    authorize(p, "exports:read");
    const e = await this.ctx.db.prisma.export.findFirst({ ...query, where: { id, ...managedExportWhere(p) } });
    if (!e) throw errors.notFound("Export");
    return e;
  }

  private visible(p: Principal | null, e: ExportRow | null): ExportRow {
    if (!e || !p || !canManageExport(p, e)) throw errors.notFound("Export");
    return e;
  }

  private async view(sql: Sql, e: ExportRow): Promise<ExportView> {
    const task: ScheduledTaskRow | null = e.scheduledTaskId ? await findScheduledTask(sql, e.scheduledTaskId) : null;
    return { ...e, schedule: task?.schedule ?? null, scheduleEnabled: task?.enabled ?? false };
  }

  /** exports.max_active_per_user: 429 with Retry-After beyond it. */
  private async checkActiveLimit(sql: Sql, userId: number): Promise<void> {
    const { max_active_per_user: max } = await readRuntimeSetting(sql, "exports");
    if ((await countActiveExports(sql, userId)) >= max) {
      throw errors.rateLimited(`Too many exports: at most ${max} per user are queued or running at once; try again when one has finished`, RETRY_AFTER_SECONDS);
    }
  }

  private async queue(sql: Sql, p: Principal & { userId: number | null }, e: ExportRow): Promise<void> {
    const run = await queueRun(
      sql,
      { scheduledTaskId: null, task: RUN_EXPORT_TASK, args: [], kwargs: { export_id: e.id }, trigger: "manual", runAsUserId: p.userId, grantScopes: scopesOf(p) },
      runExportTask,
    );
    await markQueued(sql, e.id, run.id);
  }

  /** The export's run_export scheduled task, owned by the export's owner (so it pauses and fails like any task). */
  private async writeSchedule(sql: Sql, e: ExportRow, patch: ExportSchedulePatch, grantScopes: string[]): Promise<void> {
    const current = e.scheduledTaskId ? await findScheduledTask(sql, e.scheduledTaskId, true) : null;
    if (patch.schedule === null) {
      if (current) await deleteScheduledTask(sql, current.id);
      await setExportSchedule(sql, e.id, null);
      return;
    }
    const schedule = patch.schedule ?? current?.schedule;
    if (!schedule) {
      if (patch.scheduleEnabled !== undefined) throw errors.invalidInput(["schedule"], "This export has no schedule: send one with scheduleEnabled");
      return;
    }
    const enabled = patch.scheduleEnabled ?? current?.enabled ?? false;
    const fields = { name: `Export ${e.id}: ${e.name}`.slice(0, 255), args: [], kwargs: { export_id: e.id }, schedule, enabled, nextRunAt: enabled ? nextRun(schedule, new Date()) : null };
    if (current) await updateScheduledTask(sql, current.id, fields);
    else await setExportSchedule(sql, e.id, (await insertScheduledTask(sql, { ...fields, task: RUN_EXPORT_TASK, ownerId: e.userId, grantScopes })).id);
    await wakeTicker(sql);
  }
}

/** An export record with its scheduled task, as every answer shows it. */
function viewOfRecord(e: Export & { scheduledTask: ScheduledTask | null }): ExportView {
  const { scheduledTask, ...row } = e;
  return {
    ...row,
    indexTarget: row.indexTarget as ExportIndexTarget,
    format: row.format as ExportFileFormat,
    status: row.status as ExportStatus,
    fileSize: row.fileSize === null ? null : Number(row.fileSize),
    schedule: scheduledTask ? scheduleOfRecord(scheduledTask) : null,
    scheduleEnabled: scheduledTask?.enabled ?? false,
  };
}
