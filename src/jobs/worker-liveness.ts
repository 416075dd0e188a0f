import { randomInt } from "node:crypto";
import pg from "pg";
import type { Logger } from "../platform/logger.ts";

/** Advisory-lock class of worker processes (the second key is the process's own). */
const LIVENESS_LOCK_CLASS = 0x5742;

/**
 * A worker process's proof of life: a session advisory lock held on its own connection. When the
 * process dies, PostgreSQL drops the connection and the lock with it, so the jobs its graphile
 * workers had locked can be released at once (graphile-worker alone waits 4 hours).
 */
export class WorkerLiveness {
  private constructor(
    private readonly client: pg.Client,
    private readonly lockKey: number,
    private readonly log: Logger,
  ) {}

  static async start(databaseUrl: string, log: Logger): Promise<WorkerLiveness> {
    const client = new pg.Client({ connectionString: databaseUrl, application_name: "workbench-worker-liveness" });
    client.on("error", (err) => log.warn({ err }, "worker liveness connection failed"));
    await client.connect();
    for (;;) {
      const key = randomInt(1, 2 ** 31 - 1);
      const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [LIVENESS_LOCK_CLASS, key]);
      if (rows[0].ok) return new WorkerLiveness(client, key, log);
    }
  }

  /** Called as graphile-worker creates each worker pool of this process (the id jobs are locked by). */
  register(workerId: string): void {
    this.client
      .query("INSERT INTO worker_processes (worker_id, lock_key) VALUES ($1, $2) ON CONFLICT (worker_id) DO NOTHING", [workerId, this.lockKey])
      .catch((err: unknown) => this.log.warn({ err, workerId }, "could not register a worker"));
  }

  async stop(): Promise<void> {
    await this.client.query("DELETE FROM worker_processes WHERE lock_key = $1", [this.lockKey]).catch(() => undefined);
    await this.client.end().catch(() => undefined);
  }
}

/**
 * Releases the jobs of registered workers whose process is gone (its lock is free), and fails task
 * runs whose job can no longer run. Returns how many workers were found dead.
 */
export async function releaseDeadWorkers(pool: pg.Pool, log: Logger): Promise<number> {
  const { rows } = await pool.query<{ worker_id: string }>(
    `SELECT w.worker_id FROM worker_processes w
      WHERE NOT EXISTS (
        SELECT 1 FROM pg_locks l
         WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
           AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND l.classid = $1::int::oid AND l.objid = w.lock_key::oid)`,
    [LIVENESS_LOCK_CLASS],
  );
  if (rows.length > 0) {
    const ids = rows.map((r) => r.worker_id);
    const { rows: held } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM graphile_worker._private_jobs WHERE locked_by = ANY($1::text[])", [ids]);
    await pool.query("SELECT graphile_worker.force_unlock_workers($1::text[])", [ids]);
    // Released jobs are due at once, but only new ones are announced: wake idle workers as an insert would.
    if (held[0].n > 0) await pool.query("SELECT pg_notify('jobs:insert', json_build_object('count', $1::int)::text)", [held[0].n]);
    await pool.query("DELETE FROM worker_processes WHERE worker_id = ANY($1::text[])", [ids]);
    log.warn({ workers: ids }, "released the jobs of workers whose process stopped");
  }
  await pool.query(
    `UPDATE task_runs r SET status = 'failed', finished_at = now(),
            last_error = COALESCE(r.last_error || '; ', '') || 'its job can no longer run (the worker running it stopped at its last attempt)'
      WHERE r.status IN ('queued', 'running') AND r.job_id IS NOT NULL AND r.queued_at < now() - interval '10 seconds'
        AND NOT EXISTS (SELECT 1 FROM graphile_worker._private_jobs j WHERE j.id = r.job_id AND (j.attempts < j.max_attempts OR j.locked_by IS NOT NULL))`,
  );
  return rows.length;
}
