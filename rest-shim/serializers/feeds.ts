import { z } from "zod";
import type { Feed } from "../../src/generated/prisma/client.ts";
import { FEED_FORMATS } from "../../src/modules/feeds/index.ts";
import type { PreviewRow } from "../../src/modules/feeds/index.ts";
import type { UploadResult } from "../../src/modules/feeds/index.ts";
import { CREATED_FEED_DOC as C, FEED_DOC as F, FEED_MANIFEST_DOC as M, FEED_PREVIEW_ROW_DOC as PR, FEED_TYPES_DOC, FEED_UPLOAD_DOC as U } from "../../src/modules/feeds/index.ts";
import { named, nullableTimestamp, timestamp } from "../contract.ts";
import { distribution } from "./events.ts";
import { TaskRunSchema, type TaskRunOut } from "./tasks.ts";

const feedFormat = z.enum(FEED_FORMATS).describe(F.sourceFormat);
const inputSource = z.enum(["network", "local"]).describe(F.inputSource);

export const FeedSchema = named(
  "Feed",
  z.object({
    id: z.int().describe(F.id),
    name: z.string().describe(F.name),
    provider: z.string().describe(F.provider),
    url: z.string().describe(F.url),
    source_format: feedFormat,
    input_source: inputSource,
    enabled: z.boolean().describe(F.enabled),
    distribution: distribution.describe(F.distribution),
    fixed_event: z.boolean().describe(F.fixedEvent),
    event_uuid: z.guid().nullable().describe(F.eventUuid),
    publish: z.boolean().describe(F.publish),
    override_ids: z.boolean().describe(F.overrideIds),
    skip_warninglisted: z.boolean().describe(F.skipWarninglisted),
    tags: z.array(z.string()).describe(F.tags),
    rules: z.record(z.string(), z.unknown()).nullable().describe(F.rules),
    settings: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe(F.settings),
    headers: z.record(z.string(), z.string()).nullable().describe(F.headers),
    org_id: z.int().describe(F.orgId),
    created_by: z.int().nullable(),
    last_fetched_at: nullableTimestamp.describe(F.lastFetchedAt),
    created_at: timestamp,
    updated_at: timestamp,
  }),
  FEED_TYPES_DOC.Feed,
);

/** `f` as the service answers it: header values are already redacted. */
export function feedOut(f: Feed): z.output<typeof FeedSchema> {
  return {
    id: f.id,
    name: f.name,
    provider: f.provider,
    url: f.url,
    source_format: f.sourceFormat as z.output<typeof feedFormat>,
    input_source: f.inputSource as z.output<typeof inputSource>,
    enabled: f.enabled,
    distribution: f.distribution,
    fixed_event: f.fixedEvent,
    event_uuid: f.eventUuid,
    publish: f.publish,
    override_ids: f.overrideIds,
    skip_warninglisted: f.skipWarninglisted,
    tags: f.tags,
    rules: f.rules as Record<string, unknown> | null,
    settings: f.settings as Record<string, unknown> | null,
    headers: f.headers as Record<string, string> | null,
    org_id: f.orgId,
    created_by: f.createdBy,
    last_fetched_at: f.lastFetchedAt?.toISOString() ?? null,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

export const FeedCreatedSchema = named(
  "FeedCreated",
  FeedSchema.extend({
    ingestion: TaskRunSchema.nullable().describe(C.ingestion),
  }),
  FEED_TYPES_DOC.CreatedFeed,
);

const PreviewRowSchema = named(
  "FeedPreviewRow",
  z.union([
    z.object({ where: z.string().describe(PR.where), value: z.string().describe(PR.value), type: z.string().describe(PR.type) }),
    z.object({ where: z.string().describe(PR.where), error: z.string().describe(PR.error) }),
  ]),
  FEED_TYPES_DOC.FeedPreviewRow,
);

export const FeedPreviewSchema = named(
  "FeedPreview",
  z.object({ result: z.literal("success"), preview: z.array(PreviewRowSchema) }),
  "The first rows of a source as ingestion would read them",
);

export function feedPreviewOut(rows: PreviewRow[]): z.output<typeof FeedPreviewSchema> {
  return { result: "success", preview: rows };
}

export const FeedExploreSchema = named(
  "FeedExplore",
  z.object({
    events: z
      .array(z.looseObject({ uuid: z.string().describe(M.uuid) }))
      .describe(M.entries),
    total: z.int().min(0).describe("Events in the manifest"),
    page: z.int().min(0).describe("This page, from 0"),
    limit: z.int().min(1),
  }),
  "A page of a MISP feed's manifest",
);

export function feedExploreOut(r: { events: Record<string, unknown>[]; total: number; page: number; limit: number }): z.output<typeof FeedExploreSchema> {
  return { events: r.events as z.output<typeof FeedExploreSchema>["events"], total: r.total, page: r.page, limit: r.limit };
}

export const FeedUploadSchema = named(
  "FeedUpload",
  z.object({
    key: z.string().describe(U.key),
    filename: z.string().describe(U.filename),
    size: z.int().min(0).describe(U.size),
    source_format: z.enum(FEED_FORMATS).describe(U.sourceFormat),
    members: z
      .object({
        events: z.int().min(0).describe(U.events),
        hashes: z.boolean().describe(U.hashes),
        unsafe_entries: z.array(z.string()).describe(U.unsafeEntries),
      })
      .optional()
      .describe(U.members),
  }),
  FEED_TYPES_DOC.FeedUpload,
);

export function feedUploadOut(u: UploadResult): z.output<typeof FeedUploadSchema> {
  return { key: u.key, filename: u.filename, size: u.size, source_format: u.source_format, ...(u.members ? { members: u.members } : {}) };
}

export const FeedFetchSchema = named(
  "FeedFetch",
  z.object({
    task: z.object({ id: z.uuid(), name: z.string(), status: TaskRunSchema.shape.status }).describe("The run, in the peer's shape"),
    run: TaskRunSchema,
  }),
  "A fetch started now: its run, whose progress and counts GET /tasks/{task_id} shows",
);

export function feedFetchOut(run: TaskRunOut): z.output<typeof FeedFetchSchema> {
  return { task: { id: run.id, name: run.task, status: run.status }, run };
}
