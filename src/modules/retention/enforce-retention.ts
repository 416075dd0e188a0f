import { readRuntimeSetting } from "../settings/index.ts";
import type { RegisteredTask } from "../tasks/index.ts";
import { retentionCutoff } from "./retention-policy.ts";
import { PURGE_TASK_BASE, purgeInBatches, type PurgeCounts } from "./purge-run.ts";
import { lockCandidates } from "./retention-store.ts";

type Progress = PurgeCounts & {
  cutoff: number;
  period_days: number;
  exempt_tags: string[];
};

/**
 * Task `enforce_retention` (spec 4.5, section 8): purges live events past retention in batches
 * (purge-run.ts), so a run killed half-way resumes where it stopped, with the same cutoff, and never
 * deletes twice. A no-op while retention is disabled.
 */
export const enforceRetentionTask: RegisteredTask = {
  name: "enforce_retention",
  description: "Delete events past the retention period (runtime settings namespace retention), except those with an exempt tag.",
  ...PURGE_TASK_BASE,
  async execute(x) {
    const { app, services, principal, run, log, saveProgress } = x;
    const settings = await readRuntimeSetting(app.db.pool, "retention");
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
    const result = { ...(await purgeInBatches(x, p, "retention", (sql, limit) => lockCandidates(sql, p.cutoff, p.exempt_tags, limit))) };
    await services.audit.record(principal, { action: "retention.enforced", resourceType: "task_run", metadata: { run_id: run.id, ...result } });
    return result;
  },
};
