import pg from "pg";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../../generated/prisma/client.ts";
import type { Logger } from "../logger.ts";

export { PrismaClient };
export type { Prisma } from "../../generated/prisma/client.ts";

export interface Database {
  url: string;
  /** Typed access for ordinary reads and writes. */
  prisma: PrismaClient;
  /** Raw SQL for bulk paths, LISTEN/NOTIFY and the job queue. */
  pool: pg.Pool;
  close(): Promise<void>;
}

// int8 (bigint ids, counts) as JS numbers: our counts and ids stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

export function connectDatabase(url: string, log: Logger, opts: { poolSize?: number } = {}): Database {
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10, application_name: "workbench" });
  pool.on("error", (err) => log.warn({ err }, "idle database connection failed"));
  pool.on("connect", (client) => client.on("error", (err) => log.warn({ err }, "database connection failed")));
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return {
    url,
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end();
    },
  };
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
