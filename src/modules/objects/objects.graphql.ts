import { builder, caller } from "../../graphql/builder.ts";
import { cost } from "../../graphql/cost-limits.ts";
import { checkPage, checkUuid } from "../events/events.graphql.ts";
import { AttributeInput, toAttributeCreate, toAttributePatch } from "../attributes/attributes.graphql.ts";
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo } from "graphql";
import type { GraphQLContext } from "../../graphql/builder.ts";
import { objectFieldsContract, referenceCreateContract, type ObjectFields, type ReferenceCreate } from "./objects.contracts.ts";
import { contractInput } from "../../graphql/inputs.ts";
import { DOC } from "../../graphql/docs.ts";
import { PAGE_DOC, pageType } from "../../graphql/page.ts";

const REF_DOC = {
  uuid: "The reference's UUID",
  referencedUuid: "UUID of the attribute or object referred to (REST referenced_uuid)",
  referencedType: "What is referred to: 0 an attribute, 1 an object; null if unknown (REST referenced_type)",
  relationshipType: "The relationship, for example related-to, uses, connected-to (REST relationship_type)",
} as const;

const OBJECT_DOC = {
  uuid: "The object's UUID",
  name: "The object template's name (for example domain-ip, file)",
  metaCategory: "The template's meta-category (for example network, file) (REST meta_category)",
  description: "The template's description",
  templateUuid: "UUID of the object template (REST template_uuid)",
  templateVersion: "Version of the object template (REST template_version)",
} as const;
const OBJECT_UUID = "The object's UUID";

builder.prismaObject("ObjectReference", {
  description: "A link from an object to an attribute (referencedType 0) or object (1)",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: REF_DOC.uuid }),
    objectUuid: t.string({ description: "UUID of the object it starts from (REST object_uuid)", select: { object: { select: { uuid: true } } }, resolve: (r) => r.object.uuid }),
    eventUuid: t.string({
      description: `${DOC.eventUuid} (REST event_uuid)`,
      select: { object: { select: { event: { select: { uuid: true } } } } },
      resolve: (r) => r.object.event.uuid,
    }),
    referencedUuid: t.exposeString("referencedUuid", { description: REF_DOC.referencedUuid }),
    referencedType: t.exposeInt("referencedType", { nullable: true, description: REF_DOC.referencedType }),
    relationshipType: t.exposeString("relationshipType", { description: REF_DOC.relationshipType }),
    comment: t.exposeString("comment", { description: DOC.comment }),
    timestamp: t.float({ description: DOC.timestamp, resolve: (r) => Number(r.timestamp) }),
    deleted: t.exposeBoolean("deleted", { description: DOC.deleted }),
  }),
});

const MispObjectType = builder.prismaObject("MispObject", {
  description: "A MISP object with its attributes and references (a live object lists its live ones)",
  fields: (t) => ({
    uuid: t.exposeString("uuid", { description: OBJECT_UUID }),
    eventUuid: t.string({ description: `${DOC.eventUuid} (REST event_uuid)`, select: { event: { select: { uuid: true } } }, resolve: (o) => o.event.uuid }),
    name: t.exposeString("name", { description: OBJECT_DOC.name }),
    metaCategory: t.exposeString("metaCategory", { nullable: true, description: OBJECT_DOC.metaCategory }),
    description: t.exposeString("description", { nullable: true, description: OBJECT_DOC.description }),
    templateUuid: t.exposeString("templateUuid", { nullable: true, description: OBJECT_DOC.templateUuid }),
    templateVersion: t.exposeInt("templateVersion", { nullable: true, description: OBJECT_DOC.templateVersion }),
    timestamp: t.float({ description: DOC.timestamp, resolve: (o) => Number(o.timestamp) }),
    distribution: t.exposeInt("distribution", { description: DOC.distribution }),
    sharingGroupId: t.exposeInt("sharingGroupId", { nullable: true, description: `${DOC.sharingGroupId} (REST sharing_group_id)` }),
    comment: t.exposeString("comment", { description: DOC.comment }),
    deleted: t.exposeBoolean("deleted", { description: DOC.deleted }),
    firstSeen: t.expose("firstSeen", { type: "DateTime", nullable: true, description: `${DOC.firstSeen} (REST first_seen)` }),
    lastSeen: t.expose("lastSeen", { type: "DateTime", nullable: true, description: `${DOC.lastSeen} (REST last_seen)` }),
    attributes: t.relation("attributes", { description: "Its attributes you may read", query: (_a, ctx) => ctx.services.objects.attributesOfObject(caller(ctx)) }),
    references: t.relation("references", { description: "Its references to other attributes and objects", query: (_a, ctx) => ctx.services.objects.referencesOfObject(caller(ctx)) }),
  }),
});

const MispObjectPage = pageType("MispObjectPage", MispObjectType, "MISP objects");

const ObjectInput = builder.inputType("MispObjectInput", {
  description: "Object fields. Create: name required. Update: the fields given (null clears a nullable one)",
  fields: (t) => ({
    name: t.string({ description: OBJECT_DOC.name }),
    metaCategory: t.string({ description: OBJECT_DOC.metaCategory }),
    description: t.string({ description: OBJECT_DOC.description }),
    templateUuid: t.string({ description: OBJECT_DOC.templateUuid }),
    templateVersion: t.int({ description: OBJECT_DOC.templateVersion }),
    distribution: t.int({ description: DOC.distribution }),
    sharingGroupId: t.int({ description: DOC.sharingGroupId }),
    comment: t.string({ description: DOC.comment }),
    deleted: t.boolean({ description: "True soft-deletes it with its attributes and references, false restores it whole" }),
    firstSeen: t.field({ type: "DateTime", description: DOC.firstSeen }),
    lastSeen: t.field({ type: "DateTime", description: DOC.lastSeen }),
  }),
});

const ObjectReferenceInput = builder.inputType("ObjectReferenceInput", {
  description: "A reference from the object to an attribute or object",
  fields: (t) => ({
    uuid: t.string({ description: `${REF_DOC.uuid}; omitted: a new one` }),
    referencedUuid: t.string({ required: true, description: REF_DOC.referencedUuid }),
    referencedType: t.int({ description: REF_DOC.referencedType }),
    relationshipType: t.string({ required: true, description: REF_DOC.relationshipType }),
    comment: t.string({ description: DOC.comment }),
    deleted: t.boolean({ description: "Soft-deleted" }),
  }),
});

type ObjectInputShape = { [K in keyof ObjectFields]?: ObjectFields[K] | null };
/** The object's fields, checked with the contract (GraphQL's null clears a nullable field, else means absent). */
const toFields = (i: ObjectInputShape | null | undefined): ObjectFields => (i ? contractInput(objectFieldsContract, i) : {});

type ReferenceInputShape = { [K in keyof ReferenceCreate]?: ReferenceCreate[K] | null };
const toReference = (r: ReferenceInputShape, i: number): ReferenceCreate => contractInput(referenceCreateContract, r, ["references", i]);

/** A written object as GraphQL returns it: read again with the selection's relations. */
const asStored = (ctx: GraphQLContext, info: GraphQLResolveInfo, uuid: string) => ctx.services.objects.findOne(caller(ctx), uuid, queryFromInfo({ context: ctx, info }));

builder.queryFields((t) => ({
  objects: t.field({
    extensions: cost.page("size", 50),
    type: MispObjectPage,
    description: "MISP objects of readable events, newest change first",
    args: {
      page: t.arg.int({ description: PAGE_DOC.page }),
      size: t.arg.int({ description: PAGE_DOC.size(50) }),
      eventUuid: t.arg.string({ description: "Only this event's objects" }),
      deleted: t.arg.boolean({ description: "true: only soft-deleted ones; false or omitted: only live ones" }),
      templateUuids: t.arg.stringList({ description: "Only objects of these templates (at most 50 UUIDs)" }),
    },
    resolve: (_r, a, ctx, info) =>
      ctx.services.objects.findPage(
        caller(ctx),
        {
          eventUuid: a.eventUuid ? checkUuid(a.eventUuid, "eventUuid") : undefined,
          deleted: a.deleted ?? undefined,
          templateUuids: a.templateUuids?.slice(0, 50).map((x) => checkUuid(x, "templateUuids")),
        },
        checkPage(a.page, a.size),
        queryFromInfo({ context: ctx, info, path: ["items"] }),
      ),
  }),
  object: t.field({
    type: MispObjectType,
    description: "One MISP object of a readable event, with its attributes and references",
    args: { uuid: t.arg.string({ required: true, description: OBJECT_UUID }) },
    resolve: (_r, a, ctx, info) => ctx.services.objects.findOne(caller(ctx), checkUuid(a.uuid, "uuid"), queryFromInfo({ context: ctx, info })),
  }),
}));

builder.mutationFields((t) => ({
  createObject: t.field({
    type: MispObjectType,
    description: "Add a MISP object with its attributes and references to an event you may change, in one transaction",
    args: {
      eventUuid: t.arg.string({ required: true, description: "The event's UUID" }),
      uuid: t.arg.string({ description: "Its UUID; omitted: a new one" }),
      input: t.arg({ type: ObjectInput, required: true, description: "The object's fields: name required" }),
      attributes: t.arg({ type: [AttributeInput], description: "Its attributes, each with type and value" }),
      references: t.arg({ type: [ObjectReferenceInput], description: "Its references" }),
    },
    resolve: async (_r, a, ctx, info) => {
      const created = await ctx.services.objects.create(caller(ctx), {
        ...toFields(a.input),
        name: a.input.name ?? "",
        eventUuid: checkUuid(a.eventUuid, "eventUuid"),
        uuid: a.uuid == null ? undefined : checkUuid(a.uuid, "uuid"),
        attributes: a.attributes?.map((x, i) => toAttributeCreate(x, ["attributes", i])),
        references: a.references?.map(toReference),
      });
      return asStored(ctx, info, created.uuid);
    },
  }),
  updateObject: t.field({
    type: MispObjectType,
    description: "Object fields plus attributes to add, update (by uuid) and soft-delete, in one transaction",
    args: {
      uuid: t.arg.string({ required: true, description: OBJECT_UUID }),
      input: t.arg({ type: ObjectInput, description: "The object fields to change" }),
      newAttributes: t.arg({ type: [AttributeInput], description: "Attributes to add, each with type and value" }),
      updateAttributes: t.arg({ type: [AttributeInput], description: "Attributes to change, each named by its uuid" }),
      deleteAttributes: t.arg.stringList({ description: "UUIDs of attributes to soft-delete" }),
    },
    resolve: async (_r, a, ctx, info) => {
      const updated = await ctx.services.objects.update(caller(ctx), checkUuid(a.uuid, "uuid"), {
        ...toFields(a.input),
        newAttributes: a.newAttributes?.map((x, i) => toAttributeCreate(x, ["newAttributes", i])),
        updateAttributes: a.updateAttributes?.map((x, i) => ({ ...toAttributePatch(x, ["updateAttributes", i]), uuid: x.uuid ?? "" })),
        deleteAttributes: a.deleteAttributes ?? undefined,
      });
      return asStored(ctx, info, updated.uuid);
    },
  }),
  deleteObject: t.boolean({
    description: "Soft-deletes the object with its attributes and references (updateObject with deleted: false restores it whole); force: true deletes them for good",
    args: { uuid: t.arg.string({ required: true, description: OBJECT_UUID }), force: t.arg.boolean({ defaultValue: false, description: "Delete for good instead of soft-deleting" }) },
    resolve: async (_r, a, ctx) => {
      await ctx.services.objects.delete(caller(ctx), checkUuid(a.uuid, "uuid"), { force: a.force ?? false });
      return true;
    },
  }),
}));
