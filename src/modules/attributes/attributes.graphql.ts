import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { errors } from "../../platform/errors.ts";
import { checkPage, checkUuid, EventTagType } from "../events/events.graphql.ts";
import type { AttributeView } from "./attribute-reader.ts";
import type { AttributeCreate, AttributePatch } from "./attribute-rules.ts";

export const AttributeType = builder.objectRef<AttributeView>("Attribute").implement({
  description: "A MISP attribute; value1/value2 are the halves of a composite value (value2 null otherwise)",
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    eventUuid: t.exposeString("eventUuid"),
    objectUuid: t.exposeString("objectUuid", { nullable: true }),
    objectRelation: t.exposeString("objectRelation", { nullable: true }),
    category: t.exposeString("category"),
    type: t.exposeString("type"),
    value: t.exposeString("value"),
    value1: t.exposeString("value1"),
    value2: t.exposeString("value2", { nullable: true }),
    toIds: t.exposeBoolean("toIds"),
    comment: t.exposeString("comment"),
    distribution: t.exposeInt("distribution"),
    sharingGroupId: t.exposeInt("sharingGroupId", { nullable: true }),
    timestamp: t.exposeFloat("timestamp"),
    firstSeen: t.expose("firstSeen", { type: "DateTime", nullable: true }),
    lastSeen: t.expose("lastSeen", { type: "DateTime", nullable: true }),
    deleted: t.exposeBoolean("deleted"),
    disableCorrelation: t.exposeBoolean("disableCorrelation"),
    tags: t.field({ type: [EventTagType], resolve: (a) => a.tags }),
  }),
});

const AttributePage = builder
  .objectRef<{ items: AttributeView[]; total: number; page: number; size: number; pages: number }>("AttributePage")
  .implement({
    fields: (t) => ({
      items: t.field({ type: [AttributeType], resolve: (p) => p.items }),
      total: t.exposeInt("total"),
      page: t.exposeInt("page"),
      size: t.exposeInt("size"),
      pages: t.exposeInt("pages"),
    }),
  });

export const AttributeInput = builder.inputType("AttributeInput", {
  description: "Attribute fields. Create: type and value are required, uuid optional. Update: any subset (uuid names the attribute in updateObject)",
  fields: (t) => ({
    uuid: t.string(),
    type: t.string(),
    category: t.string(),
    value: t.string(),
    toIds: t.boolean(),
    comment: t.string(),
    distribution: t.int(),
    sharingGroupId: t.int(),
    firstSeen: t.field({ type: "DateTime" }),
    lastSeen: t.field({ type: "DateTime" }),
    deleted: t.boolean(),
    disableCorrelation: t.boolean(),
    objectRelation: t.string(),
    objectUuid: t.string(),
  }),
});

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

const u = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/** GraphQL null: "clear" for nullable columns, "not given" for the others. */
export function toAttributePatch(i: AttributeInputShape): AttributePatch {
  return {
    type: u(i.type),
    category: u(i.category),
    value: u(i.value),
    toIds: u(i.toIds),
    comment: u(i.comment),
    distribution: u(i.distribution),
    sharingGroupId: i.sharingGroupId,
    firstSeen: i.firstSeen,
    lastSeen: i.lastSeen,
    deleted: u(i.deleted),
    disableCorrelation: u(i.disableCorrelation),
    objectRelation: i.objectRelation,
    objectUuid: i.objectUuid == null ? i.objectUuid : checkUuid(i.objectUuid, "objectUuid"),
  };
}

export function toAttributeCreate(i: AttributeInputShape, where: (string | number)[] = ["input"]): AttributeCreate {
  if (i.type == null) throw errors.invalidField([...where, "type"], "Field required");
  if (i.value == null) throw errors.invalidField([...where, "value"], "Field required");
  return { ...toAttributePatch(i), type: i.type, value: i.value, uuid: i.uuid == null ? undefined : checkUuid(i.uuid, "uuid") };
}

builder.queryFields((t) => ({
  attributes: t.field({
    extensions: cost.page("size", 50),
    type: AttributePage,
    description: "Attributes of readable events, newest change first; without objectUuid only standalone attributes; soft-deleted ones too unless deleted: false",
    args: { page: t.arg.int(), size: t.arg.int(), eventUuid: t.arg.string(), type: t.arg.string(), objectUuid: t.arg.string(), deleted: t.arg.boolean() },
    resolve: (_r, a, ctx) => {
      if (a.type != null && (a.type.length > 255 || a.type.includes("\0"))) throw errors.invalidField(["args", "type"], "must be at most 255 characters without NUL bytes");
      return ctx.services.attributes.list(
        caller(ctx),
        {
          eventUuid: a.eventUuid ? checkUuid(a.eventUuid, "eventUuid") : undefined,
          type: a.type ?? undefined,
          objectUuid: a.objectUuid ? checkUuid(a.objectUuid, "objectUuid") : undefined,
          deleted: a.deleted ?? undefined,
        },
        checkPage(a.page, a.size),
      );
    },
  }),
  attribute: t.field({
    type: AttributeType,
    args: { uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.attributes.get(caller(ctx), checkUuid(a.uuid, "uuid")),
  }),
}));

builder.mutationFields((t) => ({
  createAttribute: t.field({
    type: AttributeType,
    args: { eventUuid: t.arg.string({ required: true }), input: t.arg({ type: AttributeInput, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.attributes.create(caller(ctx), { ...toAttributeCreate(a.input), eventUuid: checkUuid(a.eventUuid, "eventUuid") }),
  }),
  updateAttribute: t.field({
    type: AttributeType,
    args: { uuid: t.arg.string({ required: true }), input: t.arg({ type: AttributeInput, required: true }) },
    resolve: (_r, a, ctx) => ctx.services.attributes.update(caller(ctx), checkUuid(a.uuid, "uuid"), toAttributePatch(a.input)),
  }),
  deleteAttribute: t.boolean({
    description: "Soft delete (deleted = true; updateAttribute with deleted: false restores it); force: true deletes it for good",
    args: { uuid: t.arg.string({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.attributes.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
  tagAttribute: t.boolean({
    args: { uuid: t.arg.string({ required: true }), tag: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.attributes.tag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
  untagAttribute: t.boolean({
    args: { uuid: t.arg.string({ required: true }), tag: t.arg.string({ required: true }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.attributes.untag(caller(ctx), checkUuid(a.uuid, "uuid"), a.tag);
      return true;
    },
  }),
}));
