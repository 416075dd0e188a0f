import { queryFromInfo } from "@pothos/plugin-prisma";
import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { contractInput } from "../../graphql/inputs.ts";
import type { SightingsCreated } from "./sightings.service.ts";
import { SIGHTING_TYPES, sightingListContract, type SightingInput as SightingFields } from "./sightings.contracts.ts";
import type { Page } from "../../platform/pagination.ts";
import type { Sighting } from "../../generated/prisma/client.ts";
import { PAGE_DOC } from "../../graphql/page.ts";
import { SIGHTINGS_CREATED_DOC as C, SIGHTING_DOC as S, SIGHTING_TYPES_DOC } from "./sightings.docs.ts";

const rest = (doc: string, name: string) => `${doc} (REST ${name})`;

/**
 * A sighting (the service loads those of readable attributes, with the selection's query): its
 * attribute's fields and its organisation's name are read through the relations in the same statement.
 */
const SightingType = builder.prismaObject("Sighting", {
  description: SIGHTING_TYPES_DOC.Sighting,
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: S.uuid }),
    type: t.string({ description: S.type, resolve: (s) => SIGHTING_TYPES[s.type] }),
    value: t.string({ description: S.value, select: { attribute: { select: { value: true } } }, resolve: (s) => s.attribute.value }),
    timestamp: t.float({ description: S.timestamp, resolve: (s) => Number(s.dateSighting) }),
    attributeUuid: t.string({ description: rest(S.attributeUuid, "attribute_uuid"), select: { attribute: { select: { uuid: true } } }, resolve: (s) => s.attribute.uuid }),
    attributeType: t.string({ description: rest(S.attributeType, "attribute_type"), select: { attribute: { select: { type: true } } }, resolve: (s) => s.attribute.type }),
    eventUuid: t.string({
      description: rest(S.eventUuid, "event_uuid"),
      select: { attribute: { select: { event: { select: { uuid: true } } } } },
      resolve: (s) => s.attribute.event.uuid,
    }),
    organisation: t.string({ nullable: true, description: rest(S.organisation, "observer.organisation"), select: { org: { select: { name: true } } }, resolve: (s) => s.org?.name ?? null }),
    source: t.exposeString("source", { description: rest(S.source, "observer.source") }),
  }),
});

const SightingPage = builder.objectRef<Page<Sighting>>("SightingPage").implement({
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
    resolve: (_r, a, ctx, info) => ctx.services.sightings.page(caller(ctx), contractInput(sightingListContract, a), queryFromInfo({ context: ctx, info, path: ["items"] })),
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
