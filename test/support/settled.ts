import pg from "pg";
import type { TestApp } from "./app.ts";
import { eventually } from "./process.ts";

/**
 * Waits until the worker has no indexing or correlation left (ROLE=all apps), then makes the writes
 * visible to search. Each job enqueues its follow-ups before it completes, so zero means settled.
 */
export async function settled(app: TestApp, timeoutMs = 30_000): Promise<void> {
  const pool = new pg.Pool({ connectionString: app.databaseUrl, max: 1 });
  try {
    await eventually(async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
          WHERE t.identifier IN ('dispatch_changes', 'index_changes', 'correlate_changes', 'rebuild_correlations', 'notify_changes', 'recompute_warninglist_hits')`,
      );
      return rows[0].n === 0;
    }, "indexing caught up", timeoutMs, 50);
  } finally {
    await pool.end();
  }
  await app.booted.ctx.search.refresh();
}
