import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";
import "./int8.ts";

export { PrismaClient };
export type { Prisma } from "../../generated/prisma/client.ts";

export interface Database {
  url: string;
  /** Typed access for ordinary reads and writes. */
  prisma: PrismaClient;
  /** Raw SQL for bulk paths, LISTEN/NOTIFY and the job queue. */
  pool: pg.Pool;
  /**
   * Searches and search-like aggregates only (the PostgreSQL search backend, correlation statistics
   * and histograms): a few connections of their own, so that however many searches run,
   * authentication, writes and /healthz never wait behind them. Connections open on first use.
   */
  searchPool: pg.Pool;
  /** One connection for /healthz's probe: a pool busy with work is not an unreachable database. */
  probePool: pg.Pool;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  poolSize?: number;
  /** Connections of the search pool (default 4). */
  searchPoolSize?: number;
  /** How long a search waits for a search connection before it fails (default 10 s). */
  searchWaitMs?: number;
}


export function connectDatabase(url: string, log: Logger, opts: DatabaseOptions = {}): Database {
  // Without JIT, as the search, statistics and correlation statements already set per transaction: the
  // planner's estimates on large tables put a page's reads over jit_above_cost, and compiling them
  // cost more than running them (a page of 50 events with their counts: 23-26 ms of a 31 ms
  // statement at 300,000 attributes, bench/README.md "MISP API: full pages of metadata").
  const pool = watched(new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, application_name: "workbench", options: "-c jit=off" }), log);
  const searchPool = watched(
    new pg.Pool({
      connectionString: url,
      max: opts.searchPoolSize ?? 4,
      connectionTimeoutMillis: opts.searchWaitMs ?? 10_000,
      application_name: "workbench-search",
    }),
    log,
  );
  const probePool = watched(new pg.Pool({ connectionString: url, max: 1, application_name: "workbench-health" }), log);
  // Prisma's defaults (2 s to get a connection, 5 s per interactive transaction) fail writes on a
  // busy 2-core machine where the same statements merely run slowly; a stuck transaction still ends.
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool), transactionOptions: { maxWait: 10_000, timeout: 30_000 } });
  return {
    url,
    prisma,
    pool,
    searchPool,
    probePool,
    async close() {
      await prisma.$disconnect();
      await Promise.all([pool.end(), searchPool.end(), probePool.end()]);
    },
  };
}

function watched(pool: pg.Pool, log: Logger): pg.Pool {
  pool.on("error", (err) => log.warn({ err }, "idle database connection failed"));
  pool.on("connect", (client) => client.on("error", (err) => log.warn({ err }, "database connection failed")));
  return pool;
}

/** Errors that waiting does not fix: wrong password, unknown database or role, bad TLS settings. */
const FATAL_CONNECT_CODES = new Set(["28P01", "28000", "3D000", "42501"]);

/**
 * Waits until PostgreSQL accepts a connection, retrying connection failures (refused, timed out,
 * "starting up") for a bounded time, so a service started with its database does not fail at once
 * nor hang forever. The error names DATABASE_URL and the host, never the password.
 */
export async function waitForDatabase(url: string, log: Logger, timeoutMs: number): Promise<void> {
  const started = Date.now();
  let target = "the configured server";
  try {
    const u = new URL(url);
    target = `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    /* pg reports unparsable URLs itself */
  }
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000, application_name: "workbench" });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      if (attempt > 1) log.info({ target, attempts: attempt }, "database reachable");
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      const code = (err as { code?: string }).code;
      const message = (err as Error).message;
      if (code && FATAL_CONNECT_CODES.has(code)) throw new Error(`DATABASE_URL: PostgreSQL at ${target} refused the connection: ${message}`);
      const elapsed = Date.now() - started;
      if (elapsed >= timeoutMs) {
        throw new Error(`DATABASE_URL: PostgreSQL at ${target} unreachable for ${Math.round(elapsed / 1000)} s (${message || code})`);
      }
      log.warn({ target, attempt, err: message || code }, "database unreachable, retrying");
      await new Promise((r) => setTimeout(r, Math.min(500 * attempt, 3000, Math.max(timeoutMs - elapsed, 0))));
    }
  }
}
