import type { Task } from "graphile-worker";
import type pg from "pg";
import { changeRangeJobKey } from "../../modules/changes/index.ts";
import { INDEX_CHANGES_TASK, SEARCH_INDEX_QUEUE } from "../../platform/job-names.ts";
import { enqueueJob } from "../../platform/job-queue.ts";
import { indexChangeRange } from "../../indexing/indexer.ts";
import { SearchQueryError, type SearchIndex } from "../../search/search-index.ts";

const MAX_RETRY_DELAY_S = 15;

/**
 * Indexes one range of change records. While the search backend is unreachable the job puts itself
 * back with a delay that doubles up to 15 s (graphile-worker's own backoff grows to hours), so
 * indexing catches up within seconds of the backend returning; writes never wait for it.
 */
export function indexChangesTask(pool: pg.Pool, search: SearchIndex): Task {
  return async (payload, helpers) => {
    const { first_id, last_id, retry = 0 } = payload as { first_id: number; last_id: number; retry?: number };
    try {
      const counts = await indexChangeRange(pool, search, first_id, last_id);
      helpers.logger.debug(`indexed changes ${first_id}-${last_id}: ${counts.indexed} written, ${counts.deleted} deleted`);
    } catch (err) {
      if (!(err instanceof SearchQueryError) || err.kind === "invalid") throw err;
      const delay = Math.min(2 ** retry, MAX_RETRY_DELAY_S);
      helpers.logger.warn(`search backend unavailable (${err.message}); changes ${first_id}-${last_id} retried in ${delay} s`);
      await enqueueJob(helpers, INDEX_CHANGES_TASK, { first_id, last_id, retry: retry + 1 }, {
        queueName: SEARCH_INDEX_QUEUE,
        runAt: new Date(Date.now() + delay * 1000),
        jobKey: changeRangeJobKey(INDEX_CHANGES_TASK, first_id, last_id),
      });
    }
  };
}
