import type { Sql } from "../../platform/db/transaction.ts";
import { RUN_TASK_TASK, TICK_SCHEDULES_TASK } from "../../platform/job-names.ts";
import { enqueueJob } from "../../platform/job-queue.ts";
import type { RegisteredTask } from "./registered-task.ts";
import { insertTaskRun, nextTickAt, setRunJob, type NewTaskRun, type TaskRunRow } from "./task-store.ts";

/** A schedule due further away than this is left to the minute cron (src/jobs/worker.ts) to wake. */
const MAX_TICK_GAP_SECONDS = 60;

/** Records a run and enqueues its job in the caller's transaction: the job exists exactly when the run does. */
export async function queueRun(sql: Sql, run: Omit<NewTaskRun, "maxAttempts">, task: RegisteredTask): Promise<TaskRunRow> {
  const row = await insertTaskRun(sql, { ...run, maxAttempts: task.maxAttempts });
  const jobId = await enqueueJob(sql, RUN_TASK_TASK, { run_id: row.id }, { jobKey: `${RUN_TASK_TASK}:${row.id}`, maxAttempts: task.maxAttempts, queueName: task.queueName });
  await setRunJob(sql, row.id, jobId);
  return { ...row, jobId };
}

/**
 * (Re)queues the one tick job for the earliest due schedule when it is due within a minute; with
 * nothing due that soon it queues nothing (an idle service runs only the minute cron's tick). The job
 * key makes it a single pending job, and the time is the global minimum, so replacing it never
 * delays another schedule.
 */
export async function wakeTicker(sql: Sql): Promise<void> {
  const at = await nextTickAt(sql, MAX_TICK_GAP_SECONDS);
  if (at) await enqueueJob(sql, TICK_SCHEDULES_TASK, {}, { jobKey: TICK_SCHEDULES_TASK, maxAttempts: 3, runAt: at });
}
