import { z } from "zod";
import { errors, parseInput } from "../../src/platform/errors.ts";
import type { SightingInput } from "../../src/modules/sightings/index.ts";
import { named } from "../contract.ts";
import { attributeUuidOf, defineMispRoute, mispRef, type MispRef } from "./misp-route.ts";
import { mispSighting } from "./misp-shapes.ts";

const MAX_VALUES = 1000;
const text = z.union([z.string(), z.number()]).transform(String);

/** A sighting as MISP clients send it (`{"Sighting": {...}}` or bare): the attribute by uuid or id, or values to look for. */
const mispSightingInput = z
  .object({
    uuid: z.string().max(64).optional(),
    id: text.optional(),
    value: text.optional(),
    values: z.array(text).max(MAX_VALUES).optional(),
    source: z.string().optional(),
    type: z.union([z.string().max(64), z.number().int()]).optional(),
    timestamp: z.union([z.number(), z.string().regex(/^\d{1,12}(\.\d+)?$/).transform(Number)]).optional(),
  })
  .loose();

const MispSightingBodySchema = named(
  "MispSightingBody",
  z.object({ Sighting: z.object({ id: z.string(), attribute_id: z.string(), event_id: z.string(), org_id: z.string(), uuid: z.uuid(), type: z.string() }).loose() }),
  "The first sighting stored, as MISP answers sightings/add",
);

/** The route's attribute, or the body's `uuid` / `id`; null: the values' attributes. */
function attributeRef(path: MispRef | undefined, body: z.output<typeof mispSightingInput>): MispRef | null {
  if (path) return path;
  const given = body.uuid ?? body.id;
  if (given === undefined) return null;
  const r = mispRef.safeParse(given);
  if (!r.success) throw errors.notFound("Attribute");
  return r.data;
}

export const mispSightingRoutes = [undefined, z.object({ attribute_id: mispRef }).strict()].map((params) =>
  defineMispRoute({
    method: "POST", path: params ? "/misp/sightings/add/{attribute_id}" : "/misp/sightings/add", operationId: params ? "mispAddSightingOfAttribute" : "mispAddSighting",
    summary: "MISP sightings/add: a sighting of an attribute (by the path, or uuid / id in the body) or of every readable attribute holding value / values; type 0 sighting, 1 false positive, 2 expiration",
    scopes: ["sightings:create"], params, status: 200, response: MispSightingBodySchema, body: z.unknown(),
    misp: { notFound: "Invalid attribute", saveFailed: "add Sighting" },
    handler: async ({ principal, params: p, body, services }) => {
      const given = body && typeof body === "object" && "Sighting" in body ? (body as { Sighting: unknown }).Sighting : body;
      const s = parseInput(mispSightingInput, given ?? {});
      const ref = attributeRef((p as { attribute_id?: MispRef } | undefined)?.attribute_id, s);
      const attributeUuid = ref ? await attributeUuidOf(services, principal, ref) : undefined;
      const values = s.values ?? (s.value !== undefined ? [s.value] : []);
      if (!attributeUuid && values.length === 0) throw errors.invalidInput(["value"], "No valid attributes found: give an attribute (uuid or id) or values");
      const base = { ...(s.type !== undefined ? { type: s.type } : {}), ...(s.source !== undefined ? { source: s.source } : {}), ...(s.timestamp !== undefined ? { timestamp: s.timestamp } : {}) };
      const items: SightingInput[] = values.length ? values.map((value) => ({ ...base, value, ...(attributeUuid ? { attributeUuid } : {}) })) : [{ ...base, attributeUuid }];
      const result = await services.sightings.create(principal, items, { skipEmpty: false });
      if (!result.stored.length) throw errors.notFound("Attribute");
      return { Sighting: mispSighting(result.stored[0]) };
    },
  }),
);
