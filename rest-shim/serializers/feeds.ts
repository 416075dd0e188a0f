import { z } from "zod";
import type { Feed } from "../../src/generated/prisma/client.ts";
import { FEED_FORMATS } from "../../src/modules/feeds/index.ts";
import type { PreviewRow } from "../../src/modules/feeds/index.ts";
import type { UploadResult } from "../../src/modules/feeds/index.ts";
import { named, nullableTimestamp, timestamp } from "../contract.ts";
import { distribution } from "./events.ts";
import { TaskRunSchema, type TaskRunOut } from "./tasks.ts";

const feedFormat = z.enum(FEED_FORMATS).describe("How the source is read (the peer's misp is answered as sharing)");
const inputSource = z.enum(["network", "local"]).describe("network: fetched from url; local: an uploaded file whose storage key is url");

export const FeedSchema = named(
  "Feed",
  z.object({
    id: z.int(),
    name: z.string(),
    provider: z.string(),
    url: z.string().describe("The source's URL; for a local feed, the upload's storage key (feed-uploads/<uuid>)"),
    source_format: feedFormat,
    input_source: inputSource,
    enabled: z.boolean().describe("Fetched on its schedule"),
    distribution: distribution.describe("Distribution of the events it creates (MISP: 0 your organisation ... 5 inherit)"),
    fixed_event: z.boolean().describe("Every fetch adds to one event (event_uuid) instead of a new one"),
    event_uuid: z.guid().nullable().describe("The fixed event; null until the first fetch of a fixed-event feed"),
    publish: z.boolean().describe("Publish the events it creates"),
    override_ids: z.boolean().describe("Clear the to_ids flag of the attributes it creates"),
    tags: z.array(z.string()).describe("Tags attached to the events it creates"),
    rules: z.record(z.string(), z.unknown()).nullable().describe("Filter rules, free-form as the peer stores them"),
    settings: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe("How to read the source (csvConfig, jsonConfig, ...) and, for a local feed, localFile {filename, size}; free-form beyond the keys the reader knows"),
    headers: z.record(z.string(), z.string()).nullable().describe("HTTP headers sent with each fetch; values redacted (********)"),
    org_id: z.int().describe("The organisation that owns it"),
    created_by: z.int().nullable(),
    last_fetched_at: nullableTimestamp,
    created_at: timestamp,
    updated_at: timestamp,
  }),
  "A source of indicators fetched into events",
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
    ingestion: TaskRunSchema.nullable().describe("A local feed's one ingestion, started at once, as you; null for a network feed"),
  }),
  "A new feed, with the ingestion run of a local one",
);

const PreviewRowSchema = named(
  "FeedPreviewRow",
  z.union([
    z.object({ where: z.string().describe("Where in the source: line, row or item"), value: z.string(), type: z.string().describe("The attribute type it would be stored as") }),
    z.object({ where: z.string().describe("Where in the source: line, row or item"), error: z.string().describe("Why ingestion would reject it") }),
  ]),
  "One row of a feed preview: what ingestion would store, or why it would reject it",
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
      .array(z.looseObject({ uuid: z.string().describe("The event's uuid (the manifest's key)") }))
      .describe("Manifest entries: the uuid and the entry as the feed's manifest.json writes it (info, date, Orgc, Tag, ...)"),
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
    key: z.string().describe("The storage key, feed-uploads/<uuid>: a local feed's url"),
    filename: z.string().describe("The original file name"),
    size: z.int().min(0).describe("Bytes uploaded"),
    source_format: z.enum(FEED_FORMATS),
    members: z
      .object({
        events: z.int().min(0).describe("Event files stored"),
        hashes: z.boolean().describe("hashes.csv was stored"),
        unsafe_entries: z.array(z.string()).describe("Members dropped for an unsafe path (../, absolute)"),
      })
      .optional()
      .describe("Sharing archives only: what was kept of the archive"),
  }),
  "An uploaded feed file (spec 2.4)",
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
