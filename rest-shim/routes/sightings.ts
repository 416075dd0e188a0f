import { z } from "zod";
import { defineRoute } from "../route.ts";
import { wireContract } from "../contract.ts";
import { anyUuid, queryIntInto, queryText } from "../schemas.ts";
import { SightingSearchSchema, SightingsCreatedSchema, sightingsCreatedOut } from "../serializers/sightings.ts";
import { fromZodError } from "../../src/platform/errors.ts";
import { MAX_SIGHTINGS_PER_REQUEST, sightingContract, sightingListContract, type SightingInput } from "../../src/modules/sightings/index.ts";

/**
 * One sighting on the wire: the contract's fields in snake_case, and the peer's `observer`, whose
 * `source` is kept (the organisation is always the caller's). The rules are the contract's, checked
 * by the service (an array's items at their index, a single sighting's fields directly).
 */
const itemWire = wireContract(sightingContract, {
  extra: { observer: z.object({ source: z.string().optional(), organisation: z.string().optional(), organization: z.string().optional() }).strict().optional() },
});
const toInput = (s: Record<string, unknown>): SightingInput => {
  const input = itemWire.fromWire(s);
  const observer = s.observer as { source?: string } | undefined;
  return input.source === undefined && observer?.source !== undefined ? { ...input, source: observer.source } : input;
};

/** One sighting object, or an array of at most 1000 (each form validated alone for clear 422 locations). */
function parseSightings(body: unknown): { single: boolean; items: SightingInput[] } {
  if (Array.isArray(body)) {
    const r = z.array(itemWire.object).max(MAX_SIGHTINGS_PER_REQUEST, `at most ${MAX_SIGHTINGS_PER_REQUEST} sightings per request`).safeParse(body);
    if (!r.success) throw fromZodError(r.error, "body");
    return { single: false, items: r.data.map(toInput) };
  }
  const r = itemWire.object.safeParse(body);
  if (!r.success) throw fromZodError(r.error, "body");
  return { single: true, items: [toInput(r.data)] };
}

const listWire = wireContract(sightingListContract, {
  codecs: {
    page: queryIntInto(sightingListContract.shape.page),
    size: queryIntInto(sightingListContract.shape.size),
    attributeUuid: anyUuid.optional(),
    type: queryText(64).optional(),
  },
});

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
    query: listWire.object,
    handler: ({ principal, query, services }) => services.sightings.list(principal, listWire.fromWire(query)),
  }),
];
