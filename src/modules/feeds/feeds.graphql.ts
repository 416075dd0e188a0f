import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { pageOf } from "../../platform/pagination.ts";
import { InputError } from "../../platform/errors.ts";
import { contractInput } from "../../graphql/inputs.ts";
import type { Feed } from "../../generated/prisma/client.ts";
import { TaskRunPage, TaskRunType } from "../tasks/tasks.graphql.ts";
import { taskRunRecord } from "../tasks/index.ts";
import type { FeedFormat as FeedFormatName, FeedFormatInput } from "./feed-schema.ts";
import { feedCreateContract, feedPatchContract } from "./feeds.contracts.ts";
import type { PreviewRow } from "./feeds.service.ts";
import { redactHeaders } from "./feeds.policy.ts";
import { fetchFeedTask } from "./fetch-feed-task.ts";
import type { StagedUpload, UploadResult } from "./feed-upload.ts";
import { CREATED_FEED_DOC as C, FEED_DOC, FEED_MANIFEST_DOC as M, FEED_PREVIEW_ROW_DOC as PR, FEED_TYPES_DOC, FEED_UPLOAD_DOC as U } from "./feeds.docs.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;
const archive = (doc: string) => `Sharing archives: ${doc[0].toLowerCase()}${doc.slice(1)}`;
const FD = {
  ...FEED_DOC,
  sourceFormat: rest(FEED_DOC.sourceFormat, "source_format"),
  inputSource: rest(FEED_DOC.inputSource, "input_source"),
  fixedEvent: rest(FEED_DOC.fixedEvent, "fixed_event"),
  overrideIds: rest(FEED_DOC.overrideIds, "override_ids"),
  skipWarninglisted: rest(FEED_DOC.skipWarninglisted, "skip_warninglisted"),
} as const;

const FORMAT_DOC = {
  csv: "Comma-separated values, one attribute per row (settings.csvConfig)",
  json: "A JSON array or NDJSON of attribute records (settings.jsonConfig)",
  freetext: "Free text: indicators found in any text (settings.freetextConfig)",
  sharing: "A MISP feed: manifest.json and one file per event",
} as const;

/** Answers say `sharing`; `misp` (the peer's name) is still taken in arguments, as `sharing`. */
const FeedFormat = builder.enumType("FeedFormat", {
  description: "A feed's source format (REST source_format)",
  values: {
    ...enumValues(FORMAT_DOC),
    MISP: { value: "misp", description: "The peer's name for SHARING (REST value `misp`)", deprecationReason: "Use SHARING: MISP is taken as SHARING, and answers always say SHARING" },
  } as Record<string, { value: FeedFormatInput; description: string; deprecationReason?: string }>,
});
const InputSource = builder.enumType("FeedInputSource", {
  description: "Where a feed's data comes from (REST input_source)",
  values: enumValues({ network: "Fetched from its url over HTTP(S)", local: "An uploaded file: url is the upload's key (uploadFeedFile)" }),
});

/** A feed row (the service loads those of the caller's organisation, with the selection's query); headers are redacted here too. */
const FeedType = builder.prismaObject("Feed", {
  description: FEED_TYPES_DOC.Feed,
  fields: (t) => ({
    id: t.exposeInt("id", { description: FEED_DOC.id }),
    name: t.exposeString("name", { description: FEED_DOC.name }),
    provider: t.exposeString("provider", { description: FEED_DOC.provider }),
    url: t.exposeString("url", { description: FEED_DOC.url }),
    sourceFormat: t.field({ type: FeedFormat, description: FD.sourceFormat, resolve: (f) => f.sourceFormat as FeedFormatName }),
    inputSource: t.field({ type: InputSource, description: FD.inputSource, resolve: (f) => f.inputSource as "network" | "local" }),
    enabled: t.exposeBoolean("enabled", { description: FEED_DOC.enabled }),
    distribution: t.exposeInt("distribution", { description: FEED_DOC.distribution }),
    fixedEvent: t.exposeBoolean("fixedEvent", { description: FD.fixedEvent }),
    eventUuid: t.exposeString("eventUuid", { nullable: true, description: rest(FEED_DOC.eventUuid, "event_uuid") }),
    publish: t.exposeBoolean("publish", { description: FEED_DOC.publish }),
    overrideIds: t.exposeBoolean("overrideIds", { description: FD.overrideIds }),
    skipWarninglisted: t.exposeBoolean("skipWarninglisted", { description: FD.skipWarninglisted }),
    tags: t.exposeStringList("tags", { description: FEED_DOC.tags }),
    rules: t.expose("rules", { type: "JSON", nullable: true, description: FEED_DOC.rules }),
    settings: t.expose("settings", { type: "JSON", nullable: true, description: FEED_DOC.settings }),
    headers: t.field({
      type: "JSON",
      nullable: true,
      description: FEED_DOC.headers,
      resolve: (f) => redactHeaders(f.headers),
    }),
    orgId: t.exposeInt("orgId", { description: rest(FEED_DOC.orgId, "org_id") }),
    lastFetchedAt: t.expose("lastFetchedAt", { type: "DateTime", nullable: true, description: rest(FEED_DOC.lastFetchedAt, "last_fetched_at") }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: DOC.createdAt }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: DOC.updatedAt }),
    runs: t.field({
      extensions: cost.page("size", 20),
      type: TaskRunPage,
      description: "Its fetch runs you can see (yours; administrators: everyone's), newest first: status, progress and counts (the fetch_feed task runs of this feed)",
      args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(20) }) },
      resolve: (f, a, ctx, info) =>
        ctx.services.tasks.runPage(caller(ctx), { task: fetchFeedTask.name, kwarg: { name: "feed_id", value: f.id } }, checkPageSize(a, 20), queryFromInfo({ context: ctx, info, path: ["items"] })),
    }),
  }),
});

const FeedPage = pageType("FeedPage", FeedType, "feeds");

const FeedFields = builder.inputType("FeedFields", {
  description: "A feed's fields: create needs name, provider, url and sourceFormat; update changes the ones given",
  fields: (t) => ({
    name: t.string({ description: FEED_DOC.name }),
    provider: t.string({ description: FEED_DOC.provider }),
    url: t.string({ description: FEED_DOC.url }),
    sourceFormat: t.field({ type: FeedFormat, description: FD.sourceFormat }),
    inputSource: t.field({ type: InputSource, description: rest(`${FEED_DOC.inputSource}; default network`, "input_source") }),
    enabled: t.boolean({ description: FEED_DOC.enabled }),
    distribution: t.int({ description: FEED_DOC.distribution }),
    fixedEvent: t.boolean({ description: FD.fixedEvent }),
    publish: t.boolean({ description: FEED_DOC.publish }),
    overrideIds: t.boolean({ description: FD.overrideIds }),
    skipWarninglisted: t.boolean({ description: FD.skipWarninglisted }),
    tags: t.stringList({ description: FEED_DOC.tags }),
    settings: t.field({ type: "JSON", description: FEED_DOC.settings }),
  }),
});

/** The service names FeedFields' fields; here they sit in the `feed` argument. */
async function inFeedArgument<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw err instanceof InputError ? err.within(["feed"]) : err;
  }
}

const CreatedFeed = builder.objectRef<{ feed: Feed; ingestion: import("../tasks/task-store.ts").TaskRunRow | null }>("CreatedFeed").implement({
  description: FEED_TYPES_DOC.CreatedFeed,
  fields: (t) => ({
    feed: t.field({ type: FeedType, description: C.feed, resolve: (c) => c.feed }),
    // The run as queued: a whole record, which the plugin reads as it is.
    ingestion: t.field({ type: TaskRunType, nullable: true, description: C.ingestion, resolve: (c) => (c.ingestion ? taskRunRecord(c.ingestion) : null) }),
  }),
});

const UploadResultType = builder.objectRef<UploadResult>("FeedUpload").implement({
  description: FEED_TYPES_DOC.FeedUpload,
  fields: (t) => ({
    key: t.exposeString("key", { description: U.key }),
    filename: t.exposeString("filename", { description: U.filename }),
    size: t.float({ description: U.size, resolve: (u) => u.size }),
    sourceFormat: t.string({ description: rest(U.sourceFormat, "source_format"), resolve: (u) => u.source_format }),
    events: t.int({ nullable: true, description: rest(archive(U.events), "members.events"), resolve: (u) => u.members?.events ?? null }),
    unsafeEntries: t.stringList({ nullable: true, description: rest(archive(U.unsafeEntries), "members.unsafe_entries"), resolve: (u) => u.members?.unsafe_entries ?? null }),
  }),
});

const PreviewRowType = builder.objectRef<PreviewRow>("FeedPreviewRow").implement({
  description: FEED_TYPES_DOC.FeedPreviewRow,
  fields: (t) => ({
    where: t.exposeString("where", { description: PR.where }),
    value: t.string({ nullable: true, description: `${PR.value}; null for a rejected row`, resolve: (r) => ("value" in r ? r.value : null) }),
    type: t.string({ nullable: true, description: `${PR.type}; null for a rejected row`, resolve: (r) => ("type" in r ? r.type : null) }),
    error: t.string({ nullable: true, description: `${PR.error}; null for a good row`, resolve: (r) => ("error" in r ? r.error : null) }),
  }),
});

const ManifestEntry = builder.objectRef<Record<string, unknown>>("FeedManifestEntry").implement({
  description: "One event of a MISP feed's manifest.json",
  fields: (t) => ({
    uuid: t.string({ description: M.uuid, resolve: (e) => String(e.uuid) }),
    entry: t.field({
      type: "JSON",
      description: M.entry,
      resolve: (e) => e,
    }),
  }),
});

const ManifestPage = pageType("FeedManifestPage", ManifestEntry, "a MISP feed's manifest entries");

const PreviewFormat = builder.enumType("FeedPreviewFormat", {
  description: "The formats a preview reads (a sharing feed is explored with feedExplore instead)",
  values: enumValues({ csv: FORMAT_DOC.csv, json: FORMAT_DOC.json, freetext: FORMAT_DOC.freetext }),
});

builder.queryFields((t) => ({
  feedPreview: t.field({
    extensions: cost.external("limit", 10),
    type: [PreviewRowType],
    description: "POST /feeds/{format}/preview's twin: the first rows of a source (an upload key or a URL) as ingestion would read them, without writing anything",
    args: {
      format: t.arg({ type: PreviewFormat, required: true, description: "The source format" }),
      inputSource: t.arg({ type: InputSource, required: true, description: FD.inputSource }),
      url: t.arg.string({ required: true, description: FEED_DOC.url }),
      settings: t.arg({ type: "JSON", description: FEED_DOC.settings }),
      limit: t.arg.int({ description: "Rows to read, 1 to 100 (default 10 for freetext, 5 otherwise)" }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.feeds.preview(caller(ctx), a.format, { inputSource: a.inputSource, url: a.url, settings: (a.settings as Record<string, unknown> | null | undefined) ?? null, limit: a.limit ?? undefined }),
  }),
  feedExplore: t.field({
    extensions: cost.external("size"),
    type: ManifestPage,
    description: "GET /feeds/{feed_id}/explore's twin: a MISP feed's manifest, page by page (REST pages from 0 with limit; here page from 1 with size)",
    args: { id: t.arg.int({ required: true, description: FEED_DOC.id }), page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }), size: t.arg.int({ defaultValue: 20, description: PAGE_DOC.size(20) }) },
    resolve: async (_r, a, ctx) => {
      const req = checkPageSize(a, 20);
      const explored = await ctx.services.feeds.explore(caller(ctx), a.id, req.page - 1, req.size);
      return pageOf(explored.events, explored.total, req);
    },
  }),
  feeds: t.field({
    extensions: cost.page("size", 50),
    type: FeedPage,
    description: "Your organisation's feeds (administrators: every feed), by id (GET /feeds/, which pages with skip/limit); header values are redacted",
    args: { page: t.arg.int({ description: PAGE_DOC.page }), size: t.arg.int({ description: PAGE_DOC.size(50) }) },
    resolve: (_r, a, ctx, info) => ctx.services.feeds.listPage(caller(ctx), checkPageSize(a, 50), queryFromInfo({ context: ctx, info, path: ["items"] })),
  }),
  feed: t.prismaField({
    type: "Feed",
    description: "One feed of your organisation (another's: not found); header values are redacted",
    args: { id: t.arg.int({ required: true, description: FEED_DOC.id }) },
    resolve: (query, _r, a, ctx) => ctx.services.feeds.get(caller(ctx), a.id, query),
  }),
}));

builder.mutationFields((t) => ({
  createFeed: t.field({
    type: CreatedFeed,
    description: "Create a feed; an uploaded one (inputSource local, url = the upload key) is ingested once at once, as you",
    args: { feed: t.arg({ type: FeedFields, required: true, description: "The new feed" }) },
    // A feed without inputSource is a network feed here (REST requires it).
    resolve: (_r, a, ctx) => inFeedArgument(() => ctx.services.feeds.create(caller(ctx), contractInput(feedCreateContract, { ...a.feed, inputSource: a.feed.inputSource ?? "network" }))),
  }),
  updateFeed: t.field({
    type: FeedType,
    description: "Change a feed (PATCH /feeds/{feed_id}); a new upload key as url is read by the next fetch",
    args: { id: t.arg.int({ required: true, description: FEED_DOC.id }), feed: t.arg({ type: FeedFields, required: true, description: "The fields to change" }) },
    resolve: (_r, a, ctx) => inFeedArgument(async () => ctx.services.feeds.update(caller(ctx), a.id, contractInput(feedPatchContract, a.feed))),
  }),
  deleteFeed: t.boolean({
    description: "Delete a feed and its schedules (its events stay); true when done",
    args: { id: t.arg.int({ required: true, description: FEED_DOC.id }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.feeds.delete(caller(ctx), a.id);
      return true;
    },
  }),
  uploadFeedFile: t.field({
    type: UploadResultType,
    description: "POST /feeds/upload's twin: a GraphQL multipart request with one file, streamed to storage with the same limit and checks",
    args: {
      file: t.arg({ type: "Upload", required: true, description: "The file (multipart request part)" }),
      sourceFormat: t.arg.string({ required: true, description: "csv, json, freetext or sharing (misp taken as sharing): decides the accepted file name endings (REST source_format)" }),
    },
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
  fetchFeed: t.field({
    type: TaskRunType,
    description: "Fetch the feed now, as you: the queued run, whose progress and counts taskRun(id) shows",
    args: { id: t.arg.int({ required: true, description: FEED_DOC.id }) },
    resolve: async (_r, a, ctx) => taskRunRecord(await ctx.services.feeds.fetch(caller(ctx), a.id)),
  }),
}));
