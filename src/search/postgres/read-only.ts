/**
 * The one way the PostgreSQL backend reads for a search or a scan page: a connection of the search
 * pool for one short read-only transaction under the search `statement_timeout`, with JIT off
 * (compiling the plan of a broad scan costs 50-350 ms, more than most searches take). A failure
 * rolls back and becomes a `SearchQueryError` (`./failures.ts`); a connection whose rollback fails
 * or that a timeout may have left mid-protocol is discarded instead of returned to the pool.
 */
import type pg from "pg";
import { SearchQueryError } from "../search-index.ts";
import { searchFailureOf } from "./failures.ts";

export type ReadIsolation = "read committed" | "repeatable read";

export async function inReadOnlyTransaction<T>(pool: pg.Pool, timeoutMs: number, isolation: ReadIsolation, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  // statement_timeout is an int4 of milliseconds.
  const timeout = Math.min(2_147_483_647, Math.max(1, Math.floor(timeoutMs)));
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw new SearchQueryError(`PostgreSQL is unavailable: ${(err as Error).message}`, "unavailable");
  }
  let broken = false;
  try {
    // One round trip (a search's fixed cost is a few of them).
    await client.query(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()} READ ONLY; SET LOCAL statement_timeout = ${timeout}; SET LOCAL jit = off`);
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    const failure = searchFailureOf(err, timeout);
    broken ||= failure.broken;
    throw failure.error;
  } finally {
    client.release(broken);
  }
}

/**
 * The rows of a statement that returns many documents (a search's sources, a scan page), read with
 * the callback form of `client.query`: with the promise form, node-postgres 8.23 lets a page's rows
 * survive two young-generation collections, so V8 moves them to the old generation, which it only
 * collects once it has grown by hundreds of MB. Measured over 100,000 attributes in pages of 1,000:
 * 64 MB promoted with the promise form, 0.3 MB with this one (bench/README, "Exports").
 */
export function rowsOf<R extends pg.QueryResultRow>(client: pg.PoolClient, text: string, values: unknown[]): Promise<R[]> {
  return new Promise((resolve, reject) => {
    client.query<R>(text, values, (err, result) => (err ? reject(err) : resolve(result.rows)));
  });
}
