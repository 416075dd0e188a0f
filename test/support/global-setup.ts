import pino from "pino";
import pg from "pg";
import { migrateDatabase } from "../../src/platform/db/migrate.ts";
import { ADMIN_URL, databaseUrl, templateName, withAdminClient } from "./databases.ts";

/**
 * Builds the migrated template database once per migration set, and drops templates of other sets
 * made over an hour ago.
 * Test databases are dropped by the files that create them.
 */
export default async function setup(): Promise<void> {
  const template = templateName();
  process.env.TEST_TEMPLATE_DATABASE = template;
  await withAdminClient(async (c) => {
    // Only templates made over an hour ago: a younger one may belong to a run going on now on another
    // migration set (a developer's second checkout), whose files would fail at their next CREATE DATABASE.
    const stale = await c.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'wb\\_test\\_tmpl\\_%' AND datname <> $1
          AND (pg_stat_file('base/' || oid || '/PG_VERSION')).modification < now() - interval '1 hour'`,
      [template],
    );
    for (const { datname } of stale.rows) await c.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    const exists = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
    if (exists.rowCount) return;
    await c.query(`CREATE DATABASE ${template}`);
  });
  const pool = new pg.Pool({ connectionString: databaseUrl(template), max: 2 });
  // graphile-worker's migration refuses to stay quiet about pools without error handlers.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => client.on("error", () => undefined));
  try {
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = '_prisma_migrations'`);
    if (rows[0].n === 0) await migrateDatabase(pool, pino({ level: "warn" }));
  } catch (err) {
    await pool.end();
    await withAdminClient((c) => c.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`));
    throw new Error(`could not build the test template on ${ADMIN_URL}: ${(err as Error).message}`);
  }
  await pool.end();
}
