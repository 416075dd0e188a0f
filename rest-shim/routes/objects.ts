import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, attributeCreateWire, attributePatchWire, ignoredTimestamp, pageQueryFields, queryBool, seenTime } from "../schemas.ts";
import { ObjectPageSchema, ObjectSchema, objectOut } from "../serializers/objects.ts";
import { errors } from "../../src/platform/errors.ts";
import type { ObjectFields, ReferenceCreate } from "../../src/modules/objects/index.ts";

/** An object with a few thousand attributes is well over the default 1 MiB. */
const OBJECT_BODY_LIMIT = 16 * 1024 * 1024;

const uuidParam = z.object({ object_uuid: anyUuid }).strict();

const referenceBody = z
  .object({
    uuid: anyUuid.optional(),
    object_uuid: z.string().nullable().optional(),
    source_uuid: z.string().nullable().optional(),
    event_uuid: z.string().nullable().optional(),
    referenced_uuid: z.string(),
    referenced_id: z.number().int().nullable().optional(),
    referenced_type: z.number().int().min(0).max(1).nullable().optional(),
    relationship_type: z.string(),
    comment: z.string().optional(),
    timestamp: ignoredTimestamp,
    deleted: z.boolean().optional(),
  })
  .strict();

const objectFields = {
  meta_category: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  template_uuid: z.string().nullable().optional(),
  template_version: z.number().int().nullable().optional(),
  timestamp: ignoredTimestamp,
  distribution: z.number().int().optional(),
  sharing_group_id: z.number().int().nullable().optional(),
  comment: z.string().optional(),
  deleted: z.boolean().optional(),
  first_seen: seenTime.optional(),
  last_seen: seenTime.optional(),
};

type FieldsBody = { name?: string } & { [K in keyof typeof objectFields]?: z.infer<(typeof objectFields)[K]> };
const toFields = (b: FieldsBody): ObjectFields => ({
  name: b.name,
  metaCategory: b.meta_category,
  description: b.description,
  templateUuid: b.template_uuid,
  templateVersion: b.template_version,
  distribution: b.distribution,
  sharingGroupId: b.sharing_group_id,
  comment: b.comment,
  firstSeen: b.first_seen,
  lastSeen: b.last_seen,
  deleted: b.deleted,
});

const toReference = (r: z.infer<typeof referenceBody>): ReferenceCreate => ({
  uuid: r.uuid,
  objectUuid: r.object_uuid,
  sourceUuid: r.source_uuid,
  eventUuid: r.event_uuid,
  referencedUuid: r.referenced_uuid,
  referencedType: r.referenced_type,
  relationshipType: r.relationship_type,
  comment: r.comment,
  deleted: r.deleted,
});

const templateUuids = z.union([anyUuid, z.array(anyUuid).max(50)]).transform((v) => (Array.isArray(v) ? v : [v]));

export const objectRoutes = [
  defineRoute({
    method: "GET", path: "/objects/", operationId: "listObjects", summary: "List objects of readable events with their attributes and references (P1; deleted defaults to false; template_uuid repeatable)", tag: "objects",
    scopes: ["objects:read"], status: 200, response: ObjectPageSchema,
    query: z.object({ ...pageQueryFields, event_uuid: anyUuid.optional(), deleted: queryBool.optional(), template_uuid: templateUuids.optional() }).strict(),
    handler: async ({ principal, query, services }) => {
      const page = await services.objects.list(principal, { eventUuid: query.event_uuid, deleted: query.deleted, templateUuids: query.template_uuid }, query);
      const correlations = await services.correlations.ofAttributes(principal, page.items.flatMap((o) => o.attributes.map((a) => a.uuid)));
      return { ...page, items: page.items.map((o) => objectOut(o, correlations)) };
    },
  }),
  defineRoute({
    method: "GET", path: "/objects/{object_uuid}", operationId: "getObject", summary: "Get an object with its attributes and references", tag: "objects",
    scopes: ["objects:read"], params: uuidParam, status: 200, response: ObjectSchema,
    handler: async ({ principal, params, services }) => {
      const o = await services.objects.get(principal, params.object_uuid);
      return objectOut(o, await services.correlations.ofAttributes(principal, o.attributes.map((a) => a.uuid)));
    },
  }),
  defineRoute({
    method: "POST", path: "/objects/", operationId: "createObject", summary: "Create an object with its attributes and object_references in one transaction", tag: "objects",
    scopes: ["objects:create"], status: 201, wireNames: { references: "object_references" }, response: ObjectSchema, bodyLimit: OBJECT_BODY_LIMIT,
    body: z
      .object({
        name: z.string(),
        event_uuid: anyUuid.optional(),
        uuid: anyUuid.optional(),
        ...objectFields,
        attributes: z.array(attributeCreateWire.object).optional(),
        object_references: z.array(referenceBody).optional(),
      })
      .strict(),
    handler: async ({ principal, body, services }) =>
      objectOut(
        await services.objects.create(principal, {
          ...toFields(body),
          name: body.name,
          eventUuid: body.event_uuid,
          uuid: body.uuid,
          attributes: body.attributes?.map(attributeCreateWire.fromWire),
          references: body.object_references?.map(toReference),
        }),
      ),
  }),
  defineRoute({
    method: "PATCH", path: "/objects/{object_uuid}", operationId: "updateObject", summary: "Update an object: its fields plus new_attributes, update_attributes (by uuid) and delete_attributes (uuids), in one transaction", tag: "objects",
    scopes: ["objects:update"], params: uuidParam, status: 200, response: ObjectSchema, bodyLimit: OBJECT_BODY_LIMIT,
    body: z
      .object({
        name: z.string().optional(),
        ...objectFields,
        new_attributes: z.array(attributeCreateWire.object).optional(),
        update_attributes: z.array(attributePatchWire.object.extend({ uuid: z.string() }).strict()).optional(),
        delete_attributes: z.array(z.string()).optional(),
      })
      .strict(),
    handler: async ({ principal, params, body, services }) => {
      if (Object.keys(body).length === 0) throw errors.invalidField(["body"], "Nothing to update");
      return objectOut(
        await services.objects.update(principal, params.object_uuid, {
          ...toFields(body),
          newAttributes: body.new_attributes?.map(attributeCreateWire.fromWire),
          updateAttributes: body.update_attributes?.map((u) => ({ ...attributePatchWire.fromWire(u), uuid: String(u.uuid) })),
          deleteAttributes: body.delete_attributes,
        }),
      );
    },
  }),
  defineRoute({
    method: "DELETE", path: "/objects/{object_uuid}", operationId: "deleteObject", summary: "Soft-delete an object with its attributes and references (PATCH {\"deleted\": false} restores the object); force=true deletes them for good", tag: "objects",
    scopes: ["objects:delete"], params: uuidParam, status: 204,
    query: z.object({ force: queryBool.default(false) }).strict(),
    handler: ({ principal, params, query, services }) => services.objects.delete(principal, params.object_uuid, { force: query.force }),
  }),
];
