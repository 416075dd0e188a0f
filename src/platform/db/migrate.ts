import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { runMigrations as runWorkerMigrations } from "graphile-worker";
import type { Logger } from "../logger.ts";
import { graphileLogger } from "../graphile-logger.ts";
import { prepareJobQueues } from "../job-queue.ts";
import { CORRELATE_CHANGES_TASK, CORRELATION_QUEUE, INDEX_CHANGES_TASK, NOTIFY_CHANGES_TASK, SEARCH_INDEX_QUEUE } from "../job-names.ts";

const MIGRATIONS_DIR = fileURLToPath(new URL("../../../prisma/migrations/", import.meta.url));
/** Arbitrary but fixed: serialises migration runs of several processes starting together. */
const MIGRATION_LOCK_KEY = 727_001;

/**
 * Applies pending `prisma/migrations/<name>/migration.sql` files in name order, each in its own
 * transaction, recording them in Prisma's `_prisma_migrations` table (same columns and checksum), so
 * the Prisma CLI sees the same history. Prisma's own migrate engine cannot be downloaded here.
 */
export async function migrateDatabase(pool: pg.Pool, log: Logger): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const applied = new Map<string, string>(
      (
        await client.query<{ migration_name: string; checksum: string }>(
          `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
        )
      ).rows.map((r) => [r.migration_name, r.checksum]),
    );
    for (const name of listMigrations()) {
      const sql = fs.readFileSync(path.join(MIGRATIONS_DIR, name, "migration.sql"), "utf8");
      const checksum = crypto.createHash("sha256").update(sql).digest("hex");
      const previous = applied.get(name);
      if (previous !== undefined) {
        if (previous !== checksum) log.warn({ migration: name }, "applied migration was edited after it ran");
        continue;
      }
      const started = Date.now();
      await client.query("BEGIN");
      try {
        await client.query(sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [crypto.randomUUID(), checksum, name],
        );
        await client.query("COMMIT");
      } catch (err) {
        await client.query("ROLLBACK");
        throw new Error(`migration ${name} failed: ${(err as Error).message}`);
      }
      log.info({ migration: name, ms: Date.now() - started }, "applied migration");
    }
    // The job queue's own schema: applied here so API processes can enqueue before a worker runs.
    await runWorkerMigrations({ pgPool: pool, logger: graphileLogger(log) });
    // Writers enqueue the change log's consumers in their own transactions (src/modules/changes).
    await prepareJobQueues(client, [INDEX_CHANGES_TASK, CORRELATE_CHANGES_TASK, NOTIFY_CHANGES_TASK], [SEARCH_INDEX_QUEUE, CORRELATION_QUEUE]);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

function listMigrations(): string[] {
  return fs
    .readdirSync(MIGRATIONS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(MIGRATIONS_DIR, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort();
}
