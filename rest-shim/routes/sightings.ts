import { z } from "zod";
import { defineRoute } from "../route.ts";
import { anyUuid, queryIntOptional, queryText } from "../schemas.ts";
import { SightingSearchSchema, SightingsCreatedSchema, sightingsCreatedOut } from "../serializers/sightings.ts";
import { fromZodError } from "../../src/platform/errors.ts";
import { MAX_SIGHTINGS_PER_REQUEST, type SightingInput } from "../../src/modules/sightings/index.ts";

const sightingItem = z
  .object({
    value: z.string().optional(),
    type: z.union([z.string().max(64), z.number().int()]).optional(),
    timestamp: z.number().optional(),
    attribute_uuid: z.string().optional(),
    source: z.string().optional(),
    /** The peer's observer; the organisation is always the caller's, `source` is kept. */
    observer: z.object({ source: z.string().optional(), organisation: z.string().optional(), organization: z.string().optional() }).strict().optional(),
  })
  .strict();

const toInput = (s: z.infer<typeof sightingItem>): SightingInput => ({
  value: s.value,
  type: s.type,
  timestamp: s.timestamp,
  attributeUuid: s.attribute_uuid,
  source: s.source ?? s.observer?.source,
});

/** One sighting object, or an array of at most 1000 (validated separately for clear 422 locations). */
function parseSightings(body: unknown): { single: boolean; items: SightingInput[] } {
  if (Array.isArray(body)) {
    const r = z.array(sightingItem).max(MAX_SIGHTINGS_PER_REQUEST).safeParse(body);
    if (!r.success) throw fromZodError(r.error, "body");
    return { single: false, items: r.data.map(toInput) };
  }
  const r = sightingItem.safeParse(body);
  if (!r.success) throw fromZodError(r.error, "body");
  return { single: true, items: [toInput(r.data)] };
}

export const sightingRoutes = [
  defineRoute({
    method: "POST", path: "/sightings/", operationId: "createSighting", summary: "Record sightings: one object or an array (at most 1000) of {value, type, timestamp?, attribute_uuid?, source?}; each applies to the named attribute or to every readable live attribute with that exact value", tag: "sightings",
    scopes: ["sightings:create"], status: 201, response: SightingsCreatedSchema,
    body: z.unknown(),
    handler: async ({ principal, body, services }) => {
      const { single, items } = parseSightings(body);
      return sightingsCreatedOut(await services.sightings.create(principal, items, { skipEmpty: !single }), single);
    },
  }),
  defineRoute({
    method: "GET", path: "/sightings/", operationId: "listSightings", summary: "List sightings of readable attributes, newest first (P3 envelope; results are {_id, _source} hits)", tag: "sightings",
    scopes: ["sightings:read"], status: 200, response: SightingSearchSchema,
    query: z
      .object({
        page: queryIntOptional(1, 1_000_000).default(1),
        size: queryIntOptional(1, 100).default(10),
        attribute_uuid: anyUuid.optional(),
        type: queryText(64).optional(),
      })
      .strict(),
    handler: ({ principal, query, services }) =>
      services.sightings.list(principal, { page: query.page, size: query.size, attributeUuid: query.attribute_uuid, type: query.type }),
  }),
];
