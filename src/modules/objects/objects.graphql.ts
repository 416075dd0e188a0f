import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkPage, checkUuid } from "../events/events.graphql.ts";
import { AttributeInput, AttributeType, toAttributeCreate, toAttributePatch } from "../attributes/attributes.graphql.ts";
import type { ObjectView, ReferenceView } from "./object-reader.ts";
import type { ObjectFields, ReferenceCreate } from "./objects.service.ts";

const ObjectReferenceType = builder.objectRef<ReferenceView>("ObjectReference").implement({
  description: "A link from an object to an attribute (referencedType 0) or object (1)",
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    objectUuid: t.exposeString("objectUuid"),
    eventUuid: t.exposeString("eventUuid"),
    referencedUuid: t.exposeString("referencedUuid"),
    referencedType: t.exposeInt("referencedType", { nullable: true }),
    relationshipType: t.exposeString("relationshipType"),
    comment: t.exposeString("comment"),
    timestamp: t.exposeFloat("timestamp"),
    deleted: t.exposeBoolean("deleted"),
  }),
});

const MispObjectType = builder.objectRef<ObjectView>("MispObject").implement({
  description: "A MISP object with its attributes and references (a live object lists its live ones)",
  fields: (t) => ({
    uuid: t.exposeString("uuid"),
    eventUuid: t.exposeString("eventUuid"),
    name: t.exposeString("name"),
    metaCategory: t.exposeString("metaCategory", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    templateUuid: t.exposeString("templateUuid", { nullable: true }),
    templateVersion: t.exposeInt("templateVersion", { nullable: true }),
    timestamp: t.exposeFloat("timestamp"),
    distribution: t.exposeInt("distribution"),
    sharingGroupId: t.exposeInt("sharingGroupId", { nullable: true }),
    comment: t.exposeString("comment"),
    deleted: t.exposeBoolean("deleted"),
    firstSeen: t.expose("firstSeen", { type: "DateTime", nullable: true }),
    lastSeen: t.expose("lastSeen", { type: "DateTime", nullable: true }),
    attributes: t.field({ type: [AttributeType], resolve: (o) => o.attributes }),
    references: t.field({ type: [ObjectReferenceType], resolve: (o) => o.references }),
  }),
});

const MispObjectPage = builder
  .objectRef<{ items: ObjectView[]; total: number; page: number; size: number; pages: number }>("MispObjectPage")
  .implement({
    fields: (t) => ({
      items: t.field({ type: [MispObjectType], resolve: (p) => p.items }),
      total: t.exposeInt("total"),
      page: t.exposeInt("page"),
      size: t.exposeInt("size"),
      pages: t.exposeInt("pages"),
    }),
  });

const ObjectInput = builder.inputType("MispObjectInput", {
  fields: (t) => ({
    name: t.string(),
    metaCategory: t.string(),
    description: t.string(),
    templateUuid: t.string(),
    templateVersion: t.int(),
    distribution: t.int(),
    sharingGroupId: t.int(),
    comment: t.string(),
    deleted: t.boolean(),
    firstSeen: t.field({ type: "DateTime" }),
    lastSeen: t.field({ type: "DateTime" }),
  }),
});

const ObjectReferenceInput = builder.inputType("ObjectReferenceInput", {
  fields: (t) => ({
    uuid: t.string(),
    referencedUuid: t.string({ required: true }),
    referencedType: t.int(),
    relationshipType: t.string({ required: true }),
    comment: t.string(),
    deleted: t.boolean(),
  }),
});

type ObjectInputShape = { [K in keyof ObjectFields]?: ObjectFields[K] | null };
const u = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);
const toFields = (i: ObjectInputShape | null | undefined): ObjectFields =>
  i
    ? {
        name: u(i.name),
        metaCategory: i.metaCategory,
        description: i.description,
        templateUuid: i.templateUuid,
        templateVersion: i.templateVersion,
        distribution: u(i.distribution),
        sharingGroupId: i.sharingGroupId,
        comment: u(i.comment),
        deleted: u(i.deleted),
        firstSeen: i.firstSeen,
        lastSeen: i.lastSeen,
      }
    : {};

type ReferenceInputShape = { [K in keyof ReferenceCreate]?: ReferenceCreate[K] | null } & { referencedUuid: string; relationshipType: string };
const toReference = (r: ReferenceInputShape): ReferenceCreate => ({
  uuid: r.uuid == null ? undefined : checkUuid(r.uuid, "uuid"),
  referencedUuid: r.referencedUuid,
  referencedType: r.referencedType,
  relationshipType: r.relationshipType,
  comment: u(r.comment),
  deleted: u(r.deleted),
});

builder.queryFields((t) => ({
  objects: t.field({
    extensions: cost.page("size", 50),
    type: MispObjectPage,
    args: { page: t.arg.int(), size: t.arg.int(), eventUuid: t.arg.string(), deleted: t.arg.boolean(), templateUuids: t.arg.stringList() },
    resolve: (_r, a, ctx) =>
      ctx.services.objects.list(
        caller(ctx),
        {
          eventUuid: a.eventUuid ? checkUuid(a.eventUuid, "eventUuid") : undefined,
          deleted: a.deleted ?? undefined,
          templateUuids: a.templateUuids?.slice(0, 50).map((x) => checkUuid(x, "templateUuids")),
        },
        checkPage(a.page, a.size),
      ),
  }),
  object: t.field({
    type: MispObjectType,
    args: { uuid: t.arg.string({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.objects.get(caller(ctx), checkUuid(a.uuid, "uuid")),
  }),
}));

builder.mutationFields((t) => ({
  createObject: t.field({
    type: MispObjectType,
    args: {
      eventUuid: t.arg.string({ required: true }),
      uuid: t.arg.string(),
      input: t.arg({ type: ObjectInput, required: true }),
      attributes: t.arg({ type: [AttributeInput] }),
      references: t.arg({ type: [ObjectReferenceInput] }),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.objects.create(caller(ctx), {
        ...toFields(a.input),
        name: a.input.name ?? "",
        eventUuid: checkUuid(a.eventUuid, "eventUuid"),
        uuid: a.uuid == null ? undefined : checkUuid(a.uuid, "uuid"),
        attributes: a.attributes?.map((x, i) => toAttributeCreate(x, ["attributes", i])),
        references: a.references?.map(toReference),
      }),
  }),
  updateObject: t.field({
    type: MispObjectType,
    description: "Object fields plus attributes to add, update (by uuid) and soft-delete, in one transaction",
    args: {
      uuid: t.arg.string({ required: true }),
      input: t.arg({ type: ObjectInput }),
      newAttributes: t.arg({ type: [AttributeInput] }),
      updateAttributes: t.arg({ type: [AttributeInput] }),
      deleteAttributes: t.arg.stringList(),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.objects.update(caller(ctx), checkUuid(a.uuid, "uuid"), {
        ...toFields(a.input),
        newAttributes: a.newAttributes?.map((x, i) => toAttributeCreate(x, ["newAttributes", i])),
        updateAttributes: a.updateAttributes?.map((x) => ({ ...toAttributePatch(x), uuid: x.uuid ?? "" })),
        deleteAttributes: a.deleteAttributes ?? undefined,
      }),
  }),
  deleteObject: t.boolean({
    description: "Soft-deletes the object with its attributes and references (updateObject with deleted: false restores it whole); force: true deletes them for good",
    args: { uuid: t.arg.string({ required: true }), force: t.arg.boolean({ defaultValue: false }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.objects.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
}));
