import { withTransaction } from "../../platform/db/transaction.ts";
import { recordChanges, type Change } from "../changes/index.ts";
import { CORRELATION_DELETED } from "../correlations/index.ts";
import { instanceWide, noParams } from "../tasks/index.ts";
import type { RegisteredTask, TaskExecution } from "../tasks/index.ts";
import { purgeEvents, type PurgedEvent, type PurgeOutcome } from "./retention-store.ts";
import type { Sql } from "../../platform/db/transaction.ts";

/** What the purging tasks share: instance-wide, administrators', one queue (they never overlap). */
export const PURGE_TASK_BASE = {
  requiredScopes: ["settings:update", "events:delete"],
  maxAttempts: 5,
  queueName: "retention",
  checkParams: noParams,
  checkTarget: instanceWide,
} satisfies Partial<RegisteredTask>;

/** Events per transaction: a batch holds its row locks for a moment, not for the whole run. */
const BATCH = 100;

export type PurgeCounts = {
  purged: number;
  attributes: number;
  sightings: number;
  correlations: number;
};

/**
 * Hard-deletes the events `lock` selects, in batches, each in one transaction with its change
 * records and the run's progress (`p`, saved with every batch), so a run killed half-way resumes
 * where it stopped and never deletes twice. Used by retention and by the purge of soft-deleted events.
 */
export async function purgeInBatches<P extends PurgeCounts>(
  x: Pick<TaskExecution, "app" | "principal" | "run" | "log" | "saveProgress">,
  p: P,
  reason: string,
  lock: (sql: Sql, limit: number) => Promise<PurgedEvent[]>,
): Promise<P> {
  for (;;) {
    const batch = await withTransaction(x.app.db.pool, async (client) => {
      const events = await lock(client, BATCH);
      if (events.length === 0) return events;
      const outcome = await purgeEvents(client, events.map((e) => e.id));
      await recordChanges(client, x.principal, purgeChanges(events, outcome, reason));
      p.purged += events.length;
      p.attributes += events.reduce((n, e) => n + e.attributes, 0);
      p.sightings += outcome.sightings;
      p.correlations += outcome.correlations.length;
      await x.saveProgress(p, client);
      return events;
    });
    if (batch.length === 0) return p;
    for (const e of batch) x.log.info({ event_uuid: e.uuid, run_id: x.run.id, reason }, "purged event");
  }
}

/**
 * One `event.deleted` per event (carrying its attribute uuids, so the indexer removes their
 * documents by id) and one correlation removal per pair; no per-attribute records.
 */
function purgeChanges(events: PurgedEvent[], outcome: PurgeOutcome, reason: string): Change[] {
  const changes: Change[] = events.map((e) => ({
    kind: "event.deleted",
    entityType: "event",
    entityUuid: e.uuid,
    eventUuid: e.uuid,
    payload: {
      event_name: e.info,
      organisation_uuid: e.orgc_uuid,
      organisation_name: e.orgc_name,
      distribution: e.distribution,
      sharing_group_id: e.sharing_group_id,
      org_id: e.org_id,
      orgc_id: e.orgc_id,
      reason,
      attribute_uuids: outcome.attributeUuids.get(e.id) ?? [],
    },
  }));
  for (const c of outcome.correlations) {
    changes.push({
      kind: CORRELATION_DELETED,
      entityType: "attribute",
      entityUuid: c.source_attribute_uuid,
      eventUuid: c.source_event_uuid,
      payload: { correlation_id: Number(c.id), match_type: c.match_type, source_attribute_uuid: c.source_attribute_uuid, target_attribute_uuid: c.target_attribute_uuid },
    });
  }
  return changes;
}
