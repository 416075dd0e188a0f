import type pg from "pg";
import type { Principal } from "../../auth/principal.ts";
import { recordChanges } from "../changes/index.ts";
import type { PairRow } from "./correlation-store.ts";
import { removalChanges } from "./correlator.ts";
import { cancelActiveRebuilds, PURGE_LOCK } from "./rebuild.ts";

const PURGE_BATCH = 5000;
const CANCELLED = "Cancelled: every correlation was deleted (DELETE /correlations/) while this rebuild was queued or running; start a new one";

/** Filled in as the purge goes, so that a purge that fails halfway can still be reported. */
export interface PurgeProgress {
  /** Pairs deleted (each had two search documents). */
  deleted: number;
  /** Rebuilds that were queued or running, now failed: they would have restored part of the pairs. */
  cancelledRebuilds: number[];
}

/**
 * Deletes every pair that exists when it starts, in batches, each with its
 * `attribute.correlation.deleted` change records in the same transaction: the indexer removes the
 * documents from those records, as for any other removal, and the change log stays a true history
 * (a pair found again later is announced again, as after any removal). Pairs that incremental
 * correlation creates meanwhile are kept, with their documents. Purges run one at a time (an
 * advisory lock on the connection, released with it if the process dies) and exclude rebuilds.
 */
export async function purgeCorrelations(pool: pg.Pool, actor: Principal, progress: PurgeProgress): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${PURGE_LOCK})`);
    try {
      progress.cancelledRebuilds = await cancelActiveRebuilds(client, CANCELLED);
      const { rows } = await client.query<{ last: number | null }>("SELECT max(id) AS last FROM correlations");
      const last = rows[0].last ?? 0;
      for (let after = 0; ; ) {
        const batch = await inTransaction(client, () => deleteBatch(client, actor, after, last));
        if (batch.lastId === null) return;
        after = batch.lastId;
        progress.deleted += batch.deleted;
      }
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${PURGE_LOCK})`);
    }
  } finally {
    client.release();
  }
}

/** The next batch of pair ids in `(after, last]`; a pair a concurrent job removed first is simply not returned. */
async function deleteBatch(client: pg.PoolClient, actor: Principal, after: number, last: number): Promise<{ lastId: number | null; deleted: number }> {
  const { rows: ids } = await client.query<{ id: number }>("SELECT id FROM correlations WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3", [after, last, PURGE_BATCH]);
  if (ids.length === 0) return { lastId: null, deleted: 0 };
  const { rows: gone } = await client.query<PairRow>(
    "DELETE FROM correlations WHERE id = ANY($1::bigint[]) RETURNING id, source_attribute_id, target_attribute_id, match_type",
    [ids.map((r) => r.id)],
  );
  await recordChanges(client, actor, await removalChanges(client, gone));
  return { lastId: ids[ids.length - 1].id, deleted: gone.length };
}

async function inTransaction<T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query("BEGIN");
  try {
    const result = await fn();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}
