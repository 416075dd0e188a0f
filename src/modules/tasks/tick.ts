import type { AppContext } from "../../app-context.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { nextRunAfter } from "./schedule.ts";
import { queueRun, wakeTicker } from "./task-queue.ts";
import { taskNamed } from "./task-registry.ts";
import { lockDueScheduledTasks, markScheduleFired } from "./task-store.ts";

const DUE_BATCH = 50;

/**
 * Fires every due schedule once: a run and its job, and the next due time, in one transaction per
 * batch. Due rows are locked with SKIP LOCKED, so ticks on several workers never fire one twice. A
 * schedule whose previous run has not finished is skipped this time (runs never pile up).
 */
export async function tickSchedules(app: AppContext): Promise<{ fired: number; skipped: number }> {
  let fired = 0;
  let skipped = 0;
  for (;;) {
    const due = await withTransaction(app.db.pool, async (client) => {
      const rows = await lockDueScheduledTasks(client, DUE_BATCH);
      const now = new Date();
      for (const t of rows) {
        const task = taskNamed(t.task);
        const next = nextRunAfter(t.schedule, t.nextRunAt, now);
        if (!task || t.lastRunStatus === "queued" || t.lastRunStatus === "running") {
          skipped++;
          app.log.info({ scheduled_task_id: t.id, last_run_id: t.lastRunId }, "schedule skipped: its previous run has not finished");
          await markScheduleFired(client, t.id, null, next);
          continue;
        }
        const run = await queueRun(
          client,
          { scheduledTaskId: t.id, task: t.task, args: t.args, kwargs: t.kwargs, trigger: "schedule", runAsUserId: t.ownerId, grantScopes: t.grantScopes },
          task,
        );
        await markScheduleFired(client, t.id, run.id, next);
        fired++;
      }
      return rows.length;
    });
    if (due < DUE_BATCH) break;
  }
  await wakeTicker(app.db.pool);
  return { fired, skipped };
}
