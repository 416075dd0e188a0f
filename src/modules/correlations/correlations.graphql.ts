import { builder, caller } from "../../graphql/builder.ts";
import { SearchHitType, SearchPageType } from "../search/search.graphql.ts";
import { AttributeType } from "../attributes/attributes.graphql.ts";
import type { CorrelationStats, Exclusion } from "./correlations.service.ts";
import type { RebuildRow } from "./rebuild.ts";

const Count = builder.objectRef<{ key: string; docCount: number }>("CorrelationCount").implement({
  fields: (t) => ({ key: t.exposeString("key"), docCount: t.exposeInt("docCount") }),
});

const Stats = builder.objectRef<CorrelationStats>("CorrelationStats").implement({
  fields: (t) => ({
    totalCorrelations: t.exposeInt("totalCorrelations"),
    topCorrelatedEvents: t.field({ type: [Count], resolve: (s) => s.topCorrelatedEvents }),
    topCorrelatedValues: t.field({ type: [Count], resolve: (s) => s.topCorrelatedValues }),
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
  correlationStats: t.field({ type: Stats, resolve: (_r, _a, ctx) => ctx.services.correlations.stats(caller(ctx)) }),
  correlationRebuild: t.field({
    type: Rebuild,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.correlations.rebuild(caller(ctx), a.id),
  }),
  correlationExclusions: t.field({ type: [ExclusionType], resolve: (_r, _a, ctx) => ctx.services.correlations.exclusions(caller(ctx)) }),
}));

builder.mutationFields((t) => ({
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
