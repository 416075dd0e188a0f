import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, attributeCreateWire, attributeWire, ignoredTimestamp, pageQueryFields, queryBool, seenTime } from "../schemas.ts";
import { wireContract } from "../contract.ts";
import { ObjectPageSchema, ObjectSchema, objectOut } from "../serializers/objects.ts";
import { errors } from "../../src/platform/errors.ts";
import { attributeUpdateInObjectContract, objectCreateContract, objectPatchContract, referenceCreateContract } from "../../src/modules/objects/index.ts";

/** An object with a few thousand attributes is well over the default 1 MiB. */
const OBJECT_BODY_LIMIT = 16 * 1024 * 1024;

const uuidParam = z.object({ object_uuid: anyUuid }).strict();

/** MISP's reference as sent: its timestamp and referenced_id are accepted and ignored. */
const referenceWire = wireContract(referenceCreateContract, { extra: { timestamp: ignoredTimestamp, referenced_id: z.number().int().nullable().optional() } });
const seenTimes = { firstSeen: seenTime.optional(), lastSeen: seenTime.optional() };
const objectCreateWire = wireContract(objectCreateContract, {
  names: { references: "object_references" },
  codecs: { ...seenTimes, attributes: z.array(attributeCreateWire.schema).optional(), references: z.array(referenceWire.schema).optional() },
  extra: { timestamp: ignoredTimestamp },
});
const attributeUpdateWire = wireContract(attributeUpdateInObjectContract, attributeWire);
const objectPatchWire = wireContract(objectPatchContract, {
  codecs: { ...seenTimes, newAttributes: z.array(attributeCreateWire.schema).optional(), updateAttributes: z.array(attributeUpdateWire.schema).optional() },
  extra: { timestamp: ignoredTimestamp },
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
    body: objectCreateWire.object,
    handler: async ({ principal, body, services }) => objectOut(await services.objects.create(principal, objectCreateWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/objects/{object_uuid}", operationId: "updateObject", summary: "Update an object: its fields plus new_attributes, update_attributes (by uuid) and delete_attributes (uuids), in one transaction", tag: "objects",
    scopes: ["objects:update"], params: uuidParam, status: 200, response: ObjectSchema, bodyLimit: OBJECT_BODY_LIMIT,
    body: objectPatchWire.object,
    handler: async ({ principal, params, body, services }) => {
      if (Object.keys(body).length === 0) throw errors.invalidField(["body"], "Nothing to update");
      return objectOut(await services.objects.update(principal, params.object_uuid, objectPatchWire.fromWire(body)));
    },
  }),
  defineRoute({
    method: "DELETE", path: "/objects/{object_uuid}", operationId: "deleteObject", summary: "Soft-delete an object with its attributes and references (PATCH {\"deleted\": false} restores the object); force=true deletes them for good", tag: "objects",
    scopes: ["objects:delete"], params: uuidParam, status: 204,
    query: z.object({ force: queryBool.default(false) }).strict(),
    handler: ({ principal, params, query, services }) => services.objects.delete(principal, params.object_uuid, { force: query.force }),
  }),
];
