import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkSkipLimit } from "../../platform/paging.ts";
import { errors, fromZodError } from "../../platform/errors.ts";
import type { Feed } from "../../generated/prisma/client.ts";
import { TaskRunType } from "../tasks/tasks.graphql.ts";
import { canonicalFeedFormat, type FeedFormat as FeedFormatName, feedSettingsSchema } from "./feed-schema.ts";
import type { FeedInput, PreviewRow } from "./feeds.service.ts";
import { redactHeaders } from "./feeds.policy.ts";
import type { StagedUpload, UploadResult } from "./feed-upload.ts";

/** Answers say `sharing`; `misp` (the peer's name) is still taken in arguments, as `sharing`. */
const FeedFormat = builder.enumType("FeedFormat", {
  values: {
    csv: {},
    json: {},
    freetext: {},
    sharing: { description: "A MISP feed: manifest.json and one file per event" },
    misp: { deprecationReason: "Use sharing: misp is taken as sharing, and answers always say sharing" },
  } as const,
});
const InputSource = builder.enumType("FeedInputSource", { values: ["network", "local"] as const });

const FeedType = builder.objectRef<Feed>("Feed").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    name: t.exposeString("name"),
    provider: t.exposeString("provider"),
    url: t.exposeString("url"),
    sourceFormat: t.field({ type: FeedFormat, resolve: (f) => f.sourceFormat as FeedFormatName }),
    inputSource: t.field({ type: InputSource, resolve: (f) => f.inputSource as "network" | "local" }),
    enabled: t.exposeBoolean("enabled"),
    distribution: t.exposeInt("distribution"),
    fixedEvent: t.exposeBoolean("fixedEvent"),
    eventUuid: t.exposeString("eventUuid", { nullable: true }),
    publish: t.exposeBoolean("publish"),
    overrideIds: t.exposeBoolean("overrideIds"),
    tags: t.exposeStringList("tags"),
    rules: t.field({ type: "JSON", nullable: true, resolve: (f) => f.rules }),
    settings: t.field({ type: "JSON", nullable: true, resolve: (f) => f.settings }),
    headers: t.field({ type: "JSON", nullable: true, description: "The extra HTTP headers' names; their values (credentials) are write-only and always ********", resolve: (f) => redactHeaders(f.headers) }),
    orgId: t.exposeInt("orgId"),
    lastFetchedAt: t.field({ type: "DateTime", nullable: true, resolve: (f) => f.lastFetchedAt }),
    createdAt: t.field({ type: "DateTime", resolve: (f) => f.createdAt }),
    updatedAt: t.field({ type: "DateTime", resolve: (f) => f.updatedAt }),
  }),
});

const FeedFields = builder.inputType("FeedFields", {
  fields: (t) => ({
    name: t.string(),
    provider: t.string(),
    url: t.string(),
    sourceFormat: t.field({ type: FeedFormat }),
    inputSource: t.field({ type: InputSource }),
    enabled: t.boolean(),
    distribution: t.int(),
    fixedEvent: t.boolean(),
    publish: t.boolean(),
    overrideIds: t.boolean(),
    tags: t.stringList(),
    settings: t.field({ type: "JSON" }),
  }),
});

function toInput(f: typeof FeedFields.$inferInput): Partial<FeedInput> {
  const settings = f.settings === undefined || f.settings === null ? undefined : feedSettingsSchema.safeParse(f.settings);
  if (settings && !settings.success) throw fromZodError(settings.error, "args");
  const out: Partial<FeedInput> = {
    name: f.name ?? undefined,
    provider: f.provider ?? undefined,
    url: f.url ?? undefined,
    source_format: f.sourceFormat ? canonicalFeedFormat(f.sourceFormat) : undefined,
    input_source: f.inputSource ?? undefined,
    enabled: f.enabled ?? undefined,
    distribution: f.distribution ?? undefined,
    fixed_event: f.fixedEvent ?? undefined,
    publish: f.publish ?? undefined,
    override_ids: f.overrideIds ?? undefined,
    tags: f.tags ?? undefined,
    settings: settings?.data as Record<string, unknown> | undefined,
  };
  return out;
}

const CreatedFeed = builder.objectRef<{ feed: Feed; ingestion: import("../tasks/task-store.ts").TaskRunRow | null }>("CreatedFeed").implement({
  fields: (t) => ({
    feed: t.field({ type: FeedType, resolve: (c) => c.feed }),
    ingestion: t.field({ type: TaskRunType, nullable: true, description: "The one ingestion run of an uploaded (local) feed", resolve: (c) => c.ingestion }),
  }),
});

const UploadResultType = builder.objectRef<UploadResult>("FeedUpload").implement({
  fields: (t) => ({
    key: t.exposeString("key"),
    filename: t.exposeString("filename"),
    size: t.float({ resolve: (u) => u.size }),
    sourceFormat: t.string({ resolve: (u) => u.source_format }),
    events: t.int({ nullable: true, description: "Sharing archives: the event files stored", resolve: (u) => u.members?.events ?? null }),
    unsafeEntries: t.stringList({ nullable: true, description: "Sharing archives: entries dropped for an unsafe path", resolve: (u) => u.members?.unsafe_entries ?? null }),
  }),
});

const PreviewRowType = builder.objectRef<PreviewRow>("FeedPreviewRow").implement({
  fields: (t) => ({
    where: t.exposeString("where"),
    value: t.string({ nullable: true, resolve: (r) => ("value" in r ? r.value : null) }),
    type: t.string({ nullable: true, resolve: (r) => ("type" in r ? r.type : null) }),
    error: t.string({ nullable: true, resolve: (r) => ("error" in r ? r.error : null) }),
  }),
});

const ExploreType = builder.objectRef<{ events: Record<string, unknown>[]; total: number; page: number; limit: number }>("FeedExplore").implement({
  fields: (t) => ({
    events: t.field({ type: ["JSON"], resolve: (e) => e.events }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    limit: t.exposeInt("limit"),
  }),
});

const PreviewFormat = builder.enumType("FeedPreviewFormat", { values: ["csv", "json", "freetext"] as const });

builder.queryFields((t) => ({
  feedPreview: t.field({
    extensions: cost.external("limit", 10),
    type: [PreviewRowType],
    description: "POST /feeds/{format}/preview's twin: the first rows of a source as ingestion would read them",
    args: { format: t.arg({ type: PreviewFormat, required: true }), inputSource: t.arg({ type: InputSource, required: true }), url: t.arg.string({ required: true }), settings: t.arg({ type: "JSON" }), limit: t.arg.int() },
    resolve: (_r, a, ctx) => {
      const limit = a.limit ?? (a.format === "freetext" ? 10 : 5);
      if (limit < 1 || limit > 100) throw errors.invalidField(["args", "limit"], "must be from 1 to 100", limit);
      const settings = a.settings === undefined || a.settings === null ? null : feedSettingsSchema.safeParse(a.settings);
      if (settings && !settings.success) throw fromZodError(settings.error, "args");
      return ctx.services.feeds.preview(caller(ctx), a.format, { input_source: a.inputSource, url: a.url, settings: (settings?.data as Record<string, unknown> | undefined) ?? null }, limit);
    },
  }),
  feedExplore: t.field({
    extensions: cost.external("limit"),
    type: ExploreType,
    description: "GET /feeds/{id}/explore's twin: a MISP feed's manifest, page by page (page from 0)",
    args: { id: t.arg.int({ required: true }), page: t.arg.int({ defaultValue: 0 }), limit: t.arg.int({ defaultValue: 20 }) },
    resolve: (_r, a, ctx) => {
      const page = a.page ?? 0;
      const limit = a.limit ?? 20;
      if (page < 0) throw errors.invalidField(["args", "page"], "must be 0 or more", page);
      if (limit < 1 || limit > 100) throw errors.invalidField(["args", "limit"], "must be from 1 to 100", limit);
      return ctx.services.feeds.explore(caller(ctx), a.id, page, limit);
    },
  }),
  feeds: t.field({ extensions: cost.page("limit", 100), type: [FeedType], args: { skip: t.arg.int(), limit: t.arg.int() }, resolve: (_r, a, ctx) => ctx.services.feeds.list(caller(ctx), checkSkipLimit(a)) }),
  feed: t.field({ type: FeedType, args: { id: t.arg.int({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.feeds.get(caller(ctx), a.id) }),
}));

builder.mutationFields((t) => ({
  createFeed: t.field({
    type: CreatedFeed,
    description: "Create a feed; an uploaded one (inputSource local, url = the upload key) is ingested once at once",
    args: { feed: t.arg({ type: FeedFields, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.feeds.create(caller(ctx), toInput(a.feed) as FeedInput),
  }),
  updateFeed: t.field({
    type: FeedType,
    args: { id: t.arg.int({ required: true }), feed: t.arg({ type: FeedFields, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.feeds.update(caller(ctx), a.id, toInput(a.feed)),
  }),
  deleteFeed: t.boolean({
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.feeds.delete(caller(ctx), a.id);
      return true;
    },
  }),
  uploadFeedFile: t.field({
    type: UploadResultType,
    description: "POST /feeds/upload's twin: a GraphQL multipart request with one file, streamed to storage with the same limit and checks",
    args: { file: t.arg({ type: "Upload", required: true }), sourceFormat: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      const upload = await a.file;
      const stream = upload.createReadStream();
      let staged: StagedUpload | null = null;
      try {
        staged = await ctx.services.feeds.stage(caller(ctx), upload.filename, stream, () => false);
        return await ctx.services.feeds.upload(caller(ctx), staged, a.sourceFormat);
      } finally {
        // A refused caller's file is still read to its end, so the request completes.
        if (!staged) stream.resume();
        await ctx.services.feeds.discardStaged(staged);
      }
    },
  }),
  fetchFeed: t.field({ type: TaskRunType, args: { id: t.arg.int({ required: true }) }, resolve: (_r, a, ctx) => ctx.services.feeds.fetch(caller(ctx), a.id) }),
}));
