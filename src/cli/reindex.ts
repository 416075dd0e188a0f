/**
 * `npm run reindex -- [svc-events|svc-attributes|all]`: rebuilds search indices from PostgreSQL.
 * `npm run reindex -- --compact`: rebuilds the PostgreSQL backend's B-tree indexes now (what the
 * weekly `compact_search_indexes` job does when they have grown; `src/search/postgres/compaction.ts`).
 * Uses DATABASE_URL and OPENSEARCH_URL like the service. Without DATABASE_URL it starts the embedded
 * database of DATA_DIR, which only works while the service is stopped (the data directory is locked).
 */
import { ConfigError, loadConfig } from "../config.ts";
import { acquireDataDirLock } from "../platform/db/data-dir-lock.ts";
import { startEmbeddedPostgres } from "../platform/db/embedded-postgres.ts";
import { connectDatabase } from "../platform/db/index.ts";
import { migrateDatabase } from "../platform/db/migrate.ts";
import { createLogger } from "../platform/logger.ts";
import { createSearchIndex } from "../search/create-search-index.ts";
import { compactSearchIndexes } from "../search/postgres/compaction.ts";
import { REBUILDABLE, rebuildIndex, type RebuildableIndex } from "../indexing/rebuild.ts";

async function main(): Promise<number> {
  const arg = process.argv[2] ?? "all";
  const compact = arg === "--compact";
  if (!compact && arg !== "all" && !(REBUILDABLE as readonly string[]).includes(arg)) {
    process.stderr.write(`usage: npm run reindex -- [${REBUILDABLE.join("|")}|all|--compact]\n`);
    return 2;
  }
  const indices: RebuildableIndex[] = arg === "all" ? [...REBUILDABLE] : [arg as RebuildableIndex];
  const config = loadConfig();
  const log = createLogger(config.LOG_LEVEL);
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    let url = config.DATABASE_URL;
    if (!url) {
      cleanups.unshift(acquireDataDirLock(config.dataDir));
      const embedded = await startEmbeddedPostgres(config.dataDir, log);
      cleanups.unshift(() => embedded.stop());
      url = embedded.url;
    }
    const db = connectDatabase(url, log, { poolSize: 4 });
    cleanups.unshift(() => db.close());
    await migrateDatabase(db.pool, log);
    const search = createSearchIndex(config, db);
    cleanups.unshift(() => search.close());
    if (compact) {
      if (search.backend !== "postgres") {
        process.stdout.write("OpenSearch merges its own segments: nothing to compact\n");
        return 0;
      }
      for (const r of await compactSearchIndexes(db.pool, { force: true })) {
        const mb = (b: number) => (b / 1048576).toFixed(1);
        process.stdout.write(r.bytesAfter === null ? `${r.index}: ${r.reason}\n` : `${r.index}: ${mb(r.bytesBefore)} MB -> ${mb(r.bytesAfter)} MB (${r.entries} entries)\n`);
      }
      return 0;
    }
    for (const index of indices) {
      const started = Date.now();
      let reported = 0;
      const written = await rebuildIndex(db.pool, search, index, (n) => {
        if (n - reported >= 50_000) {
          reported = n;
          process.stdout.write(`${index}: ${n} documents\n`);
        }
      });
      process.stdout.write(`${index}: rebuilt with ${written} documents in ${((Date.now() - started) / 1000).toFixed(1)} s (${search.backend})\n`);
    }
    return 0;
  } finally {
    for (const c of cleanups) await c();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`reindex failed: ${err instanceof ConfigError || err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
