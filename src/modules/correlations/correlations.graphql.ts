import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { SearchHitType, SearchPageType } from "../search/search.graphql.ts";
import { AttributeType } from "../attributes/attributes.graphql.ts";
import { checkUuid, EventType, OrgRefType } from "../events/events.graphql.ts";
import type { CorrelatedAttribute, CorrelationStats, KeyCount, RelatedEvent } from "./correlation-aggregates.ts";
import type { PurgeProgress } from "./correlation-purge.ts";
import { RELATED_EVENTS_DEFAULT, type Exclusion } from "./correlations.service.ts";
import { exclusionCreateContract } from "./correlations.contracts.ts";
import { contractInput } from "../../graphql/inputs.ts";
import type { HistogramBucket } from "./histogram.ts";
import type { RebuildRow } from "./rebuild.ts";
import { BatchLoader, loaderOf } from "../../graphql/request-batch.ts";
import { DOC } from "../../graphql/docs.ts";
import { enumValues } from "../../graphql/enums.ts";
import { PAGE_DOC } from "../../graphql/page.ts";
import {
  CORRELATED_ATTRIBUTE_DOC as CA,
  CORRELATION_COUNT_DOC as CC,
  CORRELATION_DELETION_DOC as CD,
  CORRELATION_EXCLUSION_DOC as CE,
  CORRELATION_HISTOGRAM_DOC as CH,
  CORRELATION_REBUILD_DOC as CR,
  CORRELATION_STATS_DOC as CS,
  CORRELATION_TYPES_DOC as TYPES,
} from "./correlations.docs.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

const Count = builder.objectRef<KeyCount>("CorrelationCount").implement({
  description: TYPES.CorrelationCount,
  fields: (t) => ({
    key: t.exposeString("key", { description: CC.key }),
    docCount: t.exposeInt("docCount", { description: rest(CC.docCount, "doc_count") }),
  }),
});

const CorrelatedAttributeType = builder.objectRef<CorrelatedAttribute>("CorrelatedAttribute").implement({
  description: `${TYPES.CorrelatedAttribute}: key is its uuid, docCount its number of pairs`,
  fields: (t) => ({
    key: t.exposeString("key", { description: CA.key }),
    docCount: t.exposeInt("docCount", { description: rest(CA.docCount, "doc_count") }),
    type: t.exposeString("type", { description: CA.type }),
    value: t.exposeString("value", { description: CA.value }),
    eventUuid: t.exposeString("eventUuid", { description: rest(CA.eventUuid, "top_attribute_info's target_event_uuid") }),
  }),
});

const Stats = builder.objectRef<CorrelationStats>("CorrelationStats").implement({
  description: `${TYPES.CorrelationStats} (GET /correlations/stats)`,
  fields: (t) => ({
    totalCorrelations: t.exposeInt("totalCorrelations", { description: rest(CS.totalCorrelations, "total_correlations") }),
    topCorrelatedEvents: t.field({ type: [Count], description: rest(CS.topCorrelatedEvents, "top_correlated_events"), resolve: (s) => s.topCorrelatedEvents }),
    topCorrelatedAttributes: t.field({ type: [CorrelatedAttributeType], description: rest(CS.topCorrelatedAttributes, "top_correlated_attributes"), resolve: (s) => s.topCorrelatedAttributes }),
    topCorrelatedValues: t.field({ type: [Count], description: rest(CS.topCorrelatedValues, "top_correlated_values"), resolve: (s) => s.topCorrelatedValues }),
  }),
});

const Bucket = builder.objectRef<HistogramBucket>("CorrelationHistogramBucket").implement({
  description: TYPES.CorrelationHistogramBucket,
  fields: (t) => ({
    key: t.exposeFloat("key", { description: CH.key }),
    keyAsString: t.exposeString("keyAsString", { description: rest(CH.keyAsString, "key_as_string") }),
    docCount: t.exposeInt("docCount", { description: rest(CH.docCount, "doc_count") }),
  }),
});

const Deletion = builder.objectRef<PurgeProgress>("CorrelationDeletion").implement({
  description: TYPES.CorrelationDeletion,
  fields: (t) => ({
    deleted: t.exposeInt("deleted", { description: CD.deleted }),
    cancelledRebuilds: t.exposeIntList("cancelledRebuilds", { description: rest(CD.cancelledRebuilds, "cancelled_rebuilds") }),
  }),
});

const RelatedEventType = builder.objectRef<RelatedEvent>("RelatedEvent").implement({
  description: "An event that shares correlating attributes with another",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: "The related event's UUID" }),
    info: t.exposeString("info", { description: "Its title (MISP info)" }),
    date: t.exposeString("date", { description: "Its date, YYYY-MM-DD" }),
    threatLevel: t.exposeInt("threatLevel", { description: DOC.threatLevel }),
    analysis: t.exposeInt("analysis", { description: DOC.analysis }),
    distribution: t.exposeInt("distribution", { description: DOC.eventDistribution }),
    published: t.exposeBoolean("published", { description: "Published" }),
    timestamp: t.exposeFloat("timestamp", { description: DOC.timestamp }),
    org: t.field({ type: OrgRefType, description: "Its owning organisation", resolve: (e) => e.org }),
    orgc: t.field({ type: OrgRefType, description: "Its creating organisation", resolve: (e) => e.orgc }),
    correlationCount: t.exposeInt("correlationCount", { description: "Pairs of correlating attributes between the two events" }),
  }),
});

const Rebuild = builder.objectRef<RebuildRow>("CorrelationRebuild").implement({
  description: TYPES.CorrelationRebuild,
  fields: (t) => ({
    id: t.exposeInt("id", { description: CR.id }),
    status: t.exposeString("status", { description: CR.status }),
    total: t.exposeInt("total", { description: CR.total }),
    processed: t.exposeInt("processed", { description: CR.processed }),
    correlationsCreated: t.int({ description: rest(CR.created, "correlations_created"), resolve: (r) => r.created }),
    correlationsRemoved: t.int({ description: rest(CR.removed, "correlations_removed"), resolve: (r) => r.removed }),
    error: t.exposeString("error", { nullable: true, description: CR.error }),
    createdAt: t.field({ type: "DateTime", description: rest(CR.createdAt, "created_at"), resolve: (r) => r.created_at }),
    startedAt: t.field({ type: "DateTime", nullable: true, description: rest(CR.startedAt, "started_at"), resolve: (r) => r.started_at }),
    finishedAt: t.field({ type: "DateTime", nullable: true, description: rest(CR.finishedAt, "finished_at"), resolve: (r) => r.finished_at }),
  }),
});

const ExclusionType = builder.objectRef<Exclusion>("CorrelationExclusion").implement({
  description: TYPES.CorrelationExclusion,
  fields: (t) => ({
    id: t.exposeInt("id", { description: CE.id }),
    value: t.exposeString("value", { description: CE.value }),
    comment: t.exposeString("comment", { description: DOC.comment }),
    createdBy: t.int({ nullable: true, description: rest(CE.createdBy, "created_by"), resolve: (e) => e.created_by }),
    createdAt: t.field({ type: "DateTime", description: DOC.createdAt, resolve: (e) => e.created_at }),
  }),
});

const MatchType = builder.enumType("CorrelationMatchType", {
  description: "How two attributes correlate (REST match_type)",
  values: enumValues({
    term: "The same value",
    composite: "One half of a composite value (for example domain|ip) equals the other's value",
    cidr: "An IP address inside a CIDR range",
  }),
});

builder.queryFields((t) => ({
  correlations: t.field({
    extensions: cost.search("size"),
    type: SearchPageType,
    description: "Correlation documents with the exact filters of GET /correlations/",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 10, description: PAGE_DOC.size(10) }),
      sourceAttributeUuid: t.arg.string({ description: "Only pairs from this attribute (REST source_attribute_uuid)" }),
      sourceEventUuid: t.arg.string({ description: "Only pairs from this event's attributes (REST source_event_uuid)" }),
      targetAttributeUuid: t.arg.string({ description: "Only pairs to this attribute (REST target_attribute_uuid)" }),
      targetEventUuid: t.arg.string({ description: "Only pairs to this event's attributes (REST target_event_uuid)" }),
      matchType: t.arg({ type: MatchType, description: "Only pairs matching this way (REST match_type)" }),
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
  correlationStats: t.field({ extensions: cost.search(), type: Stats, description: "Statistics over the correlations you may read, as GET /correlations/stats", resolve: (_r, _a, ctx) => ctx.services.correlations.stats(caller(ctx)) }),
  correlationTopEvents: t.field({
    extensions: cost.aggregate(),
    type: [Count],
    description: "The 10 events with most pairs with this one (key: event uuid, docCount: pairs), as GET /correlations/events/{uuid}/top",
    args: { eventUuid: t.arg.string({ required: true, description: "The event's UUID" }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.topEvents(caller(ctx), checkUuid(a.eventUuid, "eventUuid")),
  }),
  correlationHistogram: t.field({
    extensions: cost.search(),
    type: [Bucket],
    description: "Correlation documents per UTC day (1d), week (1w) or month (1M), as GET /correlations/histogram",
    args: {
      query: t.arg.string({ defaultValue: "", description: "A Lucene query over the correlations index; empty: every correlation you may read" }),
      interval: t.arg.string({ defaultValue: "1d", description: "Bucket size: 1d (day), 1w (week) or 1M (month)" }),
    },
    resolve: (_r, a, ctx) => ctx.services.correlations.histogram(caller(ctx), a.query ?? "", a.interval ?? "1d"),
  }),
  correlationRebuild: t.field({
    type: Rebuild,
    description: "Progress of a correlation rebuild (GET /correlations/run/{rebuild_id})",
    args: { id: t.arg.int({ required: true, description: CR.id }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.rebuild(caller(ctx), a.id),
  }),
  correlationExclusions: t.field({ type: [ExclusionType], description: "Correlation exclusions (values that never correlate; % is a wildcard)", resolve: (_r, _a, ctx) => ctx.services.correlations.exclusions(caller(ctx)) }),
}));

builder.mutationFields((t) => ({
  deleteCorrelations: t.field({
    type: Deletion,
    description: "Delete every correlation pair and cancel queued or running rebuilds, as DELETE /correlations/",
    resolve: (_r, _a, ctx) => ctx.services.correlations.deleteAll(caller(ctx)),
  }),
  startCorrelationRebuild: t.field({
    type: Rebuild,
    description: "Queue a full, resumable rebuild of the correlations; correlationRebuild(id) shows its progress",
    resolve: async (_r, _a, ctx) => (await ctx.services.correlations.startRebuild(caller(ctx))).rebuild,
  }),
  addCorrelationExclusion: t.field({
    type: ExclusionType,
    description: "Add a correlation exclusion; existing pairs go at the next correlation of their attributes",
    args: { value: t.arg.string({ required: true, description: CE.value }), comment: t.arg.string({ description: DOC.comment }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.addExclusion(caller(ctx), contractInput(exclusionCreateContract, a)),
  }),
  deleteCorrelationExclusion: t.field({
    type: "Boolean",
    description: "Remove a correlation exclusion; true when done",
    args: { id: t.arg.int({ required: true, description: CE.id }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.correlations.deleteExclusion(caller(ctx), a.id);
      return true;
    },
  }),
}));

// An attribute's correlations, as on REST list reads (one query per attribute: pages are small).
builder.prismaObjectField(AttributeType, "correlations", (t) =>
  t.field({
    extensions: cost.query(),
    type: [SearchHitType],
    select: { uuid: true },
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
    args: { limit: t.arg.int({ defaultValue: RELATED_EVENTS_DEFAULT, description: "At most this many events" }) },
    resolve: (e, a, ctx) => {
      const p = caller(ctx);
      const limit = a.limit ?? RELATED_EVENTS_DEFAULT;
      const loader = loaderOf(ctx, `relatedEvents:${limit}`, () => new BatchLoader((uuids: string[]) => ctx.services.correlations.relatedEvents(p, uuids, limit), (): RelatedEvent[] => []));
      return loader.load(e.uuid);
    },
  }),
);
