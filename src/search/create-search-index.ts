import type pg from "pg";
import type { Config } from "../config.ts";
import { OpenSearchSearchIndex } from "./opensearch/index.ts";
import { PostgresSearchIndex } from "./postgres/index.ts";
import type { SearchIndex } from "./search-index.ts";

/** OpenSearch when `OPENSEARCH_URL` is set, otherwise the PostgreSQL backend in the service's database. */
export function createSearchIndex(config: Pick<Config, "OPENSEARCH_URL" | "OPENSEARCH_INDEX_PREFIX">, pool: pg.Pool): SearchIndex {
  if (config.OPENSEARCH_URL?.length) {
    return new OpenSearchSearchIndex(config.OPENSEARCH_URL, { prefix: config.OPENSEARCH_INDEX_PREFIX });
  }
  return new PostgresSearchIndex(pool);
}
