/**
 * Drives Prisma's schema engine compiled to WebAssembly (`@prisma/schema-engine-wasm`, the same engine
 * as the CLI's native binary, which cannot be downloaded here) through `@prisma/adapter-pg`, to compute
 * `prisma migrate diff --from-migrations prisma/migrations --to-schema prisma/schema.prisma --script`.
 *
 * Loading mirrors `@prisma/internals`' `wasmSchemaEngineLoader` (the package's entry point imports the
 * `.wasm` file as an ES module, which Node 20 cannot do). Workarounds for adapter-pg 7.10:
 *  - the engine's catalog queries return the internal `"char"` type (oid 18: relkind, contype, ...),
 *    which adapter-pg rejects ("Unsupported column type char"), while the engine reads it as a
 *    `Character`: pooled clients report it as text (25) and `queryRaw` re-types those columns;
 *  - `executeScript` splits on every `;` (also inside comments and string literals): migration scripts
 *    are sent whole, as one simple query, like the project's runner (src/platform/db/migrate.ts) does;
 *  - `connectToShadowDb` spreads `database` next to `connectionString` (the connection string wins, so
 *    the "shadow" is the main database) and drops the database before closing its pool: replaced.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  DriverAdapterError,
  type SqlDriverAdapter,
  type SqlQueryable,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import * as runtime from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { MigrationList, SchemaContainer } from "@prisma/schema-engine-wasm/schema_engine_bg";

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, object>) => { exports: Record<string, unknown> };
}

let engineClass: typeof runtime.SchemaEngine | undefined;
/** The wasm module reports panic messages here (as the Prisma CLI's `PRISMA_WASM_PANIC_REGISTRY`). */
let lastPanic = "";
(globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
  get: () => lastPanic,
  set_message: (message: string) => {
    lastPanic = message;
  },
};

/** Instantiates the wasm module once per process (wasm-bindgen keeps module-level state). */
function loadSchemaEngine(): typeof runtime.SchemaEngine {
  if (engineClass) return engineClass;
  const bgJs = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm/schema_engine_bg");
  // The project's `lib` has no WebAssembly typings (no DOM lib, @types/node 20 lacks them).
  const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: WasmApi };
  const wasmModule = new wasmApi.Module(fs.readFileSync(bgJs.replace(/\.js$/, ".wasm")));
  const instance = new wasmApi.Instance(wasmModule, { "./schema_engine_bg.js": runtime });
  runtime.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  engineClass = runtime.SchemaEngine;
  return engineClass;
}

/**
 * pg client that reports `"char"` columns as `text` (so adapter-pg does not reject them) and remembers,
 * per SQL text, which columns were `"char"`, so `queryRaw` can type them back as `Character`, which the
 * engine's describer reads them as (`get_char`).
 */
const charColumnsBySql = new Map<string, number[]>();
class CharAsTextClient extends pg.Client {}
const originalQuery = pg.Client.prototype.query;
CharAsTextClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string } | undefined)?.text;
  const fix = (res: unknown): unknown => {
    for (const r of Array.isArray(res) ? res : [res]) {
      const fields = (r as pg.QueryResult | undefined)?.fields ?? [];
      const charColumns = fields.flatMap((f, i) => (f.dataTypeID === PG_CHAR_OID ? [i] : []));
      for (const i of charColumns) fields[i].dataTypeID = PG_TEXT_OID;
      if (text !== undefined && charColumns.length > 0) charColumnsBySql.set(text, charColumns);
    }
    return res;
  };
  const cb = args.at(-1);
  if (typeof cb === "function") args[args.length - 1] = (err: unknown, res: unknown) => cb(err, err ? res : fix(res));
  const ret = (originalQuery as (...a: unknown[]) => unknown).apply(this, args);
  return ret instanceof Promise ? ret.then(fix) : ret;
} as typeof originalQuery;

function retypeCharColumns(queryable: SqlQueryable): void {
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const i of charColumnsBySql.get(query.sql) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
}

function toAdapterError(e: unknown): never {
  const err = e as pg.DatabaseError;
  if (typeof err?.code === "string" && typeof err.severity === "string") {
    throw new DriverAdapterError({
      kind: "postgres", code: err.code, severity: err.severity, message: err.message,
      detail: err.detail, column: err.column, hint: err.hint,
    });
  }
  throw e;
}

/** An adapter-pg connection on its own pool, whose `executeScript` runs the script as one simple query. */
async function connect(
  url: string,
  opened: Set<() => Promise<void>>,
  onDispose?: () => Promise<void>,
): Promise<SqlDriverAdapter> {
  const pool = new pg.Pool({ connectionString: url, max: 4, Client: CharAsTextClient });
  const adapter = await new PrismaPg(pool, { disposeExternalPool: true }).connect();
  retypeCharColumns(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.startTransaction = async (isolationLevel) => {
    const tx = await startTransaction(isolationLevel);
    retypeCharColumns(tx);
    return tx;
  };
  adapter.executeScript = async (script: string) => {
    await pool.query(script).catch(toAdapterError);
  };
  const dispose = adapter.dispose.bind(adapter);
  let disposed: Promise<void> | undefined;
  adapter.dispose = () => {
    opened.delete(adapter.dispose);
    return (disposed ??= dispose().then(() => onDispose?.()));
  };
  opened.add(adapter.dispose);
  return adapter;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

export interface MigrationsDiffInput {
  /** Server to create scratch (shadow) databases on; the engine's main connection also points here, read-only. */
  adminUrl: string;
  schemaPath: string;
  migrationsDir: string;
  /** Receives the engine's JSON log lines. */
  log?: (line: string) => void;
}

/** SQL turning a database built from `migrationsDir` into `schemaPath`'s datamodel; "" when in sync. */
export async function diffMigrationsToSchema(input: MigrationsDiffInput): Promise<string> {
  const admin = new pg.Pool({ connectionString: input.adminUrl, max: 1 });
  const scratch = new Set<string>();
  const opened = new Set<() => Promise<void>>();
  const dropDatabase = async (name: string) => {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    scratch.delete(name);
  };
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: "postgres",
    adapterName: "@prisma/adapter-pg",
    connect: () => connect(input.adminUrl, opened),
    connectToShadowDb: async () => {
      const name = `migrate_diff_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
      await admin.query(`CREATE DATABASE "${name}"`);
      scratch.add(name);
      return connect(withDatabase(input.adminUrl, name), opened, () => dropDatabase(name));
    },
  };

  const schema: SchemaContainer = { path: input.schemaPath, content: fs.readFileSync(input.schemaPath, "utf8") };
  const migrationsList = readMigrations(input.migrationsDir);
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const SchemaEngine = loadSchemaEngine();
  let engine: runtime.SchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, input.log ?? (() => {}), bound);
    const result = await engine.diff({
      from: { tag: "migrations", ...migrationsList },
      to: { tag: "schemaDatamodel", files: [schema] },
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    const sql = result.stdout ?? "";
    return isEmptyScript(sql) ? "" : sql;
  } catch (e) {
    // Plain JS errors thrown inside the adapter reach the engine only as {kind: "GenericJs", id}.
    const jsError = bound.errorRegistry.consumeError(0)?.error;
    if (jsError !== undefined && e instanceof Error && e.cause === undefined) e.cause = jsError;
    throw e;
  } finally {
    engine?.free();
    for (const dispose of [...opened]) await dispose().catch(() => undefined);
    for (const name of [...scratch]) await dropDatabase(name).catch(() => undefined);
    await admin.end();
  }
}

function isEmptyScript(sql: string): boolean {
  return sql.split("\n").every((l) => l.trim() === "" || l.trim().startsWith("--"));
}

/** The shape the Prisma CLI builds from a migrations directory. */
export function readMigrations(dir: string): MigrationList {
  const lockPath = path.join(dir, "migration_lock.toml");
  const migrationDirectories = fs
    .readdirSync(dir, { withFileTypes: true })
    // Same selection and order as the project's runner (src/platform/db/migrate.ts).
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(dir, d.name, "migration.sql")))
    .map((d) => d.name)
    .sort()
    .map((name) => ({
      path: name,
      migrationFile: {
        path: "migration.sql",
        content: { tag: "ok" as const, value: fs.readFileSync(path.join(dir, name, "migration.sql"), "utf8") },
      },
    }));
  return {
    baseDir: dir,
    // The engine refuses a directory without a lockfile; the project's runner does not need one.
    lockfile: {
      path: "migration_lock.toml",
      content: fs.existsSync(lockPath) ? fs.readFileSync(lockPath, "utf8") : 'provider = "postgresql"\n',
    },
    shadowDbInitScript: "",
    migrationDirectories,
  };
}
