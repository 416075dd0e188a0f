import type pg from "pg";
import type { AppContext } from "../../app-context.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { CORRELATION_BATCH, correlateInTransaction, loadSettings } from "./correlator.ts";

export const REBUILD_CORRELATIONS_TASK = "rebuild_correlations";
/** Incremental and rebuild jobs share one queue: one correlation job runs at a time. */
export const CORRELATION_QUEUE = "correlation";
/** A step stops after this long and enqueues the next, so a rebuild never holds a job for hours. */
const STEP_MS = 20_000;

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

/**
 * One step of a full rebuild: batches of attributes in id order, each correlated and recorded in
 * the same transaction as the rebuild's cursor, so a crash resumes after the last batch that
 * committed. Returns whether more remains (the caller enqueues the next step).
 */
export async function runRebuildStep(pool: pg.Pool, rebuildId: number): Promise<boolean> {
  const row = await findRebuild(pool, rebuildId);
  if (!row || row.status === "succeeded" || row.status === "failed") return false;
  if (row.status === "queued") await pool.query("UPDATE correlation_rebuilds SET status = 'running', started_at = now() WHERE id = $1", [rebuildId]);
  const settings = await loadSettings(pool);
  const started = Date.now();
  let cursor = row.cursor;
  while (Date.now() - started < STEP_MS) {
    const { rows } = await pool.query<{ id: number }>("SELECT id FROM attributes WHERE id > $1 ORDER BY id LIMIT $2", [cursor, CORRELATION_BATCH]);
    if (rows.length === 0) {
      await pool.query("UPDATE correlation_rebuilds SET status = 'succeeded', finished_at = now() WHERE id = $1", [rebuildId]);
      return false;
    }
    const ids = rows.map((r) => r.id);
    const last = ids[ids.length - 1];
    await correlateInTransaction(pool, ids, settings, async (client, outcome) => {
      await client.query(
        `UPDATE correlation_rebuilds SET cursor = $2, processed = processed + $3, created = created + $4, removed = removed + $5,
                total = GREATEST(total, processed + $3) WHERE id = $1`,
        [rebuildId, last, ids.length, outcome.created.length, outcome.removed.length],
      );
    });
    cursor = last;
  }
  return true;
}

export async function failRebuild(pool: pg.Pool, rebuildId: number, message: string): Promise<void> {
  await pool.query("UPDATE correlation_rebuilds SET status = 'failed', error = $2, finished_at = now() WHERE id = $1", [rebuildId, message.slice(0, 2000)]);
}

/** Records a rebuild and enqueues its first step, in one transaction. */
export function queueRebuild(ctx: AppContext, requestedBy: number | null): Promise<{ rebuild: RebuildRow; jobId: string }> {
  return withTransaction(ctx.db.pool, async (client) => {
    const rebuild = await createRebuild(client, requestedBy);
    const jobId = await ctx.jobs.add(REBUILD_CORRELATIONS_TASK, { rebuild_id: rebuild.id }, { queueName: CORRELATION_QUEUE, jobKey: `${REBUILD_CORRELATIONS_TASK}:${rebuild.id}` }, client);
    return { rebuild, jobId };
  });
}
