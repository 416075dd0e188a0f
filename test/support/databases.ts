import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

/** The PostgreSQL server tests run against (CI starts one on 5432; trust auth). */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

const MIGRATIONS = fileURLToPath(new URL("../../prisma/migrations/", import.meta.url));

export function databaseUrl(name: string): string {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Template name changes whenever a migration changes, so a stale template is never reused. A test run
 * keeps the one its global setup built (TEST_TEMPLATE_DATABASE, passed to the workers): a migration
 * added while the run goes on would name a template nobody has built.
 */
export function templateName(): string {
  if (process.env.TEST_TEMPLATE_DATABASE) return process.env.TEST_TEMPLATE_DATABASE;
  const h = crypto.createHash("sha256");
  for (const dir of fs.readdirSync(MIGRATIONS).sort()) {
    const file = path.join(MIGRATIONS, dir, "migration.sql");
    if (fs.existsSync(file)) h.update(dir).update(fs.readFileSync(file));
  }
  return `wb_test_tmpl_${h.digest("hex").slice(0, 12)}`;
}

export async function withAdminClient<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A fresh database cloned from the migrated template (milliseconds, not a migration run). */
export async function createTestDatabase(label: string): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `wb_test_${label.replace(/[^a-z0-9]/gi, "_").toLowerCase().slice(0, 20)}_${crypto.randomBytes(4).toString("hex")}`;
  await withAdminClient((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${templateName()}`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdminClient((c) => dropDatabase(c, name)),
  };
}

/**
 * pg's `Pool.end()` resolves once its clients were told to end, before their backends have exited:
 * FORCE would terminate those, and the FATAL (57P01) reaching a client that is ending surfaces as an
 * unhandled pool error in the test file. So the backends get a moment to leave first.
 */
async function dropDatabase(c: pg.Client, name: string): Promise<void> {
  for (let waited = 0; waited < 5_000; waited += 50) {
    const { rows } = await c.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1", [name]);
    if (rows[0]!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
