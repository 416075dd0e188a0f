import type { Config } from "../config.ts";
import type { Database } from "../platform/db/index.ts";
import { OpenSearchSearchIndex } from "./opensearch/index.ts";
import { PostgresSearchIndex } from "./postgres/index.ts";
import { SearchGate, gatedSearches } from "./search-gate.ts";
import type { SearchIndex } from "./search-index.ts";

/**
 * OpenSearch when `OPENSEARCH_URL` is set, otherwise the PostgreSQL backend in the service's database,
 * its searches on the database's search pool. Either way at most `SEARCH_CONCURRENCY` searches of
 * this process run at once. `progress` hears the steps of a PostgreSQL table upgrade at start, which
 * can take minutes on a large instance.
 */
export function createSearchIndex(
  config: Pick<Config, "OPENSEARCH_URL" | "OPENSEARCH_INDEX_PREFIX" | "SEARCH_CONCURRENCY">,
  db: Pick<Database, "pool" | "searchPool">,
  progress?: (message: string) => void,
): SearchIndex {
  const index = config.OPENSEARCH_URL?.length
    ? new OpenSearchSearchIndex(config.OPENSEARCH_URL, { prefix: config.OPENSEARCH_INDEX_PREFIX })
    : new PostgresSearchIndex(db.pool, { searchPool: db.searchPool, progress });
  return gatedSearches(index, new SearchGate(config.SEARCH_CONCURRENCY));
}
