import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { SearchHitType, SearchPageType } from "../search/search.graphql.ts";
import { AttributeType } from "../attributes/attributes.graphql.ts";
import { checkUuid, EventType, OrgRefType } from "../events/events.graphql.ts";
import type { CorrelatedAttribute, CorrelationStats, KeyCount, RelatedEvent } from "./correlation-aggregates.ts";
import type { PurgeProgress } from "./correlation-purge.ts";
import { RELATED_EVENTS_DEFAULT, type Exclusion } from "./correlations.service.ts";
import type { HistogramBucket } from "./histogram.ts";
import type { RebuildRow } from "./rebuild.ts";
import { BatchLoader, loaderOf } from "../../graphql/request-batch.ts";

const Count = builder.objectRef<KeyCount>("CorrelationCount").implement({
  fields: (t) => ({ key: t.exposeString("key"), docCount: t.exposeInt("docCount") }),
});

const CorrelatedAttributeType = builder.objectRef<CorrelatedAttribute>("CorrelatedAttribute").implement({
  description: "An attribute among the most correlated: key is its uuid, docCount its number of pairs",
  fields: (t) => ({
    key: t.exposeString("key"),
    docCount: t.exposeInt("docCount"),
    type: t.exposeString("type"),
    value: t.exposeString("value"),
    eventUuid: t.exposeString("eventUuid"),
  }),
});

const Stats = builder.objectRef<CorrelationStats>("CorrelationStats").implement({
  fields: (t) => ({
    totalCorrelations: t.exposeInt("totalCorrelations", { description: "Correlation documents you may read: two per pair, as the search counts them" }),
    topCorrelatedEvents: t.field({ type: [Count], resolve: (s) => s.topCorrelatedEvents }),
    topCorrelatedAttributes: t.field({ type: [CorrelatedAttributeType], resolve: (s) => s.topCorrelatedAttributes }),
    topCorrelatedValues: t.field({ type: [Count], resolve: (s) => s.topCorrelatedValues }),
  }),
});

const Bucket = builder.objectRef<HistogramBucket>("CorrelationHistogramBucket").implement({
  fields: (t) => ({
    key: t.exposeFloat("key", { description: "Start of the bucket, epoch milliseconds (UTC)" }),
    keyAsString: t.exposeString("keyAsString"),
    docCount: t.exposeInt("docCount"),
  }),
});

const Deletion = builder.objectRef<PurgeProgress>("CorrelationDeletion").implement({
  fields: (t) => ({
    deleted: t.exposeInt("deleted", { description: "Pairs deleted (their documents leave the index through the change records)" }),
    cancelledRebuilds: t.exposeIntList("cancelledRebuilds", { description: "Rebuilds that were queued or running, now failed" }),
  }),
});

const RelatedEventType = builder.objectRef<RelatedEvent>("RelatedEvent").implement({
  description: "An event that shares correlating attributes with another",
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    info: t.exposeString("info"),
    date: t.exposeString("date"),
    threatLevel: t.exposeInt("threatLevel"),
    analysis: t.exposeInt("analysis"),
    distribution: t.exposeInt("distribution"),
    published: t.exposeBoolean("published"),
    timestamp: t.exposeFloat("timestamp"),
    org: t.field({ type: OrgRefType, resolve: (e) => e.org }),
    orgc: t.field({ type: OrgRefType, resolve: (e) => e.orgc }),
    correlationCount: t.exposeInt("correlationCount", { description: "Pairs of correlating attributes between the two events" }),
  }),
});

const Rebuild = builder.objectRef<RebuildRow>("CorrelationRebuild").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    status: t.exposeString("status"),
    total: t.exposeInt("total"),
    processed: t.exposeInt("processed"),
    correlationsCreated: t.int({ resolve: (r) => r.created }),
    correlationsRemoved: t.int({ resolve: (r) => r.removed }),
    error: t.exposeString("error", { nullable: true }),
    createdAt: t.field({ type: "DateTime", resolve: (r) => r.created_at }),
    startedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.started_at }),
    finishedAt: t.field({ type: "DateTime", nullable: true, resolve: (r) => r.finished_at }),
  }),
});

const ExclusionType = builder.objectRef<Exclusion>("CorrelationExclusion").implement({
  fields: (t) => ({
    id: t.exposeInt("id"),
    value: t.exposeString("value"),
    comment: t.exposeString("comment"),
    createdBy: t.int({ nullable: true, resolve: (e) => e.created_by }),
    createdAt: t.field({ type: "DateTime", resolve: (e) => e.created_at }),
  }),
});

const MatchType = builder.enumType("CorrelationMatchType", { values: ["term", "composite", "cidr"] as const });

builder.queryFields((t) => ({
  correlations: t.field({
    extensions: cost.search("size"),
    type: SearchPageType,
    description: "Correlation documents with the exact filters of GET /correlations/",
    args: {
      page: t.arg.int({ defaultValue: 1 }),
      size: t.arg.int({ defaultValue: 10 }),
      sourceAttributeUuid: t.arg.string(),
      sourceEventUuid: t.arg.string(),
      targetAttributeUuid: t.arg.string(),
      targetEventUuid: t.arg.string(),
      matchType: t.arg({ type: MatchType }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.correlations.list(
        caller(ctx),
        {
          source_attribute_uuid: a.sourceAttributeUuid ?? undefined,
          source_event_uuid: a.sourceEventUuid ?? undefined,
          target_attribute_uuid: a.targetAttributeUuid ?? undefined,
          target_event_uuid: a.targetEventUuid ?? undefined,
          match_type: a.matchType ?? undefined,
        },
        { page: a.page ?? 1, size: a.size ?? 10 },
      ),
  }),
  correlationStats: t.field({ extensions: cost.search(), type: Stats, resolve: (_r, _a, ctx) => ctx.services.correlations.stats(caller(ctx)) }),
  correlationTopEvents: t.field({
    extensions: cost.aggregate(),
    type: [Count],
    description: "The 10 events with most pairs with this one (key: event uuid, docCount: pairs), as GET /correlations/events/{uuid}/top",
    args: { eventUuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.topEvents(caller(ctx), checkUuid(a.eventUuid, "eventUuid")),
  }),
  correlationHistogram: t.field({
    extensions: cost.search(),
    type: [Bucket],
    description: "Correlation documents per UTC day (1d), week (1w) or month (1M), as GET /correlations/histogram",
    args: { query: t.arg.string({ defaultValue: "" }), interval: t.arg.string({ defaultValue: "1d" }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.histogram(caller(ctx), a.query ?? "", a.interval ?? "1d"),
  }),
  correlationRebuild: t.field({
    type: Rebuild,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.rebuild(caller(ctx), a.id),
  }),
  correlationExclusions: t.field({ type: [ExclusionType], resolve: (_r, _a, ctx) => ctx.services.correlations.exclusions(caller(ctx)) }),
}));

builder.mutationFields((t) => ({
  deleteCorrelations: t.field({
    type: Deletion,
    description: "Delete every correlation pair and cancel queued or running rebuilds, as DELETE /correlations/",
    resolve: (_r, _a, ctx) => ctx.services.correlations.deleteAll(caller(ctx)),
  }),
  startCorrelationRebuild: t.field({
    type: Rebuild,
    resolve: async (_r, _a, ctx) => (await ctx.services.correlations.startRebuild(caller(ctx))).rebuild,
  }),
  addCorrelationExclusion: t.field({
    type: ExclusionType,
    args: { value: t.arg.string({ required: true }), comment: t.arg.string() },
    resolve: (_r, a, ctx) => ctx.services.correlations.addExclusion(caller(ctx), a.value, a.comment ?? ""),
  }),
  deleteCorrelationExclusion: t.field({
    type: "Boolean",
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.correlations.deleteExclusion(caller(ctx), a.id);
      return true;
    },
  }),
}));

// An attribute's correlations, as on REST list reads (one query per attribute: pages are small).
builder.objectField(AttributeType, "correlations", (t) =>
  t.field({
    extensions: cost.query(),
    type: [SearchHitType],
    description: "Correlations of this attribute (it is the source); empty without correlations:read",
    resolve: async (a, _args, ctx) =>
      ((await ctx.services.correlations.ofAttributes(caller(ctx), [a.uuid])).get(a.uuid) ?? []).map((h) => ({
        index: "svc-correlations" as const,
        id: h._id,
        score: null,
        source: h._source,
      })),
  }),
);

// The events an event correlates with, loaded for all events of a request at once.
builder.objectField(EventType, "relatedEvents", (t) =>
  t.field({
    extensions: cost.page("limit"),
    type: [RelatedEventType],
    description: "Events this one shares correlating attributes with, most pairs first (only events you may read; empty without correlations:read)",
    args: { limit: t.arg.int({ defaultValue: RELATED_EVENTS_DEFAULT }) },
    resolve: (e, a, ctx) => {
      const p = caller(ctx);
      const limit = a.limit ?? RELATED_EVENTS_DEFAULT;
      const loader = loaderOf(ctx, `relatedEvents:${limit}`, () => new BatchLoader((uuids: string[]) => ctx.services.correlations.relatedEvents(p, uuids, limit), (): RelatedEvent[] => []));
      return loader.load(e.uuid);
    },
  }),
);
