/**
 * `npx tsx scripts/migrate-diff.ts [--name some_change]`
 *
 * Prints the SQL that takes a database built from every `prisma/migrations/<name>/migration.sql` (in name
 * order) to the datamodel in `prisma/schema.prisma`, i.e. `prisma migrate diff --from-migrations
 * prisma/migrations --to-schema prisma/schema.prisma --script`, computed by Prisma's schema engine compiled
 * to WebAssembly (scripts/lib/schema-engine-wasm.ts) because the native engine cannot be downloaded here.
 * Prints `-- in sync` when there is nothing to do. With `--name X`, also writes the SQL to
 * `prisma/migrations/<UTC yyyymmddHHMMSS>_X/migration.sql` (review it before committing).
 *
 * The migrations are replayed in a scratch database created on DIFF_DATABASE_URL's server
 * (default postgresql://postgres@127.0.0.1:5432/postgres) and dropped afterwards.
 * Exit codes: 0 ok, 1 error, 2 bad arguments.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { diffMigrationsToSchema } from "./lib/schema-engine-wasm.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const schemaPath = path.join(root, "prisma/schema.prisma");
const migrationsDir = path.join(root, "prisma/migrations");

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npx tsx scripts/migrate-diff.ts [--name some_change]\n`);
  process.exit(2);
}

/** `yyyymmddHHMMSS` in UTC, bumped past the newest existing migration so name order stays apply order. */
function nextMigrationTimestamp(now: Date): string {
  const stamp = (d: Date) => d.toISOString().replace(/\D/g, "").slice(0, 14);
  const latest = fs
    .readdirSync(migrationsDir)
    .map((n) => /^(\d{14})_/.exec(n)?.[1])
    .filter((s): s is string => s !== undefined)
    .sort()
    .at(-1);
  if (latest === undefined || stamp(now) > latest) return stamp(now);
  const t = latest.replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, "$1-$2-$3T$4:$5:$6Z");
  return stamp(new Date(Date.parse(t) + 1000));
}

async function main(): Promise<void> {
  let name: string | undefined;
  try {
    ({ name } = parseArgs({ options: { name: { type: "string" } }, strict: true }).values);
  } catch (e) {
    usage((e as Error).message);
  }
  if (name !== undefined && !/^[a-z0-9_]+$/i.test(name)) usage("--name must match [A-Za-z0-9_]+");

  const sql = await diffMigrationsToSchema({
    adminUrl: process.env.DIFF_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres",
    schemaPath,
    migrationsDir,
    log: process.env.MIGRATE_DIFF_DEBUG ? (line) => process.stderr.write(`${line}\n`) : undefined,
  });
  if (sql === "") {
    process.stdout.write("-- in sync\n");
    if (name !== undefined) process.stderr.write("no difference: no migration written\n");
    return;
  }
  process.stdout.write(sql.endsWith("\n") ? sql : `${sql}\n`);
  if (/^DROP /m.test(sql)) {
    process.stderr.write("note: indexes/constraints created in raw SQL that schema.prisma lacks show up as DROPs: review\n");
  }
  if (name === undefined) return;

  const dir = path.join(migrationsDir, `${nextMigrationTimestamp(new Date())}_${name}`);
  fs.mkdirSync(dir); // throws if it already exists
  fs.writeFileSync(path.join(dir, "migration.sql"), sql);
  process.stderr.write(`wrote ${path.relative(root, path.join(dir, "migration.sql"))}\n`);
}

main().catch((e: unknown) => {
  const err = e as Error;
  process.stderr.write(`migrate-diff failed: ${err.message ?? String(e)}\n`);
  if (err.cause !== undefined) process.stderr.write(`cause: ${String(err.cause)}\n`);
  process.exit(1);
});
