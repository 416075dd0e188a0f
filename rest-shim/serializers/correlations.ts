import { z } from "zod";
import type { CorrelatedAttribute, KeyCount } from "../../src/modules/correlations/index.ts";
import type { Exclusion } from "../../src/modules/correlations/index.ts";
import type { HistogramBucket } from "../../src/modules/correlations/index.ts";
import type { RebuildRow } from "../../src/modules/correlations/index.ts";
import {
  CORRELATED_ATTRIBUTE_DOC as CA,
  CORRELATION_COUNT_DOC as CC,
  CORRELATION_DELETION_DOC as CD,
  CORRELATION_EXCLUSION_DOC as CE,
  CORRELATION_HISTOGRAM_DOC as CH,
  CORRELATION_REBUILD_DOC as CR,
  CORRELATION_STATS_DOC as CS,
  CORRELATION_TYPES_DOC as TYPES,
} from "../../src/modules/correlations/index.ts";
import { named, nullableTimestamp, timestamp } from "../contract.ts";

const rebuildStatus = z.enum(["queued", "running", "succeeded", "failed"]).describe(CR.status);

export const CorrelationRebuildSchema = named(
  "CorrelationRebuild",
  z.object({
    id: z.int().describe(CR.id),
    status: rebuildStatus,
    total: z.int().min(0).describe(CR.total),
    processed: z.int().min(0).describe(CR.processed),
    correlations_created: z.int().min(0).describe(CR.created),
    correlations_removed: z.int().min(0).describe(CR.removed),
    error: z.string().nullable().describe(CR.error),
    requested_by: z.int().nullable().describe("The user who asked for it; null for a system rebuild"),
    created_at: timestamp.describe(CR.createdAt),
    started_at: nullableTimestamp.describe(CR.startedAt),
    finished_at: nullableTimestamp.describe(CR.finishedAt),
  }),
  TYPES.CorrelationRebuild,
);

export function rebuildOut(r: RebuildRow): z.output<typeof CorrelationRebuildSchema> {
  return {
    id: r.id,
    status: r.status,
    total: r.total,
    processed: r.processed,
    correlations_created: r.created,
    correlations_removed: r.removed,
    error: r.error,
    requested_by: r.requested_by,
    created_at: r.created_at.toISOString(),
    started_at: r.started_at?.toISOString() ?? null,
    finished_at: r.finished_at?.toISOString() ?? null,
  };
}

export const CorrelationRunQueuedSchema = named(
  "CorrelationRunQueued",
  z.object({
    task_id: z.string().describe("The job's id"),
    status: rebuildStatus,
    message: z.string(),
    rebuild: CorrelationRebuildSchema,
  }),
  "A rebuild queued now: GET /correlations/run/{rebuild_id} shows its progress",
);

export const KeyCountSchema = named(
  "CorrelationKeyCount",
  z.object({ key: z.string().describe(CC.key), doc_count: z.int().min(0).describe(CC.docCount) }),
  TYPES.CorrelationCount,
);

export const countsOut = (l: KeyCount[]): z.output<typeof KeyCountSchema>[] => l.map((x) => ({ key: x.key, doc_count: x.docCount }));

const CorrelatedAttributeSchema = named(
  "CorrelatedAttribute",
  z.object({
    key: z.string().describe(CA.key),
    doc_count: z.int().min(0).describe(CA.docCount),
    top_attribute_info: z
      .object({
        hits: z.object({
          total: z.object({ value: z.int().min(0), relation: z.literal("eq") }),
          max_score: z.null(),
          hits: z.array(
            z.object({
              _index: z.string(),
              _id: z.string().describe("A correlation document having the attribute as target"),
              _score: z.null(),
              _source: z.object({ target_attribute_type: z.string().describe(CA.type), target_attribute_value: z.string().describe(CA.value), target_event_uuid: z.string().describe(CA.eventUuid) }),
            }),
          ),
        }),
      })
      .describe("The peer's top_hits sub-aggregation: one document having the attribute as target"),
  }),
  `${TYPES.CorrelatedAttribute}, as the peer's terms bucket with its top_hits`,
);

/** The peer's terms bucket with its `top_hits` sub-aggregation (one document having the attribute as target). */
export const correlatedAttributeOut = (a: CorrelatedAttribute): z.output<typeof CorrelatedAttributeSchema> => ({
  key: a.key,
  doc_count: a.docCount,
  top_attribute_info: {
    hits: {
      total: { value: a.docCount, relation: "eq" },
      max_score: null,
      hits: [
        {
          _index: "svc-correlations",
          _id: a.sampleDocumentId,
          _score: null,
          _source: { target_attribute_type: a.type, target_attribute_value: a.value, target_event_uuid: a.eventUuid },
        },
      ],
    },
  },
});

export const CorrelationStatsSchema = named(
  "CorrelationStats",
  z.object({
    top_correlated_events: z.array(KeyCountSchema).describe(CS.topCorrelatedEvents),
    top_correlated_attributes: z.array(CorrelatedAttributeSchema).describe(CS.topCorrelatedAttributes),
    total_correlations: z.int().min(0).describe(CS.totalCorrelations),
    top_correlated_values: z.array(KeyCountSchema).describe(`Ours. ${CS.topCorrelatedValues}`),
  }),
  TYPES.CorrelationStats,
);

export const CorrelationHistogramSchema = named(
  "CorrelationHistogram",
  z.object({
    buckets: z.array(
      z
        .object({
          key_as_string: z.string().describe(CH.keyAsString),
          key: z.int().describe(CH.key),
          doc_count: z.int().min(0).describe(CH.docCount),
        })
        .describe(TYPES.CorrelationHistogramBucket),
    ),
  }),
  "Correlation documents per UTC day, week or month, empty buckets included",
);

export function histogramOut(buckets: HistogramBucket[]): z.output<typeof CorrelationHistogramSchema> {
  return { buckets: buckets.map((b) => ({ key_as_string: b.keyAsString, key: b.key, doc_count: b.docCount })) };
}

export const CorrelationsDeletedSchema = named(
  "CorrelationsDeleted",
  z.object({
    message: z.string(),
    deleted: z.int().min(0).describe(CD.deleted),
    cancelled_rebuilds: z.array(z.int()).describe(CD.cancelledRebuilds),
  }),
  TYPES.CorrelationDeletion,
);

export const CorrelationExclusionSchema = named(
  "CorrelationExclusion",
  z.object({
    id: z.int().describe(CE.id),
    value: z.string().describe(CE.value),
    comment: z.string(),
    created_by: z.int().nullable().describe(CE.createdBy),
    created_at: timestamp,
  }),
  TYPES.CorrelationExclusion,
);

export function exclusionOut(e: Exclusion): z.output<typeof CorrelationExclusionSchema> {
  return { id: e.id, value: e.value, comment: e.comment, created_by: e.created_by, created_at: e.created_at.toISOString() };
}
