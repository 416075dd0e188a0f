import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkUuid } from "../events/events.graphql.ts";
import type { SightingHit, SightingsCreated } from "./sightings.service.ts";
import { checkPageSize } from "../../platform/paging.ts";

type SightingSource = SightingHit["_source"];

const SightingType = builder.objectRef<SightingSource>("Sighting").implement({
  description: "One sighting of one attribute (type: sighting, false-positive or expiration)",
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    type: t.exposeString("type"),
    value: t.exposeString("value"),
    timestamp: t.exposeFloat("timestamp"),
    attributeUuid: t.string({ resolve: (s) => s.attribute_uuid }),
    attributeType: t.string({ resolve: (s) => s.attribute_type }),
    eventUuid: t.string({ resolve: (s) => s.event_uuid }),
    organisation: t.string({ nullable: true, resolve: (s) => s.observer.organisation }),
    source: t.string({ resolve: (s) => s.observer.source }),
  }),
});

const SightingPage = builder.objectRef<{ items: SightingSource[]; total: number; page: number; size: number }>("SightingPage").implement({
  fields: (t) => ({
    items: t.field({ type: [SightingType], resolve: (p) => p.items }),
    total: t.exposeInt("total"),
    page: t.exposeInt("page"),
    size: t.exposeInt("size"),
  }),
});

const SightingsResult = builder.objectRef<SightingsCreated>("SightingsResult").implement({
  fields: (t) => ({
    created: t.exposeInt("created", { description: "Sightings stored: one per matched attribute" }),
    capped: t.exposeBoolean("capped", { description: "True when the per-request cap cut the matches short" }),
  }),
});

const SightingInput = builder.inputType("SightingInput", {
  fields: (t) => ({
    value: t.string({ description: "Required unless attributeUuid is given" }),
    type: t.string({ description: "sighting (default), false-positive, expiration, or 0, 1, 2" }),
    timestamp: t.float({ description: "Epoch seconds; default now" }),
    attributeUuid: t.string(),
    source: t.string(),
  }),
});

builder.queryFields((t) => ({
  sightings: t.field({
    extensions: cost.page("size"),
    type: SightingPage,
    description: "Sightings of readable attributes, newest first (size 1..100, default 10)",
    args: { page: t.arg.int({ defaultValue: 1 }), size: t.arg.int({ defaultValue: 10 }), attributeUuid: t.arg.string(), type: t.arg.string() },
    resolve: async (_r, a, ctx) => {
      const { page, size } = checkPageSize(a, 10);
      const r = await ctx.services.sightings.list(caller(ctx), {
        page,
        size,
        attributeUuid: a.attributeUuid ? checkUuid(a.attributeUuid, "attributeUuid") : undefined,
        type: a.type ?? undefined,
      });
      return { items: r.results.map((h) => h._source), total: r.total, page: r.page, size: r.size };
    },
  }),
}));

builder.mutationFields((t) => ({
  createSightings: t.field({
    type: SightingsResult,
    description: "Records sightings (at most 1000): each on the named attribute, or on every readable live attribute with exactly that value",
    args: { input: t.arg({ type: [SightingInput], required: true }) },
    resolve: (_r, a, ctx) =>
      ctx.services.sightings.create(
        caller(ctx),
        a.input.map((s) => ({
          value: s.value ?? undefined,
          type: s.type ?? undefined,
          timestamp: s.timestamp ?? undefined,
          attributeUuid: s.attributeUuid ?? undefined,
          source: s.source ?? undefined,
        })),
        { skipEmpty: false },
      ),
  }),
}));
