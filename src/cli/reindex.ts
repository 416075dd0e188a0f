/**
 * `npm run reindex -- [svc-events|svc-attributes|all] [--restart]`: rebuilds search indices from PostgreSQL.
 * Each index's rebuild is a task run (`reindex`, kwargs `{index}`) whose progress holds its cursor,
 * saved after every page: a rebuild that was killed or failed resumes where it stopped when run
 * again (`--restart` starts over). Progress: a bar on a terminal, a line per 50,000 documents otherwise.
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
import { lockRebuild, REBUILDABLE, rebuildIndex, type RebuildableIndex, type RebuildCursor, type RebuildProgress } from "../indexing/rebuild.ts";
import { finishRun, resumeCommandRun, saveRunProgress, startCommandRun } from "../modules/tasks/index.ts";
import type { Database } from "../platform/db/index.ts";
import type { SearchIndex } from "../search/search-index.ts";
import { ProgressBar } from "./progress-bar.ts";

const REINDEX_TASK = "reindex";
const LINE_EVERY = 50_000;

interface Options {
  target: string;
  restart: boolean;
  pageSize: number | undefined;
}

function parseArgs(argv: string[]): Options | null {
  const opts: Options = { target: "all", restart: false, pageSize: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--restart") opts.restart = true;
    else if (a === "--page-size") {
      opts.pageSize = Number(argv[++i]);
      if (!Number.isInteger(opts.pageSize) || opts.pageSize < 1 || opts.pageSize > 50_000) return null;
    } else if (i === 0 || (a !== "--compact" && !a.startsWith("--"))) opts.target = a;
    else return null;
  }
  return opts;
}

async function main(): Promise<number> {
  const opts = parseArgs(process.argv.slice(2));
  const arg = opts?.target;
  const compact = arg === "--compact";
  if (!opts || !arg || (!compact && arg !== "all" && !(REBUILDABLE as readonly string[]).includes(arg))) {
    process.stderr.write(`usage: npm run reindex -- [${REBUILDABLE.join("|")}|all|--compact] [--restart] [--page-size N]\n`);
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
    const search = createSearchIndex(config, db, (message) => log.info(message));
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
      if (!(await rebuildWithRun(db, search, index, opts))) return 1;
    }
    return 0;
  } finally {
    for (const c of cleanups) await c();
  }
}

/** One index's rebuild as a resumable task run; false when another rebuild of it holds the lock. */
async function rebuildWithRun(db: Database, search: SearchIndex, index: RebuildableIndex, opts: Options): Promise<boolean> {
  const unlock = await lockRebuild(db.pool, index);
  if (!unlock) {
    process.stderr.write(`${index}: another reindex of this index is running\n`);
    return false;
  }
  try {
    const kwargs = { index };
    const resumed = opts.restart ? null : await resumeCommandRun(db.pool, REINDEX_TASK, kwargs);
    const from = resumed ? cursorOf(resumed.progress) : null;
    const run = resumed ?? (await startCommandRun(db.pool, REINDEX_TASK, kwargs));
    process.stdout.write(
      from
        ? `${index}: resuming task run ${run.id} after ${from.written} documents (row id ${from.after}); --restart starts over\n`
        : `${index}: task run ${run.id}\n`,
    );
    const started = Date.now();
    const bar = process.stdout.isTTY ? new ProgressBar(process.stdout, index, from?.written ?? 0) : null;
    let reported = from?.written ?? 0;
    let last: RebuildProgress = { after: from?.after ?? 0, written: from?.written ?? 0, total: 0 };
    try {
      const written = await rebuildIndex(db.pool, search, index, {
        from,
        pageSize: opts.pageSize,
        onPage: async (p) => {
          last = p;
          await saveRunProgress(db.pool, run.id, { ...p, resumed_from: from?.written ?? null });
          if (bar) bar.update(p.written, p.total);
          else if (p.written - reported >= LINE_EVERY) {
            reported = p.written;
            process.stdout.write(`${index}: ${p.written} of ${p.total} documents\n`);
          }
        },
      });
      bar?.done(written, Math.max(last.total, written));
      const seconds = (Date.now() - started) / 1000;
      await finishRun(db.pool, run.id, "succeeded", { index, documents: written, resumed_from: from?.written ?? null, seconds, backend: search.backend }, null);
      process.stdout.write(`${index}: rebuilt with ${written} documents in ${seconds.toFixed(1)} s (${search.backend})\n`);
      return true;
    } catch (err) {
      bar?.done(last.written, last.total);
      // The run keeps its cursor: the next reindex of this index resumes from it.
      await finishRun(db.pool, run.id, "failed", null, (err instanceof Error ? err.message : String(err)).slice(0, 2000));
      throw err;
    }
  } finally {
    await unlock();
  }
}

function cursorOf(progress: Record<string, unknown> | null): RebuildCursor | null {
  const after = Number(progress?.after);
  const written = Number(progress?.written);
  return Number.isSafeInteger(after) && after > 0 && Number.isSafeInteger(written) ? { after, written } : null;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`reindex failed: ${err instanceof ConfigError || err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
