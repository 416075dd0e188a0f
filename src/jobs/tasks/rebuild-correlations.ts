import type { Task } from "graphile-worker";
import type pg from "pg";
import { enqueueRebuildStep, failRebuild, runRebuildStep } from "../../modules/correlations/index.ts";

/** One step of a full correlation rebuild; enqueues the next step until every attribute is done. */
export function rebuildCorrelationsTask(pool: pg.Pool): Task {
  return async (payload, helpers) => {
    const { rebuild_id } = payload as { rebuild_id: number };
    try {
      if (await runRebuildStep(pool, rebuild_id)) {
        await enqueueRebuildStep(helpers, rebuild_id);
      }
    } catch (err) {
      if (helpers.job.attempts >= helpers.job.max_attempts) await failRebuild(pool, rebuild_id, err instanceof Error ? err.message : String(err));
      throw err;
    }
  };
}
