import type { QueryResult, QueryResultRow } from "pg";
import type { JobName } from "./job-names.ts";

/**
 * Where a job is inserted: a pool, a client inside the caller's transaction (the job then exists
 * exactly when the change that caused it commits), or a running task's helpers.
 */
export interface JobExecutor {
  query<R extends QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
}

export interface EnqueueOptions {
  queueName?: string;
  runAt?: Date;
  maxAttempts?: number;
  /** Deduplicates: a pending job with the same key is updated instead of added twice. */
  jobKey?: string;
  /** `preserve_run_at`: an update keeps the pending job's time (a later enqueue never delays it). */
  jobKeyMode?: "replace" | "preserve_run_at";
  priority?: number;
}

/** The one way to enqueue a graphile-worker job; returns its id. */
export async function enqueueJob(sql: JobExecutor, task: JobName, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<string> {
  const { rows } = await sql.query<{ id: string }>(
    `SELECT (graphile_worker.add_job($1, $2::json, queue_name => $3, run_at => $4, max_attempts => $5, job_key => $6,
       priority => $7, job_key_mode => $8)).id::text AS id`,
    [
      task,
      JSON.stringify(payload),
      opts.queueName ?? null,
      opts.runAt ?? null,
      opts.maxAttempts ?? null,
      opts.jobKey ?? null,
      opts.priority ?? null,
      opts.jobKeyMode ?? "replace",
    ],
  );
  return rows[0].id;
}

/**
 * Creates the task and queue rows of the jobs writers enqueue inside their own transactions (the
 * change log's consumers), which `add_job` would otherwise insert on first use: a row inserted and
 * not yet committed by one writer makes every other writer that enqueues the same task or queue wait
 * for its commit. Run at start, after graphile-worker's migrations; graphile-worker never deletes
 * these rows by itself.
 */
export async function prepareJobQueues(sql: JobExecutor, tasks: readonly JobName[], queues: readonly string[]): Promise<void> {
  await sql.query(
    `INSERT INTO graphile_worker._private_tasks (identifier)
     SELECT t FROM unnest($1::text[]) AS t WHERE NOT EXISTS (SELECT 1 FROM graphile_worker._private_tasks WHERE identifier = t)
     ON CONFLICT DO NOTHING`,
    [tasks],
  );
  await sql.query(
    `INSERT INTO graphile_worker._private_job_queues (queue_name)
     SELECT q FROM unnest($1::text[]) AS q WHERE NOT EXISTS (SELECT 1 FROM graphile_worker._private_job_queues WHERE queue_name = q)
     ON CONFLICT DO NOTHING`,
    [queues],
  );
}
