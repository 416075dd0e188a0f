import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkUuid } from "../events/events.graphql.ts";
import type { SightingHit, SightingsCreated } from "./sightings.service.ts";
import { checkPageSize } from "../../platform/paging.ts";
import { pageOf } from "../../platform/pagination.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC } from "../../graphql/page.ts";

const SIGHTING_TYPE = "The kind of sighting: sighting, false-positive or expiration";

type SightingSource = SightingHit["_source"];

const SightingType = builder.objectRef<SightingSource>("Sighting").implement({
  description: "One sighting of one attribute (type: sighting, false-positive or expiration)",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: "The sighting's UUID" }),
    type: t.exposeString("type", { description: SIGHTING_TYPE }),
    value: t.exposeString("value", { description: "The sighted value (the attribute's)" }),
    timestamp: t.exposeFloat("timestamp", { description: `When it was seen, ${DOC.epochSeconds}` }),
    attributeUuid: t.string({ description: `${DOC.attributeUuid} (REST attribute_uuid)`, resolve: (s) => s.attribute_uuid }),
    attributeType: t.string({ description: "The attribute's MISP type (REST attribute_type)", resolve: (s) => s.attribute_type }),
    eventUuid: t.string({ description: `${DOC.eventUuid} (REST event_uuid)`, resolve: (s) => s.event_uuid }),
    organisation: t.string({ nullable: true, description: "The sighting organisation's name (REST observer.organisation)", resolve: (s) => s.observer.organisation }),
    source: t.string({ description: "Where it was seen (free text; REST observer.source)", resolve: (s) => s.observer.source }),
  }),
});

const SightingPage = builder.objectRef<{ items: SightingSource[]; total: number; page: number; size: number; pages: number }>("SightingPage").implement({
  description: "One page of sightings: the items with the total and page count",
  fields: (t) => ({
    items: t.field({ type: [SightingType], description: PAGE_DOC.items, resolve: (p) => p.items }),
    total: t.exposeInt("total", { description: PAGE_DOC.total }),
    page: t.exposeInt("page", { description: PAGE_DOC.pageField }),
    size: t.exposeInt("size", { description: PAGE_DOC.sizeField }),
    pages: t.exposeInt("pages", { description: PAGE_DOC.pages }),
  }),
});

const SightingsResult = builder.objectRef<SightingsCreated>("SightingsResult").implement({
  description: "What recording sightings did",
  fields: (t) => ({
    created: t.exposeInt("created", { description: "Sightings stored: one per matched attribute" }),
    capped: t.exposeBoolean("capped", { description: "True when the per-request cap cut the matches short" }),
  }),
});

const SightingInput = builder.inputType("SightingInput", {
  description: "One sighting: of the named attribute, or of every readable live attribute with exactly that value",
  fields: (t) => ({
    value: t.string({ description: "Required unless attributeUuid is given" }),
    type: t.string({ description: "sighting (default), false-positive, expiration, or 0, 1, 2" }),
    timestamp: t.float({ description: "Epoch seconds; default now" }),
    attributeUuid: t.string({ description: "The attribute sighted; omitted: every readable live attribute with the value (REST attribute_uuid)" }),
    source: t.string({ description: "Where it was seen (free text)" }),
  }),
});

builder.queryFields((t) => ({
  sightings: t.field({
    extensions: cost.page("size"),
    type: SightingPage,
    description: "Sightings of readable attributes, newest first (size 1..100, default 10)",
    args: {
      page: t.arg.int({ defaultValue: 1, description: PAGE_DOC.page }),
      size: t.arg.int({ defaultValue: 10, description: PAGE_DOC.size(10) }),
      attributeUuid: t.arg.string({ description: "Only this attribute's sightings" }),
      type: t.arg.string({ description: "Only sightings of this type: sighting, false-positive or expiration" }),
    },
    resolve: async (_r, a, ctx) => {
      const { page, size } = checkPageSize(a, 10);
      const r = await ctx.services.sightings.list(caller(ctx), {
        page,
        size,
        attributeUuid: a.attributeUuid ? checkUuid(a.attributeUuid, "attributeUuid") : undefined,
        type: a.type ?? undefined,
      });
      return pageOf(r.results.map((h) => h._source), r.total, { page: r.page, size: r.size });
    },
  }),
}));

builder.mutationFields((t) => ({
  createSightings: t.field({
    type: SightingsResult,
    description: "Records sightings (at most 1000): each on the named attribute, or on every readable live attribute with exactly that value",
    args: { input: t.arg({ type: [SightingInput], required: true, description: "The sightings, at most 1000" }) },
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
