import type { Task } from "graphile-worker";
import type pg from "pg";
import { REINDEX_STALE_ACCESS_TASK, SEARCH_INDEX_QUEUE } from "../../platform/job-names.ts";
import { enqueueJob, type JobExecutor } from "../../platform/job-queue.ts";
import { reindexStaleAccess } from "../../indexing/stale-access.ts";
import type { SearchIndex } from "../../search/search-index.ts";

/** Re-indexes documents stored without their audience (`src/indexing/stale-access.ts`), beside the indexer's queue. */
export function reindexStaleAccessTask(pool: pg.Pool, search: SearchIndex): Task {
  return async (_payload, helpers) => {
    const counts = await reindexStaleAccess(pool, search);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total > 0) helpers.logger.info(`re-indexed ${total} documents stored without their audience: ${JSON.stringify(counts)}`);
  };
}

/** Queued once per worker start (the key keeps it to one pending job whatever the number of workers). */
export async function queueStaleAccessReindex(sql: JobExecutor): Promise<void> {
  await enqueueJob(sql, REINDEX_STALE_ACCESS_TASK, {}, { jobKey: REINDEX_STALE_ACCESS_TASK, queueName: SEARCH_INDEX_QUEUE, maxAttempts: 5 });
}
