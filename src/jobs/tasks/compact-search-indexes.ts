import type { Task } from "graphile-worker";
import type { AppContext } from "../../app-context.ts";
import { compactSearchIndexes } from "../../search/postgres/compaction.ts";

/** Weekly: rebuilds the PostgreSQL search backend's grown B-tree indexes (OpenSearch merges its own segments). */
export const compactSearchIndexesTask =
  (ctx: Pick<AppContext, "db" | "search">): Task =>
  async (_payload, helpers) => {
    if (ctx.search.backend !== "postgres") return;
    for (const r of await compactSearchIndexes(ctx.db.pool)) {
      if (r.bytesAfter !== null) helpers.logger.info(`search index ${r.index} rebuilt (${r.reason}): ${r.bytesBefore} -> ${r.bytesAfter} bytes, ${r.entries} entries`);
    }
  };
