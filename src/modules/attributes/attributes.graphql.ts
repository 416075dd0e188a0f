import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors } from "../../platform/errors.ts";
import { checkPage, checkUuid, EventTagType, EventType } from "../events/events.graphql.ts";
import { BatchLoader, loaderOf } from "../../graphql/request-batch.ts";
import type { TagView } from "../events/index.ts";
import { MAX_ATTRIBUTES_PER_EVENT } from "./attributes.service.ts";
import type { AttributeTypeInfo } from "./catalogue/catalogue.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import type { GraphQLContext } from "../../graphql/builder.ts";
import { attributeCreateContract, attributePatchContract, type AttributeCreate, type AttributePatch } from "./attributes.contracts.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";

/** The attribute's fields, for the object type and the input alike. */
export const ATTRIBUTE_DOC = {
  uuid: "The attribute's UUID",
  objectRelation: "Its relation name inside its object (for example ip, domain); null for a standalone attribute (REST object_relation)",
  category: "MISP category (for example Network activity, Payload delivery); default: the type's default category",
  type: "MISP attribute type (for example ip-dst, domain, sha256, domain|ip)",
  value: "The value; a composite type's two halves joined by |",
  toIds: "Usable for detection (MISP's IDS flag; REST to_ids); default: the type's default",
  distribution: DOC.distribution,
  disableCorrelation: "Left out of correlation when true (REST disable_correlation)",
  tags: "Tags attached to it",
} as const;

// Select mode: a page of events with thousands of attributes loads only the columns the query asks for.
export const AttributeType = builder.prismaObject("Attribute", {
  select: { id: true },
  description: "A MISP attribute; value1/value2 are the halves of a composite value (value2 null otherwise)",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: ATTRIBUTE_DOC.uuid }),
    eventUuid: t.string({ description: `${DOC.eventUuid} (REST event_uuid)`, select: { event: { select: { uuid: true } } }, resolve: (a) => a.event.uuid }),
    objectUuid: t.string({ nullable: true, description: `${DOC.objectUuid} (REST object_uuid)`, select: { object: { select: { uuid: true } } }, resolve: (a) => a.object?.uuid ?? null }),
    objectRelation: t.exposeString("objectRelation", { nullable: true, description: ATTRIBUTE_DOC.objectRelation }),
    category: t.exposeString("category", { description: ATTRIBUTE_DOC.category }),
    type: t.exposeString("type", { description: ATTRIBUTE_DOC.type }),
    value: t.exposeString("value", { description: ATTRIBUTE_DOC.value }),
    value1: t.exposeString("value1", { description: "The value, or a composite value's first half" }),
    value2: t.exposeString("value2", { nullable: true, description: "A composite value's second half; null otherwise" }),
    toIds: t.exposeBoolean("toIds", { description: ATTRIBUTE_DOC.toIds }),
    comment: t.exposeString("comment", { description: DOC.comment }),
    distribution: t.exposeInt("distribution", { description: ATTRIBUTE_DOC.distribution }),
    sharingGroupId: t.exposeInt("sharingGroupId", { nullable: true, description: `${DOC.sharingGroupId} (REST sharing_group_id)` }),
    timestamp: t.float({ description: DOC.timestamp, select: { timestamp: true }, resolve: (a) => Number(a.timestamp) }),
    firstSeen: t.expose("firstSeen", { type: "DateTime", nullable: true, description: `${DOC.firstSeen} (REST first_seen)` }),
    lastSeen: t.expose("lastSeen", { type: "DateTime", nullable: true, description: `${DOC.lastSeen} (REST last_seen)` }),
    deleted: t.exposeBoolean("deleted", { description: DOC.deleted }),
    disableCorrelation: t.exposeBoolean("disableCorrelation", { description: ATTRIBUTE_DOC.disableCorrelation }),
    // Batched per request: a nested select would build every attribute's tags before Event.attributes' limit.
    tags: t.field({
      type: [EventTagType],
      description: ATTRIBUTE_DOC.tags,
      resolve: (a, _args, ctx) => {
        const p = caller(ctx);
        return loaderOf(ctx, "Attribute.tags", () => new BatchLoader((ids: string[]) => ctx.services.attributes.tagsOf(p, ids), (): TagView[] => [])).load(String(a.id));
      },
    }),
  }),
});

const AttributePage = pageType("AttributePage", AttributeType, "attributes");

builder.prismaObjectField(EventType, "attributes", (t) =>
  t.relation("attributes", {
    description: `Its standalone attributes you may read (those in objects are the objects'), newest change first: at most limit (1 to ${MAX_ATTRIBUTES_PER_EVENT}). A page of events loads them in the same statement`,
    extensions: cost.page("limit", 100),
    args: {
      limit: t.arg.int({ defaultValue: 100, description: `Attributes of this event to list, 1 to ${MAX_ATTRIBUTES_PER_EVENT}` }),
      deleted: t.arg.boolean({ defaultValue: false, description: "false: live ones only; true: soft-deleted ones only; null: both" }),
    },
    query: (a, ctx) => ctx.services.attributes.standaloneOfEvent(caller(ctx), { perEvent: a.limit ?? 100, deleted: a.deleted ?? null }),
  }),
);

export const AttributeInput = builder.inputType("AttributeInput", {
  description: "Attribute fields. Create: type and value are required, uuid optional. Update: any subset (uuid names the attribute in updateObject)",
  fields: (t) => ({
    uuid: t.string({ description: `${ATTRIBUTE_DOC.uuid}: on create, omitted for a new one; in updateObject's updateAttributes, the attribute to change` }),
    type: t.string({ description: ATTRIBUTE_DOC.type }),
    category: t.string({ description: ATTRIBUTE_DOC.category }),
    value: t.string({ description: ATTRIBUTE_DOC.value }),
    toIds: t.boolean({ description: ATTRIBUTE_DOC.toIds }),
    comment: t.string({ description: DOC.comment }),
    distribution: t.int({ description: ATTRIBUTE_DOC.distribution }),
    sharingGroupId: t.int({ description: `${DOC.sharingGroupId}; null clears it` }),
    firstSeen: t.field({ type: "DateTime", description: `${DOC.firstSeen}; null clears it` }),
    lastSeen: t.field({ type: "DateTime", description: `${DOC.lastSeen}; null clears it` }),
    deleted: t.boolean({ description: "True soft-deletes it, false restores it" }),
    disableCorrelation: t.boolean({ description: ATTRIBUTE_DOC.disableCorrelation }),
    objectRelation: t.string({ description: `${ATTRIBUTE_DOC.objectRelation}; null clears it` }),
    objectUuid: t.string({ description: "The object (of the same event) to put it in; null takes it out" }),
  }),
});

const ATTRIBUTE_UUID = "The attribute's UUID";

export type AttributeInputShape = {
  uuid?: string | null;
  type?: string | null;
  category?: string | null;
  value?: string | null;
  toIds?: boolean | null;
  comment?: string | null;
  distribution?: number | null;
  sharingGroupId?: number | null;
  firstSeen?: Date | null;
  lastSeen?: Date | null;
  deleted?: boolean | null;
  disableCorrelation?: boolean | null;
  objectRelation?: string | null;
  objectUuid?: string | null;
};

/** The input as the attributes contract's patch (an object's updateAttributes name theirs by uuid, outside the contract). */
export function toAttributePatch(i: AttributeInputShape, at: (string | number)[] = []): AttributePatch {
  const { uuid: _uuid, ...fields } = i;
  return contractInput(attributePatchContract, fields, at);
}

export function toAttributeCreate(i: AttributeInputShape, at: (string | number)[] = []): AttributeCreate {
  return contractInput(attributeCreateContract, i, at);
}

/** A written attribute as GraphQL returns it: read again with the selection's relations. */
const asStored = (ctx: GraphQLContext, info: GraphQLResolveInfo, uuid: string) =>
  ctx.services.attributes.findOne(caller(ctx), uuid, queryFromInfo({ context: ctx, info }));

const AttributeTypeInfoType = builder.objectRef<AttributeTypeInfo>("AttributeTypeInfo").implement({
  description: "A MISP attribute type as the catalogue (describeTypes) defines it",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The type (for example ip-dst, domain|ip)" }),
    defaultCategory: t.exposeString("defaultCategory", { description: "The category an attribute of this type gets when none is given" }),
    toIds: t.exposeBoolean("toIds", { description: "Whether an attribute of this type is an IDS signature by default (to_ids)" }),
    categories: t.exposeStringList("categories", { description: "The categories it may be in" }),
    composite: t.exposeBoolean("composite", { description: "Two values joined by | (for example filename|sha256)" }),
  }),
});

const AttributeCategoryType = builder.objectRef<{ name: string; types: readonly string[] }>("AttributeCategory").implement({
  description: "A MISP attribute category and the types it allows",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The category (for example Network activity)" }),
    types: t.exposeStringList("types", { description: "The types allowed in it, in catalogue order" }),
  }),
});

builder.queryFields((t) => ({
  attributeTypes: t.field({
    type: [AttributeTypeInfoType],
    description: "MISP's attribute types (describeTypes), in catalogue order: what attribute writes are checked against",
    resolve: (_r, _a, ctx) => {
      const c = ctx.services.attributes.catalogue(caller(ctx));
      return c.typeNames.flatMap((name) => c.types.get(name) ?? []);
    },
  }),
  attributeCategories: t.field({
    type: [AttributeCategoryType],
    description: "MISP's attribute categories with the types each allows (describeTypes), in catalogue order",
    resolve: (_r, _a, ctx) => {
      const c = ctx.services.attributes.catalogue(caller(ctx));
      return c.categories.map((name) => ({ name, types: c.categoryTypes.get(name) ?? [] }));
    },
  }),
  attributes: t.field({
    extensions: cost.page("size", 50),
    type: AttributePage,
    description: "Attributes of readable events, newest change first; without objectUuid only standalone attributes; soft-deleted ones too unless deleted: false",
    args: {
      page: t.arg.int({ description: PAGE_DOC.page }),
      size: t.arg.int({ description: PAGE_DOC.size(50) }),
      eventUuid: t.arg.string({ description: "Only this event's attributes" }),
      type: t.arg.string({ description: "Only attributes of this MISP type" }),
      category: t.arg.string({ description: "Only attributes of this MISP category" }),
      value: t.arg.string({ description: "Part of the value, case-insensitive (at most 255 characters)" }),
      objectUuid: t.arg.string({ description: "Only this object's attributes" }),
      deleted: t.arg.boolean({ description: "true: only soft-deleted ones; false: only live ones; omitted: both" }),
    },
    resolve: (_r, a, ctx, info) => {
      for (const field of ["type", "category", "value"] as const) {
        const v = a[field];
        if (v != null && (v.length > 255 || v.includes("\0"))) throw errors.invalidField(["args", field], "must be at most 255 characters without NUL bytes");
      }
      return ctx.services.attributes.findPage(
        caller(ctx),
        {
          eventUuid: a.eventUuid ? checkUuid(a.eventUuid, "eventUuid") : undefined,
          type: a.type ?? undefined,
          category: a.category ?? undefined,
          value: a.value ?? undefined,
          objectUuid: a.objectUuid ? checkUuid(a.objectUuid, "objectUuid") : undefined,
          deleted: a.deleted ?? undefined,
        },
        checkPage(a.page, a.size),
        queryFromInfo({ context: ctx, info, path: ["items"] }),
      );
    },
  }),
  attribute: t.field({
    type: AttributeType,
    description: "One attribute of a readable event (a soft-deleted one too)",
    args: { uuid: t.arg.string({ required: true, description: ATTRIBUTE_UUID }) },
    resolve: (_r, a, ctx, info) => ctx.services.attributes.findOne(caller(ctx), checkUuid(a.uuid, "uuid"), queryFromInfo({ context: ctx, info })),
  }),
}));

builder.mutationFields((t) => ({
  createAttribute: t.field({
    type: AttributeType,
    description: "Add an attribute to an event you may change",
    args: { eventUuid: t.arg.string({ required: true, description: "The event's UUID" }), input: t.arg({ type: AttributeInput, required: true, description: "The attribute: type and value required" }) },
    resolve: async (_r, a, ctx, info) =>
      asStored(ctx, info, (await ctx.services.attributes.create(caller(ctx), { ...toAttributeCreate(a.input), eventUuid: checkUuid(a.eventUuid, "eventUuid") })).uuid),
  }),
  updateAttribute: t.field({
    type: AttributeType,
    description: "Change an attribute: only the fields given",
    args: { uuid: t.arg.string({ required: true, description: ATTRIBUTE_UUID }), input: t.arg({ type: AttributeInput, required: true, description: "The fields to change" }) },
    resolve: async (_r, a, ctx, info) => asStored(ctx, info, (await ctx.services.attributes.update(caller(ctx), checkUuid(a.uuid, "uuid"), toAttributePatch(a.input))).uuid),
  }),
  deleteAttribute: t.boolean({
    description: "Soft delete (deleted = true; updateAttribute with deleted: false restores it); force: true deletes it for good",
    args: { uuid: t.arg.string({ required: true, description: ATTRIBUTE_UUID }), force: t.arg.boolean({ defaultValue: false, description: "Delete for good instead of soft-deleting" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.attributes.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
  tagAttribute: t.boolean({
    description: "Attach a tag to an attribute; true when done",
    args: { uuid: t.arg.string({ required: true, description: ATTRIBUTE_UUID }), tag: t.arg.string({ required: true, description: DOC.tagArg }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.attributes.tag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
  untagAttribute: t.boolean({
    description: "Detach a tag from an attribute; true when done",
    args: { uuid: t.arg.string({ required: true, description: ATTRIBUTE_UUID }), tag: t.arg.string({ required: true, description: "The tag's name" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.attributes.untag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
}));
