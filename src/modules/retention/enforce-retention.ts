import { withTransaction } from "../../platform/db/transaction.ts";
import { AuditService } from "../audit/audit.service.ts";
import { recordChanges, type Change } from "../changes/change-log.ts";
import { CORRELATION_DELETED } from "../correlations/correlator.ts";
import { readRuntimeSetting } from "../settings/runtime-settings.reader.ts";
import { instanceWide, noParams } from "../tasks/params.ts";
import type { RegisteredTask } from "../tasks/registered-task.ts";
import { retentionCutoff } from "./retention-policy.ts";
import { lockCandidates, purgeEvents, type PurgedEvent, type PurgeOutcome } from "./retention-store.ts";

/** Events per transaction: a batch holds its row locks for a moment, not for the whole run. */
const BATCH = 100;

type Progress = {
  cutoff: number;
  period_days: number;
  exempt_tags: string[];
  purged: number;
  attributes: number;
  sightings: number;
  correlations: number;
};

/**
 * Task `enforce_retention` (spec 4.5, section 8): purges events past retention in batches, each in
 * one transaction with its change records and the run's progress, so a run killed half-way resumes
 * where it stopped, with the same cutoff, and never deletes twice. A no-op while retention is disabled.
 */
export const enforceRetentionTask: RegisteredTask = {
  name: "enforce_retention",
  description: "Delete events past the retention period (runtime settings namespace retention), except those with an exempt tag.",
  requiredScopes: ["settings:update", "events:delete"],
  maxAttempts: 5,
  queueName: "retention",
  checkParams: noParams,
  checkTarget: instanceWide,
  async execute({ app, principal, run, log, saveProgress }) {
    const pool = app.db.pool;
    const settings = await readRuntimeSetting(pool, "retention");
    if (!settings.enabled) return { purged: 0, skipped: "retention is disabled" };
    const resumed = run.progress as Progress | null;
    const p: Progress = resumed ?? {
      cutoff: retentionCutoff(settings.period_days, Math.floor(Date.now() / 1000)),
      period_days: settings.period_days,
      exempt_tags: settings.exempt_tags,
      purged: 0,
      attributes: 0,
      sightings: 0,
      correlations: 0,
    };
    if (resumed) log.info({ run_id: run.id, purged: p.purged }, "resuming retention enforcement");
    else await saveProgress(p);
    for (;;) {
      const batch = await withTransaction(pool, async (client) => {
        const events = await lockCandidates(client, p.cutoff, p.exempt_tags, BATCH);
        if (events.length === 0) return events;
        const outcome = await purgeEvents(client, events.map((e) => e.id));
        await recordChanges(client, principal, purgeChanges(events, outcome));
        p.purged += events.length;
        p.attributes += events.reduce((n, e) => n + e.attributes, 0);
        p.sightings += outcome.sightings;
        p.correlations += outcome.correlations.length;
        await saveProgress(p, client);
        return events;
      });
      if (batch.length === 0) break;
      for (const e of batch) log.info({ event_uuid: e.uuid, run_id: run.id }, "retention purged event");
    }
    const result = { ...p };
    await new AuditService(app.db.prisma).record(principal, { action: "retention.enforced", resourceType: "task_run", metadata: { run_id: run.id, ...result } });
    return result;
  },
};

/**
 * One `event.deleted` per event (carrying its attribute uuids, so the indexer removes their
 * documents by id) and one correlation removal per pair; no per-attribute records.
 */
function purgeChanges(events: PurgedEvent[], outcome: PurgeOutcome): Change[] {
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
      org_id: e.org_id,
      orgc_id: e.orgc_id,
      reason: "retention",
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
