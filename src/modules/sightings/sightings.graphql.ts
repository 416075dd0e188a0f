import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import type { SightingHit, SightingsCreated } from "./sightings.service.ts";
import { sightingListContract, type SightingInput as SightingFields } from "./sightings.contracts.ts";
import { pageOf } from "../../platform/pagination.ts";
import { PAGE_DOC } from "../../graphql/page.ts";
import { SIGHTINGS_CREATED_DOC as C, SIGHTING_DOC as S, SIGHTING_TYPES_DOC } from "./sightings.docs.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

type SightingSource = SightingHit["_source"];

const SightingType = builder.objectRef<SightingSource>("Sighting").implement({
  description: SIGHTING_TYPES_DOC.Sighting,
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: S.uuid }),
    type: t.exposeString("type", { description: S.type }),
    value: t.exposeString("value", { description: S.value }),
    timestamp: t.exposeFloat("timestamp", { description: S.timestamp }),
    attributeUuid: t.string({ description: rest(S.attributeUuid, "attribute_uuid"), resolve: (s) => s.attribute_uuid }),
    attributeType: t.string({ description: rest(S.attributeType, "attribute_type"), resolve: (s) => s.attribute_type }),
    eventUuid: t.string({ description: rest(S.eventUuid, "event_uuid"), resolve: (s) => s.event_uuid }),
    organisation: t.string({ nullable: true, description: rest(S.organisation, "observer.organisation"), resolve: (s) => s.observer.organisation }),
    source: t.string({ description: rest(S.source, "observer.source"), resolve: (s) => s.observer.source }),
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
  description: SIGHTING_TYPES_DOC.SightingsResult,
  fields: (t) => ({
    created: t.exposeInt("created", { description: C.created }),
    capped: t.exposeBoolean("capped", { description: C.capped }),
  }),
});

const SightingInput = builder.inputType("SightingInput", {
  description: "One sighting: of the named attribute, or of every readable live attribute with exactly that value",
  fields: (t) => ({
    value: t.string({ description: "Required unless attributeUuid is given" }),
    type: t.string({ description: "sighting (default), false-positive, expiration, or 0, 1, 2" }),
    timestamp: t.float({ description: "Epoch seconds; default now" }),
    attributeUuid: t.string({ description: rest(`${S.attributeUuid}; omitted: every readable live attribute with the value`, "attribute_uuid") }),
    source: t.string({ description: S.source }),
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
      const r = await ctx.services.sightings.list(caller(ctx), contractInput(sightingListContract, a));
      return pageOf(r.results.map((h) => h._source), r.total, { page: r.page, size: r.size });
    },
  }),
}));

builder.mutationFields((t) => ({
  createSightings: t.field({
    type: SightingsResult,
    description: "Records sightings (at most 1000): each on the named attribute, or on every readable live attribute with exactly that value",
    args: { input: t.arg({ type: [SightingInput], required: true, description: "The sightings, at most 1000" }) },
    // The service checks each sighting with the contract (GraphQL's null means "not given" here).
    resolve: (_r, a, ctx) =>
      ctx.services.sightings.create(caller(ctx), a.input.map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v != null)) as SightingFields), { skipEmpty: false }),
  }),
}));
