import { readRuntimeSetting } from "../settings/index.ts";
import type { RegisteredTask } from "../tasks/index.ts";
import { PURGE_TASK_BASE, purgeInBatches, type PurgeCounts } from "./purge-run.ts";
import { lockDeletedBefore } from "./retention-store.ts";

type Progress = PurgeCounts & {
  /** Events soft-deleted before this instant (ISO) are purged; fixed for the run, resumes included. */
  deleted_before: string;
  after_days: number;
};

/**
 * Task `purge_deleted`: hard-deletes events soft-deleted more than
 * `retention.purge_deleted_after_days` ago, so that nothing deleted is kept forever by accident.
 * Off until scheduled; retention's exempt tags do not apply (the event was deleted on purpose).
 */
export const purgeDeletedTask: RegisteredTask = {
  name: "purge_deleted",
  description: "Delete for good the events soft-deleted more than retention.purge_deleted_after_days days ago.",
  ...PURGE_TASK_BASE,
  async execute(x) {
    const { app, services, principal, run, log, saveProgress } = x;
    const resumed = run.progress as Progress | null;
    let p: Progress;
    if (resumed) {
      p = resumed;
      log.info({ run_id: run.id, purged: p.purged }, "resuming the purge of deleted events");
    } else {
      const { purge_deleted_after_days: days } = await readRuntimeSetting(app.db.pool, "retention");
      p = { deleted_before: new Date(Date.now() - days * 86_400_000).toISOString(), after_days: days, purged: 0, attributes: 0, sightings: 0, correlations: 0 };
      await saveProgress(p);
    }
    const result = { ...(await purgeInBatches(x, p, "purge_deleted", (sql, limit) => lockDeletedBefore(sql, p.deleted_before, limit))) };
    await services.audit.record(principal, { action: "events.purged_deleted", resourceType: "task_run", metadata: { run_id: run.id, ...result } });
    return result;
  },
};
