import type { Logger } from "../platform/logger.ts";
import { SearchQueryError, type SearchIndex } from "../search/search-index.ts";

const prepared = new WeakSet<SearchIndex>();

/** Creates missing indices once per process; the indexer calls it before every batch (cheap once done). */
export async function ensureSearchIndices(search: SearchIndex): Promise<void> {
  if (prepared.has(search)) return;
  await search.ensureIndices();
  prepared.add(search);
}

/**
 * At start. An unreachable OpenSearch does not stop the service: writes go to PostgreSQL, searches
 * answer 503, and the indexer creates the indices and catches up when the cluster is back.
 */
export async function prepareSearchIndices(search: SearchIndex, log: Logger): Promise<void> {
  try {
    await ensureSearchIndices(search);
  } catch (err) {
    if (!(err instanceof SearchQueryError)) throw err;
    log.warn({ backend: search.backend, reason: err.message }, "search backend unavailable at start; indexing will catch up when it returns");
  }
}
