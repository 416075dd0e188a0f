import { z } from "zod";
import { EXPORT_DOC, EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TARGETS, EXPORT_TYPES_DOC } from "../../src/modules/exports/index.ts";
import type { ExportView } from "../../src/modules/exports/index.ts";
import { named, nullableTimestamp, pageSchema, timestamp } from "../contract.ts";
import { distribution } from "./events.ts";
import { ScheduleSchema, scheduleSchemaOut } from "./tasks.ts";

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export const ExportSchema = named(
  "Export",
  z.object({
    id: z.int().describe(EXPORT_DOC.id),
    user_id: z.int().describe(EXPORT_DOC.userId),
    name: z.string().describe(EXPORT_DOC.name),
    query: z.string().describe(EXPORT_DOC.query),
    index_target: z.enum(EXPORT_TARGETS).describe(EXPORT_DOC.indexTarget),
    format: z.enum(EXPORT_FORMATS).describe(EXPORT_DOC.format),
    distribution: distribution.nullable().describe(EXPORT_DOC.distribution),
    status: z.enum(EXPORT_STATUSES).describe(EXPORT_DOC.status),
    storage_key: z.string().nullable().describe(EXPORT_DOC.storageKey),
    file_size: z.int().min(0).nullable().describe(EXPORT_DOC.fileSize),
    record_count: z.int().min(0).nullable().describe(EXPORT_DOC.recordCount),
    error: z.string().nullable().describe(EXPORT_DOC.error),
    task_run_id: z.uuid().nullable().describe(`${EXPORT_DOC.taskRunId} (GET /tasks/{task_id})`),
    celery_task_id: z.uuid().nullable().describe("task_run_id again, under the peer's name"),
    schedule: ScheduleSchema.nullable().describe(EXPORT_DOC.schedule),
    schedule_enabled: z.boolean().describe(EXPORT_DOC.scheduleEnabled),
    scheduled_task_name: z.uuid().nullable().describe(EXPORT_DOC.scheduledTaskId),
    last_run_at: nullableTimestamp.describe(EXPORT_DOC.lastRunAt),
    created_at: timestamp,
    started_at: nullableTimestamp.describe(EXPORT_DOC.startedAt),
    finished_at: nullableTimestamp.describe(EXPORT_DOC.finishedAt),
  }),
  `${EXPORT_TYPES_DOC.Export} (peer notes 3.20)`,
);

export const ExportPageSchema = pageSchema("ExportPage", ExportSchema);

/** An export as the peer answers it (notes 3.20); `celery_task_id` is the run's id here. */
export function exportOut(e: ExportView): z.output<typeof ExportSchema> {
  return {
    id: e.id,
    user_id: e.userId,
    name: e.name,
    query: e.query,
    index_target: e.indexTarget,
    format: e.format,
    distribution: e.distribution,
    status: e.status,
    storage_key: e.storageKey,
    file_size: e.fileSize,
    record_count: e.recordCount,
    error: e.error,
    task_run_id: e.taskRunId,
    celery_task_id: e.taskRunId,
    schedule: e.schedule ? scheduleSchemaOut(e.schedule) : null,
    schedule_enabled: e.scheduleEnabled,
    scheduled_task_name: e.scheduledTaskId,
    last_run_at: isoOrNull(e.lastRunAt),
    created_at: e.createdAt.toISOString(),
    started_at: isoOrNull(e.startedAt),
    finished_at: isoOrNull(e.finishedAt),
  };
}
