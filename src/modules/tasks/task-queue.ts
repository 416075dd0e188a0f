import type { Sql } from "../../platform/db/transaction.ts";
import type { JobQueue } from "../../jobs/queue.ts";
import type { RegisteredTask } from "./registered-task.ts";
import { insertTaskRun, setRunJob, type NewTaskRun, type TaskRunRow } from "./task-store.ts";

/** The graphile-worker task that executes one task run. */
export const RUN_TASK_JOB = "run_task";
/** The graphile-worker task that fires due schedules. */
export const TICK_SCHEDULES_JOB = "tick_schedules";
/** A schedule due further away than this is left to the minute cron (src/jobs/worker.ts) to wake. */
const MAX_TICK_GAP_SECONDS = 60;

/** Records a run and enqueues its job in the caller's transaction: the job exists exactly when the run does. */
export async function queueRun(sql: Sql, jobs: JobQueue, run: Omit<NewTaskRun, "maxAttempts">, task: RegisteredTask): Promise<TaskRunRow> {
  const row = await insertTaskRun(sql, { ...run, maxAttempts: task.maxAttempts });
  const jobId = await jobs.add(RUN_TASK_JOB, { run_id: row.id }, { jobKey: `${RUN_TASK_JOB}:${row.id}`, maxAttempts: task.maxAttempts, queueName: task.queueName }, sql);
  await setRunJob(sql, row.id, jobId);
  return { ...row, jobId };
}

/**
 * (Re)queues the one tick job for the earliest due schedule when it is due within a minute; with
 * nothing due that soon it queues nothing (an idle service runs only the minute cron's tick). The job
 * key makes it a single pending job, and the time is the global minimum, so replacing it never
 * delays another schedule. A schedule still due now is one another transaction holds (a tick on
 * another worker, an update): look again in a second rather than at once, which would spin.
 */
export async function wakeTicker(sql: Sql): Promise<void> {
  await sql.query(
    `SELECT graphile_worker.add_job($1, '{}'::json, job_key => $1, max_attempts => 3,
       run_at => CASE WHEN s.due > now() THEN s.due ELSE now() + interval '1 second' END)
       FROM (SELECT min(next_run_at) AS due FROM scheduled_tasks WHERE enabled) s
      WHERE s.due < now() + make_interval(secs => $2)`,
    [TICK_SCHEDULES_JOB, MAX_TICK_GAP_SECONDS],
  );
}
