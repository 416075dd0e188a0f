/**
 * Fails when `prisma/schema.prisma` and `prisma/migrations/*\/migration.sql` describe different schemas,
 * printing the SQL that is missing from the migrations (generate it with
 * `npx tsx scripts/migrate-diff.ts --name <change>`). Needs PostgreSQL at DIFF_DATABASE_URL
 * (default postgresql://postgres@127.0.0.1:5432/postgres), where it creates and drops a scratch database.
 *
 * What the diff (Prisma's schema engine, see scripts/lib/schema-engine-wasm.ts) does not see, so the
 * migrations may freely contain it: CHECK constraints, extensions (e.g. pg_trgm), data (INSERT, setval),
 * functions, triggers, views, standalone sequences, comments, grants, partial indexes (WHERE ...),
 * indexes on expressions (e.g. tags_lower_name_idx on lower(name)).
 * What it does see: any other index or constraint created in raw SQL (e.g. a trigram GIN index), which it
 * reports as `DROP INDEX "..."`. Either describe it in schema.prisma (a GIN trigram index is
 * `@@index([name(ops: raw("gin_trgm_ops"))], type: Gin)`) or add the statement to ALLOWED_DRIFT below.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { diffMigrationsToSchema as diff } from "../../scripts/lib/schema-engine-wasm.ts";

/**
 * The diff as `scripts/migrate-diff.ts` runs it: pg answering int8 as text. Test files share a worker's
 * modules, and one that loaded src/platform/db left pg parsing int8 as numbers process-wide, which the
 * schema engine refuses for a sequence's max_value (9.223372036854776e18 is not an integer).
 */
async function diffMigrationsToSchema(options: Parameters<typeof diff>[0]): Promise<string> {
  const int8 = pg.types.getTypeParser(pg.types.builtins.INT8);
  pg.types.setTypeParser(pg.types.builtins.INT8, (v: string) => v);
  try {
    return await diff(options);
  } finally {
    pg.types.setTypeParser(pg.types.builtins.INT8, int8);
  }
}

/** Statements of the diff that are intended, as printed by scripts/migrate-diff.ts, with the reason. */
const ALLOWED_DRIFT: ReadonlyArray<{ statement: string; reason: string }> = [
  { statement: 'DROP INDEX "attributes_value1_hash_idx";', reason: "hash index (no row-size cap), raw SQL in data_core" },
  { statement: 'DROP INDEX "attributes_value2_hash_idx";', reason: "hash index (no row-size cap), raw SQL in data_core" },
  { statement: 'DROP INDEX "galaxy_clusters_external_ids_gin_idx";', reason: "GIN on a text[] column, raw SQL in data_core" },
  { statement: 'DROP INDEX "galaxy_clusters_value_trgm_idx";', reason: "pg_trgm index, raw SQL in data_core" },
  { statement: 'DROP INDEX "change_records_created_at_brin_idx";', reason: "BRIN index, raw SQL in change_records_write_path" },
  { statement: 'DROP TABLE "search_documents";', reason: "PostgreSQL search backend table, raw SQL in search_documents" },
  { statement: 'DROP INDEX "correlations_value_hash_idx";', reason: "hash index (no row-size cap), raw SQL in correlations" },
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const schemaPath = path.join(root, "prisma/schema.prisma");
const migrationsDir = path.join(root, "prisma/migrations");
const adminUrl = process.env.DIFF_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** The diff's statements, comments dropped and whitespace collapsed. */
function statements(sql: string): string[] {
  return sql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.replace(/\s+/g, " ").trim())
    .filter((s) => s !== "")
    .map((s) => `${s};`);
}
const normalise = (statement: string) => statements(statement)[0] ?? "";

describe("prisma/migrations vs prisma/schema.prisma", { timeout: 120_000 }, () => {
  let sql = "";
  beforeAll(async () => {
    sql = await diffMigrationsToSchema({ adminUrl, schemaPath, migrationsDir });
  }, 120_000);

  it("the migrations produce the schema.prisma datamodel", () => {
    const allowed = new Set(ALLOWED_DRIFT.map((a) => normalise(a.statement)));
    const unexpected = statements(sql).filter((s) => !allowed.has(s));
    expect(
      unexpected,
      `schema.prisma and prisma/migrations differ; SQL from the migrations to schema.prisma:\n\n${sql}\n` +
        "(fix schema.prisma, or add a migration: `npx tsx scripts/migrate-diff.ts --name <change>`, " +
        "or allowlist intended statements in ALLOWED_DRIFT)",
    ).toEqual([]);
  });

  it("every ALLOWED_DRIFT entry is still needed", () => {
    const present = new Set(statements(sql));
    const stale = ALLOWED_DRIFT.filter((a) => !present.has(normalise(a.statement)));
    expect(stale, "remove these from ALLOWED_DRIFT").toEqual([]);
  });

  it("detects drift (a field missing from the migrations)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "migrations-drift-"));
    try {
      const altered = path.join(dir, "schema.prisma");
      const model = "\nmodel DriftProbe {\n  id Int @id\n\n  @@map(\"drift_probe\")\n}\n";
      fs.writeFileSync(altered, fs.readFileSync(schemaPath, "utf8") + model);
      const probe = await diffMigrationsToSchema({ adminUrl, schemaPath: altered, migrationsDir });
      expect(statements(probe)).toContain(
        'CREATE TABLE "drift_probe" ( "id" INTEGER NOT NULL, CONSTRAINT "drift_probe_pkey" PRIMARY KEY ("id") );',
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
