import { EventEmitter } from "node:events";
import pg from "pg";
import { makeWorkerUtils, run, type Runner, type Task, type TaskList, type WorkerEvents } from "graphile-worker";
import type { AppContext } from "../app-context.ts";
import { graphileLogger } from "../platform/graphile-logger.ts";
import {
  COMPACT_SEARCH_INDEXES_TASK,
  CORRELATE_CHANGES_TASK,
  DISPATCH_CHANGES_TASK,
  EMAIL_DIGEST_TASK,
  INDEX_CHANGES_TASK,
  NOTIFY_CHANGES_TASK,
  PRUNE_EXPIRED_TOKENS_TASK,
  PRUNE_FEED_UPLOADS_TASK,
  PRUNE_NOTIFICATION_KEYS_TASK,
  RECOMPUTE_WARNINGLIST_HITS_TASK,
  REBUILD_CORRELATIONS_TASK,
  REINDEX_STALE_ACCESS_TASK,
  RUN_TASK_TASK,
  SEND_EMAIL_TASK,
  TICK_SCHEDULES_TASK,
  type JobName,
} from "../platform/job-names.ts";
import { pruneExpiredTokens } from "./tasks/prune-expired-tokens.ts";
import { pruneNotificationKeys } from "./tasks/prune-notification-keys.ts";
import { dispatchChanges } from "./tasks/dispatch-changes.ts";
import { indexChangesTask } from "./tasks/index-changes.ts";
import { queueStaleAccessReindex, reindexStaleAccessTask } from "./tasks/reindex-stale-access.ts";
import { correlateChangesTask } from "./tasks/correlate-changes.ts";
import { rebuildCorrelationsTask } from "./tasks/rebuild-correlations.ts";
import type { TaskServices } from "../modules/tasks/index.ts";
import { tickSchedules } from "../modules/tasks/index.ts";
import { runTaskJob } from "./tasks/run-task.ts";
import { compactSearchIndexesTask } from "./tasks/compact-search-indexes.ts";
import { notifyChangesTask } from "./tasks/notify-changes.ts";
import { emailDigestTask, sendEmailTask } from "./tasks/send-email.ts";
import { releaseDeadWorkers, WorkerLiveness } from "./worker-liveness.ts";
import { JobAlarm } from "./job-alarm.ts";
import { pruneFeedUploadsTask } from "../modules/feeds/index.ts";
import { recomputeHitsTask } from "../modules/warninglists/index.ts";

/**
 * Every task the worker runs, one per registered name (the type keeps the registry and the list
 * equal); tasks that need the process's dependencies close over them.
 */
export function createTaskList(ctx: AppContext, services: TaskServices): TaskList {
  const tasks: Record<JobName, Task> = {
    [PRUNE_EXPIRED_TOKENS_TASK]: pruneExpiredTokens,
    [PRUNE_NOTIFICATION_KEYS_TASK]: pruneNotificationKeys,
    [PRUNE_FEED_UPLOADS_TASK]: pruneFeedUploadsTask(ctx),
    [DISPATCH_CHANGES_TASK]: dispatchChanges,
    [INDEX_CHANGES_TASK]: indexChangesTask(ctx.db.pool, ctx.search),
    [REINDEX_STALE_ACCESS_TASK]: reindexStaleAccessTask(ctx.db.pool, ctx.search),
    [COMPACT_SEARCH_INDEXES_TASK]: compactSearchIndexesTask(ctx),
    [CORRELATE_CHANGES_TASK]: correlateChangesTask(ctx.db.pool),
    [REBUILD_CORRELATIONS_TASK]: rebuildCorrelationsTask(ctx.db.pool),
    [RUN_TASK_TASK]: runTaskJob(ctx, services),
    [NOTIFY_CHANGES_TASK]: notifyChangesTask(ctx),
    [SEND_EMAIL_TASK]: sendEmailTask(ctx),
    [EMAIL_DIGEST_TASK]: emailDigestTask(ctx),
    [RECOMPUTE_WARNINGLIST_HITS_TASK]: recomputeHitsTask(ctx.db.pool),
    // Its success line is at debug (see graphileLogger): a tick that fired something says so here.
    [TICK_SCHEDULES_TASK]: async () => {
      await releaseDeadWorkers(ctx.db.pool, ctx.log);
      const { fired, skipped } = await tickSchedules(ctx);
      if (fired > 0 || skipped > 0) ctx.log.info({ component: "jobs", task: TICK_SCHEDULES_TASK, fired, skipped }, "schedules fired");
    },
  };
  return tasks;
}

/**
 * The ticker re-queues itself for the next due schedule; this minute cron only restarts the chain
 * if it ever breaks (preserve_run_at: it never delays a tick already queued).
 */
const CRONTAB = [
  `0 * * * * ${PRUNE_EXPIRED_TOKENS_TASK} ?fill=1h`,
  `30 * * * * ${PRUNE_NOTIFICATION_KEYS_TASK}`,
  `50 * * * * ${PRUNE_FEED_UPLOADS_TASK}`,
  // Sundays 03:15 UTC; one at a time (a queue of its own), never caught up after downtime.
  `15 3 * * 0 ${COMPACT_SEARCH_INDEXES_TASK} ?queue=${COMPACT_SEARCH_INDEXES_TASK}&max=1`,
  `* * * * * ${TICK_SCHEDULES_TASK} ?jobKey=${TICK_SCHEDULES_TASK}&jobKeyMode=preserve_run_at&max=3`,
].join("\n");

/**
 * How often each idle worker looks for jobs by itself. New jobs arrive by NOTIFY and jobs due later
 * by the JobAlarm, so this only catches what neither reports (a retry another process stored, a
 * lock graphile-worker reset after 4 hours): polling every second kept an idle service busy.
 */
const SAFETY_POLL_MS = 60_000;

export interface WorkerHandle {
  runner: Runner;
  stop(): Promise<void>;
}

/**
 * Runs graphile-worker with a pool of its own (closed only after the runner stops, or a job that
 * finishes during shutdown would stay locked for 4 hours). With `singleWorker` (ROLE=all on an
 * embedded database) no other worker can exist, so locks left by a crashed predecessor are released.
 */
export async function startWorker(ctx: AppContext, services: TaskServices, opts: { singleWorker: boolean; concurrency?: number }): Promise<WorkerHandle> {
  const concurrency = opts.concurrency ?? 4;
  const pool = new pg.Pool({ connectionString: ctx.db.url, max: concurrency + 2, application_name: "workbench-worker" });
  pool.on("error", (err) => ctx.log.warn({ err }, "idle worker connection failed"));
  // graphile-worker checks that every pooled client has an error handler before it uses the pool.
  pool.on("connect", (client) => client.on("error", (err) => ctx.log.warn({ err }, "worker connection failed")));
  const logger = graphileLogger(ctx.log, [TICK_SCHEDULES_TASK]);
  if (opts.singleWorker) await releaseStaleLocks(pool, ctx, logger);
  const liveness = await WorkerLiveness.start(ctx.db.url, ctx.log);
  await releaseDeadWorkers(pool, ctx.log);
  const events: WorkerEvents = new EventEmitter();
  let alarm: JobAlarm | null = null;
  events.on("pool:create", ({ workerPool }) => {
    // Jobs are locked in the pool's name (it fetches them for its workers).
    liveness.register(workerPool.id);
    alarm = new JobAlarm(pool, () => workerPool.nudge(concurrency), ctx.log);
  });
  // Jobs queued while the pool was not listening (at start, during a reconnect) were not announced.
  events.on("pool:listen:success", () => alarm?.look());
  events.on("pool:listen:notification", ({ message }) => {
    if (message.channel === "jobs:insert") alarm?.look();
  });
  events.on("job:error", () => alarm?.afterFailure());
  events.on("job:complete", ({ job }) => {
    if (job.job_queue_id !== null) alarm?.afterQueuedJob();
  });
  const runner = await run({
    events,
    pgPool: pool,
    taskList: createTaskList(ctx, services),
    crontab: CRONTAB,
    concurrency,
    noHandleSignals: true,
    pollInterval: SAFETY_POLL_MS,
    logger,
  });
  await queueStaleAccessReindex(ctx.db.pool);
  return {
    runner,
    async stop() {
      alarm?.stop();
      await runner.stop();
      await liveness.stop();
      await pool.end();
    },
  };
}

async function releaseStaleLocks(pool: pg.Pool, ctx: AppContext, logger: ReturnType<typeof graphileLogger>): Promise<void> {
  const { rows } = await pool.query<{ locked_by: string }>(
    "SELECT DISTINCT locked_by FROM graphile_worker._private_jobs WHERE locked_by IS NOT NULL",
  );
  if (rows.length === 0) return;
  const utils = await makeWorkerUtils({ pgPool: pool, logger });
  try {
    await utils.forceUnlockWorkers(rows.map((r) => r.locked_by));
  } finally {
    await utils.release();
  }
  ctx.log.warn({ workers: rows.length }, "released jobs locked by workers of a previous run");
}
