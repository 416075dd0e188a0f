import type { Task } from "graphile-worker";
import type pg from "pg";
import { correlateChangeRange } from "../../modules/correlations/index.ts";

/**
 * Correlates the attributes a range of change records touched. Runs in the correlation queue (one
 * job at a time); a pair's unique index and the diff against stored pairs make a retry harmless.
 * An attribute deleted while the job runs fails its insert on the foreign key: the job is retried.
 */
export function correlateChangesTask(pool: pg.Pool): Task {
  return async (payload, helpers) => {
    const { first_id, last_id } = payload as { first_id: number; last_id: number };
    const counts = await correlateChangeRange(pool, first_id, last_id);
    if (counts.attributes) {
      helpers.logger.debug(`correlated ${counts.attributes} attributes of changes ${first_id}-${last_id}: +${counts.created} -${counts.removed} pairs`);
    }
  };
}
