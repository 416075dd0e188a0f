import type { Sql } from "../../platform/db/transaction.ts";
import type { MispObjectRow } from "../events/index.ts";

export const EXPORT_FORMATS = ["json", "csv", "misp", "stix"] as const;
export type ExportFileFormat = (typeof EXPORT_FORMATS)[number];
export const EXPORT_TARGETS = ["attributes", "events"] as const;
export type ExportIndexTarget = (typeof EXPORT_TARGETS)[number];
export const EXPORT_STATUSES = ["queued", "running", "completed", "failed"] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** One saved export, as the `exports` table holds it. */
export interface ExportRow {
  id: number;
  userId: number;
  name: string;
  query: string;
  indexTarget: ExportIndexTarget;
  format: ExportFileFormat;
  distribution: number | null;
  mispEventUuid: string;
  status: ExportStatus;
  storageKey: string | null;
  fileSize: number | null;
  recordCount: number | null;
  error: string | null;
  taskRunId: string | null;
  scheduledTaskId: string | null;
  lastRunAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
  createdAt: Date;
}

const COLUMNS = `id, user_id, name, query, index_target, format, distribution, misp_event_uuid::text, status, storage_key,
  file_size, record_count, error, task_run_id::text, scheduled_task_id::text, last_run_at, started_at, finished_at, created_at`;

interface Row {
  id: number;
  user_id: number;
  name: string;
  query: string;
  index_target: string;
  format: string;
  distribution: number | null;
  misp_event_uuid: string;
  status: string;
  storage_key: string | null;
  file_size: string | null;
  record_count: number | null;
  error: string | null;
  task_run_id: string | null;
  scheduled_task_id: string | null;
  last_run_at: Date | null;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
}

function toExport(r: Row): ExportRow {
  return {
    id: r.id,
    userId: r.user_id,
    name: r.name,
    query: r.query,
    indexTarget: r.index_target as ExportIndexTarget,
    format: r.format as ExportFileFormat,
    distribution: r.distribution,
    mispEventUuid: r.misp_event_uuid,
    status: r.status as ExportStatus,
    storageKey: r.storage_key,
    fileSize: r.file_size === null ? null : Number(r.file_size),
    recordCount: r.record_count,
    error: r.error,
    taskRunId: r.task_run_id,
    scheduledTaskId: r.scheduled_task_id,
    lastRunAt: r.last_run_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    createdAt: r.created_at,
  };
}

export type NewExport = Pick<ExportRow, "userId" | "name" | "query" | "indexTarget" | "format" | "distribution">;

export async function insertExport(sql: Sql, e: NewExport): Promise<ExportRow> {
  const { rows } = await sql.query<Row>(
    `INSERT INTO exports (user_id, name, query, index_target, format, distribution) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [e.userId, e.name, e.query, e.indexTarget, e.format, e.distribution],
  );
  return toExport(rows[0]);
}

export async function findExport(sql: Sql, id: number, forUpdate = false): Promise<ExportRow | null> {
  const { rows } = await sql.query<Row>(`SELECT ${COLUMNS} FROM exports WHERE id = $1${forUpdate ? " FOR UPDATE" : ""}`, [id]);
  return rows[0] ? toExport(rows[0]) : null;
}

/** Exports of a user queued or running now (the per-user limit). */
export async function countActiveExports(sql: Sql, userId: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>("SELECT count(*)::int AS n FROM exports WHERE user_id = $1 AND status IN ('queued', 'running')", [userId]);
  return rows[0].n;
}

export async function markQueued(sql: Sql, id: number, taskRunId: string): Promise<void> {
  await sql.query("UPDATE exports SET status = 'queued', task_run_id = $2, error = NULL WHERE id = $1", [id, taskRunId]);
}

export async function markRunning(sql: Sql, id: number, taskRunId: string): Promise<void> {
  await sql.query("UPDATE exports SET status = 'running', task_run_id = $2, started_at = now(), finished_at = NULL, error = NULL, record_count = 0 WHERE id = $1", [id, taskRunId]);
}

export async function saveExportProgress(sql: Sql, id: number, recordCount: number): Promise<void> {
  await sql.query("UPDATE exports SET record_count = $2 WHERE id = $1 AND status = 'running'", [id, recordCount]);
}

/** The new file replaces the previous one; returns the previous key (to remove from storage). */
export async function markCompleted(sql: Sql, id: number, f: { storageKey: string; fileSize: number; recordCount: number }): Promise<string | null> {
  const { rows } = await sql.query<{ previous: string | null }>(
    `UPDATE exports e SET status = 'completed', storage_key = $2, file_size = $3, record_count = $4, finished_at = now(), last_run_at = now(), error = NULL
       FROM (SELECT storage_key AS previous FROM exports WHERE id = $1 FOR UPDATE) p
      WHERE e.id = $1 RETURNING p.previous`,
    [id, f.storageKey, f.fileSize, f.recordCount],
  );
  return rows[0]?.previous ?? null;
}

/** A failed run: download answers 409; the previous file stays in storage until a success replaces it or the export is deleted. */
export async function markFailed(sql: Sql, id: number, error: string): Promise<void> {
  await sql.query("UPDATE exports SET status = 'failed', error = $2, finished_at = now(), last_run_at = now() WHERE id = $1", [id, error.slice(0, 2000)]);
}

export async function setExportSchedule(sql: Sql, id: number, scheduledTaskId: string | null): Promise<void> {
  await sql.query("UPDATE exports SET scheduled_task_id = $2 WHERE id = $1", [id, scheduledTaskId]);
}

export async function deleteExport(sql: Sql, id: number): Promise<void> {
  await sql.query("DELETE FROM exports WHERE id = $1", [id]);
}

/** The objects of a misp export's object attributes, by uuid (batched by the caller). */
export async function loadObjects(sql: Sql, uuids: string[]): Promise<MispObjectRow[]> {
  const { rows } = await sql.query<MispObjectRow>(
    `SELECT uuid::text, name, meta_category, description, template_uuid::text, template_version, timestamp::text, distribution,
            sharing_group_id, comment, deleted, first_seen, last_seen
       FROM objects WHERE uuid = ANY($1::uuid[])`,
    [uuids],
  );
  return rows;
}
