import { z } from "zod";
import { defineRoute } from "../route.ts";
import { idParams, queryBool, queryIntOptional, queryText } from "../schemas.ts";
import { TagPageSchema, TagRecordSchema, tagRecordOut } from "../serializers/tags.ts";
import { P2_DEFAULT_SIZE, P2_MAX_SIZE } from "../../src/modules/galaxies/index.ts";
import type { TagFields } from "../../src/modules/tags/index.ts";

const tagFields = {
  colour: z.string().optional(),
  exportable: z.boolean().optional(),
  hide_tag: z.boolean().optional(),
  is_galaxy: z.boolean().optional(),
  is_custom_galaxy: z.boolean().optional(),
  local_only: z.boolean().optional(),
  numerical_value: z.number().int().nullable().optional(),
  org_id: z.number().int().nullable().optional(),
  user_id: z.number().int().nullable().optional(),
};

type TagBody = { name?: string } & { [K in keyof typeof tagFields]?: z.infer<(typeof tagFields)[K]> };
const toFields = (b: TagBody): TagFields => ({
  name: b.name,
  colour: b.colour,
  exportable: b.exportable,
  hideTag: b.hide_tag,
  isGalaxy: b.is_galaxy,
  isCustomGalaxy: b.is_custom_galaxy,
  localOnly: b.local_only,
  numericalValue: b.numerical_value,
  orgId: b.org_id,
  userId: b.user_id,
});

export const tagRoutes = [
  defineRoute({
    method: "GET", path: "/tags/", operationId: "listTags", summary: "List tags by name (P2: size up to 1000, default 20; filter is a case-insensitive substring of the name)", tag: "tags",
    scopes: ["tags:read"], status: 200, response: TagPageSchema,
    query: z
      .object({
        page: queryIntOptional(1, 1_000_000).default(1),
        size: queryIntOptional(1, P2_MAX_SIZE).default(P2_DEFAULT_SIZE),
        filter: queryText().optional(),
        hidden: queryBool.optional(),
      })
      .strict(),
    handler: async ({ principal, query, services }) => {
      const page = await services.tags.list(principal, query);
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
    body: z.object({ name: z.string(), ...tagFields }).strict(),
    handler: async ({ principal, body, services }) => tagRecordOut(await services.tags.create(principal, { ...toFields(body), name: body.name })),
  }),
  defineRoute({
    method: "PATCH", path: "/tags/{tag_id}", operationId: "updateTag", summary: "Update a tag", tag: "tags",
    scopes: ["tags:update", "tags:admin"], params: idParams("tag_id"), status: 200, response: TagRecordSchema,
    body: z.object({ name: z.string().optional(), ...tagFields }).strict(),
    handler: async ({ principal, params, body, services }) => tagRecordOut(await services.tags.update(principal, params.tag_id, toFields(body))),
  }),
  defineRoute({
    method: "DELETE", path: "/tags/{tag_id}", operationId: "deleteTag", summary: "Delete a tag and its links to events and attributes", tag: "tags",
    scopes: ["tags:delete", "tags:admin"], params: idParams("tag_id"), status: 204,
    handler: ({ principal, params, services }) => services.tags.delete(principal, params.tag_id),
  }),
];
