import { z } from "zod";
import { HUNT_STATUSES, HUNT_TYPES, INDEX_TARGETS } from "../../src/modules/hunts/index.ts";
import { HUNT_DOC, HUNT_HIT_DOC, HUNT_RESULT_DOC, HUNT_RUN_DOC, HUNT_TYPES_DOC, IS_NEW_DOC } from "../../src/modules/hunts/index.ts";
import { HUNT_FREQUENCY_NAMES, frequencyOf, type HuntFrequency } from "../../src/modules/hunts/index.ts";
import type { HuntRow, HuntRunRow } from "../../src/modules/hunts/index.ts";
import type { Hit } from "../../src/modules/hunts/index.ts";
import { named, nullableTimestamp, pageSchema, timestamp } from "../contract.ts";

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export const HuntSchema = named(
  "Hunt",
  z.object({
    id: z.int().describe(HUNT_DOC.id),
    user_id: z.int().describe(HUNT_DOC.userId),
    name: z.string().describe(HUNT_DOC.name),
    description: z.string().nullable().describe(HUNT_DOC.description),
    query: z.string().describe(HUNT_DOC.query),
    hunt_type: z.enum(HUNT_TYPES).describe(HUNT_DOC.huntType),
    index_target: z.enum(INDEX_TARGETS).nullable().describe(HUNT_DOC.indexTarget),
    status: z.enum(HUNT_STATUSES).describe(HUNT_DOC.status),
    schedule: z
      .enum([...HUNT_FREQUENCY_NAMES, "custom"] as unknown as [HuntFrequency | "custom", ...(HuntFrequency | "custom")[]])
      .nullable()
      .describe(HUNT_DOC.schedule),
    scheduled_task_id: z.uuid().nullable().describe(HUNT_DOC.scheduledTaskId),
    next_run_at: nullableTimestamp.describe(HUNT_DOC.nextRunAt),
    last_run_at: nullableTimestamp.describe(HUNT_DOC.lastRunAt),
    last_run_status: z.enum(["succeeded", "failed"]).nullable().describe(HUNT_DOC.lastRunStatus),
    last_run_error: z.string().nullable().describe(HUNT_DOC.lastRunError),
    last_match_count: z.int().nullable().describe(HUNT_DOC.lastMatchCount),
    last_success_at: nullableTimestamp.describe(HUNT_DOC.lastSuccessAt),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  HUNT_TYPES_DOC.Hunt,
  {
    id: 7,
    user_id: 3,
    name: "AgentTesla C2 domains",
    description: "New domains tagged with the AgentTesla galaxy cluster",
    query: 'tags.name:"misp-galaxy:malpedia=\\"Agent Tesla\\"" AND type:domain',
    hunt_type: "search",
    index_target: "attributes",
    status: "active",
    schedule: "daily",
    scheduled_task_id: "0c9e8d7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f",
    next_run_at: "2026-01-16T06:00:00.000Z",
    last_run_at: "2026-01-15T06:00:00.000Z",
    last_run_status: "succeeded",
    last_run_error: null,
    last_match_count: 12,
    last_success_at: "2026-01-15T06:00:00.000Z",
    created_at: "2026-01-02T09:30:00.000Z",
    updated_at: "2026-01-15T06:00:01.000Z",
  },
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
    id: z.int().describe(HUNT_RUN_DOC.id),
    run_at: timestamp.describe(HUNT_RUN_DOC.runAt),
    match_count: z.int().nullable().describe(HUNT_RUN_DOC.matchCount),
    status: z.enum(["succeeded", "failed"]).describe(HUNT_RUN_DOC.status),
    error: z.string().nullable().describe(HUNT_RUN_DOC.error),
    trigger: z.enum(["manual", "schedule"]).describe(HUNT_RUN_DOC.trigger),
    new_hit_count: z.int().nullable().describe(HUNT_RUN_DOC.newHitCount),
    duration_ms: z.int().min(0).describe(HUNT_RUN_DOC.durationMs),
    task_run_id: z.uuid().nullable().describe(`${HUNT_RUN_DOC.taskRunId} through /hunts/{id}/run`),
  }),
  HUNT_TYPES_DOC.HuntRun,
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

const isNew = z.boolean().describe(IS_NEW_DOC);

const HuntCveHitSchema = named(
  "HuntCveHit",
  z.looseObject({
    is_new: isNew,
    cve_id: z.string().describe(HUNT_HIT_DOC.cveId),
    severity: z.enum(["CRITICAL", "HIGH", "MEDIUM", "LOW"]).optional().describe(`${HUNT_HIT_DOC.severity}; absent without a score`),
    description: z.string().describe(HUNT_HIT_DOC.description),
  }),
  HUNT_TYPES_DOC.HuntCveHit,
);

const HuntRuleHitSchema = named(
  "HuntRuleHit",
  z.looseObject({
    is_new: isNew,
    title: z.string().optional().describe(HUNT_HIT_DOC.title),
    detail_url: z.string().optional().describe(HUNT_HIT_DOC.detailUrl),
  }).describe("Further fields as the rules service answers them (format, content, author, ...), which differ between its versions"),
  HUNT_TYPES_DOC.HuntRuleHit,
);

const HuntDocumentHitSchema = named(
  "HuntDocumentHit",
  z.looseObject({
    is_new: isNew,
    uuid: z.string().optional().describe(HUNT_HIT_DOC.uuid),
    _doc_kind: z.enum(["event", "attribute"]).optional().describe(`${HUNT_HIT_DOC.docKind}; absent otherwise`),
  }).describe("The search document (`_source` of the search routes' hits): the fields of the events, attributes or correlations index"),
  HUNT_TYPES_DOC.HuntDocumentHit,
);

export const HuntHitSchema = z
  .union([HuntCveHitSchema, HuntRuleHitSchema, HuntDocumentHitSchema])
  .describe("By hunt_type: HuntCveHit (cpe), HuntRuleHit (rules), HuntDocumentHit (search, fw-attack-pattern)");

export const HuntResultSchema = named(
  "HuntResult",
  z.object({
    hunt: HuntSchema,
    total: z.int().min(0).describe(HUNT_RESULT_DOC.total),
    hits: z.array(HuntHitSchema).describe(HUNT_RESULT_DOC.hits),
    run_at: timestamp.describe(HUNT_RESULT_DOC.runAt),
  }),
  HUNT_TYPES_DOC.HuntResult,
);

export function huntResultOut(hunt: HuntRow, total: number, hits: Hit[], runAt: Date): z.output<typeof HuntResultSchema> {
  return { hunt: huntOut(hunt), total, hits: hits as z.output<typeof HuntHitSchema>[], run_at: runAt.toISOString() };
}
