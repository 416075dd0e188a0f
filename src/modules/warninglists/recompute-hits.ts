import type { Task } from "graphile-worker";
import type pg from "pg";
import { RECOMPUTE_WARNINGLIST_HITS_TASK, WARNINGLIST_QUEUE } from "../../platform/job-names.ts";
import { enqueueJob, type JobExecutor } from "../../platform/job-queue.ts";
import { withTransaction } from "../../platform/db/transaction.ts";
import { recordChanges } from "../changes/index.ts";
import type { Warning } from "./matchers.ts";
import { compileEnabledLists } from "./warninglist-cache.ts";
import { attributePage, writeHits } from "./warninglist-store.ts";

const PAGE = 2000;
/**
 * The change record of an attribute whose hits changed: the indexer re-indexes it (warnings.name)
 * and the correlator re-judges it (listed values leave correlation); followers are not notified.
 */
export const WARNINGS_CHANGED = "attribute.warnings.changed";

/** Queued in the transaction that changes the lists; the key keeps one pending job. */
export async function queueHitRecompute(sql: JobExecutor): Promise<void> {
  await enqueueJob(sql, RECOMPUTE_WARNINGLIST_HITS_TASK, {}, { jobKey: RECOMPUTE_WARNINGLIST_HITS_TASK, queueName: WARNINGLIST_QUEUE, maxAttempts: 5 });
}

const sameHits = (a: readonly Warning[], b: readonly Warning[]) => a.length === b.length && a.every((w, i) => w.id === b[i].id && w.name === b[i].name);

/**
 * Every attribute's hits against the lists enabled now (compiled here, not from the process cache,
 * which may not have heard of the change yet), by keyset pages; each page's changed rows and their
 * change records commit together.
 */
export async function recomputeHits(pool: pg.Pool): Promise<{ attributes: number; changed: number }> {
  const matcher = await compileEnabledLists(pool);
  const counts = { attributes: 0, changed: 0 };
  for (let after = "0"; ; ) {
    const rows = await attributePage(pool, after, PAGE);
    if (rows.length === 0) return counts;
    after = rows[rows.length - 1].id;
    counts.attributes += rows.length;
    const changed = rows.flatMap((r) => {
      const warnings = matcher.match(r.type, r.value1, r.value2);
      return sameHits(warnings, r.warnings) ? [] : [{ ...r, warnings }];
    });
    if (changed.length === 0) continue;
    counts.changed += changed.length;
    await withTransaction(pool, async (client) => {
      await writeHits(client, changed);
      await recordChanges(client, null, changed.map((c) => ({ kind: WARNINGS_CHANGED, entityType: "attribute", entityUuid: c.uuid, eventUuid: c.event_uuid })));
    });
  }
}

export function recomputeHitsTask(pool: pg.Pool): Task {
  return async (_payload, helpers) => {
    const counts = await recomputeHits(pool);
    helpers.logger.info(`warninglist hits recomputed: ${counts.changed} of ${counts.attributes} attributes changed`);
  };
}
