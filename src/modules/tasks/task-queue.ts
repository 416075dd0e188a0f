import type { Sql } from "../../platform/db/transaction.ts";
import type { JobQueue } from "../../jobs/queue.ts";
import type { RegisteredTask } from "./registered-task.ts";
import { insertTaskRun, setRunJob, type NewTaskRun, type TaskRunRow } from "./task-store.ts";

/** The graphile-worker task that executes one task run. */
export const RUN_TASK_JOB = "run_task";
/** The graphile-worker task that fires due schedules. */
export const TICK_SCHEDULES_JOB = "tick_schedules";
/** A tick is queued at least this often, whatever is due. */
const MAX_TICK_GAP_SECONDS = 60;

/** Records a run and enqueues its job in the caller's transaction: the job exists exactly when the run does. */
export async function queueRun(sql: Sql, jobs: JobQueue, run: Omit<NewTaskRun, "maxAttempts">, task: RegisteredTask): Promise<TaskRunRow> {
  const row = await insertTaskRun(sql, { ...run, maxAttempts: task.maxAttempts });
  const jobId = await jobs.add(RUN_TASK_JOB, { run_id: row.id }, { jobKey: `${RUN_TASK_JOB}:${row.id}`, maxAttempts: task.maxAttempts, queueName: task.queueName }, sql);
  await setRunJob(sql, row.id, jobId);
  return { ...row, jobId };
}

/**
 * (Re)queues the one tick job for the earliest due schedule, at most a minute away. The job key
 * makes it a single pending job, and the time is the global minimum, so replacing it never delays
 * another schedule.
 */
export async function wakeTicker(sql: Sql): Promise<void> {
  await sql.query(
    `SELECT graphile_worker.add_job($1, '{}'::json, job_key => $1, max_attempts => 3,
       run_at => LEAST(now() + make_interval(secs => $2), GREATEST(now(), (SELECT min(next_run_at) FROM scheduled_tasks WHERE enabled))))`,
    [TICK_SCHEDULES_JOB, MAX_TICK_GAP_SECONDS],
  );
}
