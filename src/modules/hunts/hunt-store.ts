import type { Sql } from "../../platform/db/transaction.ts";
import type { HuntStatus, HuntType, IndexTarget } from "./hunt-definition.ts";
import type { Hit } from "./hit-keys.ts";
import type { Hunt, ScheduledTask } from "../../generated/prisma/client.ts";
import { PERIOD_SECONDS } from "../tasks/index.ts";

/** Every SQL statement of hunts, their runs and their cached results. */

export interface HuntRow {
  id: number;
  userId: number;
  name: string;
  description: string | null;
  query: string;
  huntType: HuntType;
  indexTarget: IndexTarget | null;
  status: HuntStatus;
  scheduledTaskId: string | null;
  /** From the hunt's own scheduled task: its interval in seconds (null for a crontab), on or paused, next run. */
  scheduleSeconds: number | null;
  scheduleEnabled: boolean | null;
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  lastRunStatus: "succeeded" | "failed" | null;
  lastRunError: string | null;
  lastMatchCount: number | null;
  lastSuccessAt: Date | null;
  firstMatchedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface HuntRunRow {
  id: string;
  runAt: Date;
  status: "succeeded" | "failed";
  trigger: "manual" | "schedule";
  matchCount: number | null;
  newHitCount: number | null;
  error: string | null;
  durationMs: number;
  taskRunId: string | null;
}

export interface CachedResult {
  runId: string;
  runAt: Date;
  total: number;
  hits: Hit[];
}

const HUNT_COLUMNS = `h.id, h.user_id AS "userId", h.name, h.description, h.query, h.hunt_type AS "huntType",
  h.index_target AS "indexTarget", h.status, h.scheduled_task_id::text AS "scheduledTaskId",
  CASE WHEN t.schedule_type = 'interval' THEN t.interval_every * CASE t.interval_period
    WHEN 'seconds' THEN 1 WHEN 'minutes' THEN 60 WHEN 'hours' THEN 3600 WHEN 'days' THEN 86400 WHEN 'weeks' THEN 604800 END END AS "scheduleSeconds",
  t.enabled AS "scheduleEnabled", t.next_run_at AS "nextRunAt",
  h.last_run_at AS "lastRunAt", h.last_run_status AS "lastRunStatus", h.last_run_error AS "lastRunError",
  h.last_match_count AS "lastMatchCount", h.last_success_at AS "lastSuccessAt", h.first_matched_at AS "firstMatchedAt",
  h.created_at AS "createdAt", h.updated_at AS "updatedAt"`;
const FROM = "hunts h LEFT JOIN scheduled_tasks t ON t.id = h.scheduled_task_id";

const RUN_COLUMNS = `id::text, run_at AS "runAt", status, trigger, match_count AS "matchCount", new_hit_count AS "newHitCount",
  error, duration_ms AS "durationMs", task_run_id::text AS "taskRunId"`;

/** History kept per hunt (newest first); older runs are pruned when a run is recorded. */
export const MAX_HISTORY = 1000;

export interface HuntFields {
  name: string;
  description: string | null;
  query: string;
  huntType: HuntType;
  indexTarget: IndexTarget | null;
  status: HuntStatus;
}

export async function insertHunt(sql: Sql, userId: number, f: HuntFields): Promise<number> {
  const { rows } = await sql.query<{ id: number }>(
    `INSERT INTO hunts (user_id, name, description, query, hunt_type, index_target, status) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
    [userId, f.name, f.description, f.query, f.huntType, f.indexTarget, f.status],
  );
  return rows[0].id;
}

export async function findHunt(sql: Sql, id: number, forUpdate = false): Promise<HuntRow | null> {
  const { rows } = await sql.query<HuntRow>(`SELECT ${HUNT_COLUMNS} FROM ${FROM} WHERE h.id = $1 ${forUpdate ? "FOR UPDATE OF h" : ""}`, [id]);
  return rows[0] ?? null;
}

/** A scheduled task's interval in seconds; null for a crontab (HUNT_COLUMNS' scheduleSeconds). */
export function scheduleSecondsOf(t: Pick<ScheduledTask, "scheduleType" | "intervalEvery" | "intervalPeriod">): number | null {
  if (t.scheduleType !== "interval" || t.intervalEvery === null || t.intervalPeriod === null || !(t.intervalPeriod in PERIOD_SECONDS)) return null;
  return t.intervalEvery * PERIOD_SECONDS[t.intervalPeriod as keyof typeof PERIOD_SECONDS];
}

/** A hunt record loaded with its scheduled task, as the row every REST and MCP answer shows. */
export function huntRowOf(h: Hunt & { scheduledTask: ScheduledTask | null }): HuntRow {
  const { scheduledTask: task, runToken: _token, runLeaseUntil: _lease, ...hunt } = h;
  return {
    ...hunt,
    huntType: hunt.huntType as HuntType,
    indexTarget: hunt.indexTarget as IndexTarget | null,
    status: hunt.status as HuntStatus,
    lastRunStatus: hunt.lastRunStatus as HuntRow["lastRunStatus"],
    scheduleSeconds: task ? scheduleSecondsOf(task) : null,
    scheduleEnabled: task?.enabled ?? null,
    nextRunAt: task?.nextRunAt ?? null,
  };
}

/** A changed query, type or target is a new question: the cache and the alert baseline go with it. */
export async function updateHunt(sql: Sql, id: number, f: HuntFields, newQuestion: boolean): Promise<void> {
  await sql.query(
    `UPDATE hunts SET name = $2, description = $3, query = $4, hunt_type = $5, index_target = $6, status = $7, updated_at = now()
       ${newQuestion ? ", last_match_count = NULL, first_matched_at = NULL" : ""}
     WHERE id = $1`,
    [id, f.name, f.description, f.query, f.huntType, f.indexTarget, f.status],
  );
  if (newQuestion) await sql.query("DELETE FROM hunt_results WHERE hunt_id = $1", [id]);
}

export async function setHuntSchedule(sql: Sql, id: number, scheduledTaskId: string | null): Promise<void> {
  await sql.query("UPDATE hunts SET scheduled_task_id = $2, updated_at = now() WHERE id = $1", [id, scheduledTaskId]);
}

/** Deletes the hunt; its runs and result cascade, and a trigger deletes every schedule that runs it. */
export async function deleteHunt(sql: Sql, id: number): Promise<void> {
  await sql.query("DELETE FROM hunts WHERE id = $1", [id]);
}

/** Clears runs and result; the next run is a first run again. */
export async function clearHistory(sql: Sql, id: number): Promise<void> {
  await sql.query("DELETE FROM hunt_runs WHERE hunt_id = $1", [id]);
  await sql.query(
    "UPDATE hunts SET last_run_at = NULL, last_run_status = NULL, last_run_error = NULL, last_match_count = NULL, last_success_at = NULL, first_matched_at = NULL WHERE id = $1",
    [id],
  );
}

/**
 * Takes the hunt's run lease (null while another run holds an unexpired one). A run ends before its
 * lease does, so a lease left by a crashed process only delays the next run until it expires.
 */
export async function acquireRunLease(sql: Sql, id: number, seconds: number): Promise<{ token: string; hunt: HuntRow } | null> {
  const { rows } = await sql.query<{ token: string }>(
    `UPDATE hunts SET run_token = gen_random_uuid(), run_lease_until = now() + make_interval(secs => $2)
      WHERE id = $1 AND (run_lease_until IS NULL OR run_lease_until < now()) RETURNING run_token::text AS token`,
    [id, seconds],
  );
  if (!rows[0]) return null;
  const hunt = await findHunt(sql, id);
  return hunt ? { token: rows[0].token, hunt } : null;
}

/**
 * Locks the hunt for recording a run and reads it with the previous result's hit keys; null when
 * the hunt is gone or the lease is no longer this run's.
 */
export async function lockForRecording(sql: Sql, id: number, token: string): Promise<{ hunt: HuntRow; previousKeys: string[] | null } | null> {
  const { rows } = await sql.query<HuntRow & { previousKeys: string[] | null }>(
    `SELECT ${HUNT_COLUMNS}, (SELECT r.hit_keys FROM hunt_results r WHERE r.hunt_id = h.id) AS "previousKeys"
       FROM ${FROM} WHERE h.id = $1 AND h.run_token = $2::uuid FOR UPDATE OF h`,
    [id, token],
  );
  if (!rows[0]) return null;
  const { previousKeys, ...hunt } = rows[0];
  return { hunt, previousKeys };
}

export async function releaseRunLease(sql: Sql, id: number, token: string): Promise<void> {
  await sql.query("UPDATE hunts SET run_token = NULL, run_lease_until = NULL WHERE id = $1 AND run_token = $2::uuid", [id, token]);
}

export interface RecordedRun {
  trigger: "manual" | "schedule";
  taskRunId: string | null;
  durationMs: number;
}

/**
 * A successful run in one statement: history row, cached result, the hunt's counters (its lease
 * released), and the history pruned; returns the run.
 */
export async function recordSuccess(
  sql: Sql,
  huntId: number,
  run: RecordedRun,
  result: { total: number; hits: Hit[]; keys: string[]; newHitCount: number },
): Promise<HuntRunRow> {
  const { rows } = await sql.query<HuntRunRow>(
    `WITH run AS (
       INSERT INTO hunt_runs (hunt_id, status, trigger, match_count, new_hit_count, duration_ms, task_run_id)
       VALUES ($1, 'succeeded', $2, $3, $4, $5, $6) RETURNING *),
     cached AS (
       INSERT INTO hunt_results (hunt_id, run_id, run_at, total, hits, hit_keys) SELECT $1, run.id, run.run_at, $3, $7, $8 FROM run
       ON CONFLICT (hunt_id) DO UPDATE SET run_id = EXCLUDED.run_id, run_at = EXCLUDED.run_at, total = EXCLUDED.total, hits = EXCLUDED.hits, hit_keys = EXCLUDED.hit_keys),
     hunt AS (
       UPDATE hunts SET last_run_at = run.run_at, last_run_status = 'succeeded', last_run_error = NULL, last_match_count = $3, last_success_at = run.run_at,
         first_matched_at = COALESCE(first_matched_at, CASE WHEN $3 > 0 THEN run.run_at END), run_token = NULL, run_lease_until = NULL
       FROM run WHERE hunts.id = $1)
     SELECT ${RUN_COLUMNS} FROM run`,
    [huntId, run.trigger, result.total, result.newHitCount, run.durationMs, run.taskRunId, JSON.stringify(result.hits), result.keys],
  );
  await pruneHistory(sql, huntId);
  return rows[0];
}

/** A failed run: a history row with the reason; the cache and the last good count stay. */
export async function recordFailure(sql: Sql, huntId: number, run: RecordedRun, error: string): Promise<HuntRunRow> {
  const { rows } = await sql.query<HuntRunRow>(
    `WITH run AS (
       INSERT INTO hunt_runs (hunt_id, status, trigger, error, duration_ms, task_run_id) VALUES ($1, 'failed', $2, $3, $4, $5) RETURNING *),
     hunt AS (
       UPDATE hunts SET last_run_at = run.run_at, last_run_status = 'failed', last_run_error = $3, run_token = NULL, run_lease_until = NULL
       FROM run WHERE hunts.id = $1)
     SELECT ${RUN_COLUMNS} FROM run`,
    [huntId, run.trigger, error, run.durationMs, run.taskRunId],
  );
  await pruneHistory(sql, huntId);
  return rows[0];
}

async function pruneHistory(sql: Sql, huntId: number): Promise<void> {
  await sql.query(
    `DELETE FROM hunt_runs WHERE hunt_id = $1
        AND id < (SELECT id FROM hunt_runs WHERE hunt_id = $1 ORDER BY run_at DESC, id DESC OFFSET $2 LIMIT 1)
        AND id <> COALESCE((SELECT run_id FROM hunt_results WHERE hunt_id = $1), 0)`,
    [huntId, MAX_HISTORY - 1],
  );
}

export async function listRuns(sql: Sql, huntId: number, skip: number, limit: number): Promise<HuntRunRow[]> {
  const { rows } = await sql.query<HuntRunRow>(`SELECT ${RUN_COLUMNS} FROM hunt_runs WHERE hunt_id = $1 ORDER BY run_at DESC, id DESC LIMIT $2 OFFSET $3`, [huntId, limit, skip]);
  return rows;
}

export async function countRuns(sql: Sql, huntId: number): Promise<number> {
  const { rows } = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM hunt_runs WHERE hunt_id = $1`, [huntId]);
  return rows[0].n;
}

/**
 * One page of the cached hits (offset and limit in the stored order), with how many hits are kept in
 * all: a cpe hunt's result has no cap, so a page must not carry the whole set.
 */
export async function cachedResultPage(sql: Sql, huntId: number, offset: number, limit: number): Promise<(CachedResult & { hitCount: number }) | null> {
  const { rows } = await sql.query<CachedResult & { hitCount: number }>(
    `SELECT run_id::text AS "runId", run_at AS "runAt", total, jsonb_array_length(hits) AS "hitCount",
            COALESCE((SELECT jsonb_agg(x.hit ORDER BY x.n) FROM jsonb_array_elements(r.hits) WITH ORDINALITY AS x(hit, n) WHERE x.n > $2 AND x.n <= $2 + $3), '[]'::jsonb) AS hits
       FROM hunt_results r WHERE hunt_id = $1`,
    [huntId, offset, limit],
  );
  return rows[0] ?? null;
}

export async function cachedResult(sql: Sql, huntId: number): Promise<CachedResult | null> {
  const { rows } = await sql.query<CachedResult>(`SELECT run_id::text AS "runId", run_at AS "runAt", total, hits FROM hunt_results WHERE hunt_id = $1`, [huntId]);
  return rows[0] ?? null;
}
