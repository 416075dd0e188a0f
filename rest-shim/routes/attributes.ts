import { z } from "zod";
import { defineRoute } from "../route.ts";
import { pageQueryFields, queryBool } from "../schemas.ts";
import { AttributePageSchema, AttributeSchema, attributeOut } from "../serializers/attributes.ts";
import { errors } from "../../src/platform/errors.ts";
import type { AttributeCreate, AttributePatch } from "../../src/modules/attributes/index.ts";

/**
 * Any 8-4-4-4-12 hex uuid (MISP data holds uuids of every version and variant), lower-cased.
 * Bounds, NUL bytes and the MISP type rules are checked by the services, for GraphQL as well.
 */
export const anyUuid = z.guid().transform((u) => u.toLowerCase());

/** Query text: never a NUL byte (PostgreSQL refuses it), at most `max` characters. */
export const queryText = (max = 255) => z.string().max(max).refine((s) => !s.includes("\0"), "must not contain NUL bytes");

const MAX_EPOCH = 253_402_300_799;

/** first_seen / last_seen: epoch seconds as the peer, or an ISO 8601 time (no offset: UTC). */
export const seenTime = z
  .union([z.number().min(0).max(MAX_EPOCH), z.iso.datetime({ offset: true, local: true })])
  .nullable()
  .transform((v) => (v === null ? null : typeof v === "number" ? new Date(Math.round(v * 1000)) : new Date(/(Z|[+-]\d{2}:?\d{2})$/.test(v) ? v : `${v}Z`)));

/** The peer's `timestamp` fields: accepted for its clients, but the server stamps every write. */
export const ignoredTimestamp = z.number().min(0).max(MAX_EPOCH).nullable().optional();

const attributeFields = {
  category: z.string().optional(),
  object_relation: z.string().nullable().optional(),
  to_ids: z.boolean().optional(),
  timestamp: ignoredTimestamp,
  distribution: z.number().int().optional(),
  sharing_group_id: z.number().int().nullable().optional(),
  comment: z.string().optional(),
  deleted: z.boolean().optional(),
  disable_correlation: z.boolean().optional(),
  first_seen: seenTime.optional(),
  last_seen: seenTime.optional(),
};

/** AttributeCreate of the peer (also the items of an object's `attributes` and `new_attributes`). */
export const attributeCreateBody = z
  .object({
    type: z.string(),
    value: z.string(),
    event_uuid: anyUuid.optional(),
    object_uuid: anyUuid.nullable().optional(),
    uuid: anyUuid.optional(),
    ...attributeFields,
  })
  .strict();

export const attributePatchBody = z
  .object({ type: z.string().optional(), value: z.string().optional(), object_uuid: anyUuid.nullable().optional(), ...attributeFields })
  .strict();

type FieldsBody = Partial<z.infer<typeof attributePatchBody>>;

const fieldsOf = (b: FieldsBody): AttributePatch => ({
  type: b.type,
  category: b.category,
  value: b.value,
  toIds: b.to_ids,
  comment: b.comment,
  distribution: b.distribution,
  sharingGroupId: b.sharing_group_id,
  firstSeen: b.first_seen,
  lastSeen: b.last_seen,
  deleted: b.deleted,
  disableCorrelation: b.disable_correlation,
  objectRelation: b.object_relation,
  objectUuid: b.object_uuid,
});

export const toAttributeCreate = (b: z.infer<typeof attributeCreateBody>): AttributeCreate => ({
  ...fieldsOf(b),
  type: b.type,
  value: b.value,
  uuid: b.uuid,
  eventUuid: b.event_uuid,
});

export const toAttributePatch = fieldsOf;

const uuidParam = z.object({ attribute_uuid: anyUuid }).strict();
const tagParams = z.object({ attribute_uuid: anyUuid, tag: z.string().min(1).max(255) }).strict();

export const attributeRoutes = [
  defineRoute({
    method: "GET", path: "/attributes/", operationId: "listAttributes", summary: "List attributes of readable events, newest change first (P1; without object_uuid only standalone attributes; soft-deleted ones too unless deleted=false)", tag: "attributes",
    scopes: ["attributes:read"], status: 200, response: AttributePageSchema,
    query: z
      .object({ ...pageQueryFields, event_uuid: anyUuid.optional(), type: queryText().optional(), object_uuid: anyUuid.optional(), deleted: queryBool.optional() })
      .strict(),
    handler: async ({ principal, query, services }) => {
      const page = await services.attributes.list(
        principal,
        { eventUuid: query.event_uuid, type: query.type, objectUuid: query.object_uuid, deleted: query.deleted },
        query,
      );
      const correlations = await services.correlations.ofAttributes(principal, page.items.map((a) => a.uuid));
      return { ...page, items: page.items.map((a) => attributeOut(a, "list", correlations.get(a.uuid))) };
    },
  }),
  defineRoute({
    method: "GET", path: "/attributes/{attribute_uuid}", operationId: "getAttribute", summary: "Get an attribute (soft-deleted ones included)", tag: "attributes",
    scopes: ["attributes:read"], params: uuidParam, status: 200, response: AttributeSchema,
    handler: async ({ principal, params, services }) => attributeOut(await services.attributes.get(principal, params.attribute_uuid)),
  }),
  defineRoute({
    method: "POST", path: "/attributes/", operationId: "createAttribute", summary: "Create an attribute: the type must be known, the category valid for it (default from the catalogue), the value valid (stored normalised); timestamp is set by the server", tag: "attributes",
    scopes: ["attributes:create"], status: 201, response: AttributeSchema,
    body: attributeCreateBody,
    handler: async ({ principal, body, services }) => attributeOut(await services.attributes.create(principal, toAttributeCreate(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/attributes/{attribute_uuid}", operationId: "updateAttribute", summary: "Update an attribute (type, category and value are re-validated together; timestamps move forward)", tag: "attributes",
    scopes: ["attributes:update"], params: uuidParam, status: 200, response: AttributeSchema,
    body: attributePatchBody,
    handler: async ({ principal, params, body, services }) => {
      if (Object.keys(body).length === 0) throw errors.invalidField(["body"], "Nothing to update");
      return attributeOut(await services.attributes.update(principal, params.attribute_uuid, toAttributePatch(body)));
    },
  }),
  defineRoute({
    method: "DELETE", path: "/attributes/{attribute_uuid}", operationId: "deleteAttribute", summary: "Soft-delete an attribute (deleted = true, as MISP; PATCH {\"deleted\": false} restores it); force=true deletes it for good", tag: "attributes",
    scopes: ["attributes:delete"], params: uuidParam, status: 204,
    query: z.object({ force: queryBool.default(false) }).strict(),
    handler: ({ principal, params, query, services }) => services.attributes.delete(principal, params.attribute_uuid, { force: query.force }),
  }),
  defineRoute({
    method: "POST", path: "/attributes/{attribute_uuid}/tag/{tag}", operationId: "tagAttribute", summary: "Tag an attribute (the tag is created when missing); 201 with an empty body", tag: "attributes",
    scopes: ["attributes:tag"], params: tagParams, status: 201, emptyBody: true,
    handler: async ({ principal, params, services }) => {
      await services.attributes.tag(principal, params.attribute_uuid, params.tag);
      return undefined; // the peer answers 201 with an empty body
    },
  }),
  defineRoute({
    method: "DELETE", path: "/attributes/{attribute_uuid}/tag/{tag}", operationId: "untagAttribute", summary: "Remove a tag from an attribute (name matched case-insensitively)", tag: "attributes",
    scopes: ["attributes:tag"], params: tagParams, status: 204,
    handler: ({ principal, params, services }) => services.attributes.untag(principal, params.attribute_uuid, params.tag),
  }),
];
