/**
 * The SQL of event reports: reads with their event's access fields, the writes of the REST and
 * GraphQL routes, the MISP import's upsert and the MISP export's rows.
 */
import type pg from "pg";
import { readableSql } from "../../auth/distribution.ts";
import type { Principal } from "../../auth/principal.ts";
import type { Sql } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import type { Change } from "../changes/index.ts";
import type { EventRef } from "../attributes/index.ts";
import type { SharingGroupDraft } from "../events/index.ts";

export interface ReportView {
  id: number;
  uuid: string;
  eventId: number;
  eventUuid: string;
  name: string;
  content: string;
  distribution: number;
  sharingGroupId: number | null;
  timestamp: number;
  deleted: boolean;
  deletedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  event: EventRef;
}

const REPORT_SELECT = `
  SELECT r.id, r.uuid::text, r.event_id, e.uuid::text AS event_uuid, r.name, r.content, r.distribution, r.sharing_group_id,
         r.timestamp, r.deleted, r.deleted_at, r.created_at, r.updated_at,
         e.info AS event_info, e.distribution AS event_distribution, e.sharing_group_id AS event_sharing_group_id, e.org_id AS event_org_id, e.orgc_id AS event_orgc_id
    FROM event_reports r JOIN events e ON e.id = r.event_id`;

interface ReportRow {
  id: number;
  uuid: string;
  event_id: number;
  event_uuid: string;
  name: string;
  content: string;
  distribution: number;
  sharing_group_id: number | null;
  timestamp: string | number;
  deleted: boolean;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  event_info: string;
  event_distribution: number;
  event_org_id: number;
  event_orgc_id: number;
  event_sharing_group_id: number | null;
}

function toView(r: ReportRow): ReportView {
  return {
    id: r.id,
    uuid: r.uuid,
    eventId: r.event_id,
    eventUuid: r.event_uuid,
    name: r.name,
    content: r.content,
    distribution: r.distribution,
    sharingGroupId: r.sharing_group_id,
    timestamp: Number(r.timestamp),
    deleted: r.deleted,
    deletedAt: r.deleted_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    event: { id: r.event_id, uuid: r.event_uuid, info: r.event_info, distribution: r.event_distribution, sharingGroupId: r.event_sharing_group_id, orgId: r.event_org_id, orgcId: r.event_orgc_id },
  };
}

export async function loadReport(sql: Sql, uuid: string): Promise<ReportView | null> {
  const { rows } = await sql.query<ReportRow>(`${REPORT_SELECT} WHERE r.uuid = $1`, [uuid]);
  return rows[0] ? toView(rows[0]) : null;
}

/** The reports of one event the reader may read (the caller checked the event), oldest first. */
export async function reportsOfEvent(sql: Sql, eventId: number, reader: Principal, deleted: boolean): Promise<ReportView[]> {
  const params: unknown[] = [eventId, deleted];
  const readable = readableSql(reader, "e", ["r.distribution"], params);
  const { rows } = await sql.query<ReportRow>(`${REPORT_SELECT} WHERE r.event_id = $1 AND r.deleted = $2 AND ${readable} ORDER BY r.id`, params);
  return rows.map(toView);
}

export const reportChange = (kind: string, r: { uuid: string; name: string; distribution: number }, e: Pick<EventRef, "uuid" | "info">, extra: Record<string, unknown> = {}): Change => ({
  kind,
  entityType: "report",
  entityUuid: r.uuid,
  eventUuid: e.uuid,
  payload: { event_title: e.info, report_name: r.name, distribution: r.distribution, ...extra },
});

/** A report of a MISP event as the import parsed it. */
export interface ReportDraft {
  uuid: string;
  name: string;
  content: string;
  distribution: number;
  sharingGroupId: number | null;
  /** The file's SharingGroup block (see EventDraft). */
  sharingGroup: SharingGroupDraft | null;
  timestamp: number;
  deleted: boolean;
}

const CHUNK = 500;

/**
 * Stores an imported event's reports in the caller's transaction: created, or updated by uuid when
 * the draft's timestamp is newer (as attributes and objects are). A uuid of another event's report is
 * a conflict (409). A sharing group id that names no local group is dropped (the number was the
 * sender's). Returns a change record per stored report.
 */
export async function upsertReportDrafts(client: pg.PoolClient, event: Pick<EventRef, "id" | "uuid" | "info">, drafts: readonly ReportDraft[]): Promise<Change[]> {
  if (drafts.length === 0) return [];
  const taken = await client.query<{ uuid: string }>(
    "SELECT uuid::text FROM event_reports WHERE uuid = ANY($1::uuid[]) AND event_id <> $2 LIMIT 20",
    [drafts.map((d) => d.uuid), event.id],
  );
  if (taken.rows.length) throw errors.conflict(`These uuids already belong to another event: ${taken.rows.map((r) => `event report ${r.uuid}`).join(", ")}`);
  const changes: Change[] = [];
  for (let i = 0; i < drafts.length; i += CHUNK) {
    const c = drafts.slice(i, i + CHUNK);
    const { rows } = await client.query<{ uuid: string; inserted: boolean; name: string; distribution: number }>(
      `INSERT INTO event_reports (event_id, uuid, name, content, distribution, sharing_group_id, timestamp, deleted, deleted_at)
       SELECT $1, x.u, x.n, x.c, x.d, (SELECT g.id FROM sharing_groups g WHERE g.id = x.sg), x.ts, x.del, CASE WHEN x.del THEN now() END
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::smallint[], $6::int[], $7::bigint[], $8::boolean[]) AS x(u, n, c, d, sg, ts, del)
       ON CONFLICT (uuid) DO UPDATE SET name = EXCLUDED.name, content = EXCLUDED.content, distribution = EXCLUDED.distribution,
         sharing_group_id = EXCLUDED.sharing_group_id, timestamp = EXCLUDED.timestamp, deleted = EXCLUDED.deleted,
         deleted_at = CASE WHEN EXCLUDED.deleted THEN COALESCE(event_reports.deleted_at, now()) END, updated_at = now()
       WHERE event_reports.event_id = EXCLUDED.event_id AND event_reports.timestamp < EXCLUDED.timestamp
       RETURNING uuid::text, (xmax = 0) AS inserted, name, distribution`,
      [
        event.id,
        c.map((d) => d.uuid),
        c.map((d) => d.name),
        c.map((d) => d.content),
        c.map((d) => d.distribution),
        c.map((d) => d.sharingGroupId),
        c.map((d) => d.timestamp),
        c.map((d) => d.deleted),
      ],
    );
    for (const r of rows) changes.push(reportChange(r.inserted ? "report.created" : "report.updated", r, event));
  }
  return changes;
}

/** The reports of these events the reader may read, by event id, in MISP's JSON form (`EventReport[]`): numbers as strings. */
export async function mispEventReports(sql: Sql, eventIds: readonly number[], reader: Principal): Promise<Map<number, Record<string, unknown>[]>> {
  const byEvent = new Map<number, Record<string, unknown>[]>(eventIds.map((id) => [id, []]));
  if (eventIds.length === 0) return byEvent;
  const params: unknown[] = [eventIds];
  const readable = readableSql(reader, "e", ["r.distribution"], params);
  const { rows } = await sql.query<ReportRow>(`${REPORT_SELECT} WHERE r.event_id = ANY($1::int[]) AND ${readable} ORDER BY r.id`, params);
  for (const r of rows) {
    byEvent.get(r.event_id)?.push({
      uuid: r.uuid,
      name: r.name,
      content: r.content,
      distribution: String(r.distribution),
      sharing_group_id: String(r.sharing_group_id ?? 0),
      timestamp: String(r.timestamp),
      deleted: r.deleted,
    });
  }
  return byEvent;
}
