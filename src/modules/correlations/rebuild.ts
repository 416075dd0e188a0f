import type pg from "pg";
import type { AppContext } from "../../app-context.ts";
import { withTransaction, type Sql } from "../../platform/db/transaction.ts";
import { errors } from "../../platform/errors.ts";
import { CORRELATION_QUEUE, REBUILD_CORRELATIONS_TASK } from "../../platform/job-names.ts";
import { enqueueJob, type JobExecutor } from "../../platform/job-queue.ts";
import { CORRELATION_BATCH, correlateInTransaction, loadSettings } from "./correlator.ts";

/** A step stops after this long and enqueues the next, so a rebuild never holds a job for hours. */
const STEP_MS = 20_000;
/**
 * Deleting every correlation (correlation-purge.ts) holds this advisory lock exclusively; queuing a
 * rebuild takes it shared. A rebuild that started during a purge would take pairs the purge is
 * about to delete for existing ones, and finish without them.
 */
export const PURGE_LOCK = "hashtext('correlation_purge'), 0";

export interface RebuildRow {
  id: number;
  status: "queued" | "running" | "succeeded" | "failed";
  total: number;
  processed: number;
  created: number;
  removed: number;
  cursor: number;
  error: string | null;
  requested_by: number | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

const COLUMNS = "id, status, total, processed, created, removed, cursor, error, requested_by, created_at, started_at, finished_at";

export async function createRebuild(sql: Pick<pg.PoolClient, "query">, requestedBy: number | null): Promise<RebuildRow> {
  const { rows } = await sql.query<RebuildRow>(
    `INSERT INTO correlation_rebuilds (total, requested_by) SELECT count(*)::int, $1 FROM attributes RETURNING ${COLUMNS}`,
    [requestedBy],
  );
  return rows[0];
}

export async function findRebuild(sql: Pick<pg.PoolClient, "query">, id: number): Promise<RebuildRow | null> {
  const { rows } = await sql.query<RebuildRow>(`SELECT ${COLUMNS} FROM correlation_rebuilds WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** Thrown inside a batch whose rebuild was cancelled meanwhile: the batch rolls back, the step ends. */
class RebuildCancelled extends Error {}

/**
 * One step of a full rebuild: batches of attributes in id order, each correlated and recorded in
 * the same transaction as the rebuild's cursor, so a crash resumes after the last batch that
 * committed. A rebuild cancelled meanwhile (see `cancelActiveRebuilds`) stops at its next batch.
 * Returns whether more remains (the caller enqueues the next step).
 */
export async function runRebuildStep(pool: pg.Pool, rebuildId: number): Promise<boolean> {
  const row = await findRebuild(pool, rebuildId);
  if (!row || row.status === "succeeded" || row.status === "failed") return false;
  if (row.status === "queued") {
    const started = await pool.query("UPDATE correlation_rebuilds SET status = 'running', started_at = now() WHERE id = $1 AND status = 'queued'", [rebuildId]);
    if (started.rowCount === 0) return false;
  }
  const settings = await loadSettings(pool);
  const started = Date.now();
  let cursor = row.cursor;
  try {
    while (Date.now() - started < STEP_MS) {
      const { rows } = await pool.query<{ id: number }>("SELECT id FROM attributes WHERE id > $1 ORDER BY id LIMIT $2", [cursor, CORRELATION_BATCH]);
      if (rows.length === 0) {
        await pool.query("UPDATE correlation_rebuilds SET status = 'succeeded', finished_at = now() WHERE id = $1 AND status = 'running'", [rebuildId]);
        return false;
      }
      const ids = rows.map((r) => r.id);
      const last = ids[ids.length - 1];
      await correlateInTransaction(pool, ids, settings, async (client, outcome) => {
        const progress = await client.query(
          `UPDATE correlation_rebuilds SET cursor = $2, processed = processed + $3, created = created + $4, removed = removed + $5,
                  total = GREATEST(total, processed + $3) WHERE id = $1 AND status = 'running'`,
          [rebuildId, last, ids.length, outcome.created.length, outcome.removed.length],
        );
        if (progress.rowCount === 0) throw new RebuildCancelled();
      });
      cursor = last;
    }
  } catch (err) {
    if (err instanceof RebuildCancelled) return false;
    throw err;
  }
  return true;
}

export async function failRebuild(pool: pg.Pool, rebuildId: number, message: string): Promise<void> {
  await pool.query("UPDATE correlation_rebuilds SET status = 'failed', error = $2, finished_at = now() WHERE id = $1", [rebuildId, message.slice(0, 2000)]);
}

/** Marks every queued or running rebuild failed with `reason`; their steps stop at the next batch. Returns their ids. */
export async function cancelActiveRebuilds(sql: Sql, reason: string): Promise<number[]> {
  const { rows } = await sql.query<{ id: number }>(
    "UPDATE correlation_rebuilds SET status = 'failed', error = $1, finished_at = now() WHERE status IN ('queued', 'running') RETURNING id",
    [reason],
  );
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

/** Records a rebuild and enqueues its first step, in one transaction; 409 while every correlation is being deleted. */
export function queueRebuild(ctx: AppContext, requestedBy: number | null): Promise<{ rebuild: RebuildRow; jobId: string }> {
  return withTransaction(ctx.db.pool, async (client) => {
    const { rows } = await client.query<{ free: boolean }>(`SELECT pg_try_advisory_xact_lock_shared(${PURGE_LOCK}) AS free`);
    if (!rows[0].free) throw errors.conflict("Every correlation is being deleted (DELETE /correlations/); start the rebuild when that is done");
    const rebuild = await createRebuild(client, requestedBy);
    const jobId = await enqueueRebuildStep(client, rebuild.id);
    return { rebuild, jobId };
  });
}

/** A rebuild's next step: in the correlation queue, one pending step per rebuild. */
export function enqueueRebuildStep(sql: JobExecutor, rebuildId: number): Promise<string> {
  return enqueueJob(sql, REBUILD_CORRELATIONS_TASK, { rebuild_id: rebuildId }, { queueName: CORRELATION_QUEUE, jobKey: `${REBUILD_CORRELATIONS_TASK}:${rebuildId}` });
}
