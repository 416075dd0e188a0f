import { z } from "zod";
import { HUNT_STATUSES, HUNT_TYPES, INDEX_TARGETS } from "../../src/modules/hunts/index.ts";
import { HUNT_FREQUENCY_NAMES, frequencyOf, type HuntFrequency } from "../../src/modules/hunts/index.ts";
import type { HuntRow, HuntRunRow } from "../../src/modules/hunts/index.ts";
import type { Hit } from "../../src/modules/hunts/index.ts";
import { named, nullableTimestamp, pageSchema, timestamp } from "../contract.ts";

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export const HuntSchema = named(
  "Hunt",
  z.object({
    id: z.int(),
    user_id: z.int().describe("Its owner"),
    name: z.string(),
    description: z.string().nullable(),
    query: z.string().describe("By hunt_type: a Lucene query, a CPE 2.3 name, a vulnerability id, or ATT&CK technique codes, cluster uuids or tag names"),
    hunt_type: z.enum(HUNT_TYPES),
    index_target: z.enum(INDEX_TARGETS).nullable().describe("The index a search or fw-attack-pattern hunt reads; null for cpe and rules hunts"),
    status: z.enum(HUNT_STATUSES).describe("paused: its schedule skips it"),
    schedule: z
      .enum([...HUNT_FREQUENCY_NAMES, "custom"] as unknown as [HuntFrequency | "custom", ...(HuntFrequency | "custom")[]])
      .nullable()
      .describe("hourly, daily, weekly; custom when its scheduled task was changed through /tasks; null without a schedule"),
    scheduled_task_id: z.uuid().nullable().describe("The scheduled task that runs it; null without a schedule"),
    next_run_at: nullableTimestamp.describe("When its schedule runs it next; null without an enabled schedule"),
    last_run_at: nullableTimestamp.describe("When it last ran; null if never"),
    last_run_status: z.enum(["succeeded", "failed"]).nullable().describe("null if never run"),
    last_run_error: z.string().nullable().describe("Why the last run failed; null after a success"),
    last_match_count: z.int().nullable().describe("Hits of the last successful run; null before the first"),
    last_success_at: nullableTimestamp,
    created_at: timestamp,
    updated_at: timestamp,
  }),
  "A saved question asked of the indices or of external services (spec 2.2), with its owner, schedule and last run",
);

export const HuntPageSchema = pageSchema("HuntPage", HuntSchema);

/** A hunt as the peer answers it (spec 2.2 fields, owner and timestamps), plus its schedule and last run. */
export function huntOut(h: HuntRow): z.output<typeof HuntSchema> {
  return {
    id: h.id,
    user_id: h.userId,
    name: h.name,
    description: h.description,
    query: h.query,
    hunt_type: h.huntType,
    index_target: h.indexTarget,
    status: h.status,
    schedule: frequencyOf(h),
    scheduled_task_id: h.scheduledTaskId,
    next_run_at: h.scheduleEnabled ? isoOrNull(h.nextRunAt) : null,
    last_run_at: isoOrNull(h.lastRunAt),
    last_run_status: h.lastRunStatus,
    last_run_error: h.lastRunError,
    last_match_count: h.lastMatchCount,
    last_success_at: isoOrNull(h.lastSuccessAt),
    created_at: h.createdAt.toISOString(),
    updated_at: h.updatedAt.toISOString(),
  };
}

export const HuntRunSchema = named(
  "HuntRun",
  z.object({
    id: z.int(),
    run_at: timestamp,
    match_count: z.int().nullable().describe("Hits found; null for a failed run"),
    status: z.enum(["succeeded", "failed"]),
    error: z.string().nullable().describe("Why it failed; null for a success"),
    trigger: z.enum(["manual", "schedule"]),
    new_hit_count: z.int().nullable().describe("Hits not in the previous successful run; null for a failed run"),
    duration_ms: z.int().min(0).describe("How long the run took, in milliseconds"),
    task_run_id: z.uuid().nullable().describe("The task run that made it; null for a run by hand through /hunts/{id}/run"),
  }),
  "One entry of a hunt's run history (spec 2.2)",
);

export function huntRunOut(r: HuntRunRow): z.output<typeof HuntRunSchema> {
  return {
    id: Number(r.id),
    run_at: r.runAt.toISOString(),
    match_count: r.matchCount,
    status: r.status,
    error: r.error,
    trigger: r.trigger,
    new_hit_count: r.newHitCount,
    duration_ms: r.durationMs,
    task_run_id: r.taskRunId,
  };
}

const isNew = z.boolean().describe("Not in the previous successful run's result (never on a first run)");

const HuntCveHitSchema = named(
  "HuntCveHit",
  z.looseObject({
    is_new: isNew,
    cve_id: z.string().describe("CVE-YYYY-N"),
    severity: z.enum(["CRITICAL", "HIGH", "MEDIUM", "LOW"]).optional().describe("From the newest CVSS score; absent without a score"),
    description: z.string().describe("The CVE's English description"),
  }),
  "A hit of a cpe hunt: one vulnerability the vulnerability database lists for the CPE",
);

const HuntRuleHitSchema = named(
  "HuntRuleHit",
  z.looseObject({
    is_new: isNew,
    title: z.string().optional(),
    detail_url: z.string().optional().describe("The rule's page at the rules service"),
  }).describe("Further fields as the rules service answers them (format, content, author, ...), which differ between its versions"),
  "A hit of a rules hunt: one detection rule published for the vulnerability",
);

const HuntDocumentHitSchema = named(
  "HuntDocumentHit",
  z.looseObject({
    is_new: isNew,
    uuid: z.string().optional().describe("The event's or attribute's uuid (correlation documents have source_ and target_ uuids instead)"),
    _doc_kind: z.enum(["event", "attribute"]).optional().describe("Present when the hunt reads both indices (index_target attributes_and_events)"),
  }).describe("The search document (`_source` of the search routes' hits): the fields of the events, attributes or correlations index"),
  "A hit of a search or fw-attack-pattern hunt: a search document",
);

export const HuntHitSchema = z
  .union([HuntCveHitSchema, HuntRuleHitSchema, HuntDocumentHitSchema])
  .describe("By hunt_type: HuntCveHit (cpe), HuntRuleHit (rules), HuntDocumentHit (search, fw-attack-pattern)");

export const HuntResultSchema = named(
  "HuntResult",
  z.object({
    hunt: HuntSchema,
    total: z.int().min(0).describe("Number of hits (rules: the number of rules found); a search hunt's hits hold the newest 100"),
    hits: z.array(HuntHitSchema),
    run_at: timestamp.describe("When the run was made"),
  }),
  "A hunt's result set (spec 2.2): of the run just made, or the one cached by its last successful run",
);

export function huntResultOut(hunt: HuntRow, total: number, hits: Hit[], runAt: Date): z.output<typeof HuntResultSchema> {
  return { hunt: huntOut(hunt), total, hits: hits as z.output<typeof HuntHitSchema>[], run_at: runAt.toISOString() };
}
