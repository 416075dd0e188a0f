import type pg from "pg";

export type Sql = Pick<pg.PoolClient, "query">;

export interface TransactionOptions {
  /**
   * Runs `fn` again, in a new transaction, when PostgreSQL chose this one as a deadlock's victim
   * (40P01): writers that create shared rows (organisations, tags) on first sight can meet in
   * opposite orders, and the victim succeeds once the other has committed. `fn` must keep no effect
   * outside the transaction.
   */
  retryDeadlocks?: boolean;
}

const DEADLOCK_ATTEMPTS = 3;

/** Runs `fn` in one transaction on one pooled connection; rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>, opts: TransactionOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once(pool, fn);
    } catch (err) {
      if (!opts.retryDeadlocks || attempt >= DEADLOCK_ATTEMPTS || (err as { code?: unknown }).code !== "40P01") throw err;
      // A short random pause, so that two victims of one cycle do not meet again at once.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}

async function once<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
