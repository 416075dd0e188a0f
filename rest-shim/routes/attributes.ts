import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, attributeCreateWire, attributePatchWire, pageQueryFields, queryBool, queryText } from "../schemas.ts";
import { AttributePageSchema, AttributeSchema, attributeOut } from "../serializers/attributes.ts";
import { errors } from "../../src/platform/errors.ts";
import { tagName } from "../../src/modules/tags/index.ts";

const uuidParam = z.object({ attribute_uuid: anyUuid }).strict();
const tagParams = z.object({ attribute_uuid: anyUuid, tag: tagName }).strict();

export const attributeRoutes = [
  defineRoute({
    method: "GET", path: "/attributes/", operationId: "listAttributes", summary: "List attributes of readable events, newest change first (P1; without object_uuid only standalone attributes; soft-deleted ones too unless deleted=false)", tag: "attributes",
    scopes: ["attributes:read"], status: 200, response: AttributePageSchema,
    query: z
      .object({
        ...pageQueryFields,
        event_uuid: anyUuid.optional(),
        type: queryText().optional(),
        category: queryText().optional(),
        value: queryText().optional().describe("Part of the value, case-insensitive"),
        object_uuid: anyUuid.optional(),
        deleted: queryBool.optional(),
      })
      .strict(),
    handler: async ({ principal, query, services }) => {
      const page = await services.attributes.list(
        principal,
        { eventUuid: query.event_uuid, type: query.type, category: query.category, value: query.value, objectUuid: query.object_uuid, deleted: query.deleted },
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
    body: attributeCreateWire.object,
    handler: async ({ principal, body, services }) => attributeOut(await services.attributes.create(principal, attributeCreateWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/attributes/{attribute_uuid}", operationId: "updateAttribute", summary: "Update an attribute (type, category and value are re-validated together; timestamps move forward)", tag: "attributes",
    scopes: ["attributes:update"], params: uuidParam, status: 200, response: AttributeSchema,
    body: attributePatchWire.object,
    handler: async ({ principal, params, body, services }) => {
      if (Object.keys(body).length === 0) throw errors.invalidField(["body"], "Nothing to update");
      return attributeOut(await services.attributes.update(principal, params.attribute_uuid, attributePatchWire.fromWire(body)));
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
