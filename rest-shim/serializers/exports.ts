import { z } from "zod";
import { EXPORT_FORMATS, EXPORT_STATUSES, EXPORT_TARGETS } from "../../src/modules/exports/index.ts";
import type { ExportView } from "../../src/modules/exports/index.ts";
import { named, nullableTimestamp, pageSchema, timestamp } from "../contract.ts";
import { distribution } from "./events.ts";
import { ScheduleSchema, scheduleSchemaOut } from "./tasks.ts";

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export const ExportSchema = named(
  "Export",
  z.object({
    id: z.int(),
    user_id: z.int().describe("Its owner, whose rights each run reads with"),
    name: z.string(),
    query: z.string().describe("The Lucene query it exports the matches of"),
    index_target: z.enum(EXPORT_TARGETS),
    format: z.enum(EXPORT_FORMATS),
    distribution: distribution.nullable().describe("The exported MISP event's distribution (misp format); null for the other formats"),
    status: z.enum(EXPORT_STATUSES),
    storage_key: z.string().nullable().describe("Where its last complete file is stored; null before the first completes"),
    file_size: z.int().min(0).nullable().describe("Size of its last complete file in bytes; null before the first completes"),
    record_count: z.int().min(0).nullable().describe("Documents written: the progress while running, the total once completed"),
    error: z.string().nullable().describe("Why the last run failed; null otherwise"),
    task_run_id: z.uuid().nullable().describe("The task run of its latest run (GET /tasks/{task_id})"),
    celery_task_id: z.uuid().nullable().describe("task_run_id again, under the peer's name"),
    schedule: ScheduleSchema.nullable().describe("When it runs again; null without a schedule"),
    schedule_enabled: z.boolean(),
    scheduled_task_name: z.uuid().nullable().describe("The scheduled task that runs it; null without a schedule"),
    last_run_at: nullableTimestamp,
    created_at: timestamp,
    started_at: nullableTimestamp,
    finished_at: nullableTimestamp,
  }),
  "A saved export of a search: its file, status and schedule (peer notes 3.20)",
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
