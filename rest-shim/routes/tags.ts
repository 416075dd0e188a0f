import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { idParams, queryBool, queryIntInto } from "../schemas.ts";
import { TagPageSchema, TagRecordSchema, tagRecordOut } from "../serializers/tags.ts";
import { tagCreateContract, tagListContract, tagUpdateContract } from "../../src/modules/tags/index.ts";

const createWire = wireContract(tagCreateContract);
const updateWire = wireContract(tagUpdateContract);
/** The query string's numbers and flags are text; their bounds are the contract's. */
const listWire = wireContract(tagListContract, {
  codecs: { page: queryIntInto(tagListContract.shape.page), size: queryIntInto(tagListContract.shape.size), hidden: queryBool.optional() },
});

export const tagRoutes = [
  defineRoute({
    method: "GET", path: "/tags/", operationId: "listTags", summary: "List tags by name (P2: size up to 1000, default 20; filter is a case-insensitive substring of the name)", tag: "tags",
    scopes: ["tags:read"], status: 200, response: TagPageSchema,
    query: listWire.object,
    handler: async ({ principal, query, services }) => {
      const page = await services.tags.list(principal, listWire.fromWire(query));
      return { ...page, items: page.items.map(tagRecordOut) };
    },
  }),
  defineRoute({
    method: "GET", path: "/tags/{tag_id}", operationId: "getTag", summary: "Get a tag", tag: "tags",
    scopes: ["tags:read"], params: idParams("tag_id"), status: 200, response: TagRecordSchema,
    handler: async ({ principal, params, services }) => tagRecordOut(await services.tags.get(principal, params.tag_id)),
  }),
  defineRoute({
    method: "POST", path: "/tags/", operationId: "createTag", summary: "Create a tag (unique name; colour #rrggbb, default derived from the name)", tag: "tags",
    scopes: ["tags:create"], status: 201, response: TagRecordSchema,
    body: createWire.object,
    handler: async ({ principal, body, services }) => tagRecordOut(await services.tags.create(principal, createWire.fromWire(body))),
  }),
  defineRoute({
    method: "PATCH", path: "/tags/{tag_id}", operationId: "updateTag", summary: "Update a tag", tag: "tags",
    scopes: ["tags:update", "tags:admin"], params: idParams("tag_id"), status: 200, response: TagRecordSchema,
    body: updateWire.object,
    handler: async ({ principal, params, body, services }) => tagRecordOut(await services.tags.update(principal, params.tag_id, updateWire.fromWire(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/tags/{tag_id}", operationId: "deleteTag", summary: "Delete a tag and its links to events and attributes", tag: "tags",
    scopes: ["tags:delete", "tags:admin"], params: idParams("tag_id"), status: 204,
    handler: ({ principal, params, services }) => services.tags.delete(principal, params.tag_id),
  }),
];
