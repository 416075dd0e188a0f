import type pg from "pg";

export interface EnqueueOptions {
  /** Deduplicates: a pending job with the same key is replaced instead of added twice. */
  jobKey?: string;
  runAt?: Date;
  maxAttempts?: number;
  queueName?: string;
}

/**
 * Enqueues graphile-worker jobs with plain SQL so a caller can enqueue inside its own transaction:
 * the job exists exactly when the change that caused it commits.
 */
export class JobQueue {
  constructor(private readonly pool: pg.Pool) {}

  async add(
    task: string,
    payload: Record<string, unknown>,
    opts: EnqueueOptions = {},
    queryable: Pick<pg.Pool, "query"> = this.pool,
  ): Promise<string> {
    const { rows } = await queryable.query<{ id: string }>(
      `SELECT (graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6)).id::text AS id`,
      [task, JSON.stringify(payload), opts.queueName ?? null, opts.runAt ?? null, opts.maxAttempts ?? null, opts.jobKey ?? null],
    );
    return rows[0].id;
  }
}
