import crypto from "node:crypto";
import type pg from "pg";
import type { AppContext } from "../../app-context.ts";
import { canReadEvent, canReadInEvent, canWriteEvent, readableEventWhere, readableReportWhere } from "../../auth/distribution.ts";
import { authorize, type Principal } from "../../auth/principal.ts";
import type { Prisma } from "../../platform/db/index.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { errors, parseInput } from "../../platform/errors.ts";
import { lockEvent, nowSeconds, touchEvent, writableEvent, type EventRef } from "../attributes/index.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { loadReport, reportChange, reportsOfEvent, type ReportView } from "./report-store.ts";
import { reportCreateContract, reportPatchContract, type ReportCreate, type ReportPatch } from "./reports.contracts.ts";
import { checkAssignableSharingGroups } from "../sharing-groups/index.ts";

/** What @pothos/plugin-prisma planned for the GraphQL selection. */
export type ReportSelection = Pick<Prisma.EventReportFindManyArgs, "include" | "select">;
/** A report row as Prisma loads it. */
export type ReportRecord = Prisma.EventReportGetPayload<object>;

const EVENT_NOT_FOUND = "Event";
const REPORT_NOT_FOUND = "Event report";

/** The distribution rule for one report: its event and its own level (a report is an item of its event, as an object is). */
const canReadReport = (p: Principal, r: Pick<ReportView, "event" | "distribution" | "sharingGroupId">) =>
  canReadInEvent(p, r.event, { distribution: r.distribution, sharingGroupId: r.sharingGroupId });

/**
 * MISP event reports: markdown documents inside an event. Reading one needs its event readable and
 * its own level (404 otherwise); writing needs write access to its event (403 when it is readable but
 * another organisation's). Content is stored as given and never rendered here. Every change bumps
 * the event's timestamp and writes a `report.*` change record (search re-indexes the event document).
 */
export class ReportsService {
  constructor(private readonly ctx: AppContext) {}

  /** The event's reports the caller may read (live ones unless `deleted`); 404 when the event is not readable. */
  async listOfEvent(p: Principal | null, eventUuid: string, opts: { deleted?: boolean } = {}): Promise<ReportView[]> {
    authorize(p, "reports:read");
    const e = await this.readableEvent(p, eventUuid);
    return reportsOfEvent(this.ctx.db.pool, e.id, p, opts.deleted ?? false);
  }

  /** The same for GraphQL: Prisma rows loaded with the selection the plugin planned, same rule and order. */
  async findOfEvent(p: Principal | null, eventUuid: string, opts: { deleted?: boolean }, selection: ReportSelection): Promise<ReportRecord[]> {
    authorize(p, "reports:read");
    const e = await this.ctx.db.prisma.event.findFirst({ where: { AND: [readableEventWhere(p), { uuid: eventUuid }] }, select: { id: true } });
    if (!e) throw errors.notFound(EVENT_NOT_FOUND);
    return this.ctx.db.prisma.eventReport.findMany({ ...selection, where: { AND: [readableReportWhere(p), { eventId: e.id, deleted: opts.deleted ?? false }] }, orderBy: { id: "asc" } });
  }

  /** One report (a soft-deleted one too); 404 when it is not readable. */
  async get(p: Principal | null, uuid: string): Promise<ReportView> {
    authorize(p, "reports:read");
    const r = await loadReport(this.ctx.db.pool, uuid);
    if (!r || !canReadReport(p, r)) throw errors.notFound(REPORT_NOT_FOUND);
    return r;
  }

  /** One report for GraphQL, with the plugin's selection. */
  async findOne(p: Principal | null, uuid: string, selection: ReportSelection): Promise<ReportRecord> {
    authorize(p, "reports:read");
    const r = await this.ctx.db.prisma.eventReport.findFirst({ ...selection, where: { AND: [readableReportWhere(p), { uuid }] } });
    if (!r) throw errors.notFound(REPORT_NOT_FOUND);
    return r;
  }

  /** The relation query of an event's reports (Event.reports): the live ones the caller may read, oldest first. */
  reportsOfEventRelation(p: Principal | null) {
    authorize(p, "reports:read");
    const where: Prisma.EventReportWhereInput = { AND: [{ deleted: false }, readableReportWhere(p)] };
    return { where, orderBy: { id: "asc" as const } };
  }

  async create(p: Principal | null, eventUuid: string, input: ReportCreate): Promise<ReportView> {
    authorize(p, "reports:create");
    const data = parseInput(reportCreateContract, input);
    const uuid = data.uuid ?? crypto.randomUUID();
    return withTransaction(this.ctx.db.pool, async (client) => {
      const e = await writableEvent(client, p, eventUuid.toLowerCase());
      if (data.sharingGroupId != null) await checkAssignableSharingGroups(client, p, [{ id: data.sharingGroupId, loc: ["sharingGroupId"] }]);
      const now = nowSeconds();
      const name = data.name?.trim() ? data.name.trim() : `Event report (${now})`;
      const distribution = data.distribution ?? 5;
      const inserted = await client.query(
        `INSERT INTO event_reports (event_id, uuid, name, content, distribution, sharing_group_id, timestamp)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (uuid) DO NOTHING`,
        [e.id, uuid, name, data.content ?? "", distribution, data.sharingGroupId ?? null, now],
      );
      if (!inserted.rowCount) throw errors.conflict("An event report with this uuid already exists");
      await touchEvent(client, e.id, now);
      await recordChanges(client, p, [reportChange("report.created", { uuid, name, distribution }, e)]);
      return (await loadReport(client, uuid))!;
    });
  }

  /** Changes the fields given; `deleted: false` restores a soft-deleted report. */
  async update(p: Principal | null, uuid: string, patch: ReportPatch): Promise<ReportView> {
    authorize(p, "reports:update");
    const data = parseInput(reportPatchContract, patch);
    const updated = await this.mutate(p, uuid, async (client, r, e, now) => {
      if (data.sharingGroupId != null) await checkAssignableSharingGroups(client, p, [{ id: data.sharingGroupId, loc: ["sharingGroupId"] }]);
      const sets: string[] = [];
      const fields: string[] = [];
      const params: unknown[] = [r.id, now];
      const set = (column: string, field: string, value: unknown) => {
        params.push(value);
        sets.push(`${column} = $${params.length}`);
        fields.push(field);
      };
      if (data.name !== undefined) set("name", "name", data.name.trim());
      if (data.content !== undefined) set("content", "content", data.content);
      if (data.distribution !== undefined) set("distribution", "distribution", data.distribution);
      if (data.sharingGroupId !== undefined) set("sharing_group_id", "sharing_group_id", data.sharingGroupId);
      if (data.deleted !== undefined && data.deleted !== r.deleted) {
        sets.push(data.deleted ? "deleted = true, deleted_at = now()" : "deleted = false, deleted_at = NULL");
        fields.push("deleted");
      }
      if (sets.length === 0) {
        if (Object.keys(data).length === 0) throw errors.invalidInput([], "Nothing to update");
        return [];
      }
      await client.query(`UPDATE event_reports SET ${sets.join(", ")}, timestamp = GREATEST(timestamp + 1, $2), updated_at = now() WHERE id = $1`, params);
      await touchEvent(client, e.id, now);
      const after = { uuid: r.uuid, name: data.name?.trim() ?? r.name, distribution: data.distribution ?? r.distribution };
      const kind = data.deleted === true && !r.deleted ? "report.deleted" : "report.updated";
      // The level it had: who could read it before the change hears of it too (search drops it from their documents).
      return [reportChange(kind, after, e, { fields, previous_distribution: r.distribution })];
    });
    return updated!;
  }

  /**
   * Soft delete (the row stays, restorable with `deleted: false`); deleting a deleted report changes
   * nothing. `force`: deleted for good. Answers the report as it was left (or as it was, when gone).
   */
  async delete(p: Principal | null, uuid: string, opts: { force?: boolean } = {}): Promise<ReportView> {
    authorize(p, "reports:delete");
    let gone: ReportView | null = null;
    const kept = await this.mutate(p, uuid, async (client, r, e, now) => {
      if (opts.force) {
        await client.query("DELETE FROM event_reports WHERE id = $1", [r.id]);
        await touchEvent(client, e.id, now);
        gone = { ...r, deleted: true, deletedAt: r.deletedAt ?? new Date() };
        return [reportChange("report.deleted", r, e, { hard: true, announced: r.deleted })];
      }
      if (r.deleted) return [];
      await client.query("UPDATE event_reports SET deleted = true, deleted_at = now(), timestamp = GREATEST(timestamp + 1, $2), updated_at = now() WHERE id = $1", [r.id, now]);
      await touchEvent(client, e.id, now);
      return [reportChange("report.deleted", r, e)];
    });
    return gone ?? kept!;
  }

  /** Locks the report's event, then the report; 404 unreadable, 403 not writable; one transaction. */
  private mutate(p: Principal, uuid: string, fn: (client: pg.PoolClient, r: ReportView, e: EventRef, now: number) => Promise<Change[]>): Promise<ReportView | null> {
    return withTransaction(this.ctx.db.pool, async (client) => {
      const ref = await client.query<{ event_id: number }>("SELECT event_id FROM event_reports WHERE uuid = $1", [uuid]);
      if (!ref.rowCount) throw errors.notFound(REPORT_NOT_FOUND);
      const e = await lockEvent(client, { id: ref.rows[0].event_id });
      if (!e || !canReadEvent(p, e)) throw errors.notFound(REPORT_NOT_FOUND);
      await client.query("SELECT 1 FROM event_reports WHERE uuid = $1 FOR UPDATE", [uuid]);
      const r = await loadReport(client, uuid);
      if (!r || !canReadReport(p, r)) throw errors.notFound(REPORT_NOT_FOUND);
      if (!canWriteEvent(p, e)) throw errors.forbidden("The event belongs to another organisation");
      const changes = await fn(client, r, e, nowSeconds());
      if (changes.length) await recordChanges(client, p, changes);
      return loadReport(client, uuid);
    });
  }

  private async readableEvent(p: Principal, eventUuid: string): Promise<{ id: number }> {
    const { rows } = await this.ctx.db.pool.query<{ id: number; distribution: number; sharing_group_id: number | null; org_id: number; orgc_id: number }>(
      "SELECT id, distribution, sharing_group_id, org_id, orgc_id FROM events WHERE uuid = $1",
      [eventUuid.toLowerCase()],
    );
    const e = rows[0];
    if (!e || !canReadEvent(p, { distribution: e.distribution, sharingGroupId: e.sharing_group_id, orgId: e.org_id, orgcId: e.orgc_id })) throw errors.notFound(EVENT_NOT_FOUND);
    return e;
  }
}
